/** The sessions an agent keeps itself (listed for a folder or all), and importing one into Baton. */
import type { AgentSession } from '../../../app/ipc/index.js';
import { shownError, type Slice } from '../types.js';

/** The agent sessions slice. */
export type AgentSessionsSlice = {
  /** The sessions an agent keeps itself, as last listed (for importing them). */
  agentSessions: {
    agentId: string;
    cwd: string | undefined;
    loading: boolean;
    sessions: AgentSession[];
    truncated: boolean;
    error: string | null;
    importing: string | null;
  } | null;
  listAgentSessions(agentId: string, cwd: string | undefined): Promise<void>;
  closeAgentSessions(): void;
  /** Imports one (or opens the conversation it was imported into before). */
  importAgentSession(agentId: string, sessionId: string, cwd: string): Promise<void>;
};

/** The agent sessions slice. */
export const agentSessionsSlice: Slice<AgentSessionsSlice> = (api) => (set, get) => ({
  agentSessions: null,
  async listAgentSessions(agentId, cwd) {
    set({ agentSessions: { agentId, cwd, loading: true, sessions: [], truncated: false, error: null, importing: null } });
    try {
      const { sessions, truncated } = await api.call('listAgentSessions', { agentId, ...(cwd ? { cwd } : {}) });
      set((state) =>
        state.agentSessions?.agentId === agentId ? { agentSessions: { ...state.agentSessions, loading: false, sessions, truncated } } : {},
      );
    } catch (error) {
      set((state) =>
        state.agentSessions?.agentId === agentId
          ? { agentSessions: { ...state.agentSessions, loading: false, error: shownError(error).message } }
          : {},
      );
    }
  },
  closeAgentSessions() {
    set({ agentSessions: null });
  },
  async importAgentSession(agentId, sessionId, cwd) {
    set((state) => (state.agentSessions ? { agentSessions: { ...state.agentSessions, importing: sessionId, error: null } } : {}));
    try {
      const { conversation, alreadyImported } = await api.call('importAgentSession', { agentId, sessionId, cwd });
      get().upsertSummary(conversation);
      set({ agentSessions: null });
      await get().select(conversation.conversationId);
      set({ info: alreadyImported ? 'This session was imported before: here it is.' : null });
    } catch (error) {
      set((state) =>
        state.agentSessions ? { agentSessions: { ...state.agentSessions, importing: null, error: shownError(error).message } } : {},
      );
    }
  },
});
