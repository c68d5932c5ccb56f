import { describe, expect, it } from 'vitest';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import { createBatonStore } from '../store.js';
import { testApi } from '../testApi.js';

const agent = (agentId: string, displayName: string): AgentInfo => ({
  agentId,
  displayName,
  source: 'builtin',
  tested: true,
  command: agentId,
  available: true,
  usesTools: true,
});

/**
 * A store whose Instructions dialog holds "Be brief." (added to the prompt), with three agents installed: Gemini refuses, Qwen cannot be
 * asked.
 */
function dialogWith() {
  // The agents whose delivery the person turned off: the host then refuses nothing for them.
  const off = new Set<string>();
  const { api, calls } = testApi({
    previewInstructions: (params) => {
      const { agentId } = params as { agentId: string };
      if (agentId === 'qwen') {
        throw new Error('Qwen wants a log-in');
      }
      const refuses = agentId === 'gemini' && !off.has(agentId);
      return {
        preview: {
          agentName: agentId === 'gemini' ? 'Gemini' : 'Claude',
          refusal: refuses ? 'Gemini cannot add to its own prompt; replace it instead' : null,
          commandLine: false,
        },
      } as never;
    },
    saveInstructions: () => ({}),
    setAgentInstructionSettings: (params) => {
      const { agentId, settings } = params;
      if (settings.off) {
        off.add(agentId);
      }
      return {};
    },
  });
  const store = createBatonStore(api);
  store.setState({
    agents: [agent('claude', 'Claude'), agent('gemini', 'Gemini'), agent('qwen', 'Qwen')],
    draft: { agentId: 'claude', cwd: '/work' },
    instructionsDialog: {
      person: { text: 'Be brief.', intent: 'append' },
      conversation: { text: '', intent: 'append' },
      profile: null,
      injectors: { names: [], off: false },
      preview: null,
      problem: null,
      saving: false,
    },
  });
  return { store, calls };
}

describe('saving instructions', () => {
  it('first lists the agents that would refuse them, each with its ways out; an agent that cannot be asked holds nothing up; Save again saves anyway', async () => {
    const { store, calls } = dialogWith();
    await store.getState().saveInstructions();
    expect(store.getState().instructionsDialog?.cannotTake).toEqual([
      { agentId: 'gemini', agentName: 'Gemini', refusal: 'Gemini cannot add to its own prompt; replace it instead', commandLine: false },
    ]);
    expect(calls.filter((call) => call.method === 'saveInstructions')).toEqual([]);
    await store.getState().saveInstructions(true);
    expect(calls.filter((call) => call.method === 'saveInstructions')).toEqual([
      { method: 'saveInstructions', params: { person: { text: 'Be brief.', intent: 'append' } } },
    ]);
    expect(store.getState().instructionsDialog).toBeNull();
  });

  it('takes an agent off the list once its instructions are turned off, and then saves at once', async () => {
    const { store, calls } = dialogWith();
    await store.getState().saveInstructions();
    await store.getState().setAgentInstructionSettings({ off: true }, 'gemini');
    expect(calls).toContainEqual({ method: 'setAgentInstructionSettings', params: { agentId: 'gemini', settings: { off: true } } });
    expect(store.getState().instructionsDialog?.cannotTake).toEqual([]);
    await store.getState().saveInstructions();
    expect(calls.filter((call) => call.method === 'saveInstructions')).toHaveLength(1);
    expect(store.getState().instructionsDialog).toBeNull();
  });

  it('asks again on the next Save once the text changes', async () => {
    const { store } = dialogWith();
    await store.getState().saveInstructions();
    expect(store.getState().instructionsDialog?.cannotTake).toHaveLength(1);
    store.getState().editInstructions('person', { intent: 'replace' });
    expect(store.getState().instructionsDialog?.cannotTake).toBeUndefined();
  });
});
