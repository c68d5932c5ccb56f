/** Requests about going back: rewind to one of the person's messages, undo it, branch from one. */
import type { HandlerGroup, HostParts } from './HostParts.js';

type RewindMethods = 'previewRewind' | 'rewindConversation' | 'undoRewind' | 'branchConversation';

/** The rewind and branch handlers. */
export function rewindHandlers({ rewinds }: HostParts): HandlerGroup<RewindMethods> {
  return {
    previewRewind: ({ conversationId, turnId }) => rewinds.preview(conversationId, turnId),
    rewindConversation: ({ conversationId, turnId, keepFiles, overwrite, retry }) => rewinds.rewind(conversationId, turnId, { keepFiles, overwrite, retry: retry === true }),
    undoRewind: ({ conversationId, rewindId }) => rewinds.undo(conversationId, rewindId),
    branchConversation: async ({ conversationId, turnId, restoreFiles }) => {
      const { summary, text, failed } = await rewinds.branch(conversationId, turnId, { restoreFiles });
      return { conversation: summary, text, failed };
    },
  };
}
