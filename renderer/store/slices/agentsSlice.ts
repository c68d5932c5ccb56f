/**
 * The agents Baton offers: the list (built-ins, the ACP Registry's agents, custom ones), why
 * `agents.json` was not read, the registry's status, capability cards, and installs, updates
 * and removals with their progress (an archive without a checksum waits for the person's yes).
 */
import type { AgentCard } from '../../../app/agents/agentCard.js';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import type { RegistryStatus, Result } from '../../../app/ipc/index.js';
import { shownError, type Slice } from '../types.js';

/** An install, update or removal under way or just failed: npm's (or the download's) recent lines. */
export type AgentInstallState = {
  action: 'install' | 'update' | 'remove';
  lines: string[];
  running: boolean;
  error: string | null;
  /** The archive has no checksum: the person is asked before it is installed. */
  confirm?: { url: string; message: string };
  /** The npm registry has not the pinned version but newer ones: the nearest newer, offered. */
  offer?: { version: string; message: string };
};

/** The agents slice. */
export type AgentsSlice = {
  agents: AgentInfo[];
  /** Why `agents.json` was not read, if it was not. */
  agentsFileProblem: string | null;
  /** The ACP Registry: which copy of its index is in use, and why a refresh failed. */
  registry: RegistryStatus | null;
  /** Takes a list the host answered. */
  setAgentList(list: Result<'listAgents'>): void;
  /** Asks the registry's address for a newer index now. */
  refreshRegistry(): Promise<void>;
  /** Sets the registry's address (null: the default). */
  setRegistryUrl(url: string | null): Promise<void>;
  /** Capability cards by agent, as the agents answered (or why they could not). */
  cards: Record<string, { card?: AgentCard; error?: string }>;
  describeAgent(agentId: string): Promise<void>;
  /** Forgets a card (the agent was logged in or out, installed or removed). */
  forgetCard(agentId: string): void;
  installs: Record<string, AgentInstallState>;
  /** Installs (or updates) an agent into Baton's agents folder; `unverified`: the person agreed to an archive without a checksum. */
  installAgent(agentId: string, options?: { unverified?: boolean; version?: string }): Promise<void>;
  /** Cancels an install or update under way. */
  cancelInstall(agentId: string): Promise<void>;
  /** Removes an agent Baton installed. */
  removeAgent(agentId: string): Promise<void>;
  /** Forgets a failed install (its message was read). */
  dismissInstall(agentId: string): void;
  /** A line of progress the host pushed. */
  receiveInstallProgress(agentId: string, action: AgentInstallState['action'], text: string): void;
};

/** Progress lines kept per install. */
const INSTALL_LINES_KEPT = 200;

/** The agents slice. */
export const agentsSlice: Slice<AgentsSlice> = (api) => (set, get) => {
  /** Runs an install or removal, keeping its progress lines and its outcome for the page. */
  const manage = async (
    agentId: string,
    method: 'installAgent' | 'removeAgent',
    agreed: { unverified?: boolean; version?: string } = {},
  ): Promise<void> => {
    const agent = get().agents.find((candidate) => candidate.agentId === agentId);
    const action = method === 'removeAgent' ? 'remove' : agent?.managed?.installed ? 'update' : 'install';
    set((state) => ({ info: null, installs: { ...state.installs, [agentId]: { action, lines: [], running: true, error: null } } }));
    try {
      const list = await api.call(
        method,
        method === 'installAgent'
          ? { agentId, ...(agreed.unverified ? { unverified: true } : {}), ...(agreed.version ? { version: agreed.version } : {}) }
          : { agentId },
      );
      const name = agent?.displayName ?? agentId;
      get().setAgentList(list);
      set((state) => {
        const { [agentId]: _done, ...installs } = state.installs;
        const { [agentId]: _stale, ...cards } = state.cards;
        return { installs, cards, info: `${name} is ${action === 'remove' ? 'removed' : action === 'update' ? 'updated' : 'installed'}.` };
      });
    } catch (error) {
      const shown = shownError(error);
      // A question for the person (install without a checksum, or another version) stands instead of the error.
      const question =
        shown.code === 'UnverifiedDownload' && typeof shown.details?.url === 'string'
          ? { confirm: { url: shown.details.url, message: shown.message } }
          : shown.code === 'PinnedVersionMissing' && typeof shown.details?.nearest === 'string'
            ? { offer: { version: shown.details.nearest, message: shown.message } }
            : {};
      set((state) => ({
        installs: {
          ...state.installs,
          [agentId]: {
            ...(state.installs[agentId] ?? { action, lines: [] }),
            running: false,
            error: Object.keys(question).length > 0 ? null : shown.message,
            ...question,
          },
        },
      }));
    }
  };
  return {
    agents: [],
    agentsFileProblem: null,
    registry: null,
    setAgentList(list) {
      set({ agents: list.agents, agentsFileProblem: list.agentsFileProblem, registry: list.registry });
    },
    async refreshRegistry() {
      try {
        get().setAgentList(await api.call('refreshRegistry', {}));
      } catch (error) {
        get().showError(error);
      }
    },
    async setRegistryUrl(url) {
      try {
        get().setAgentList(await api.call('setRegistryUrl', { url }));
      } catch (error) {
        get().showError(error);
      }
    },
    cards: {},
    async describeAgent(agentId) {
      if (get().cards[agentId]?.card) {
        return;
      }
      set((state) => ({ cards: { ...state.cards, [agentId]: {} } }));
      try {
        const { card } = await api.call('describeAgent', { agentId });
        set((state) => ({ cards: { ...state.cards, [agentId]: { card } } }));
      } catch (error) {
        set((state) => ({ cards: { ...state.cards, [agentId]: { error: shownError(error).message } } }));
      }
    },
    forgetCard(agentId) {
      set((state) => {
        const { [agentId]: _stale, ...cards } = state.cards;
        return { cards };
      });
    },
    installs: {},
    async installAgent(agentId, options = {}) {
      await manage(agentId, 'installAgent', options);
    },
    async cancelInstall(agentId) {
      await api.call('cancelAgentInstall', { agentId }).catch((error: unknown) => get().showError(error));
    },
    async removeAgent(agentId) {
      await manage(agentId, 'removeAgent');
    },
    dismissInstall(agentId) {
      set((state) => {
        const { [agentId]: _gone, ...installs } = state.installs;
        return { installs };
      });
    },
    receiveInstallProgress(agentId, action, text) {
      set((state) => {
        const current = state.installs[agentId] ?? { action, lines: [], running: true, error: null };
        return {
          installs: { ...state.installs, [agentId]: { ...current, action, lines: [...current.lines, text].slice(-INSTALL_LINES_KEPT) } },
        };
      });
    },
  };
};
