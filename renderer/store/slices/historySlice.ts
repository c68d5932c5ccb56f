/** The conversation list (paged, per view) and the history actions: rename, archive, delete with undo, restore, erase, export, import. */
import { saveFile } from '../../saveFile.js';
import type { HistoryView, Slice } from '../types.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';

/** The conversation list and what can be done with its entries. */
/** Questions waiting for the person in a conversation: its own and those of its attempts. */
export function questionsWaiting(conversation: ConversationSummary, attemptQuestions: HistorySlice['attemptQuestions']): number {
  const attempts = Object.values(attemptQuestions[conversation.conversationId] ?? {});
  return conversation.pendingPermissions + attempts.reduce((sum, count) => sum + count, 0);
}

export type HistorySlice = {
  view: HistoryView;
  conversations: ConversationSummary[];
  nextCursor: { updatedAt: string; conversationId: string } | null;
  loadingMore: boolean;
  /** The last deleted conversation, for a while, so it can be brought back. */
  undo: { conversationId: string; title: string } | null;
  /** Questions open in each asking conversation's attempts (by its id, then by attempt conversation), as pushed. */
  attemptQuestions: Record<string, Record<string, number>>;
  setView(view: HistoryView): Promise<void>;
  loadMore(): Promise<void>;
  upsertSummary(summary: ConversationSummary): void;
  removeSummary(conversationId: string): void;
  rename(conversationId: string, title: string): Promise<void>;
  setArchived(conversationId: string, archived: boolean): Promise<void>;
  remove(conversationId: string): Promise<void>;
  restore(conversationId: string): Promise<void>;
  purge(conversationId: string): Promise<void>;
  dismissUndo(): void;
  exportConversation(conversationId: string, format: 'markdown' | 'jsonl'): Promise<void>;
  importFile(file: File): Promise<void>;
};

const PAGE_SIZE = 200;
/** How long "Undo" stays offered after a delete. */
export const UNDO_MS = 10_000;

function byActivity(a: ConversationSummary, b: ConversationSummary): number {
  return b.updatedAt.localeCompare(a.updatedAt) || b.conversationId.localeCompare(a.conversationId);
}

/** The history slice. */
export const historySlice: Slice<HistorySlice> = (api) => (set, get) => {
  let undoTimer: ReturnType<typeof setTimeout> | undefined;
  const attempt = async (work: () => Promise<unknown>): Promise<void> => {
    try {
      await work();
    } catch (error) {
      get().showError(error);
    }
  };

  return {
    view: 'active',
    conversations: [],
    attemptQuestions: {},
    nextCursor: null,
    loadingMore: false,
    undo: null,
    async setView(view) {
      set({ view });
      await attempt(async () => {
        const page = await api.call('listConversations', { lifecycle: view, limit: PAGE_SIZE });
        if (get().view === view) {
          set({ conversations: page.conversations, nextCursor: page.nextCursor });
        }
      });
    },
    async loadMore() {
      const { nextCursor, loadingMore, view } = get();
      if (!nextCursor || loadingMore) {
        return;
      }
      set({ loadingMore: true });
      await attempt(async () => {
        const page = await api.call('listConversations', { lifecycle: view, before: nextCursor, limit: PAGE_SIZE });
        if (get().view === view) {
          const known = new Set(get().conversations.map((c) => c.conversationId));
          set((state) => ({
            conversations: [...state.conversations, ...page.conversations.filter((c) => !known.has(c.conversationId))],
            nextCursor: page.nextCursor,
          }));
        }
      });
      set({ loadingMore: false });
    },
    upsertSummary(summary) {
      if (summary.lifecycle === 'attempt' && summary.attemptOf) {
        const asking = summary.attemptOf.conversationId;
        const known = get().attemptQuestions[asking]?.[summary.conversationId] ?? 0;
        if (known !== summary.pendingPermissions) {
          set((state) => ({
            attemptQuestions: {
              ...state.attemptQuestions,
              [asking]: { ...state.attemptQuestions[asking], [summary.conversationId]: summary.pendingPermissions },
            },
          }));
        }
      }
      set((state) => {
        const open = state.selection.kind === 'conversation' && state.selection.conversationId === summary.conversationId;
        const openSummary = open ? { openSummary: summary } : {};
        const others = state.conversations.filter((c) => c.conversationId !== summary.conversationId);
        if (summary.lifecycle !== state.view) {
          if (others.length === state.conversations.length) {
            return open ? openSummary : state;
          }
          return { conversations: others, ...openSummary };
        }
        return { conversations: [summary, ...others].sort(byActivity), ...openSummary };
      });
    },
    removeSummary(conversationId) {
      set((state) => {
        const open = state.selection.kind === 'conversation' && state.selection.conversationId === conversationId;
        return {
          conversations: state.conversations.filter((c) => c.conversationId !== conversationId),
          // Erased for good: the pane becomes a new conversation, header, transcript and composer alike.
          ...(open ? { selection: { kind: 'draft' as const }, openSummary: null, focus: null } : {}),
          undo: state.undo?.conversationId === conversationId ? null : state.undo,
        };
      });
    },
    rename: (conversationId, title) => attempt(() => api.call('renameConversation', { conversationId, title })),
    setArchived: (conversationId, archived) => attempt(() => api.call('setArchived', { conversationId, archived })),
    async remove(conversationId) {
      await attempt(async () => {
        const { conversation } = await api.call('deleteConversation', { conversationId });
        clearTimeout(undoTimer);
        set({ undo: { conversationId, title: conversation.title } });
        undoTimer = setTimeout(() => set({ undo: null }), UNDO_MS);
      });
    },
    async restore(conversationId) {
      await attempt(async () => {
        await api.call('restoreConversation', { conversationId });
        if (get().undo?.conversationId === conversationId) {
          clearTimeout(undoTimer);
          set({ undo: null });
        }
      });
    },
    purge: (conversationId) => attempt(() => api.call('purgeConversation', { conversationId })),
    dismissUndo() {
      clearTimeout(undoTimer);
      set({ undo: null });
    },
    exportConversation: (conversationId, format) =>
      attempt(async () => {
        const file = await api.call('exportConversation', { conversationId, format });
        saveFile(file.fileName, file.mimeType, file.content);
      }),
    importFile: (file) =>
      attempt(async () => {
        const { conversation } = await api.callWithFile('importConversation', file);
        if (get().view !== 'active') {
          await get().setView('active');
        }
        await get().select(conversation.conversationId);
      }),
  };
};
