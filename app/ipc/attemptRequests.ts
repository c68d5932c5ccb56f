/** Requests of "Ask several agents": ask, compare, keep one, continue one as a branch, set them aside. */
import { z } from 'zod';
import { conversationId, conversationResult } from './common.js';

const attemptsId = z.string().min(1);
const attemptId = z.string().min(1);
/** A file left as it is, and why. */
const leftOutSchema = z.object({ path: z.string(), reason: z.string() });
/** How an attempt changed one file, with both texts (null: absent, or not text). */
const attemptFileSchema = z.object({
  path: z.string(),
  change: z.enum(['added', 'modified', 'removed']),
  before: z.string().nullable(),
  after: z.string().nullable(),
  binary: z.boolean(),
});

/** The attempts' requests of the host API contract. */
export const attemptRequests = {
  /**
   * Asks two to four agents (the setting `attempts.max`) the same message, each in its own copy
   * of the working folder, each with the options picked for it. Answers once the attempts are
   * recorded; the copies are made and the agents asked in the background.
   */
  askAgents: {
    params: z.object({
      conversationId,
      text: z.string().min(1).max(1_000_000),
      agents: z
        .array(z.object({ agentId: z.string().min(1), options: z.record(z.string(), z.string()).default({}) }))
        .min(2)
        .max(8),
      /** Each attempt in a container of its own from `image` (the engine of Settings › Machines), no network unless `network`. */
      container: z.object({ image: z.string().min(1).max(500), network: z.boolean().default(false) }).optional(),
    }),
    result: z.object({ attemptsId: z.string() }),
  },
  /** Each attempt's changes against the folder as the attempts started (any two are compared in the page from these). */
  compareAttempts: {
    params: z.object({ conversationId, attemptsId }),
    result: z.object({
      attempts: z.array(
        z.object({ attemptId: z.string(), agentName: z.string(), files: z.array(attemptFileSchema), unavailable: z.string().nullable() }),
      ),
    }),
  },
  /** Sends an agent the attempts' replies and changes, asking it to compare them: a turn of the conversation. */
  askToCompare: {
    params: z.object({ conversationId, attemptsId, agentId: z.string().min(1) }),
    result: z.object({ turnId: z.string() }),
  },
  /** What keeping an attempt would write into the working folder, and the files the person changed since the attempts started. */
  previewKeep: {
    params: z.object({ conversationId, attemptsId, attemptId }),
    result: z.object({ files: z.array(attemptFileSchema.extend({ changedByYou: z.boolean() })), cannot: z.array(leftOutSchema) }),
  },
  /**
   * Keeps one attempt: its changes are applied to the working folder (files the person changed
   * since only when named in `overwrite`), its turns join the conversation, the copies are removed.
   */
  keepAttempt: {
    params: z.object({ conversationId, attemptsId, attemptId, overwrite: z.array(z.string()).max(100_000).default([]) }),
    result: z.object({
      applied: z.array(z.object({ path: z.string(), change: z.enum(['added', 'modified', 'removed']) })),
      left: z.array(z.string()),
      failed: z.array(leftOutSchema),
    }),
  },
  /** Continues an attempt as a branch of its own, with its copy of the folder. */
  continueAttempt: {
    params: z.object({ conversationId, attemptsId, attemptId }),
    result: conversationResult,
  },
  /** Sets the attempts aside: those running are stopped and their copies removed (a continued one keeps its own). */
  setAttemptsAside: {
    params: z.object({ conversationId, attemptsId }),
    result: z.object({ failed: z.array(z.object({ attemptId: z.string(), reason: z.string() })) }),
  },
} as const;
