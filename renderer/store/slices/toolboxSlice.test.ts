/**
 * The Toolbox dialog's state: which servers the new conversation, an open conversation or the
 * default toolbox may use (each changed where it belongs), servers added, edited and removed with
 * the conversation letting go first, a server's input checked before it is sent, and every failure
 * said in the dialog.
 */
import { describe, expect, it } from 'vitest';
import { testServer } from '../testCatalog.js';
import type { Toolbox } from '../../../app/toolbox/catalog.js';
import { createBatonStore } from '../store.js';
import { testApi, type Answers } from '../testApi.js';
import type { BatonState } from '../types.js';

const server = testServer;

/** A catalog the test API keeps: servers and sets change as the requests say. */
function catalogStore(answers: Answers = {}) {
  const servers = [server('files'), server('search'), server('web', { transport: 'http', url: 'https://mcp.example.com' })];
  const toolboxes: Toolbox[] = [{ toolboxId: 'd', name: 'Default', serverIds: ['files'], isDefault: true }];
  const all: Answers = {
    listToolbox: () => ({ servers: [...servers], toolboxes: [...toolboxes] }),
    listConversationTools: () => ({ servers: [], onDemand: null }),
    setConversationToolbox: () => ({}),
    addServer: ({ server: input }) => {
      const added = server(input.name.toLowerCase(), { name: input.name });
      servers.push(added);
      return { server: added };
    },
    removeServer: ({ serverId }) => {
      servers.splice(
        servers.findIndex((candidate) => candidate.serverId === serverId),
        1,
      );
      return {};
    },
    saveToolbox: (params) => {
      const kept = {
        toolboxId: params.toolboxId ?? `set-${toolboxes.length}`,
        name: params.name,
        serverIds: params.serverIds,
        isDefault: params.isDefault,
      };
      toolboxes.splice(0, toolboxes.length, ...toolboxes.filter((toolbox) => toolbox.toolboxId !== kept.toolboxId), kept);
      return { toolbox: kept };
    },
    ...answers,
  };
  const { api, calls } = testApi(all);
  const store = createBatonStore(api);
  return { store, calls, servers, toolboxes };
}

/** Opens a conversation whose transcript says it uses `serverIds`. */
function openWith(store: ReturnType<typeof catalogStore>['store'], serverIds: string[]): void {
  const state = { toolbox: { servers: serverIds.map((serverId) => ({ serverId, name: serverId, transport: 'stdio' })), digest: 'x' } };
  store.setState({
    selection: { kind: 'conversation', conversationId: 'c1' },
    transcripts: { c1: { state } },
  } as unknown as Partial<BatonState>);
}

describe('the toolbox slice', () => {
  it("for a new conversation, the checkboxes change the draft's servers and nothing is sent", async () => {
    const { store, calls } = catalogStore();
    await store.getState().openToolbox();
    expect(store.getState().toolboxDialog).toMatchObject({ scope: 'pane', selected: [], problem: null });
    await store.getState().toggleServer('search', true);
    await store.getState().toggleServer('files', true);
    await store.getState().toggleServer('search', false);
    expect(store.getState().draft.serverIds).toEqual(['files']);
    expect(calls.map((call) => call.method)).toEqual(['listToolbox']);
    await store.getState().applyToolbox('d');
    expect(store.getState().toolboxDialog?.selected).toEqual(['files']);
  });

  it("for an open conversation, a change is the conversation's, and the tools its agent sees are asked again", async () => {
    const { store, calls } = catalogStore({
      listConversationTools: () => ({
        servers: [{ name: 'files', transport: 'stdio', tools: ['read_file'], error: null, calledByAgent: [] }],
        onDemand: 'Claude Code loads MCP tools when it needs them.',
      }),
    });
    openWith(store, ['files']);
    await store.getState().openToolbox();
    expect(store.getState().toolboxDialog).toMatchObject({
      selected: ['files'],
      tools: [{ name: 'files', tools: ['read_file'] }],
      toolsNote: 'Claude Code loads MCP tools when it needs them.',
    });
    await store.getState().toggleServer('web', true);
    expect(calls.filter((call) => call.method === 'setConversationToolbox')).toEqual([
      { method: 'setConversationToolbox', params: { conversationId: 'c1', serverIds: ['files', 'web'] } },
    ]);
    expect(calls.filter((call) => call.method === 'listConversationTools')).toHaveLength(2);
  });

  it('opened from Settings, the checkboxes change the default toolbox', async () => {
    const { store, toolboxes } = catalogStore();
    await store.getState().openToolbox('default');
    expect(store.getState().toolboxDialog).toMatchObject({ scope: 'default', selected: ['files'] });
    await store.getState().toggleServer('search', true);
    expect(toolboxes).toEqual([{ toolboxId: 'd', name: 'Default', serverIds: ['files', 'search'], isDefault: true }]);
    expect(store.getState().toolboxDialog?.toolboxes).toEqual(toolboxes);
  });

  it('a server added is checked for the conversation; one missing its command is refused before anything is sent', async () => {
    const { store, calls } = catalogStore();
    await store.getState().openToolbox();
    store.getState().setAdding(true);
    expect(await store.getState().addServer({ name: 'Broken', transport: 'stdio' })).toBe(false);
    expect(store.getState().toolboxDialog?.problem).toBe('A stdio server needs the command that starts it.');
    expect(await store.getState().addServer({ name: 'Remote', transport: 'sse', url: 'ftp://nope' })).toBe(false);
    expect(store.getState().toolboxDialog?.problem).toBe('An sse server needs an http(s) URL.');
    expect(calls.some((call) => call.method === 'addServer')).toBe(false);
    expect(await store.getState().addServer({ name: 'Notes', transport: 'stdio', command: 'notes-mcp' })).toBe(true);
    expect(store.getState().toolboxDialog).toMatchObject({ adding: false, busy: false, problem: null, selected: ['notes'] });
    expect(store.getState().toolboxDialog?.servers.map((candidate) => candidate.serverId)).toContain('notes');
  });

  it('removing a server says first which conversations use it; the open conversation lets it go before it is removed', async () => {
    const { store, calls } = catalogStore({
      listServerUsage: () => ({ conversations: [{ conversationId: 'c1', title: 'Fix the build' }] }),
    });
    openWith(store, ['files', 'search']);
    await store.getState().openToolbox();
    await store.getState().askRemoveServer('search');
    expect(store.getState().toolboxDialog?.removing).toEqual({
      serverId: 'search',
      usedBy: [{ conversationId: 'c1', title: 'Fix the build' }],
    });
    store.getState().cancelRemoveServer();
    expect(store.getState().toolboxDialog?.removing).toBeNull();
    await store.getState().removeServer('search');
    const order = calls.map((call) => call.method).filter((method) => method === 'setConversationToolbox' || method === 'removeServer');
    expect(order).toEqual(['setConversationToolbox', 'removeServer']);
    expect(store.getState().toolboxDialog?.servers.map((candidate) => candidate.serverId)).toEqual(['files', 'web']);
    expect(store.getState().toolboxDialog?.selected).toEqual(['files']);
  });

  it('a failure is said in the dialog and ends its busy state; the catalog failing to open is said in the banner', async () => {
    const { store } = catalogStore({
      scanServerImports: () => {
        throw new Error('Could not read ~/.cursor/mcp.json: it is not JSON.');
      },
    });
    await store.getState().openToolbox();
    await store.getState().scanImports('/home/me/.cursor/mcp.json');
    expect(store.getState().toolboxDialog).toMatchObject({ busy: false, problem: 'Could not read ~/.cursor/mcp.json: it is not JSON.' });
    store.getState().closeToolbox();
    expect(store.getState().toolboxDialog).toBeNull();

    const broken = catalogStore({
      listToolbox: () => {
        throw new Error('The toolbox could not be read.');
      },
    });
    await broken.store.getState().openToolbox();
    expect(broken.store.getState().toolboxDialog).toBeNull();
    expect(broken.store.getState().error?.message).toContain('The toolbox could not be read.');
  });

  it('saves the checked servers as a named set', async () => {
    const { store, toolboxes } = catalogStore();
    await store.getState().openToolbox();
    await store.getState().toggleServer('web', true);
    expect(await store.getState().saveToolboxSet('Research', false)).toBe(true);
    expect(toolboxes.find((toolbox) => toolbox.name === 'Research')).toMatchObject({ serverIds: ['web'], isDefault: false });
    expect(store.getState().toolboxDialog?.toolboxes.map((toolbox) => toolbox.name)).toEqual(['Default', 'Research']);
  });
});
