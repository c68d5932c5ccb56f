/**
 * The "always" answers the person gave to agents' permission questions ("Always allow",
 * "Always reject"…). The agent keeps the rule itself; Baton keeps this list so the person can
 * see every such rule in one place and revoke it. Each one is also recorded in its conversation
 * (`permission.decided`, and `permission.revoked` once revoked).
 */
import { z } from 'zod';

/** One remembered "always" answer. */
export const alwaysDecisionSchema = z.object({
  id: z.string().min(1),
  agentId: z.string().min(1),
  agentName: z.string(),
  /** The working folder the conversation ran in (agents scope their rules to a project). */
  cwd: z.string(),
  /** The machine `cwd` is on (absent: this computer, as in every list kept before machines). */
  machine: z.string().optional(),
  /** The tool call's kind (edit, execute…) when the agent said. */
  toolKind: z.string().optional(),
  /** What the agent asked about (the tool call's title). */
  title: z.string(),
  /** The option's name as the agent offered it. */
  optionName: z.string(),
  decision: z.enum(['allow', 'reject']),
  conversationId: z.string().min(1),
  turnId: z.string().min(1),
  requestId: z.string().min(1),
  decidedAt: z.string(),
});

/** One of {@link alwaysDecisionSchema}. */
export type AlwaysDecision = z.infer<typeof alwaysDecisionSchema>;
