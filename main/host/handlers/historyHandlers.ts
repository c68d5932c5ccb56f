/** Requests about the history: the list, rename, archive, delete and restore, erase, search, export and import. */
import type { HandlerGroup, HostParts } from './HostParts.js';

type HistoryMethods =
  | 'listConversations'
  | 'renameConversation'
  | 'setArchived'
  | 'deleteConversation'
  | 'restoreConversation'
  | 'purgeConversation'
  | 'searchConversations'
  | 'exportConversation'
  | 'exportAllConversations'
  | 'importConversation'
  | 'getImportReview'
  | 'confirmImport';

/** The history's handlers. */
export function historyHandlers({ store, history, importReview }: HostParts): HandlerGroup<HistoryMethods> {
  return {
    listConversations: (query) => store.listSummaries(query),
    renameConversation: ({ conversationId, title }) => ({ conversation: history.rename(conversationId, title) }),
    setArchived: ({ conversationId, archived }) => ({ conversation: history.setArchived(conversationId, archived) }),
    deleteConversation: async ({ conversationId }) => ({ conversation: await history.delete(conversationId) }),
    restoreConversation: ({ conversationId }) => ({ conversation: history.restore(conversationId) }),
    purgeConversation: async ({ conversationId }) => {
      await history.purge(conversationId);
      return {};
    },
    searchConversations: ({ text, ...filters }) => ({ results: store.search({ text, ...filters }) }),
    exportConversation: ({ conversationId, format }) => history.export(conversationId, format),
    exportAllConversations: () => history.exportAll(),
    importConversation: ({ content }) => ({ conversation: history.import(content) }),
    getImportReview: ({ conversationId }) => ({ review: importReview.review(conversationId) }),
    confirmImport: async ({ conversationId, cwd }) => {
      await importReview.confirm(conversationId, cwd);
      return {};
    },
  };
}
