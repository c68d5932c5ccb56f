/**
 * The Toolbox dialog: the catalog's servers, which of them the pane's conversation (or the new
 * conversation's draft) may use, named toolbox sets, adding a server, importing from the configs
 * people already have, the local bridge, and the tools each server really offers.
 */
import { serverInputSchema, type CatalogServer, type ServerInput, type Toolbox } from '../../../app/toolbox/catalog.js';
import type { Slice } from '../types.js';
import type { ImportCandidate } from '../../../app/ipc/index.js';

/** The Toolbox dialog. */
export type ToolboxSlice = {
  toolboxDialog: {
    /** What the checkboxes change: the pane's conversation (or new conversation), or the default toolbox (opened from Settings). */
    scope: 'pane' | 'default';
    servers: CatalogServer[];
    toolboxes: Toolbox[];
    /** The servers the pane's conversation (or draft) may use. */
    selected: string[];
    adding: boolean;
    /** The server whose Edit form is open. */
    editing?: string | null;
    scan: { candidates: ImportCandidate[]; problems: Array<{ file: string; message: string }> } | null;
    /** Tools this agent sees, per server (null while asked). */
    tools: Array<{ name: string; transport: string; tools: string[]; error: string | null; calledByAgent: string[] }> | null;
    /** Said for an agent that loads MCP tools on demand. */
    toolsNote?: string | null;
    problem: string | null;
    busy: boolean;
    /** A server about to be removed, with the conversations that use it (null while asked). */
    removing?: { serverId: string; usedBy: Array<{ conversationId: string; title: string }> | null } | null;
  } | null;
  /** Opens dialog "Toolbox" for the pane's conversation (or new conversation), or from Settings for the default toolbox. */
  openToolbox(scope?: 'pane' | 'default'): Promise<void>;
  /** Asks which conversations use a server, before removing it. */
  askRemoveServer(serverId: string): Promise<void>;
  cancelRemoveServer(): void;
  /** Removes a server from the toolbox (the open conversation lets it go first). */
  removeServer(serverId: string): Promise<void>;
  closeToolbox(): void;
  toggleServer(serverId: string, on: boolean): Promise<void>;
  applyToolbox(toolboxId: string): Promise<void>;
  setAdding(adding: boolean): void;
  /** Resolves true once saved. */
  addServer(input: ServerInput): Promise<boolean>;
  /** Opens (or, with null, closes) a server's Edit form. */
  setEditing(serverId: string | null): void;
  /** Saves an edited server; resolves true once saved. */
  updateServer(serverId: string, input: ServerInput): Promise<boolean>;
  scanImports(file?: string): Promise<void>;
  importSelected(candidateIds: string[], inputs: Record<string, string>): Promise<void>;
  setBridge(serverId: string, bridge: boolean): Promise<void>;
  refreshTools(): Promise<void>;
  /** Saves the checked servers as a named set; resolves true once saved. */
  saveToolboxSet(name: string, isDefault: boolean): Promise<boolean>;
};

/** The toolbox slice. */
export const toolboxSlice: Slice<ToolboxSlice> = (api) => (set, get) => {
  const problem = (error: unknown): void => {
    set((state) => ({
      toolboxDialog: state.toolboxDialog && {
        ...state.toolboxDialog,
        problem: error instanceof Error ? error.message : String(error),
        busy: false,
      },
    }));
  };
  /** The servers the pane's conversation uses now. */
  const selectedNow = (): string[] => {
    const { selection, transcripts, draft } = get();
    if (selection.kind === 'draft') {
      return draft.serverIds ?? [];
    }
    return transcripts[selection.conversationId]?.state.toolbox?.servers.map((server) => server.serverId) ?? [];
  };
  const choose = async (serverIds: string[]): Promise<void> => {
    const { selection } = get();
    const dialog = get().toolboxDialog;
    set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, selected: serverIds, problem: null } }));
    if (dialog?.scope === 'default') {
      // Opened from Settings: the default toolbox (what new conversations start with) changes, no conversation does.
      try {
        const current = dialog.toolboxes.find((toolbox) => toolbox.isDefault);
        await api.call('saveToolbox', {
          ...(current ? { toolboxId: current.toolboxId } : {}),
          name: current?.name ?? 'Default',
          serverIds,
          isDefault: true,
        });
        await reloadCatalog();
      } catch (error) {
        problem(error);
      }
      return;
    }
    if (selection.kind === 'draft') {
      set((state) => ({ draft: { ...state.draft, serverIds } }));
      return;
    }
    try {
      await api.call('setConversationToolbox', { conversationId: selection.conversationId, serverIds });
      await refreshTools();
    } catch (error) {
      problem(error);
    }
  };
  const refreshTools = async (): Promise<void> => {
    const { selection } = get();
    if (selection.kind !== 'conversation') {
      return;
    }
    set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, tools: null } }));
    try {
      const { servers, onDemand } = await api.call('listConversationTools', { conversationId: selection.conversationId });
      set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, tools: servers, toolsNote: onDemand ?? null } }));
    } catch (error) {
      problem(error);
    }
  };
  /** The input as the contract takes it; checked here first too, so a missing command or URL is said at once. */
  const validInput = (input: ServerInput): ReturnType<typeof serverInputSchema.parse> => {
    const checked = serverInputSchema.safeParse(input);
    if (!checked.success) {
      throw new Error(checked.error.issues.map((issue) => issue.message).join(' '));
    }
    return checked.data;
  };
  /** A changed server is chosen again by the conversation that has it, so its next turn gets the server as it is now. */
  const chooseAgainIfSelected = async (serverId: string): Promise<void> => {
    if (get().toolboxDialog?.selected.includes(serverId)) {
      await choose([...(get().toolboxDialog?.selected ?? [])]);
    }
  };
  const reloadCatalog = async (): Promise<void> => {
    const { servers, toolboxes } = await api.call('listToolbox', {});
    // Settings, when it is what opened the dialog, shows the catalog as it is now too.
    set((state) => ({
      toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, servers, toolboxes },
      settings: state.settings && { ...state.settings, servers, toolboxes },
    }));
  };

  return {
    toolboxDialog: null,
    async openToolbox(scope = 'pane') {
      try {
        const { servers, toolboxes } = await api.call('listToolbox', {});
        const selected = scope === 'default' ? [...(toolboxes.find((toolbox) => toolbox.isDefault)?.serverIds ?? [])] : selectedNow();
        set({ toolboxDialog: { scope, servers, toolboxes, selected, adding: false, scan: null, tools: null, problem: null, busy: false } });
        if (scope === 'pane') {
          await refreshTools();
        }
      } catch (error) {
        get().showError(error);
      }
    },
    closeToolbox() {
      set({ toolboxDialog: null });
    },
    async toggleServer(serverId, on) {
      const current = get().toolboxDialog?.selected ?? [];
      await choose(on ? [...current.filter((id) => id !== serverId), serverId] : current.filter((id) => id !== serverId));
    },
    async applyToolbox(toolboxId) {
      const toolbox = get().toolboxDialog?.toolboxes.find((candidate) => candidate.toolboxId === toolboxId);
      if (toolbox) {
        await choose([...toolbox.serverIds]);
      }
    },
    setAdding(adding) {
      set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, adding, editing: null, problem: null } }));
    },
    async addServer(input: ServerInput) {
      set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, busy: true, problem: null } }));
      try {
        const { server } = await api.call('addServer', { server: validInput(input) });
        await reloadCatalog();
        set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, adding: false, busy: false } }));
        // A saved server is checked for the conversation the dialog was opened from.
        await choose([...(get().toolboxDialog?.selected ?? []), server.serverId]);
        return true;
      } catch (error) {
        problem(error);
        return false;
      }
    },
    setEditing(serverId) {
      set((state) => ({
        toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, editing: serverId, adding: false, problem: null },
      }));
    },
    async updateServer(serverId, input) {
      set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, busy: true, problem: null } }));
      try {
        await api.call('updateServer', { serverId, server: validInput(input) });
        await reloadCatalog();
        set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, editing: null, busy: false } }));
        await chooseAgainIfSelected(serverId);
        return true;
      } catch (error) {
        problem(error);
        return false;
      }
    },
    async scanImports(file) {
      const { selection, openSummary, draft } = get();
      const cwd = selection.kind === 'conversation' ? openSummary?.cwd : draft.cwd.trim() || undefined;
      set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, busy: true, problem: null } }));
      try {
        const scan = await api.call('scanServerImports', { ...(cwd ? { cwd } : {}), ...(file ? { file } : {}) });
        set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, scan, busy: false } }));
      } catch (error) {
        problem(error);
      }
    },
    async importSelected(candidateIds, inputs) {
      set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, busy: true, problem: null } }));
      try {
        await api.call('importServers', { candidateIds, inputs });
        await reloadCatalog();
        set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, scan: null, busy: false } }));
      } catch (error) {
        problem(error);
      }
    },
    async askRemoveServer(serverId) {
      set((state) => ({
        toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, removing: { serverId, usedBy: null }, problem: null },
      }));
      try {
        const { conversations } = await api.call('listServerUsage', { serverId });
        set((state) => ({
          toolboxDialog:
            state.toolboxDialog && state.toolboxDialog.removing?.serverId === serverId
              ? { ...state.toolboxDialog, removing: { serverId, usedBy: conversations } }
              : state.toolboxDialog,
        }));
      } catch (error) {
        problem(error);
      }
    },
    cancelRemoveServer() {
      set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, removing: null } }));
    },
    async removeServer(serverId) {
      try {
        // The open conversation lets it go first, so its next message does not ask for a server that is gone.
        const selected = get().toolboxDialog?.selected ?? [];
        if (selected.includes(serverId)) {
          await choose(selected.filter((id) => id !== serverId));
        }
        await api.call('removeServer', { serverId });
        set((state) => ({ toolboxDialog: state.toolboxDialog && { ...state.toolboxDialog, removing: null } }));
        await reloadCatalog();
      } catch (error) {
        problem(error);
      }
    },
    async setBridge(serverId, bridge) {
      try {
        await api.call('setServerBridge', { serverId, bridge });
        await reloadCatalog();
        await chooseAgainIfSelected(serverId);
      } catch (error) {
        problem(error);
      }
    },
    async saveToolboxSet(name, isDefault) {
      try {
        await api.call('saveToolbox', { name, serverIds: [...(get().toolboxDialog?.selected ?? [])], isDefault });
        await reloadCatalog();
        return true;
      } catch (error) {
        problem(error);
        return false;
      }
    },
    refreshTools,
  };
};
