/** Requests about agents: the list, capability cards, install and remove, log-in and log-out, their own sessions. */
import { z } from 'zod';
import { agentCardSchema } from '../agents/agentCard.js';
import { agentInfoSchema } from '../agents/agentInfo.js';
import { conversationSummarySchema } from '../transcript/summary.js';

/**
 * What Settings › Agents says of the ACP Registry: which copy of its index is in use, where it is refreshed from, and why a refresh failed.
 */
export const registryStatusSchema = z.object({
  source: z.enum(['snapshot', 'downloaded']),
  takenAt: z.string(),
  url: z.string().nullable(),
  urlFrom: z.enum(['environment', 'setting', 'default']),
  checkedAt: z.string().nullable(),
  problem: z.string().nullable(),
  agents: z.number().int().nonnegative(),
  skipped: z.array(z.object({ id: z.string(), reason: z.string() })),
});
/** One of {@link registryStatusSchema}. */
export type RegistryStatus = z.infer<typeof registryStatusSchema>;

/** Every agent Baton offers, why `agents.json` was not read (if it was not), and the registry's status. */
export const agentListSchema = z.object({
  agents: z.array(agentInfoSchema),
  agentsFileProblem: z.string().nullable().default(null),
  registry: registryStatusSchema.nullable().default(null),
});

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

/** One agent process Baton runs: the agent, the launch digest it is shared by, and the sessions it carries. */
export const agentProcessSchema = z.object({
  agentId: z.string(),
  agentName: z.string(),
  launchDigest: z.string(),
  pid: z.number().int().nullable(),
  version: z.string().nullable(),
  sessions: z.number().int().nonnegative(),
  state: z.enum(['starting', 'running', 'idle', 'ending']),
  /** The name of the machine it runs on ("This computer", an SSH host, a container: one Baton started for an attempt too). */
  machine: z.string().default('This computer'),
  /** The conversations whose live sessions it carries. */
  conversationIds: z.array(z.string()).default([]),
  /** Their titles, in the same order (an attempt's names the conversation that asked and its agent). */
  conversationTitles: z.array(z.string()).default([]),
});

/** Which other conversations share a conversation's agent process, and whether it can have one of its own. */
export const processSharingSchema = z.object({
  agentId: z.string(),
  agentName: z.string(),
  /** True while the conversation has a live session (and so a process). */
  live: z.boolean(),
  /** The other conversations on the same process, by id and title. */
  sharedWith: z.array(z.object({ conversationId: z.string(), title: z.string() })),
  /** The agent is set to one process per conversation. */
  perConversation: z.boolean(),
  /** Why this agent's conversations cannot each have a process of their own, if they cannot. */
  cannotSeparate: z.string().nullable(),
});
/** One of {@link processSharingSchema}. */
export type ProcessSharing = z.infer<typeof processSharingSchema>;
/** One of {@link agentProcessSchema}. */
export type AgentProcess = z.infer<typeof agentProcessSchema>;

/** The agents' requests of the host API contract. */
export const agentRequests = {
  listAgents: {
    params: z.object({}),
    result: agentListSchema,
  },
  /** Asks the ACP Registry's address for a newer index now (at most once an hour is done on its own). */
  refreshRegistry: {
    params: z.object({}),
    result: agentListSchema,
  },
  /** Sets the registry's address (an https URL, a file: URL or a path; `off`; null: the default). `BATON_REGISTRY_URL` still wins. */
  setRegistryUrl: {
    params: z.object({ url: z.string().trim().max(4_000).nullable() }),
    result: agentListSchema,
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
    /**
     * `unverified`: the person agreed to install an archive the registry gives no checksum for.
     * `version`: the person agreed to this version of the agent's npm package instead of the one the
     * registry lists, which the npm registry does not have (see PinnedVersionMissing).
     */
    params: z.object({
      agentId: z.string().min(1),
      unverified: z.boolean().optional(),
      version: z
        .string()
        .regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'an exact version (1.2.3)')
        .optional(),
    }),
    result: agentListSchema,
  },
  /** Removes an agent Baton installed (never one the person installed themselves). */
  /** Cancels an install or update under way (npm is ended; nothing changes). */
  cancelAgentInstall: {
    params: z.object({ agentId: z.string().min(1) }),
    result: z.object({ cancelled: z.boolean() }),
  },
  removeAgent: {
    params: z.object({ agentId: z.string().min(1) }),
    result: agentListSchema,
  },
  /** Runs one of the agent's terminal log-in methods in a terminal the page shows (output comes as loginTerminal). */
  startLoginTerminal: {
    params: z.object({
      agentId: z.string().min(1),
      methodId: z.string().min(1),
      cols: z.number().int().positive(),
      rows: z.number().int().positive(),
    }),
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
  /** Starts the agent once (initialize only, cached for this run) to fill its capability card. */
  describeAgent: {
    params: z.object({ agentId: z.string().min(1) }),
    result: z.object({ card: agentCardSchema }),
  },
  /** The agent processes running now: one per agent and launch, each carrying its conversations' sessions. */
  listAgentProcesses: {
    params: z.object({}),
    result: z.object({
      processes: z.array(agentProcessSchema),
      /** The agents set to one process per conversation. */
      perConversation: z.array(z.string()).default([]),
      /** Agents whose conversations cannot each have a process of their own, with why. */
      cannotSeparate: z.record(z.string(), z.string()).default({}),
    }),
  },
  /**
   * Stops one agent process now (Settings › Agents › Agent processes): the turns running on it are
   * stopped first; its conversations start it again with their next message. False: it had ended.
   */
  stopAgentProcess: {
    params: z.object({ launchDigest: z.string().min(1) }),
    result: z.object({ stopped: z.boolean() }),
  },
  /** Which other conversations share this conversation's agent process (one process is one principal: it can act in any of them). */
  getProcessSharing: {
    params: z.object({ conversationId: z.string().min(1) }),
    result: processSharingSchema,
  },
  /**
   * Sets an agent to one process per conversation (or back to one per working folder). Live
   * sessions keep their process until they are next started.
   */
  setProcessPerConversation: {
    params: z.object({ agentId: z.string().min(1), on: z.boolean() }),
    result: z.object({ agentIds: z.array(z.string()) }),
  },
} as const;
