import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentChoices, rememberOptions } from '../../persisted/agentChoices.js';
import { createBatonStore } from '../store.js';
import { testApi } from '../testApi.js';
import { emptyBuffered } from '../transcriptBuffer.js';

/** A localStorage of the test's own, where the agent choices are remembered. */
class MemoryStorage {
  private readonly values = new Map<string, string>();
  getItem(key: string): string | null {
    return this.values.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.values.set(key, value);
  }
  removeItem(key: string): void {
    this.values.delete(key);
  }
}

beforeEach(() => {
  (globalThis as { localStorage?: unknown }).localStorage = new MemoryStorage();
});
afterEach(() => {
  delete (globalThis as { localStorage?: unknown }).localStorage;
});

/** A store with a Claude conversation open whose session offers Manual and Auto. */
function claudeConversation() {
  const { api, calls } = testApi({ setSessionOption: () => ({}) });
  const store = createBatonStore(api);
  const buffered = emptyBuffered('c');
  const mode = {
    id: 'mode',
    name: 'Mode',
    type: 'select' as const,
    category: 'mode',
    currentValue: 'default',
    options: [
      { value: 'default', name: 'Manual' },
      { value: 'auto', name: 'Auto', selfApproving: true },
    ],
  };
  rememberOptions('claude', [mode]);
  store.setState({
    selection: { kind: 'conversation', conversationId: 'c' },
    transcripts: { c: { ...buffered, state: { ...buffered.state, agentId: 'claude', sessionOptions: [mode] } } },
  });
  return { store, calls };
}

describe('session options chosen in a conversation', () => {
  it('are applied to it and remembered for the agent', async () => {
    const { store, calls } = claudeConversation();
    await store.getState().setSessionOption('mode', 'default');
    expect(calls).toEqual([{ method: 'setSessionOption', params: { conversationId: 'c', optionId: 'mode', value: 'default' } }]);
    expect(agentChoices('claude')?.chosen).toEqual({ mode: 'default' });
  });

  it("never make a mode where the agent decides alone the agent's default", async () => {
    const { store, calls } = claudeConversation();
    await store.getState().setSessionOption('mode', 'auto');
    expect(calls).toHaveLength(1);
    expect(agentChoices('claude')?.chosen).toEqual({});
  });
});
