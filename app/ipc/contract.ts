/**
 * The host API contract: every request the renderer can make and every event the host pushes,
 * each with a zod schema. Both transports (Electron IPC, WebSocket) carry exactly these messages
 * and parse them at the boundary in both directions.
 */
import { z } from 'zod';
import { agentCardSchema } from '../agents/agentCard.js';
import { alwaysDecisionSchema } from '../agents/alwaysDecisions.js';
import { agentInfoSchema } from '../agents/agentInfo.js';
import { elicitationContentSchema } from '../agents/elicitation.js';
import { wireErrorSchema } from '../errors.js';
import { envelopeSchema } from '../events/index.js';
import { instructionIntentSchema, instructionSourceSchema, instructionTextSchema } from '../instructions/bundle.js';
import { agentInstructionSettingsSchema, instructionCapabilitySchema, partLevelSchema } from '../instructions/delivery.js';
import { injectorChoiceSchema, injectorOriginSchema, injectorTimingSchema } from '../instructions/injectors.js';
import { catalogServerSchema, serverInputSchema, toolboxSchema, transportSchema } from '../toolbox/catalog.js';
import { conversationContextSchema } from '../transcript/context.js';
import { conversationSummarySchema } from '../transcript/summary.js';
import { attachmentSchema, MAX_ATTACHMENTS } from '../prompt/attachments.js';

const conversationId = z.string().min(1);
const conversationResult = z.object({ conversation: conversationSummarySchema });

/** Keyset cursor of the conversation list: the last row of the previous page. */
/** What an imported conversation brings: its folder (and whether it is as broad as / or the home folder), instructions, injectors and toolbox. */
export const importReviewSchema = z.object({
  cwd: z.string(),
  /** The folder is `/`, the home folder itself, or holds it: an agent there can reach nearly everything. */
  broadFolder: z.boolean(),
  instructions: z.object({ text: z.string(), intent: z.enum(['append', 'replace']) }).nullable(),
  injectors: z.array(z.string()),
  servers: z.array(z.string()),
});
/** One of {@link importReviewSchema}. */
export type ImportReview = z.infer<typeof importReviewSchema>;

export const listCursorSchema = z.object({ updatedAt: z.string(), conversationId: z.string() });

/** One search result; `snippet` marks matched words with \u0002 … \u0003. */
export const searchHitSchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  seq: z.number().int(),
  role: z.enum(['user', 'agent']),
  agentId: z.string(),
  at: z.string(),
  snippet: z.string(),
});

/** One search result. */
export type SearchHit = z.infer<typeof searchHitSchema>;

/** A session an agent keeps itself (from its `session/list`), and the conversation it is already imported into. */
export const agentSessionSchema = z.object({
  sessionId: z.string(),
  cwd: z.string(),
  title: z.string().nullable(),
  updatedAt: z.string().nullable(),
  conversationId: z.string().nullable(),
});

/** A session an agent keeps itself. */
export type AgentSession = z.infer<typeof agentSessionSchema>;

/** Largest transcript file accepted for import. */
export const MAX_IMPORT_CHARS = 256 * 1024 * 1024;

/** Requests by method name: params and result schemas. */
/** A server found in a config file, offered for import. */
export const importCandidateSchema = z.object({
  candidateId: z.string(),
  name: z.string(),
  transport: transportSchema,
  /** Its command line or URL, for the person to recognise it. */
  summary: z.string(),
  dialect: z.string(),
  file: z.string(),
  key: z.string(),
  /** Entries that will be kept encrypted. */
  secretNames: z.array(z.string()),
  /** Values to type in first (VS Code inputs). */
  needsInput: z.array(z.object({ inputId: z.string(), description: z.string(), password: z.boolean() })),
  /** Settings of the file Baton does not carry over. */
  notCarried: z.array(z.string()),
  /** A server of that name is in the catalog already (importing it again is refused). */
  alreadyInCatalog: z.boolean(),
});

/** One of {@link importCandidateSchema}. */
export type ImportCandidate = z.infer<typeof importCandidateSchema>;

/** What the Instructions dialog shows for one agent. */
export const instructionPreviewSchema = z.object({
  agentId: z.string(),
  agentName: z.string(),
  /** Each part the person wrote, in composition order, with where it lands. */
  parts: z.array(z.object({ source: instructionSourceSchema, sourceName: z.string(), name: z.string().optional(), intent: instructionIntentSchema, text: z.string(), level: partLevelSchema, label: z.string(), sha256: z.string() })),
  /** What the selected injectors give single turns (on the prompt, ahead of the person's message). */
  perTurn: z.array(z.object({ name: z.string(), timing: injectorTimingSchema, when: z.string(), text: z.string(), level: partLevelSchema, label: z.string(), sha256: z.string() })),
  /** The injectors this conversation can select, the ones that cannot be read, and its switch. */
  injectors: z.object({
    available: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        timing: injectorTimingSchema,
        timingName: z.string(),
        origin: injectorOriginSchema,
        folder: z.string(),
        /** Manifest keys that contribute nothing (tools, permissions, code…). */
        ignored: z.array(z.string()),
        selected: z.boolean(),
      }),
    ),
    broken: z.array(z.object({ name: z.string(), origin: injectorOriginSchema, folder: z.string(), problem: z.string(), selected: z.boolean() })),
    off: z.boolean(),
  }),
  /** sha256 of the bundle (recorded on every turn that runs under it). */
  sha256: z.string(),
  /** Baton's own short note: delivered, skipped (no channel), or off. */
  fragment: z.enum(['delivered', 'skipped', 'off']),
  fragmentNote: z.string().optional(),
  settings: agentInstructionSettingsSchema,
  channels: instructionCapabilitySchema,
  /** True when one of this agent's channels is a command-line argument. */
  commandLine: z.boolean(),
  /** Why a turn with these texts would be refused, when it would. */
  refusal: z.string().nullable(),
  /** The agent's saved profile and its revision (0: never written). */
  profile: z.object({ text: z.string(), intent: instructionIntentSchema, revision: z.number().int() }),
  /** The working folder's `.baton/instructions.md`: what it says now, what was trusted, how it stands. */
  project: z.object({
    state: z.enum(['none', 'untrusted', 'changed', 'trusted']),
    folder: z.string().nullable(),
    text: z.string().nullable(),
    sha256: z.string().nullable(),
    problem: z.string().nullable(),
    trustedText: z.string().nullable(),
    /** The injectors under `.agents/instructions/` as they are now: each folder, the files it contributes with their text, or why it cannot be used. */
    injectors: z.array(z.object({ dir: z.string(), files: z.array(z.object({ file: z.string(), text: z.string() })), problem: z.string().nullable() })),
    /** Since the folder was trusted: each file added, changed or removed. */
    changes: z.array(z.string()),
  }),
});

/** One of {@link instructionPreviewSchema}. */
export type InstructionPreview = z.infer<typeof instructionPreviewSchema>;

/** The most events one answer of a paged read carries. */
export const MAX_EVENTS_PER_PAGE = 10_000;

export const requests = {
  /** Facts about this host needed to draw the first screen. */
  getHostInfo: {
    params: z.object({}),
    result: z.object({
      homeDir: z.string(),
      dataDir: z.string(),
      version: z.string(),
      /** Whether log-in methods that run in a terminal can run here. */
      terminalLogin: z.boolean(),
    }),
  },
  listAgents: {
    params: z.object({}),
    result: z.object({ agents: z.array(agentInfoSchema) }),
  },
  /** Logs in to an agent with one of the methods it offers (it keeps the credentials itself). */
  authenticateAgent: {
    params: z.object({ agentId: z.string().min(1), methodId: z.string().min(1) }),
    result: z.object({}),
  },
  /**
   * Installs (or updates to the version this Baton pins) an npm-distributed agent into Baton's
   * own agents folder. Progress comes as agentInstallProgress; resolves with the agent list after.
   */
  installAgent: {
    params: z.object({ agentId: z.string().min(1) }),
    result: z.object({ agents: z.array(agentInfoSchema) }),
  },
  /** Removes an agent Baton installed (never one the person installed themselves). */
  removeAgent: {
    params: z.object({ agentId: z.string().min(1) }),
    result: z.object({ agents: z.array(agentInfoSchema) }),
  },
  /** Runs one of the agent's terminal log-in methods in a terminal the page shows (output comes as loginTerminal). */
  startLoginTerminal: {
    params: z.object({ agentId: z.string().min(1), methodId: z.string().min(1), cols: z.number().int().positive(), rows: z.number().int().positive() }),
    result: z.object({ terminalId: z.string() }),
  },
  /** Keys the person typed into a log-in terminal. */
  loginTerminalInput: {
    params: z.object({ terminalId: z.string().min(1), data: z.string().max(65_536) }),
    result: z.object({}),
  },
  /** Ends a log-in terminal that still runs. */
  closeLoginTerminal: {
    params: z.object({ terminalId: z.string().min(1) }),
    result: z.object({}),
  },
  /** Logs out of an agent that offers `logout` (it forgets the credentials it keeps). */
  logoutAgent: {
    params: z.object({ agentId: z.string().min(1) }),
    result: z.object({}),
  },
  /** The sessions an agent keeps itself (`session/list`), optionally only those of one folder, newest first. */
  listAgentSessions: {
    params: z.object({ agentId: z.string().min(1), cwd: z.string().min(1).optional() }),
    result: z.object({ sessions: z.array(agentSessionSchema), truncated: z.boolean() }),
  },
  /**
   * Brings one of an agent's own sessions into the history: its replayed messages become the
   * conversation's turns and later messages continue it. Importing it again returns the same conversation.
   */
  importAgentSession: {
    params: z.object({ agentId: z.string().min(1), sessionId: z.string().min(1), cwd: z.string().min(1) }),
    result: z.object({ conversation: conversationSummarySchema, alreadyImported: z.boolean() }),
  },
  /** Files of a working folder matching what follows @ in the message box (for mentions). */
  listFolderFiles: {
    params: z.object({ cwd: z.string().min(1), query: z.string().max(500) }),
    result: z.object({ files: z.array(z.string()), truncated: z.boolean() }),
  },
  /** Folders whose path starts with what the person typed in a folder field (~ is the home folder), for completion. */
  listFolders: {
    params: z.object({ typed: z.string().max(4_096) }),
    result: z.object({ folders: z.array(z.string()) }),
  },
  /** Starts the agent once (initialize only, cached for this run) to fill its capability card. */
  describeAgent: {
    params: z.object({ agentId: z.string().min(1) }),
    result: z.object({ card: agentCardSchema }),
  },
  /** A page of the list, most recent activity first. */
  listConversations: {
    params: z.object({
      lifecycle: z.enum(['active', 'archived', 'deleted']).optional(),
      before: listCursorSchema.optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    }),
    result: z.object({ conversations: z.array(conversationSummarySchema), nextCursor: listCursorSchema.nullable() }),
  },
  renameConversation: {
    params: z.object({ conversationId, title: z.string().trim().min(1).max(200) }),
    result: conversationResult,
  },
  setArchived: {
    params: z.object({ conversationId, archived: z.boolean() }),
    result: conversationResult,
  },
  /** A tombstone: the conversation leaves the list and search until restored. */
  deleteConversation: {
    params: z.object({ conversationId }),
    result: conversationResult,
  },
  restoreConversation: {
    params: z.object({ conversationId }),
    result: conversationResult,
  },
  /** Erases a deleted conversation for good. */
  purgeConversation: {
    params: z.object({ conversationId }),
    result: z.object({}),
  },
  searchConversations: {
    params: z.object({
      text: z.string().max(500),
      agentId: z.string().optional(),
      from: z.string().optional(),
      to: z.string().optional(),
      limit: z.number().int().min(1).max(200).optional(),
    }),
    result: z.object({ results: z.array(searchHitSchema) }),
  },
  exportConversation: {
    params: z.object({ conversationId, format: z.enum(['markdown', 'jsonl']) }),
    result: z.object({ fileName: z.string(), mimeType: z.string(), content: z.string() }),
  },
  /** Every conversation not in the trash, newest first, as one Markdown document. */
  exportAllConversations: {
    params: z.object({}),
    result: z.object({ fileName: z.string(), mimeType: z.string(), content: z.string(), count: z.number().int().nonnegative() }),
  },
  /** Stores an exported JSONL transcript as a new conversation. */
  importConversation: {
    params: z.object({ content: z.string().min(1).max(MAX_IMPORT_CHARS) }),
    result: conversationResult,
  },
  /** What an imported conversation brings, for the person to confirm before any of it reaches an agent (null: nothing to confirm). */
  getImportReview: {
    params: z.object({ conversationId }),
    result: z.object({ review: importReviewSchema.nullable() }),
  },
  /** The person confirmed the imported conversation's folder (it must be the one shown) and what it brings. */
  confirmImport: {
    params: z.object({ conversationId, cwd: z.string().min(1) }),
    result: z.object({}),
  },
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
    }),
    result: conversationResult,
  },
  /** The toolbox catalog: servers (secret values left out) and named toolboxes. */
  listToolbox: {
    params: z.object({}),
    result: z.object({ servers: z.array(catalogServerSchema), toolboxes: z.array(toolboxSchema) }),
  },
  /** Adds a server to the catalog; secret values are encrypted before they are stored. */
  addServer: {
    params: z.object({ server: serverInputSchema }),
    result: z.object({ server: catalogServerSchema }),
  },
  /** Runs an SSE or HTTP server through Baton's local stdio bridge (for agents that take only stdio), or no longer. */
  setServerBridge: {
    params: z.object({ serverId: z.string().min(1), bridge: z.boolean() }),
    result: z.object({ server: catalogServerSchema }),
  },
  removeServer: {
    params: z.object({ serverId: z.string().min(1) }),
    result: z.object({}),
  },
  /** Saves a named toolbox (a new one without an id). */
  saveToolbox: {
    params: z.object({ toolboxId: z.string().optional(), name: z.string().min(1).max(100), serverIds: z.array(z.string()).max(200), isDefault: z.boolean() }),
    result: z.object({ toolbox: toolboxSchema }),
  },
  removeToolbox: {
    params: z.object({ toolboxId: z.string().min(1) }),
    result: z.object({}),
  },
  /** Looks for MCP server configs in the usual places (and the working folder), or reads one file; starts nothing. */
  scanServerImports: {
    params: z.object({ cwd: z.string().optional(), file: z.string().optional() }),
    result: z.object({ candidates: z.array(importCandidateSchema), problems: z.array(z.object({ file: z.string(), message: z.string() })) }),
  },
  /** Adds the chosen servers of the last scan, with values for their inputs. */
  importServers: {
    params: z.object({ candidateIds: z.array(z.string()).min(1).max(200), inputs: z.record(z.string(), z.string().max(100_000)).default({}) }),
    result: z.object({ servers: z.array(catalogServerSchema) }),
  },
  /**
   * "Tools this agent sees": each server of the conversation asked for its tools (a server that
   * fails says why), and whether the agent called any of them in this conversation.
   */
  listConversationTools: {
    params: z.object({ conversationId }),
    result: z.object({
      servers: z.array(z.object({ name: z.string(), transport: transportSchema, tools: z.array(z.string()), error: z.string().nullable(), calledByAgent: z.array(z.string()) })),
      /** Set for an agent that defers MCP tools (its model sees their names and fetches one when it needs it): says so. */
      onDemand: z.string().nullable().optional(),
    }),
  },
  /** The servers a conversation may use from its next turn. */
  setConversationToolbox: {
    params: z.object({ conversationId, serverIds: z.array(z.string()).max(200) }),
    result: z.object({}),
  },
  /** The person's own instructions, and a conversation's when one is named. */
  getInstructions: {
    params: z.object({ conversationId: z.string().optional() }),
    result: z.object({ person: instructionTextSchema, conversation: instructionTextSchema.nullable(), injectors: injectorChoiceSchema.nullable() }),
  },
  /** Saves the person's own instructions and/or a conversation's (they apply from its next turn). */
  saveInstructions: {
    params: z.object({ person: instructionTextSchema.optional(), conversationId: z.string().optional(), conversation: instructionTextSchema.optional(), injectors: injectorChoiceSchema.optional() }),
    result: z.object({}),
  },
  /** Where the given texts would land with one agent, without saving anything. */
  previewInstructions: {
    params: z.object({ agentId: z.string().min(1), person: instructionTextSchema, conversation: instructionTextSchema.nullable(), profile: instructionTextSchema.optional(), cwd: z.string().optional(), injectors: injectorChoiceSchema.optional() }),
    result: z.object({ preview: instructionPreviewSchema }),
  },
  /** Saves a new revision of an agent's profile. */
  saveAgentProfile: {
    params: z.object({ agentId: z.string().min(1), profile: instructionTextSchema }),
    result: z.object({ revision: z.number().int() }),
  },
  /** Trusts the working folder's `.baton/instructions.md` as read (its digest must still match), or stops trusting it. */
  setFolderTrust: {
    params: z.object({ cwd: z.string().min(1), trusted: z.boolean(), sha256: z.string().optional() }),
    result: z.object({}),
  },
  /** The person's choices for one agent: Baton's delivery off, command-line channels accepted. */
  setAgentInstructionSettings: {
    params: z.object({ agentId: z.string().min(1), settings: agentInstructionSettingsSchema.partial() }),
    result: z.object({}),
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
    params: z.object({ conversationId, text: z.string().min(1).max(1_000_000), agentId: z.string().min(1).optional(), attachments: z.array(attachmentSchema).max(MAX_ATTACHMENTS).optional() }),
    result: z.object({ turnId: z.string(), seq: z.number().int() }),
  },
  /** Sends a follow-up into the running turn (agents with the steering extension); `steered: false` when it was not (send it as a message). */
  steerMessage: {
    params: z.object({ conversationId, text: z.string().min(1).max(1_000_000) }),
    result: z.object({ steered: z.boolean() }),
  },
  /** Sets one of the agent's session options (model, mode, reasoning…) and remembers it for the conversation. */
  setSessionOption: {
    params: z.object({ conversationId, optionId: z.string().min(1), value: z.string() }),
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
    params: z.object({ conversationId, requestId: z.string().min(1), action: z.enum(['accept', 'decline', 'cancel']), content: elicitationContentSchema.optional() }),
    result: z.object({}),
  },
} as const;

/** A host API method name. */
export type Method = keyof typeof requests;
/** Params of a method. */
export type Params<M extends Method> = z.infer<(typeof requests)[M]['params']>;
/** Result of a method. */
export type Result<M extends Method> = z.infer<(typeof requests)[M]['result']>;

/** Events the host pushes, by name. */
export const pushEvents = {
  /** The events of one commit, in order, pushed only after they are committed (a streamed group is one push). */
  transcript: z.object({ events: z.array(envelopeSchema).min(1) }),
  /** A conversation's summary changed (new, renamed, new turn, turn ended, archived, deleted). */
  conversationChanged: z.object({ conversation: conversationSummarySchema }),
  /** A conversation was erased for good. */
  conversationRemoved: z.object({ conversationId: z.string() }),
  /** Output of a log-in terminal, then how it ended (exit code 0: logged in). */
  loginTerminal: z.object({
    terminalId: z.string(),
    agentId: z.string(),
    data: z.string().optional(),
    exit: z.object({ code: z.number().int().nullable(), signal: z.string().nullable() }).optional(),
  }),
  /** A line of progress from installing, updating or removing an agent. */
  agentInstallProgress: z.object({ agentId: z.string(), action: z.enum(['install', 'update', 'remove']), text: z.string() }),
  /** Something failed that could not be recorded in the transcript (the store itself failed). */
  hostError: z.object({ conversationId: z.string().optional(), error: wireErrorSchema }),
} as const;

/** A pushed event name. */
export type PushEventName = keyof typeof pushEvents;

/** A pushed event, as a tagged union. */
export type PushEvent = { [N in PushEventName]: { name: N; payload: z.infer<(typeof pushEvents)[N]> } }[PushEventName];

/** True when `name` is a method of the contract. */
export function isMethod(name: string): name is Method {
  return Object.prototype.hasOwnProperty.call(requests, name);
}

/** The wire messages of the WebSocket transport (Electron IPC carries the same request/response pairs). */
export const clientMessageSchema = z.object({
  kind: z.literal('request'),
  id: z.number().int().nonnegative(),
  method: z.string(),
  params: z.unknown(),
});

/** A request frame from the renderer. */
export type ClientMessage = z.infer<typeof clientMessageSchema>;

/** A response or event frame from the host. */
export const hostMessageSchema = z.union([
  z.object({ kind: z.literal('response'), id: z.number().int().nullable(), ok: z.literal(true), result: z.unknown() }),
  z.object({ kind: z.literal('response'), id: z.number().int().nullable(), ok: z.literal(false), error: wireErrorSchema }),
  z.object({ kind: z.literal('event'), name: z.string(), payload: z.unknown() }),
]);

/** A response or event frame from the host. */
export type HostMessage = z.infer<typeof hostMessageSchema>;

/** The outcome of one request as both transports carry it. */
export const responseBodySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: wireErrorSchema }),
]);

/** The outcome of one request as both transports carry it. */
export type ResponseBody = z.infer<typeof responseBodySchema>;

/** Parses a pushed event by name; unknown names or bad payloads come back undefined. */
export function parsePushEvent(name: string, payload: unknown): PushEvent | undefined {
  if (!Object.prototype.hasOwnProperty.call(pushEvents, name)) {
    return undefined;
  }
  const schema = pushEvents[name as PushEventName];
  const parsed = schema.safeParse(payload);
  return parsed.success ? ({ name, payload: parsed.data } as PushEvent) : undefined;
}
