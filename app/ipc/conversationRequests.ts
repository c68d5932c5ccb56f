/** Requests about one conversation: create and read it, send, steer and stop turns, options, and the person's answers. */
import { z } from 'zod';
import { alwaysDecisionSchema } from '../agents/alwaysDecisions.js';
import { elicitationContentSchema } from '../agents/elicitation.js';
import { envelopeSchema } from '../events/index.js';
import { instructionTextSchema } from '../instructions/bundle.js';
import { injectorChoiceSchema } from '../instructions/injectors.js';
import { conversationContextSchema } from '../transcript/context.js';
import { conversationSummarySchema } from '../transcript/summary.js';
import { attachmentSchema, MAX_ATTACHMENTS } from '../prompt/attachments.js';
import { conversationId, conversationResult } from './common.js';

/** What a rewind does to one file. */
const rewindActionSchema = z.enum(['restored', 'removed', 'recreated']);
/** A file left as it is, and why. */
const leftOutSchema = z.object({ path: z.string(), reason: z.string() });
/**
 * One file a rewind would change: what happens to it, whether the person changed it since the last
 * checkpoint, whether it changed outside any turn (no turn's checkpoints show the change: the
 * person, or something left running between turns), and its text now and after.
 */
const rewindFileSchema = z.object({
  path: z.string(),
  action: rewindActionSchema,
  changedByYou: z.boolean(),
  outsideTurn: z.boolean().default(false),
  before: z.string().nullable(),
  after: z.string().nullable(),
  binary: z.boolean(),
});
/** One file's change between two checkpoints, with both texts (null: absent, or not text). */
const fileChangeSchema = z.object({
  path: z.string(),
  change: z.enum(['added', 'modified', 'removed']),
  before: z.string().nullable(),
  after: z.string().nullable(),
  binary: z.boolean(),
});

/** The most events one answer of a paged read carries. */
export const MAX_EVENTS_PER_PAGE = 10_000;

/** The conversations' requests of the host API contract. */
export const conversationRequests = {
  newConversation: {
    params: z.object({
      agentId: z.string().min(1),
      cwd: z.string().min(1),
      title: z.string().optional(),
      instructions: instructionTextSchema.optional(),
      /** The catalog servers it may use; absent: the default toolbox. */
      serverIds: z.array(z.string()).max(200).optional(),
      /** The injectors it selects. */
      injectors: injectorChoiceSchema.optional(),
      /** The id an early session reserved for it (see openEarlySession); one no longer reserved is ignored. */
      conversationId: conversationId.optional(),
      /** The machine `cwd` is on (see listMachines); absent: this computer. */
      machineId: z.string().min(1).max(400).optional(),
    }),
    result: conversationResult,
  },
  /**
   * Opens the agent's session for a new conversation while its first message is being written (its
   * agent, folder, toolbox and instructions settled), so its first reply need not wait for it.
   * Returns the id to create the conversation under (newConversation's `conversationId`); its first
   * turn takes the session when nothing changed. closeEarlySession, or the idle time, closes it.
   * Refused at once with what the conversation could not be created with.
   */
  openEarlySession: {
    params: z.object({
      agentId: z.string().min(1),
      cwd: z.string().min(1),
      instructions: instructionTextSchema.optional(),
      serverIds: z.array(z.string()).max(200).optional(),
      injectors: injectorChoiceSchema.optional(),
      /** The options the person chose for the agent (applied once the conversation is created, too). */
      chosen: z.record(z.string(), z.string()).optional(),
    }),
    result: z.object({ conversationId }),
  },
  /** Closes an early session that will not be used (what it was opened for changed). */
  closeEarlySession: {
    params: z.object({ conversationId }),
    result: z.object({ closed: z.boolean() }),
  },
  /**
   * Reads a stored transcript by pages of whole turns: the last `turns` turns, reaching back far
   * enough to include the turn holding `aroundSeq` when given. Starts no agent.
   */
  openConversation: {
    params: z.object({
      conversationId,
      turns: z.number().int().min(1).max(1_000_000).optional(),
      aroundSeq: z.number().int().positive().optional(),
      /** At most this many events in the answer; the rest come by readConversationEvents from `nextSeq`. */
      maxEvents: z.number().int().min(1).max(MAX_EVENTS_PER_PAGE).optional(),
    }),
    result: z.object({
      conversation: conversationSummarySchema,
      events: z.array(envelopeSchema),
      /** Seq of the first event returned; earlier ones exist when it is above 1. */
      firstSeq: z.number().int().positive(),
      /** Where the events left out by `maxEvents` start (null: none were). */
      nextSeq: z.number().int().positive().nullable(),
      /** The conversation's own state as of its last event: what a tail read from firstSeq starts from. */
      context: conversationContextSchema,
    }),
  },
  /** The next page of a read: up to `limit` stored events from `fromSeq` on. */
  readConversationEvents: {
    params: z.object({ conversationId, fromSeq: z.number().int().positive(), limit: z.number().int().min(1).max(MAX_EVENTS_PER_PAGE) }),
    result: z.object({ events: z.array(envelopeSchema), nextSeq: z.number().int().positive().nullable() }),
  },
  /**
   * Resolves once the person's message is committed as a new turn. With another agent than the
   * conversation's, the conversation passes to it from this turn (refused first, with the typed
   * error, when it cannot take the conversation's toolbox or instructions).
   */
  sendMessage: {
    params: z.object({
      conversationId,
      text: z.string().min(1).max(1_000_000),
      agentId: z.string().min(1).optional(),
      attachments: z.array(attachmentSchema).max(MAX_ATTACHMENTS).optional(),
      /** This message only goes without the person's standing instructions (and injectors): recorded on its turn. */
      withoutInstructions: z.boolean().optional(),
      /** This message only goes without the conversation's toolbox (for an agent that uses no tools): recorded on its turn. */
      withoutTools: z.boolean().optional(),
    }),
    result: z.object({ turnId: z.string(), seq: z.number().int() }),
  },
  /**
   * Sends a follow-up into the running turn (agents with the steering extension); `steered: false` when it was not (send it as a message).
   */
  steerMessage: {
    params: z.object({ conversationId, text: z.string().min(1).max(1_000_000) }),
    result: z.object({ steered: z.boolean() }),
  },
  /**
   * Sets one of the agent's session options (model, mode, reasoning…) and remembers it for the
   * conversation. With `agentId` of an agent other than the live session's (the agent picked for
   * the next message), it is only remembered, and applied when that agent's session starts.
   */
  setSessionOption: {
    params: z.object({ conversationId, optionId: z.string().min(1), value: z.string(), agentId: z.string().min(1).optional() }),
    result: z.object({}),
  },
  cancelTurn: {
    params: z.object({ conversationId }),
    result: z.object({ cancelled: z.boolean() }),
  },
  answerPermission: {
    params: z.object({ conversationId, requestId: z.string().min(1), optionId: z.string().min(1) }),
    result: z.object({}),
  },
  /** The person's "always" answers to permission questions, newest first (Settings › Permissions). */
  listAlwaysDecisions: {
    params: z.object({}),
    result: z.object({ decisions: z.array(alwaysDecisionSchema) }),
  },
  /**
   * Forgets an "always" answer: recorded in its conversation, and the agent starts afresh in that
   * folder for its next turn. `note` says what the agent may still keep in its own files.
   */
  revokeAlwaysDecision: {
    params: z.object({ id: z.string().min(1) }),
    result: z.object({ decisions: z.array(alwaysDecisionSchema), note: z.string() }),
  },
  /** Answers an agent's request for input: the form's values (accept), or decline / cancel. Values are not recorded. */
  answerElicitation: {
    params: z.object({
      conversationId,
      requestId: z.string().min(1),
      action: z.enum(['accept', 'decline', 'cancel']),
      content: elicitationContentSchema.optional(),
    }),
    result: z.object({}),
  },
  /**
   * What changed in the working folder during a turn, by any means (the agent's own tools
   * included), from its two checkpoints: each file with what happened to it and, for text, both
   * versions (null: absent, or not text).
   */
  listTurnChanges: {
    params: z.object({ conversationId, turnId: z.string().min(1) }),
    result: z.object({
      changes: z.array(fileChangeSchema),
      /** What changed between the end of the turn before and this turn's start (outside any turn). */
      sinceLastTurn: z.array(fileChangeSchema).default([]),
      /** The checkpoint before the turn finished after its prompt went out: the agent's first edits may be missing from the list. */
      approximate: z.boolean().default(false),
      /** Why the changes cannot be told (a checkpoint missing or not taken), if they cannot. */
      unavailable: z.string().nullable(),
    }),
  },
  /** What rewinding to before one of the person's messages would do: the turns it sets aside, and each file it would put back. */
  previewRewind: {
    params: z.object({ conversationId, turnId: z.string().min(1) }),
    result: z.object({
      setAside: z.array(z.object({ turnId: z.string(), text: z.string(), at: z.string() })),
      files: z.array(rewindFileSchema),
      /** Files it cannot put back, with why. */
      cannot: z.array(leftOutSchema),
      /** Why no file can be put back (no checkpoint before that message), if none can. */
      unavailable: z.string().nullable(),
    }),
  },
  /**
   * Rewinds to before one of the person's messages: its turn and the later ones are set aside (kept),
   * and unless `keepFiles`, the files the agent changed are put back (those the person changed since,
   * and those changed outside any turn, only when listed in `overwrite`). Answers that message's text, for the box.
   */
  rewindConversation: {
    params: z.object({
      conversationId,
      turnId: z.string().min(1),
      keepFiles: z.boolean(),
      overwrite: z.array(z.string()).max(100_000).default([]),
      /** For Retry: recorded so, and shown as one line. */ retry: z.boolean().optional(),
    }),
    result: z.object({
      rewindId: z.string(),
      text: z.string(),
      changed: z.array(z.object({ path: z.string(), action: rewindActionSchema })),
      failed: z.array(leftOutSchema),
    }),
  },
  /** Undoes a rewind (the last one, before any message since): its turns are back and the files it wrote are as before. */
  undoRewind: {
    params: z.object({ conversationId, rewindId: z.string().min(1) }),
    result: z.object({ failed: z.array(leftOutSchema) }),
  },
  /**
   * A new conversation with the history before one of the person's messages ("<title> (branch)");
   * the original is untouched. With `restoreFiles`, the folder's files are put back as they were
   * then. Answers the branch and that message's text, for its box.
   */
  branchConversation: {
    /**
     * `ownCopy`: the branch works in a copy of the folder of its own (a git worktree, or a copy), made from the files before that message
     * when `restoreFiles`.
     */
    params: z.object({ conversationId, turnId: z.string().min(1), restoreFiles: z.boolean(), ownCopy: z.boolean().optional() }),
    result: z.object({ conversation: conversationSummarySchema, text: z.string(), failed: z.array(leftOutSchema) }),
  },
} as const;
