// @vitest-environment happy-dom
/**
 * The host slice: what the host says of itself at start, the first agent that can run as the new
 * conversation's, the conversation open last reopened, pushed events handed to the slices they
 * belong to, a reconnect reading everything again, and the error banner (quiet about a lost
 * request once the window is no longer let in).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatonError } from '../../../app/errors.js';
import { agentInfoSchema } from '../../../app/agents/agentInfo.js';
import { thisComputerInfo, type PushEvent } from '../../../app/ipc/index.js';
import type { ConnectionStatus } from '../../transport/Transport.js';
import { CONNECTION_LOST_MESSAGE } from '../../transport/Transport.js';
import { createBatonStore } from '../store.js';
import { testApi, type Answers } from '../testApi.js';
import { testSummary } from '../testSummary.js';

const THIS_COMPUTER_INFO = thisComputerInfo('local', 'This computer');

const agent = (agentId: string, available: boolean) =>
  agentInfoSchema.parse({ agentId, displayName: agentId.toUpperCase(), source: 'builtin', command: agentId, available });

/** A store over a test API whose pushes and connection status the test drives. */
function hostStore(overrides: Answers = {}) {
  const answers: Answers = {
    getHostInfo: () => ({ homeDir: '/home/me', dataDir: '/home/me/.baton', version: '1.2.3', terminalLogin: true }),
    listAgents: () => ({
      agents: [agent('gemini', false), agent('codex', true), agent('claude', true)],
      agentsFileProblem: null,
      registry: null,
    }),
    getPreferences: () => ({ preferences: {} }),
    listConversations: () => ({ conversations: [testSummary('older'), testSummary('last')], nextCursor: null }),
    takeConversationAtStart: () => ({ conversationId: null }),
    checkFolder: () => ({ problem: null }),
    listMachines: () => ({ machines: [THIS_COMPUTER_INFO] }),
    ...overrides,
  };
  const { api, calls } = testApi(answers);
  let push: (event: PushEvent) => void = () => {};
  let status: (status: ConnectionStatus) => void = () => {};
  api.onPush = (listener) => {
    push = listener;
    return () => {};
  };
  api.onStatus = (listener) => {
    status = listener;
    return () => {};
  };
  const store = createBatonStore(api);
  return { store, calls, push: (event: PushEvent) => push(event), status: (next: ConnectionStatus) => status(next) };
}

beforeEach(() => {
  localStorage.clear();
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  localStorage.clear();
});

describe('the host slice', () => {
  it('at start: what the host says of itself, and the first agent that can run picked for a new conversation', async () => {
    const { store, calls } = hostStore();
    await store.getState().start();
    expect(store.getState()).toMatchObject({ homeDir: '/home/me', dataDir: '/home/me/.baton', version: '1.2.3', error: null });
    expect(store.getState().draft.agentId).toBe('codex');
    expect(store.getState().conversations.map((conversation) => conversation.conversationId)).toEqual(['older', 'last']);
    expect(calls.map((call) => call.method)).toEqual(
      expect.arrayContaining(['getHostInfo', 'listAgents', 'getPreferences', 'takeConversationAtStart', 'listConversations']),
    );
  });

  it('a new conversation starts with the agent the last one was started with, while it can run', async () => {
    const remembered = hostStore({ getPreferences: () => ({ preferences: { 'baton.lastAgent': 'claude' } }) });
    await remembered.store.getState().start();
    expect(remembered.store.getState().draft.agentId).toBe('claude');
    localStorage.clear();
    // Gemini cannot run (not installed): the first agent that can is picked instead.
    const gone = hostStore({ getPreferences: () => ({ preferences: { 'baton.lastAgent': 'gemini' } }) });
    await gone.store.getState().start();
    expect(gone.store.getState().draft.agentId).toBe('codex');
  });

  it('starting a conversation remembers its agent with the host', async () => {
    const { store, calls } = hostStore({
      newConversation: () => ({ conversation: testSummary('new') }),
      sendMessage: () => ({ turnId: 't', seq: 2 }),
      closeEarlySession: () => ({ closed: true }),
      setPreference: () => ({}),
    });
    await store.getState().start();
    store.setState({ draft: { agentId: 'claude', cwd: '/w' }, composer: { draft: 'hello' } });
    await store.getState().send();
    expect(calls).toContainEqual({ method: 'setPreference', params: { key: 'baton.lastAgent', value: 'claude' } });
  });

  it('a host that cannot answer says so in the banner', async () => {
    const { store } = hostStore({
      getHostInfo: () => {
        throw new BatonError('Internal', 'Baton is not answering.');
      },
    });
    await store.getState().start();
    expect(store.getState().error?.message).toBe('Baton is not answering.');
    store.getState().dismissError();
    expect(store.getState().error).toBeNull();
  });

  it('hands pushed events to the slices they belong to', async () => {
    const { store, push } = hostStore();
    await store.getState().start();
    push({ name: 'conversationChanged', payload: { conversation: testSummary('new', { updatedAt: '2026-12-03T10:00:00.000Z' }) } });
    // Summaries are taken in a batch, once per frame.
    await vi.waitFor(() =>
      expect(store.getState().conversations.map((conversation) => conversation.conversationId)).toEqual(['new', 'older', 'last']),
    );
    push({ name: 'conversationRemoved', payload: { conversationId: 'older' } });
    expect(store.getState().conversations.map((conversation) => conversation.conversationId)).toEqual(['new', 'last']);
    push({ name: 'hostError', payload: { error: { code: 'Internal', message: 'The database is locked.' } } });
    expect(store.getState().error?.message).toBe('The database is locked.');
    push({ name: 'agentInstallProgress', payload: { agentId: 'codex', action: 'install', text: 'added 12 packages' } });
    expect(JSON.stringify(store.getState())).toContain('added 12 packages');
    // agents.json changed: the list and its alert follow.
    push({
      name: 'agentsChanged',
      payload: { agents: [agent('codex', true)], agentsFileProblem: 'agents.json: bad JSON', registry: null },
    });
    expect(store.getState().agents.map((entry) => entry.agentId)).toEqual(['codex']);
    expect(store.getState().agentsFileProblem).toBe('agents.json: bad JSON');
    // A machine's state: the one listed is replaced, a new one is added.
    await vi.waitFor(() => expect(store.getState().machines).toEqual([THIS_COMPUTER_INFO]));
    const server = { ...THIS_COMPUTER_INFO, machineId: 'ssh:build', name: 'build', destination: 'build', source: 'added' as const };
    push({ name: 'machineChanged', payload: { machine: { ...server, state: 'connecting' } } });
    push({ name: 'machineChanged', payload: { machine: { ...server, state: 'blocked', reason: 'authentication', message: 'refused' } } });
    expect(store.getState().machines.map((machine) => [machine.name, machine.state, machine.reason])).toEqual([
      ['This computer', 'this-computer', null],
      ['build', 'blocked', 'authentication'],
    ]);
  });

  it('reads everything again after a reconnect, and not on the first open', async () => {
    const { store, calls, status } = hostStore();
    await store.getState().start();
    const reads = (): number => calls.filter((call) => call.method === 'getHostInfo').length;
    status('open');
    expect(reads()).toBe(1);
    status('closed');
    status('connecting');
    status('closed');
    status('open');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reads()).toBe(2);
    expect(store.getState().connection).toBe('open');
  });

  it('once no longer let in, a lost request adds nothing to the banner, and its earlier one goes', async () => {
    const { store, status } = hostStore();
    await store.getState().start();
    store.getState().showError(new BatonError('Internal', CONNECTION_LOST_MESSAGE));
    expect(store.getState().error?.message).toBe(CONNECTION_LOST_MESSAGE);
    status('unauthorized');
    expect(store.getState().error).toBeNull();
    store.getState().showError(new BatonError('Internal', CONNECTION_LOST_MESSAGE));
    expect(store.getState().error).toBeNull();
    store.getState().showError(new BatonError('Internal', 'Something else.'));
    expect(store.getState().error?.message).toBe('Something else.');
  });

  it('the first window after a start reopens the conversation open last, if it is still listed', async () => {
    const { store } = hostStore({
      takeConversationAtStart: () => ({ conversationId: 'last' }),
      openConversation: () => {
        throw new BatonError('Internal', 'not read in this test');
      },
    });
    await store
      .getState()
      .start()
      .catch(() => undefined);
    expect(store.getState().selection).toEqual({ kind: 'conversation', conversationId: 'last' });

    window.history.replaceState(null, '', '/');
    const gone = hostStore({ takeConversationAtStart: () => ({ conversationId: 'erased' }) });
    await gone.store.getState().start();
    expect(gone.store.getState().selection.kind).toBe('draft');
  });

  it('keeps Settings opened while the start was still reading the conversation the address names (a busy machine)', async () => {
    window.history.replaceState(null, '', '/#/c/last');
    let answer: (() => void) | undefined;
    const { store } = hostStore({
      getPreferences: () => new Promise((resolve) => (answer = () => resolve({ preferences: {} }))),
      openConversation: () => {
        throw new BatonError('Internal', 'not read in this test');
      },
      listAlwaysDecisions: () => ({ decisions: [] }),
      listToolbox: () => ({ servers: [], toolboxes: [] }),
      getInstructions: () => ({ person: { text: '', intent: 'append' }, conversation: null, injectors: null }),
    });
    const started = store.getState().start();
    await vi.waitFor(() => expect(answer).toBeDefined());
    void store.getState().openSettings('appearance');
    answer!();
    await started.catch(() => undefined);
    expect(store.getState().selection).toEqual({ kind: 'conversation', conversationId: 'last' });
    expect(store.getState().settings).toMatchObject({ section: 'appearance' });
  });

  it('does not reopen it over "New conversation" pressed while the start was still reading (a busy machine)', async () => {
    window.history.replaceState(null, '', '/');
    let answer: ((value: { conversationId: string }) => void) | undefined;
    const { store } = hostStore({
      takeConversationAtStart: () => new Promise((resolve) => (answer = resolve)),
      openConversation: () => {
        throw new BatonError('Internal', 'not read in this test');
      },
    });
    const started = store.getState().start();
    await vi.waitFor(() => expect(answer).toBeDefined());
    store.getState().newConversation();
    const fresh = store.getState().selection;
    answer!({ conversationId: 'last' });
    await started.catch(() => undefined);
    expect(store.getState().selection).toBe(fresh);
  });
});
