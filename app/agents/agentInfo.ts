/** What the renderer knows about an agent: enough to offer it in the picker and explain why not. */
import { z } from 'zod';

/** One entry of the agent picker. */
export const agentInfoSchema = z.object({
  agentId: z.string().min(1),
  displayName: z.string().min(1),
  source: z.enum(['builtin', 'custom']),
  /** The command line Baton runs, for display. */
  command: z.string(),
  available: z.boolean(),
  /** Its version, when it can be read from its package. */
  version: z.string().optional(),
  /** Why the agent cannot be used, when it cannot (not installed, bad config). */
  unavailableReason: z.string().optional(),
  /** How to install it, when Baton knows. */
  installHint: z.string().optional(),
  /** The executable Baton runs, when found. */
  path: z.string().optional(),
  /**
   * For agents Baton can install into its own agents folder: the version it pins, the version
   * installed there (if any), and whether that copy is the one used (one the person installed
   * themselves, found on PATH, comes first).
   */
  managed: z.object({ pinned: z.string().optional(), installed: z.string().optional(), inUse: z.boolean() }).optional(),
});

/** One entry of the agent picker. */
export type AgentInfo = z.infer<typeof agentInfoSchema>;
