/** Requests about the toolbox: servers, named toolboxes, imports from other clients, a conversation's choice and the tools it sees. */
import { z } from 'zod';
import { catalogServerSchema, serverInputSchema, toolboxSchema, transportSchema } from '../toolbox/catalog.js';
import { conversationId } from './common.js';

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

/** The toolbox's requests of the host API contract. */
export const toolboxRequests = {
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
  /**
   * Changes a server (its name too); a secret sent with `keep` stays as it is. Conversations that use it get it as changed from their next
   * message.
   */
  updateServer: {
    params: z.object({ serverId: z.string().min(1), server: serverInputSchema }),
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
  /** The conversations (not in the trash) whose toolbox has a server: said before it is removed. */
  listServerUsage: {
    params: z.object({ serverId: z.string().min(1) }),
    result: z.object({ conversations: z.array(z.object({ conversationId: z.string(), title: z.string() })) }),
  },
  /** Saves a named toolbox (a new one without an id). */
  saveToolbox: {
    params: z.object({
      toolboxId: z.string().optional(),
      name: z.string().min(1).max(100),
      serverIds: z.array(z.string()).max(200),
      isDefault: z.boolean(),
    }),
    result: z.object({ toolbox: toolboxSchema }),
  },
  removeToolbox: {
    params: z.object({ toolboxId: z.string().min(1) }),
    result: z.object({}),
  },
  /** Looks for MCP server configs in the usual places (and the working folder), or reads one file; starts nothing. */
  scanServerImports: {
    params: z.object({ cwd: z.string().optional(), file: z.string().optional() }),
    result: z.object({
      candidates: z.array(importCandidateSchema),
      problems: z.array(z.object({ file: z.string(), message: z.string() })),
    }),
  },
  /** Adds the chosen servers of the last scan, with values for their inputs. */
  importServers: {
    params: z.object({
      candidateIds: z.array(z.string()).min(1).max(200),
      inputs: z.record(z.string(), z.string().max(100_000)).default({}),
    }),
    result: z.object({ servers: z.array(catalogServerSchema) }),
  },
  /**
   * "Tools this agent sees": each server of the conversation asked for its tools (a server that
   * fails says why), and whether the agent called any of them in this conversation.
   */
  listConversationTools: {
    params: z.object({ conversationId }),
    result: z.object({
      servers: z.array(
        z.object({
          name: z.string(),
          transport: transportSchema,
          tools: z.array(z.string()),
          error: z.string().nullable(),
          calledByAgent: z.array(z.string()),
        }),
      ),
      /** Set for an agent that defers MCP tools (its model sees their names and fetches one when it needs it): says so. */
      onDemand: z.string().nullable().optional(),
    }),
  },
  /** The servers a conversation may use from its next turn. */
  setConversationToolbox: {
    params: z.object({ conversationId, serverIds: z.array(z.string()).max(200) }),
    result: z.object({}),
  },
} as const;
