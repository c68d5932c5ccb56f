/**
 * The transcript event grammar: every fact Baton records about a conversation, as a zod
 * discriminated union on `type`, wrapped in a versioned envelope. Events are appended, never
 * edited; the reducer in `app/transcript` folds them into what the screen shows.
 */
import { z } from 'zod';
import { wireErrorSchema } from '../errors.js';
import { toolboxChoiceSchema } from '../toolbox/catalog.js';
import { injectorChoiceSchema, injectorOriginSchema, injectorTimingSchema } from '../instructions/injectors.js';
import { attachmentRecordSchema } from '../prompt/attachments.js';
import {
  eventIdSchema as id,
  eventTextSchema as text,
  permissionOptionSchema,
  sessionOptionSchema,
  elicitationSchemaSchema,
  turnTokensSchema,
  turnOutcomeSchema,
  messageChunkSchema,
  thoughtChunkSchema,
  toolCallSchema,
  toolUpdatedSchema,
  planSchema,
  subagentActivitySchema,
} from './partSchemas.js';

export * from './partSchemas.js';

/** The machine a folder is on (its id); absent in events written before machines: this computer. */
const machine = z.string().min(1).optional();

/** Version of the envelope and payload shapes written by this build. */
export const EVENT_VERSION = 1;

/** Payload schemas by event type. */
export const payloadSchemas = {
  /** `cwd` is a folder on `machine` (its id; absent in events written before machines: this computer). */
  'conversation.created': z.object({ title: z.string(), agentId: id, agentName: z.string(), cwd: z.string(), machine }),
  'conversation.renamed': z.object({ title: z.string() }),
  'conversation.archived': z.object({}),
  'conversation.unarchived': z.object({}),
  /** A tombstone: hidden from the list and from search until restored or purged. */
  'conversation.deleted': z.object({}),
  'conversation.restored': z.object({}),
  /** The person's message; committing it is what makes the turn accepted. */
  'turn.started': z.object({
    turnId: id,
    agentId: id,
    agentName: z.string(),
    text,
    /** sha256 of the instruction bundle the turn runs under (absent in transcripts written before instructions). */
    instructionsSha256: z.string().optional(),
    /** What went into that bundle: each source's digest, and the profile's revision. */
    instructionSources: z
      .array(z.object({ source: z.string(), sha256: z.string(), revision: z.number().int().optional(), name: z.string().optional() }))
      .optional(),
    /** Digest of the toolbox the turn runs under (see `toolbox.set`). */
    toolboxDigest: z.string().optional(),
    /** What the person attached: mentioned files, images, documents (never an image's bytes). */
    attachments: z.array(attachmentRecordSchema).optional(),
    /** The person sent this one message without their standing instructions (and injectors). */
    withoutInstructions: z.literal(true).optional(),
    /** The person sent this one message without the conversation's toolbox. */
    withoutTools: z.literal(true).optional(),
  }),
  /** The agent has the prompt: the turn moved from accepted to running. */
  'turn.running': z.object({ turnId: id }),
  /** The person's follow-up, sent into the running turn (the agent's steering extension), not as a turn of its own. */
  'turn.steered': z.object({ turnId: id, text: z.string() }),
  'turn.ended': z.object({
    turnId: id,
    outcome: turnOutcomeSchema,
    stopReason: z.string().optional(),
    error: wireErrorSchema.optional(),
    /** Tokens the turn used, when the agent reports them with its answer to `session/prompt`. */
    tokens: turnTokensSchema.optional(),
  }),
  /**
   * A checkpoint of the working folder, taken before a turn's prompt went out or after the turn
   * ended: what it holds, what it left out (files over the size limit, files it could not read),
   * or why it could not be taken (the turn itself goes on either way).
   */
  'checkpoint.taken': z.object({
    turnId: id,
    phase: z.enum(['before', 'after']),
    checkpointId: z.string().optional(),
    files: z.number().int().nonnegative().optional(),
    tooLarge: z.array(z.object({ path: z.string(), reason: z.string() })).default([]),
    failed: z.array(z.object({ path: z.string(), reason: z.string() })).default([]),
    error: z.string().optional(),
    /** A "before" checkpoint that finished after the prompt went out: the agent's first edits may be in it. */
    approximate: z.literal(true).optional(),
    /** For an "after" checkpoint: how many files differ from the turn's "before" one (absent where unknown). */
    changed: z.number().int().nonnegative().optional(),
  }),
  /**
   * The agent wrote a file through Baton (`fs/write_text_file`), in the folder of its session: shown
   * on the turn's card whatever the checkpoints say (they see the folder only before and after).
   */
  'file.written': z.object({ turnId: id, path: z.string(), bytes: z.number().int().nonnegative(), created: z.boolean() }),
  /**
   * The person rewound the conversation to before one of their messages: that turn and every later
   * one are set aside (kept, shown apart, never handed to an agent) and, unless they kept the files,
   * the working folder's files the agent changed in them are put back as they were. `pointSeq` is
   * the seq of that message's `turn.started`: an agent session that saw a turn ending after it is
   * not reused. `checkpointId` is the folder as it was just before the rewind (what "Undo rewind"
   * puts back), `changed` what the rewind wrote, `failed` what it could not put back.
   */
  'conversation.rewound': z.object({
    rewindId: id,
    toTurnId: id,
    pointSeq: z.number().int().nonnegative(),
    /** When that message was sent (what the marker says it was rewound to). */
    pointAt: z.string(),
    setAside: z.array(id),
    files: z.enum(['restored', 'kept']),
    checkpointId: z.string().optional(),
    changed: z.array(z.object({ path: z.string(), action: z.enum(['restored', 'removed', 'recreated']) })).default([]),
    failed: z.array(z.object({ path: z.string(), reason: z.string() })).default([]),
    /** A Retry of the last reply (its message is sent again at once): shown as one line, "Retried · Undo". */
    retry: z.literal(true).optional(),
    /**
     * Where the agent's own session can go on from: its message that ended the last turn kept (the
     * session ran it), so the next turn forks that session there instead of starting a new one.
     */
    fork: z.object({ agentId: id, sessionId: z.string(), messageId: z.string(), watermark: z.number().int().nonnegative() }).optional(),
  }),
  /** "Undo rewind": the set-aside turns are back, and the files the rewind wrote are as they were before it. */
  'conversation.rewindUndone': z.object({ rewindId: id, failed: z.array(z.object({ path: z.string(), reason: z.string() })).default([]) }),
  /** This conversation is a branch of another, made from the history before one of its messages. */
  'conversation.branched': z.object({
    fromConversationId: id,
    fromTitle: z.string(),
    fromTurnId: id,
    /** "In its own copy": the folder the branch works in (a worktree on `branch` of `repository`, or a copy), removed with it. */
    copy: z.object({ folder: z.string(), repository: z.string().optional(), branch: z.string().optional(), machine }).optional(),
  }),
  /**
   * One message asked of several agents at once ("Ask several agents"), each attempt in its own copy
   * of the working folder (a git worktree on branch `baton/<conversation>/<agent>`, or a copy in
   * Baton's data folder) and its own hidden conversation. Recorded before any copy is made, so a
   * copy left by a host that died is always accounted for.
   */
  'attempts.started': z.object({
    attemptsId: id,
    text,
    attempts: z.array(
      z.object({
        attemptId: id,
        agentId: id,
        agentName: z.string(),
        /** The attempt's own conversation (hidden until continued as a branch). */
        conversationId: id,
        /** The copy's working folder, on `machine`. */
        folder: z.string(),
        machine,
        kind: z.enum(['worktree', 'copy']),
        /** The worktree's branch, for kind "worktree". */
        branch: z.string().optional(),
      }),
    ),
    /** The git repository the worktrees belong to, for kind "worktree". */
    repository: z.string().optional(),
    /** Each attempt in a container of its own, started by Baton from `image` (its machine), with no network unless `network`. */
    container: z.object({ image: z.string(), network: z.boolean() }).optional(),
  }),
  /** An attempt's copy is ready (from `checkpointId`, the working folder as the attempts started) and its agent has the message. */
  'attempt.prepared': z.object({
    attemptsId: id,
    attemptId: id,
    checkpointId: z.string(),
    /** The last event of the history its conversation was given: its own turns come after. */
    fromSeq: z.number().int().nonnegative().default(0),
  }),
  /** An attempt could not start (its copy could not be made, its agent refused), with why. */
  'attempt.failed': z.object({ attemptsId: id, attemptId: id, reason: z.string() }),
  /**
   * "Keep this one": the attempt's changes were applied to the working folder (files the person
   * changed since the attempts started left alone unless ticked), and its turns join the conversation.
   */
  'attempt.kept': z.object({
    attemptsId: id,
    attemptId: id,
    applied: z.array(z.object({ path: z.string(), change: z.enum(['added', 'modified', 'removed']) })),
    /** Files the person changed since the attempts started, left as they are. */
    left: z.array(z.string()),
    failed: z.array(z.object({ path: z.string(), reason: z.string() })),
  }),
  /**
   * An attempt became a branch of its own ("Continue this attempt"), with its copy of the folder;
   * `branch` is the git branch Baton made for that copy (the one erasing the branch deletes, never
   * a name read back from the copy). Older events have none: the attempt's branch is meant.
   */
  'attempt.continued': z.object({ attemptsId: id, attemptId: id, conversationId: id, branch: z.string().optional() }),
  /** The attempts' copies were removed (worktrees and their branches too); those that could not be, with why. */
  'attempts.removed': z.object({ attemptsId: id, failed: z.array(z.object({ attemptId: id, reason: z.string() })).default([]) }),
  /** This conversation is one attempt of several (see `attempts.started` in `ofConversationId`): hidden from the list until continued. */
  'conversation.attempt': z.object({
    ofConversationId: id,
    attemptsId: id,
    attemptId: id,
    /** The last event of the history it was given (its own turns come after). */
    fromSeq: z.number().int().nonnegative(),
    /** The attempt's agent, and the options the person picked for it (its mode, its model). */
    agentId: id,
    chosen: z.record(z.string(), z.string()).default({}),
  }),
  /** The agent session this conversation is bound to (so it can be loaded after a restart). */
  'session.bound': z.object({
    agentId: id,
    sessionId: z.string(),
    agentVersion: z.string().optional(),
    /** `fork`: a copy of the conversation's earlier session, cut where a rewind went back to. */
    how: z.enum(['new', 'load', 'resume', 'fork']),
    /** Digest of the binding's session part the session was created with (its instructions and servers). */
    sessionDigest: z.string().optional(),
    /** The agent takes follow-ups into a running turn (it advertises `_meta.steering`). */
    steering: z.boolean().optional(),
  }),
  /** The options the agent offers now, with their current values (replaces the previous list). */
  'session.options': z.object({ options: z.array(sessionOptionSchema) }),
  /** The slash commands the agent offers now (replaces the previous list). */
  'session.commands': z.object({ commands: z.array(z.object({ name: z.string(), description: z.string(), hint: z.string().optional() })) }),
  /** What the agent says about its session (its own title for it). */
  'session.info': z.object({ title: z.string().nullable() }),
  /** The person's choice, remembered for the conversation and applied again whenever a session is reopened. */
  'session.option.chosen': z.object({ optionId: z.string().min(1), value: z.string() }),
  'message.chunk': messageChunkSchema,
  'thought.chunk': thoughtChunkSchema,
  'tool.call': toolCallSchema,
  'tool.updated': toolUpdatedSchema,
  plan: planSchema,
  /**
   * A subagent the agent runs inside this turn (ACP's subagent sessions): its title, what it is
   * for, and what it is doing now. Its own work arrives as `subagent.event`.
   */
  'subagent.updated': z.object({
    turnId: id,
    subagentId: id,
    title: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    state: z.string().optional(),
  }),
  /** One thing a subagent did (its text, thoughts, tool calls, plan), kept inside its card in the parent's turn. */
  'subagent.event': z.object({ turnId: id, subagentId: id, event: subagentActivitySchema }),
  'permission.requested': z.object({
    turnId: id,
    requestId: id,
    toolCallId: z.string().optional(),
    title: z.string(),
    options: z.array(permissionOptionSchema),
    /** The tool's input as the question gave it (shown before the person answers). */
    rawInput: z.unknown().optional(),
  }),
  'permission.decided': z.object({
    turnId: id,
    requestId: id,
    /** The option the person chose, or null when the request was cancelled with the turn. */
    optionId: z.string().nullable(),
    by: z.enum(['person', 'turn-cancelled']),
  }),
  /**
   * The person revoked an "always" answer given to this request (in Settings › Permissions): Baton
   * forgets it and the agent is started afresh for its next turn, so it asks again.
   */
  'permission.revoked': z.object({
    turnId: id,
    requestId: id,
    /** What the agent may still keep in its own files, said plainly (null: nothing known). */
    note: z.string().nullable(),
  }),
  /**
   * A command started in a terminal: one Baton runs for the agent (`terminal/create`), or one the
   * agent runs itself and reports (`_meta.terminal_info`; its command and folder are then empty
   * and the tool call's title names it).
   */
  'terminal.started': z.object({ turnId: z.string().optional(), terminalId: id, command: z.string(), cwd: z.string(), machine }),
  /** Output of a client terminal, as it came (bounded: see `terminal.exited`'s `truncated`). */
  'terminal.output': z.object({ terminalId: id, text }),
  /** A client terminal's command ended (or was killed, or the terminal was released while it ran). */
  'terminal.exited': z.object({
    terminalId: id,
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    /** True when more output came than the transcript keeps for one terminal. */
    truncated: z.boolean(),
  }),
  /**
   * An MCP server's request for input, forwarded by the agent (`elicitation/create`). Shown as a
   * form (or a link to open); never answered on the person's behalf.
   */
  'elicitation.requested': z.object({
    turnId: z.string().optional(),
    requestId: id,
    toolCallId: z.string().optional(),
    message: z.string(),
    mode: z.enum(['form', 'url']),
    /** The form's JSON schema (primitive properties only), for mode "form". */
    schema: elicitationSchemaSchema.optional(),
    /** The page to open, for mode "url". */
    url: z.string().optional(),
  }),
  /**
   * How the request was answered. The values the person typed go to the agent and are not kept
   * (they may be secrets); only which fields were filled in.
   */
  'elicitation.answered': z.object({
    requestId: id,
    action: z.enum(['accept', 'decline', 'cancel']),
    by: z.enum(['person', 'turn-cancelled']),
    fields: z.array(z.string()).optional(),
  }),
  /** The agent says an elicitation opened as a link is done (`elicitation/complete`). */
  'elicitation.completed': z.object({ requestId: id }),
  /** The agent's context window (tokens in use of its size) and, when reported, the session's cost so far. */
  usage: z.object({
    turnId: id,
    used: z.number(),
    size: z.number(),
    cost: z.object({ amount: z.number(), currency: z.string() }).optional(),
  }),
  notice: z.object({ turnId: z.string().optional(), severity: z.enum(['info', 'warning', 'error']), text }),
  /**
   * The person handed the conversation to another agent: committed with the `turn.started` of the
   * turn the new agent handles (the agent is a per-turn fact; this marks where it changed).
   */
  'agent.switched': z.object({ turnId: id, fromAgentId: z.string(), fromAgentName: z.string(), toAgentId: id, toAgentName: z.string() }),
  /**
   * What an agent was given to catch up, on the turn it needed it: after a switch, or when its
   * session had to be started again. `fidelity` says which path was really taken: its own session
   * reopened with only what happened since it last took part ("resumed"; "replayed" when the
   * session was loaded), or a new session given Baton's handoff from the transcript ("handed-off").
   * The text is exactly what was sent (empty when there was nothing new), never the person's message.
   */
  'handoff.prepared': z.object({
    turnId: id,
    toAgentId: id,
    toAgentName: z.string(),
    fidelity: z.enum(['resumed', 'replayed', 'handed-off']),
    /** How the agent's session was bound for the turn. */
    how: z.enum(['live', 'resume', 'load', 'new', 'fork']),
    /** The handoff (a new session) or the delta (a reopened one). */
    kind: z.enum(['handoff', 'delta']),
    text,
    sha256: z.string(),
    uri: z.string().optional(),
    /** How it travelled: an embedded resource, a delimited text block, or not at all (nothing to say). */
    level: z.enum(['resource', 'text', 'none']),
    turns: z.object({
      full: z.number().int().nonnegative(),
      summarised: z.number().int().nonnegative(),
      omitted: z.number().int().nonnegative(),
    }),
    /** Why a reopening fell back to a handoff, when it did. */
    fellBack: z.string().optional(),
    /** Option choices carried over from the previous agent, and those it has no equivalent for ("Mode: Plan"). */
    carried: z.array(z.string()).default([]),
    notCarried: z.array(z.string()).default([]),
  }),
  /** The MCP servers the conversation may use from its next turn: names and a digest, never a secret. */
  'toolbox.set': toolboxChoiceSchema,
  /** The injectors the conversation selected, by name, and its switch that turns them all off (from its next turn). */
  'injectors.set': injectorChoiceSchema,
  /**
   * What an injector gave one turn, recorded apart from the person's message: its every-turn
   * instructions (at the level the bundle reached), or its per-turn block (an embedded resource,
   * or delimited text where the person allowed that), secrets already redacted.
   */
  'context.injected': z.object({
    turnId: id,
    injector: z.string(),
    timing: injectorTimingSchema,
    origin: injectorOriginSchema,
    level: z.enum(['system', 'developer', 'per-turn resource', 'per-turn text']),
    sha256: z.string(),
    text,
    /** The block's URI, for per-turn context. */
    uri: z.string().optional(),
  }),
  /** The conversation's own standing instructions (replaces the previous ones; empty text clears them). */
  'instructions.set': z.object({ text: z.string(), intent: z.enum(['append', 'replace']) }),
  'binding.changed': z.object({
    /** sha256 of the composed instructions and a digest of the toolbox: what the next session gets. */
    instructionsDigest: z.string().optional(),
    toolboxDigest: z.string().optional(),
    /** The binding's two parts: what the agent process is started with, and what its session is given. */
    launchDigest: z.string().optional(),
    sessionDigest: z.string().optional(),
    /** What changed, in words ("the toolbox", "the instructions"). */
    changed: z.array(z.string()).optional(),
  }),
} as const;

/** Every event type this build understands. */
export type EventType = keyof typeof payloadSchemas;

/** Payload of an event type. */
export type EventPayload<T extends EventType> = z.infer<(typeof payloadSchemas)[T]>;

/** An event before the store gives it a place: what producers hand to `append`. */
export type EventDraft = { [T in EventType]: { type: T; payload: EventPayload<T> } }[EventType];

/** Envelope fields the store assigns. */
export type EnvelopeFields = { conversationId: string; seq: number; at: string; v: number };

/** A stored, known transcript event. */
export type TranscriptEvent = EnvelopeFields & EventDraft;

/** A stored event of a type this build does not know (written by a newer Baton): kept, not reduced. */
export type UnknownEvent = EnvelopeFields & { type: string; payload: unknown; unknown: true };

/** The raw envelope as it travels and is stored. */
export const envelopeSchema = z.object({
  conversationId: id,
  seq: z.number().int().positive(),
  at: z.string(),
  v: z.number().int().positive(),
  type: z.string().min(1),
  payload: z.unknown(),
});

/** The raw envelope as it travels and is stored. */
export type Envelope = z.infer<typeof envelopeSchema>;
