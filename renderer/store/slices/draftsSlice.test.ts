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

describe("the new conversation's early session", () => {
  /** A store on a new conversation with Claude in /w, and the host's answers to early sessions. */
  function drafting() {
    let next = 0;
    const { api, calls } = testApi({
      openEarlySession: () => ({ conversationId: `early-${++next}` }),
      closeEarlySession: () => ({ closed: true }),
    });
    const store = createBatonStore(api);
    store.setState({ selection: { kind: 'draft' }, draft: { agentId: 'claude', cwd: '/w' }, draftFolderProblem: null });
    return { store, calls };
  }
  const methods = (calls: Array<{ method: string }>): string[] => calls.map((call) => call.method);

  it('opens once the box has text, keeps it while nothing changes, and hands its id to Send', async () => {
    const { store, calls } = drafting();
    await store.getState().prepareEarlySession();
    expect(calls).toEqual([]);
    store.setState({ composer: { draft: 'hello' } });
    await store.getState().prepareEarlySession();
    await store.getState().prepareEarlySession();
    expect(methods(calls)).toEqual(['openEarlySession']);
    expect(calls[0]?.params).toMatchObject({ agentId: 'claude', cwd: '/w' });
    expect(await store.getState().takeEarlySession()).toBe('early-1');
    expect(store.getState().earlySession).toBeNull();
  });

  it('closes the session opened for other settings and opens one for the new ones', async () => {
    const { store, calls } = drafting();
    store.setState({ composer: { draft: 'hello' } });
    await store.getState().prepareEarlySession();
    store.setState({ draft: { agentId: 'claude', cwd: '/elsewhere' } });
    await store.getState().prepareEarlySession();
    expect(methods(calls)).toEqual(['openEarlySession', 'closeEarlySession', 'openEarlySession']);
    expect(calls[1]?.params).toEqual({ conversationId: 'early-1' });
    expect(calls[2]?.params).toMatchObject({ cwd: '/elsewhere' });
    // Changed again after it opened: Send does not take it, and it is closed.
    store.setState({ draft: { agentId: 'claude', cwd: '/third' } });
    expect(await store.getState().takeEarlySession()).toBeUndefined();
    expect(calls.at(-1)).toEqual({ method: 'closeEarlySession', params: { conversationId: 'early-2' } });
  });

  it('closes it when the box is emptied or the folder has a problem, and survives a refusal', async () => {
    const { store, calls } = drafting();
    store.setState({ composer: { draft: 'hello' } });
    await store.getState().prepareEarlySession();
    store.setState({ composer: { draft: '  ' } });
    await store.getState().prepareEarlySession();
    expect(methods(calls)).toEqual(['openEarlySession', 'closeEarlySession']);
    store.setState({ composer: { draft: 'again' }, draftFolderProblem: 'The folder /w does not exist.' });
    await store.getState().prepareEarlySession();
    expect(methods(calls)).toHaveLength(2);

    const refused = testApi({
      openEarlySession: () => {
        throw new Error('Claude is not installed.');
      },
    });
    const other = createBatonStore(refused.api);
    other.setState({
      selection: { kind: 'draft' },
      draft: { agentId: 'claude', cwd: '/w' },
      draftFolderProblem: null,
      composer: { draft: 'hi' },
    });
    await other.getState().prepareEarlySession();
    expect(other.getState().error).toBeNull();
    expect(await other.getState().takeEarlySession()).toBeUndefined();
  });
});
