/**
 * The settings page: which section shows, the "always" answers the person gave (revocable), the
 * toolbox and the person's instructions at a glance, the agent processes running, and exporting
 * every conversation at once.
 */
import { saveFile } from '../../components/saveFile.js';
import type { SettingsSlice, Slice } from '../types.js';

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
