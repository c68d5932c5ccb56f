/**
 * The renderer's one zustand store: agents, the conversation list, open transcripts, the draft
 * of a new conversation and the connection state. Actions go through `api`; components only
 * select and call actions.
 */
import { create } from 'zustand';
import type { AgentInfo } from '../../app/agents/agentInfo.js';
import { BatonError } from '../../app/errors.js';
import type { PushEvent } from '../../app/ipc/index.js';
import type { ConversationSummary } from '../../app/transcript/summary.js';
import type { Api } from '../api.js';
import type { ConnectionStatus } from '../transport/Transport.js';
import { applyEnvelopes, emptyBuffered, type BufferedTranscript } from './transcriptBuffer.js';

/** What the main pane shows. */
export type Selection = { kind: 'draft' } | { kind: 'conversation'; conversationId: string };

/** The whole renderer state. */
export type BatonState = {
  connection: ConnectionStatus;
  homeDir: string;
  agents: AgentInfo[];
  conversations: ConversationSummary[];
  transcripts: Record<string, BufferedTranscript>;
  selection: Selection;
  draft: { agentId: string; cwd: string };
  /** Unsent text per conversation ("draft" for a new one): nothing typed is lost on switching. */
  composer: Record<string, string>;
  sending: boolean;
  /** The last failed action, shown until dismissed or replaced. */
  error: { code: string; message: string } | null;
  actions: {
    start(): Promise<void>;
    newConversation(): void;
    select(conversationId: string): Promise<void>;
    setDraftAgent(agentId: string): void;
    setDraftCwd(cwd: string): void;
    setComposer(key: string, text: string): void;
    send(): Promise<void>;
    cancel(): Promise<void>;
    answerPermission(requestId: string, optionId: string): Promise<void>;
    dismissError(): void;
  };
};

/** Key of the composer for a selection. */
export function composerKey(selection: Selection): string {
  return selection.kind === 'draft' ? 'draft' : selection.conversationId;
}

function sortByActivity(conversations: ConversationSummary[]): ConversationSummary[] {
  return [...conversations].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

function asError(error: unknown): { code: string; message: string } {
  return error instanceof BatonError ? { code: error.code, message: error.message } : { code: 'Internal', message: String(error) };
}

/** Creates the store bound to an API client. */
export function createBatonStore(api: Api) {
  return create<BatonState>()((set, get) => {
    const onPush = (event: PushEvent): void => {
      if (event.name === 'conversationChanged') {
        const { conversation } = event.payload;
        set((state) => ({
          conversations: sortByActivity([conversation, ...state.conversations.filter((c) => c.conversationId !== conversation.conversationId)]),
        }));
        return;
      }
      const envelope = event.payload.event;
      const existing = get().transcripts[envelope.conversationId];
      // Only transcripts this window has open are kept current; others load when opened.
      if (existing) {
        set((state) => ({ transcripts: { ...state.transcripts, [envelope.conversationId]: applyEnvelopes(existing, [envelope]) } }));
      }
    };

    const reload = async (): Promise<void> => {
      const [info, agents, list] = await Promise.all([api.call('getHostInfo', {}), api.call('listAgents', {}), api.call('listConversations', {})]);
      set((state) => {
        const firstAvailable = agents.agents.find((agent) => agent.available)?.agentId ?? agents.agents[0]?.agentId ?? '';
        return {
          homeDir: info.homeDir,
          agents: agents.agents,
          conversations: sortByActivity(list.conversations),
          draft: { agentId: state.draft.agentId || firstAvailable, cwd: state.draft.cwd || info.homeDir },
        };
      });
      const selection = get().selection;
      if (selection.kind === 'conversation') {
        await get().actions.select(selection.conversationId);
      }
    };

    return {
      connection: 'connecting',
      homeDir: '',
      agents: [],
      conversations: [],
      transcripts: {},
      selection: { kind: 'draft' },
      draft: { agentId: '', cwd: '' },
      composer: {},
      sending: false,
      error: null,
      actions: {
        async start() {
          api.onPush(onPush);
          api.onStatus((connection) => {
            const wasClosed = get().connection === 'closed';
            set({ connection });
            // After a reconnect, what is shown may be stale: read it again.
            if (connection === 'open' && wasClosed) {
              void reload().catch((error: unknown) => set({ error: asError(error) }));
            }
          });
          await reload().catch((error: unknown) => set({ error: asError(error) }));
        },
        newConversation() {
          set({ selection: { kind: 'draft' }, error: null });
        },
        async select(conversationId) {
          set({ selection: { kind: 'conversation', conversationId }, error: null });
          try {
            const { events } = await api.call('openConversation', { conversationId });
            set((state) => ({
              transcripts: {
                ...state.transcripts,
                [conversationId]: applyEnvelopes(state.transcripts[conversationId] ?? emptyBuffered(conversationId), events),
              },
            }));
          } catch (error) {
            set({ error: asError(error) });
          }
        },
        setDraftAgent(agentId) {
          set((state) => ({ draft: { ...state.draft, agentId } }));
        },
        setDraftCwd(cwd) {
          set((state) => ({ draft: { ...state.draft, cwd } }));
        },
        setComposer(key, text) {
          set((state) => ({ composer: { ...state.composer, [key]: text } }));
        },
        async send() {
          const { selection, draft, composer, sending } = get();
          const key = composerKey(selection);
          const text = (composer[key] ?? '').trim();
          if (!text || sending) {
            return;
          }
          set({ sending: true, error: null });
          try {
            let conversationId: string;
            if (selection.kind === 'draft') {
              const { conversation } = await api.call('newConversation', { agentId: draft.agentId, cwd: draft.cwd.trim() });
              conversationId = conversation.conversationId;
              set((state) => ({ composer: { ...state.composer, [conversationId]: state.composer.draft ?? '', draft: '' } }));
              await get().actions.select(conversationId);
            } else {
              conversationId = selection.conversationId;
            }
            await api.call('sendMessage', { conversationId, text });
            // Cleared only once the host has committed the message.
            set((state) => ({ composer: { ...state.composer, [conversationId]: '' } }));
          } catch (error) {
            set({ error: asError(error) });
          } finally {
            set({ sending: false });
          }
        },
        async cancel() {
          const { selection } = get();
          if (selection.kind !== 'conversation') {
            return;
          }
          try {
            await api.call('cancelTurn', { conversationId: selection.conversationId });
          } catch (error) {
            set({ error: asError(error) });
          }
        },
        async answerPermission(requestId, optionId) {
          const { selection } = get();
          if (selection.kind !== 'conversation') {
            return;
          }
          try {
            await api.call('answerPermission', { conversationId: selection.conversationId, requestId, optionId });
          } catch (error) {
            set({ error: asError(error) });
          }
        },
        dismissError() {
          set({ error: null });
        },
      },
    };
  });
}

/** The store type. */
export type BatonStore = ReturnType<typeof createBatonStore>;
