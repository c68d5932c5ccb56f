/**
 * The agents slice: the list as the host answers it (why `agents.json` was not read, the
 * registry's status), capability cards asked once (and why one could not be had), and installs,
 * updates and removals with their progress, their outcome said, a failure kept until read, and an
 * archive without a checksum waiting for the person's yes.
 */
import { describe, expect, it } from 'vitest';
import { agentInfoSchema, type AgentInfo } from '../../../app/agents/agentInfo.js';
import { BatonError } from '../../../app/errors.js';
import type { Result } from '../../../app/ipc/index.js';
import { createBatonStore } from '../store.js';
import { testApi, type Answers } from '../testApi.js';

const agent = (agentId: string, overrides: Partial<AgentInfo> = {}): AgentInfo =>
  agentInfoSchema.parse({
    agentId,
    displayName: agentId.toUpperCase(),
    source: 'registry',
    command: agentId,
    available: false,
    ...overrides,
  });

const list = (agents: AgentInfo[], agentsFileProblem: string | null = null): Result<'listAgents'> => ({
  agents,
  agentsFileProblem,
  registry: null,
});

function agentsStore(answers: Answers) {
  const { api, calls } = testApi(answers);
  return { store: createBatonStore(api), calls };
}

describe('the agents slice', () => {
  it('takes the list with why agents.json was not read', () => {
    const { store } = agentsStore({});
    store.getState().setAgentList(list([agent('kilo')], 'agents.json line 3: not JSON'));
    expect(store.getState()).toMatchObject({ agents: [{ agentId: 'kilo' }], agentsFileProblem: 'agents.json line 3: not JSON' });
  });

  it('asks for a capability card once; one that could not be had says why, and is asked again once forgotten', async () => {
    let asked = 0;
    const { store } = agentsStore({
      describeAgent: () => {
        asked += 1;
        if (asked === 1) {
          throw new BatonError('AuthRequired', 'KILO needs a log-in first.');
        }
        return { card: { agentId: 'kilo', displayName: 'KILO' } } as never;
      },
    });
    await store.getState().describeAgent('kilo');
    expect(store.getState().cards.kilo).toEqual({ error: 'KILO needs a log-in first.' });
    await store.getState().describeAgent('kilo');
    expect(store.getState().cards.kilo?.card).toMatchObject({ agentId: 'kilo' });
    await store.getState().describeAgent('kilo');
    expect(asked).toBe(2);
    store.getState().forgetCard('kilo');
    expect(store.getState().cards.kilo).toBeUndefined();
  });

  it('an install shows its progress while it runs, then says it is installed and takes the new list', async () => {
    let finish: (value: Result<'installAgent'>) => void = () => {};
    const { store, calls } = agentsStore({ installAgent: () => new Promise((resolve) => (finish = resolve)) });
    store.getState().setAgentList(list([agent('kilo')]));
    const installing = store.getState().installAgent('kilo');
    expect(store.getState().installs.kilo).toEqual({ action: 'install', lines: [], running: true, error: null });
    store.getState().receiveInstallProgress('kilo', 'install', 'added 12 packages');
    expect(store.getState().installs.kilo?.lines).toEqual(['added 12 packages']);
    finish(list([agent('kilo', { available: true, managed: { installed: '1.0.0', inUse: true } })]));
    await installing;
    expect(store.getState().installs.kilo).toBeUndefined();
    expect(store.getState().info).toBe('KILO is installed.');
    expect(store.getState().agents[0]?.available).toBe(true);
    expect(calls[0]).toEqual({ method: 'installAgent', params: { agentId: 'kilo' } });
  });

  it('keeps only the last lines of a long install', () => {
    const { store } = agentsStore({});
    for (let line = 0; line < 250; line += 1) {
      store.getState().receiveInstallProgress('kilo', 'update', `line ${line}`);
    }
    const { lines } = store.getState().installs.kilo!;
    expect(lines).toHaveLength(200);
    expect(lines[0]).toBe('line 50');
    expect(lines.at(-1)).toBe('line 249');
  });

  it('an agent installed before is updated; a removal says it is removed', async () => {
    const { store } = agentsStore({ installAgent: () => list([]), removeAgent: () => list([]) });
    store.getState().setAgentList(list([agent('kilo', { managed: { installed: '1.0.0', inUse: true } })]));
    await store.getState().installAgent('kilo');
    expect(store.getState().info).toBe('KILO is updated.');
    store.getState().setAgentList(list([agent('kilo', { managed: { installed: '1.0.0', inUse: true } })]));
    await store.getState().removeAgent('kilo');
    expect(store.getState().info).toBe('KILO is removed.');
  });

  it('a failed install keeps its message until read; an archive without a checksum waits for a yes', async () => {
    let unverifiedAsked = false;
    const { store, calls } = agentsStore({
      installAgent: (params) => {
        if (params.agentId === 'broken') {
          throw new BatonError('Internal', 'npm could not reach the registry.');
        }
        if (!params.unverified) {
          throw new BatonError('UnverifiedDownload', 'The archive of CLINE has no checksum.', { url: 'https://example.com/cline.tar.gz' });
        }
        unverifiedAsked = true;
        return list([]);
      },
    });
    store.getState().setAgentList(list([agent('broken'), agent('cline')]));
    await store.getState().installAgent('broken');
    expect(store.getState().installs.broken).toMatchObject({ running: false, error: 'npm could not reach the registry.' });
    store.getState().dismissInstall('broken');
    expect(store.getState().installs.broken).toBeUndefined();

    await store.getState().installAgent('cline');
    expect(store.getState().installs.cline).toMatchObject({
      running: false,
      error: null,
      confirm: { url: 'https://example.com/cline.tar.gz', message: 'The archive of CLINE has no checksum.' },
    });
    await store.getState().installAgent('cline', { unverified: true });
    expect(unverifiedAsked).toBe(true);
    expect(calls.at(-1)).toEqual({ method: 'installAgent', params: { agentId: 'cline', unverified: true } });
    expect(store.getState().info).toBe('CLINE is installed.');
  });

  it('a registry refresh that fails is said in the banner', async () => {
    const { store } = agentsStore({
      refreshRegistry: () => {
        throw new BatonError('Internal', 'The registry at https://cdn.example.com could not be reached.');
      },
      setRegistryUrl: ({ url }) => list([agent(url ? 'from-mirror' : 'default')]),
    });
    await store.getState().refreshRegistry();
    expect(store.getState().error?.message).toBe('The registry at https://cdn.example.com could not be reached.');
    await store.getState().setRegistryUrl('https://mirror.example.com/registry.json');
    expect(store.getState().agents.map((entry) => entry.agentId)).toEqual(['from-mirror']);
  });
});
