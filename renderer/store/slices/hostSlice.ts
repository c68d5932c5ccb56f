/** Connection state, host facts and the error banner; wires pushed events to the other slices. */
import type { PreferenceKey } from '../../../app/ipc/index.js';
import { conversationInAddress, onAddressChange } from '../../persisted/address.js';
import { adoptPreferences } from '../../persisted/preferences.js';
import { startTheme } from '../../persisted/theme.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import { lastAgent } from '../../persisted/lastAgent.js';
import { recentFolders } from '../../persisted/recentFolders.js';
import { makeNotifier } from '../../notify/notifier.js';
import { type ShownError, shownError, type Slice } from '../types.js';
import { CONNECTION_LOST_MESSAGE } from '../../transport/Transport.js';
import type { ConnectionStatus } from '../../transport/Transport.js';

/** The connection, what the host said of itself at start, the error banner and the last confirmation. */
export type HostSlice = {
  connection: ConnectionStatus;
  homeDir: string;
  /** The data folder and Baton's version, as the host said at start (shown in Settings). */
  dataDir: string;
  version: string;
  error: ShownError | null;
  /** A short confirmation (logged in…), shown until dismissed or replaced. */
  info: string | null;
  start(): Promise<void>;
  reload(): Promise<void>;
  showError(error: unknown): void;
  dismissError(): void;
  dismissInfo(): void;
};

/** The host slice. */
export const hostSlice: Slice<HostSlice> = (api) => (set, get) => {
  // A conversation not in view that asks, finishes or fails is notified (`notify/notifier.ts`).
  const notify = makeNotifier({
    openConversation: () => {
      const { selection, settings } = get();
      return selection.kind === 'conversation' && !settings ? selection.conversationId : undefined;
    },
    open: (conversationId) => {
      if (get().settings) {
        get().closeSettings();
      }
      void get().select(conversationId);
    },
    known: (conversationId) => get().conversations.find((conversation) => conversation.conversationId === conversationId),
  });
  const onPush = (event: PushEvent): void => {
    switch (event.name) {
      case 'conversationChanged':
        get().receiveSummary(event.payload.conversation);
        notify(event.payload.conversation);
        return;
      case 'conversationRemoved':
        get().receiveRemoval(event.payload.conversationId);
        return;
      case 'hostError':
        set({ error: shownError(event.payload.error) });
        return;
      case 'transcript':
        get().receiveEnvelopes(event.payload.events);
        return;
      case 'loginTerminal':
        get().receiveLoginTerminal(event.payload);
        return;
      case 'agentsChanged':
        get().setAgentList(event.payload);
        return;
      case 'machineChanged':
        get().receiveMachine(event.payload.machine);
        return;
      case 'agentInstallProgress': {
        const { agentId, action, text } = event.payload;
        get().receiveInstallProgress(agentId, action, text);
        return;
      }
    }
  };

  return {
    connection: 'connecting',
    homeDir: '',
    dataDir: '',
    version: '',
    error: null,
    info: null,
    dismissInfo() {
      set({ info: null });
    },
    async start() {
      api.onPush(onPush);
      api.onStatus((connection) => {
        const wasClosed = get().connection === 'closed';
        set((state) => ({
          connection,
          ...(connection === 'unauthorized' && state.error?.message === CONNECTION_LOST_MESSAGE ? { error: null } : {}),
        }));
        // After a reconnect what is shown may be stale: read it again.
        if (connection === 'open' && wasClosed) {
          void get().reload();
        }
      });
      // The conversation the address names opens (after a reload too); Back and Forward move between those opened.
      const named = conversationInAddress();
      if (named) {
        set({ selection: { kind: 'conversation', conversationId: named } });
      }
      onAddressChange((conversationId) => {
        const { selection } = get();
        if (conversationId === null && selection.kind !== 'draft') {
          get().newConversation();
        } else if (conversationId !== null && (selection.kind !== 'conversation' || selection.conversationId !== conversationId)) {
          void get().select(conversationId);
        }
      });
      // What shows while the start's reads are under way: a choice the person makes meanwhile ("New conversation") stands.
      const shownAtStart = get().selection;
      const [, atStart] = await Promise.all([
        get().reload(),
        named
          ? null
          : api.call('takeConversationAtStart', {}).then(
              ({ conversationId }) => conversationId,
              () => null,
            ),
      ]);
      // The first window after a start, whose address names no conversation, opens the one open last if it is still in the list.
      if (
        atStart &&
        get().selection === shownAtStart &&
        shownAtStart.kind === 'draft' &&
        get().conversations.some((conversation) => conversation.conversationId === atStart)
      ) {
        await get().select(atStart);
      }
    },
    async reload() {
      try {
        const [info, agents, { preferences }] = await Promise.all([
          api.call('getHostInfo', {}),
          api.call('listAgents', {}),
          api.call('getPreferences', {}),
        ]);
        // The host's preferences are this window's (every window and run share them); the theme shows as they say.
        adoptPreferences(
          preferences,
          (key, value) =>
            void api.call('setPreference', { key: key as PreferenceKey, value }).catch((error: unknown) => get().showError(error)),
        );
        startTheme();
        get().setAgentList(agents);
        set((state) => {
          // A new conversation starts with the agent the last one was started with, while it can run; else the first that can.
          const remembered = lastAgent();
          const startWith =
            agents.agents.find((agent) => agent.available && agent.agentId === remembered)?.agentId ??
            agents.agents.find((agent) => agent.available)?.agentId ??
            agents.agents[0]?.agentId ??
            '';
          return {
            homeDir: info.homeDir,
            dataDir: info.dataDir,
            version: info.version,
            terminalLogin: info.terminalLogin,
            // A new conversation starts where the last one was started; the first one asks for a folder (never the whole home folder by
            // default).
            draft: { ...state.draft, agentId: state.draft.agentId || startWith, cwd: state.draft.cwd || recentFolders()[0] || '' },
          };
        });
        // A remembered folder may be gone since: checked like a typed one.
        get().setDraftCwd(get().draft.cwd);
        void get().loadMachines();
        await get().setView(get().view);
        // Read again, not chosen: Settings the person opened while the reads above ran stay open.
        const selection = get().selection;
        if (selection.kind === 'conversation') {
          await get().select(selection.conversationId, undefined, { again: true });
        }
      } catch (error) {
        get().showError(error);
      }
    },
    showError(error) {
      const shown = shownError(error);
      // A window that is no longer let in says so in its banner, with the way back: a lost request adds nothing.
      if (get().connection === 'unauthorized' && shown.message === CONNECTION_LOST_MESSAGE) {
        return;
      }
      set({ error: shown });
    },
    dismissError() {
      set({ error: null });
    },
  };
};
