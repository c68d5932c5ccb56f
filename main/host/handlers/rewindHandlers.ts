/** Requests about going back: rewind to one of the person's messages, undo it, branch from one. */
import type { HandlerGroup, HostParts } from './HostParts.js';

type RewindMethods = 'previewRewind' | 'rewindConversation' | 'undoRewind' | 'branchConversation';

/** The rewind and branch handlers. */
export function rewindHandlers({ rewinds, branchCopies }: HostParts): HandlerGroup<RewindMethods> {
  return {
    previewRewind: ({ conversationId, turnId }) => rewinds.preview(conversationId, turnId),
    rewindConversation: ({ conversationId, turnId, keepFiles, overwrite, retry }) =>
      rewinds.rewind(conversationId, turnId, { keepFiles, overwrite, retry: retry === true }),
    undoRewind: ({ conversationId, rewindId }) => rewinds.undo(conversationId, rewindId),
    branchConversation: async ({ conversationId, turnId, restoreFiles, ownCopy }) => {
      // In its own copy, "put the files back" starts the copy from them; the person's folder is left as it is.
      const { summary, text, failed } = ownCopy
        ? await branchCopies.branch(conversationId, turnId, restoreFiles)
        : await rewinds.branch(conversationId, turnId, { restoreFiles });
      return { conversation: summary, text, failed };
    },
  };
}
