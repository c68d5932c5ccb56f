/** An agent's capability card: what its live `initialize` answer says, plus what Baton knows of it. */
import { z } from 'zod';
import { instructionCapabilitySchema } from '../instructions/delivery.js';

/** The card shown before a person picks an agent. */
export const agentCardSchema = z.object({
  agentId: z.string(),
  displayName: z.string(),
  /** The agent's own name and version from `initialize`. */
  implementation: z.string().optional(),
  /** The version the agent reports (`agentInfo.version`). */
  version: z.string().optional(),
  /** Set when the agent is older than the oldest release Baton supports: that release. */
  oldestSupported: z.string().optional(),
  protocolVersion: z.number().int(),
  sessions: z.object({
    load: z.boolean(),
    list: z.boolean(),
    resume: z.boolean(),
    fork: z.boolean(),
    close: z.boolean(),
    subagents: z.boolean().default(false),
  }),
  mcp: z.object({ stdio: z.boolean(), http: z.boolean(), sse: z.boolean() }),
  prompt: z.object({ image: z.boolean(), audio: z.boolean(), embeddedContext: z.boolean() }),
  /** How one logs in; `terminal` methods run in a terminal Baton opens. */
  authMethods: z.array(
    z.object({ id: z.string(), name: z.string(), description: z.string().optional(), terminal: z.boolean().optional() }),
  ),
  /** Whether the agent offers `logout` and it would end the log-in in use (not a key from the environment, where the agent says which). */
  logout: z.boolean(),
  /** The log-in the agent says its process uses (`kind`: account, api_key, gateway, external, none), where it says. */
  signedIn: z.object({ kind: z.string(), label: z.string(), detail: z.string().optional() }).optional(),
  /** How standing instructions reach this agent at system level, or why they cannot. */
  instructions: z.string(),
  /** The same as data: the channel per intent (absent: refused). */
  instructionChannels: instructionCapabilitySchema,
  /** Whether it asks before calling an MCP tool (measured), when known. */
  asksBeforeMcpTools: z.boolean().optional(),
});

/** The card shown before a person picks an agent. */
export type AgentCard = z.infer<typeof agentCardSchema>;
