/** What the renderer knows about an agent: enough to offer it in the picker and explain why not. */
import { z } from 'zod';

/** One entry of the agent picker. */
export const agentInfoSchema = z.object({
  agentId: z.string().min(1),
  displayName: z.string().min(1),
  source: z.enum(['builtin', 'custom', 'registry']),
  /** What it is, in a sentence (from the ACP Registry). */
  description: z.string().optional(),
  /** Its icon, as a data URL of an SVG image (shown as an image, never as markup). */
  icon: z.string().optional(),
  /** True for the agents whose behaviour Baton's own tests cover ("Tested with Baton"). */
  tested: z.boolean().default(false),
  /** What the ACP Registry lists of it, when it does. */
  registry: z
    .object({
      id: z.string(),
      version: z.string(),
      distribution: z.enum(['npx', 'binary', 'uvx']),
      website: z.string().optional(),
      repository: z.string().optional(),
      license: z.string().optional(),
      /** The archive has no checksum: installing it needs the person's agreement. */
      unverified: z.boolean().optional(),
    })
    .optional(),
  /** The command line Baton runs, for display. */
  command: z.string(),
  available: z.boolean(),
  /** False for an agent that uses no MCP servers (pi): a conversation's toolbox is refused for it. */
  usesTools: z.boolean().default(true),
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
   * themselves, found on PATH, comes first); `update` is a newer version to offer ("Update to …").
   */
  managed: z
    .object({ pinned: z.string().optional(), installed: z.string().optional(), inUse: z.boolean(), update: z.string().optional() })
    .optional(),
});

/** One entry of the agent picker. */
export type AgentInfo = z.infer<typeof agentInfoSchema>;
