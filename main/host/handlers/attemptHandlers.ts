/** Requests of "Ask several agents": ask, compare, ask an agent to compare, keep one, continue one, set them aside. */
import type { HandlerGroup, HostParts } from './HostParts.js';

type AttemptMethods =
  'askAgents' | 'compareAttempts' | 'askToCompare' | 'previewKeep' | 'keepAttempt' | 'continueAttempt' | 'setAttemptsAside';

/** The attempts' handlers. */
export function attemptHandlers({ attempts, turns, sessions }: HostParts): HandlerGroup<AttemptMethods> {
  return {
    askAgents: async ({ conversationId, text, agents, container }) => {
      // A session opened while the message was written is not the attempts' (each has its own): it goes now, not when idle.
      await sessions.closeEarly(conversationId);
      return attempts.ask(conversationId, text, agents, container);
    },
    compareAttempts: ({ conversationId, attemptsId }) => attempts.compare(conversationId, attemptsId),
    askToCompare: async ({ conversationId, attemptsId, agentId }) => {
      const message = await attempts.comparisonMessage(conversationId, attemptsId);
      return { turnId: (await turns.send(conversationId, message, agentId)).turnId };
    },
    previewKeep: ({ conversationId, attemptsId, attemptId }) => attempts.previewKeep(conversationId, attemptsId, attemptId),
    keepAttempt: ({ conversationId, attemptsId, attemptId, overwrite }) => attempts.keep(conversationId, attemptsId, attemptId, overwrite),
    continueAttempt: async ({ conversationId, attemptsId, attemptId }) => ({
      conversation: await attempts.continueAttempt(conversationId, attemptsId, attemptId),
    }),
    setAttemptsAside: ({ conversationId, attemptsId }) => attempts.setAside(conversationId, attemptsId),
  };
}
