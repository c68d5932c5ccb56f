/**
 * The settings page: which section shows, the "always" answers the person gave (revocable), the
 * toolbox and the person's instructions at a glance, the agent processes running, and exporting
 * every conversation at once.
 */
import { saveFile } from '../../saveFile.js';
import type { SettingsSection, Slice } from '../types.js';
import type { AlwaysDecision } from '../../../app/agents/alwaysDecisions.js';
import type { InstructionText } from '../../../app/instructions/bundle.js';
import type { AgentProcess, ProcessSharing, Result } from '../../../app/ipc/index.js';
import type { CatalogServer, Toolbox } from '../../../app/toolbox/catalog.js';

/** The settings page. */
export type SettingsSlice = {
  /** While the page shows: its section, the remembered "always" answers (null while asked), what revoking one left. */
  settings: {
    section: SettingsSection;
    decisions: AlwaysDecision[] | null;
    note: string | null;
    /** The toolbox catalog (null while asked). */
    servers: CatalogServer[] | null;
    toolboxes: Toolbox[];
    /** The person's own instructions (null while asked). */
    person: InstructionText | null;
  } | null;
  openSettings(section?: SettingsSection): Promise<void>;
  closeSettings(): void;
  showSettingsSection(section: SettingsSection): void;
  revokeDecision(id: string): Promise<void>;
  /** Saves every conversation not in the trash as one Markdown file. */
  exportAll(): Promise<void>;
  /** The agent processes running, as last asked (null before), and the agents' process settings. */
  processes: AgentProcess[] | null;
  processSettings: { perConversation: string[]; cannotSeparate: Record<string, string> };
  /** Asks the host which agent processes run now. */
  loadProcesses(): Promise<void>;
  /** Stops one agent process (its running turns stopped first); says so, then asks again which run. */
  stopProcess(launchDigest: string, agentName: string): Promise<void>;
  /** Which other conversations share each conversation's agent process, as last asked. */
  processSharing: Record<string, ProcessSharing>;
  /** Asks the host which conversations share this one's agent process. */
  loadProcessSharing(conversationId: string): Promise<void>;
  /** Sets an agent to one process per conversation (or back to one per working folder). */
  setProcessPerConversation(agentId: string, on: boolean): Promise<void>;
  /** What the data folder holds that grows with use (null before asked). */
  dataFolderUsage: Result<'getDataFolderUsage'> | null;
  loadDataFolderUsage(): Promise<void>;
  /** Baton's log as last read (null before asked). */
  logTail: Result<'readLog'> | null;
  loadLog(): Promise<void>;
  /** Turns checkpoints of working folders on or off, or sets the largest file they keep. */
  setCheckpointSettings(changes: { off?: boolean; maxFileMegabytes?: number }): Promise<void>;
};

/** The settings slice. */
export const settingsSlice: Slice<SettingsSlice> = (api) => (set, get) => ({
  settings: null,
  async openSettings(section = 'agents') {
    set({ sidebarOpen: false, settings: { section, decisions: null, note: null, servers: null, toolboxes: [], person: null } });
    try {
      const [{ decisions }, toolbox, instructions] = await Promise.all([
        api.call('listAlwaysDecisions', {}),
        api.call('listToolbox', {}),
        api.call('getInstructions', {}),
      ]);
      set((state) => ({
        settings: state.settings && {
          ...state.settings,
          decisions,
          servers: toolbox.servers,
          toolboxes: toolbox.toolboxes,
          person: instructions.person,
        },
      }));
    } catch (error) {
      get().showError(error);
    }
  },
  closeSettings() {
    set({ settings: null });
  },
  showSettingsSection(section) {
    set((state) => ({ settings: state.settings && { ...state.settings, section } }));
  },
  async revokeDecision(id) {
    try {
      const { decisions, note } = await api.call('revokeAlwaysDecision', { id });
      set((state) => ({ settings: state.settings && { ...state.settings, decisions, note } }));
    } catch (error) {
      get().showError(error);
    }
  },
  processes: null,
  processSettings: { perConversation: [], cannotSeparate: {} },
  dataFolderUsage: null,
  logTail: null,
  async loadLog() {
    try {
      set({ logTail: await api.call('readLog', { lines: 200 }) });
    } catch (error) {
      get().showError(error);
    }
  },
  async setCheckpointSettings(changes) {
    try {
      set({ dataFolderUsage: await api.call('setCheckpointSettings', changes) });
    } catch (error) {
      get().showError(error);
    }
  },
  async loadDataFolderUsage() {
    try {
      set({ dataFolderUsage: await api.call('getDataFolderUsage', {}) });
    } catch (error) {
      get().showError(error);
    }
  },
  async loadProcesses() {
    try {
      const { processes, perConversation, cannotSeparate } = await api.call('listAgentProcesses', {});
      set({ processes, processSettings: { perConversation, cannotSeparate } });
    } catch (error) {
      get().showError(error);
    }
  },
  async stopProcess(launchDigest, agentName) {
    try {
      const { stopped } = await api.call('stopAgentProcess', { launchDigest });
      set({
        info: stopped
          ? `Stopped ${agentName}'s process: its conversations start it again with their next message.`
          : `${agentName}'s process had already ended.`,
      });
      await get().loadProcesses();
    } catch (error) {
      get().showError(error);
    }
  },
  processSharing: {},
  async loadProcessSharing(conversationId) {
    try {
      const sharing = await api.call('getProcessSharing', { conversationId });
      set((state) => ({ processSharing: { ...state.processSharing, [conversationId]: sharing } }));
    } catch (error) {
      get().showError(error);
    }
  },
  async setProcessPerConversation(agentId, on) {
    try {
      const { agentIds } = await api.call('setProcessPerConversation', { agentId, on });
      set((state) => ({
        processSettings: { ...state.processSettings, perConversation: agentIds },
        processSharing: Object.fromEntries(
          Object.entries(state.processSharing).map(([id, sharing]) => [
            id,
            sharing.agentId === agentId ? { ...sharing, perConversation: on } : sharing,
          ]),
        ),
        info: on
          ? 'Each new session of this agent gets a process of its own; running ones keep theirs until they start again.'
          : 'Conversations of this agent in one folder share a process again from their next session.',
      }));
    } catch (error) {
      get().showError(error);
    }
  },
  async exportAll() {
    try {
      const file = await api.call('exportAllConversations', {});
      saveFile(file.fileName, file.mimeType, file.content);
      set({ info: `Exported ${file.count} ${file.count === 1 ? 'conversation' : 'conversations'} to ${file.fileName}.` });
    } catch (error) {
      get().showError(error);
    }
  },
});
