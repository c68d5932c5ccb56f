/**
 * The one interface every harness adapter implements: how to find and launch the agent, how a
 * prepared binding is projected onto that launch, and which optional abilities it has. Optional
 * abilities are members that are undefined when absent; shared code never asks "which agent".
 */
import type { InstructionIntent } from '../../../app/instructions/bundle.js';
import type { DeliveredInstructions, InstructionCapability } from '../../../app/instructions/delivery.js';
import type { PermissionModes } from '../acp/permissionModes.js';
import type { Env } from '../process/env.js';
import type { SessionFolder } from '../process/SessionFolder.js';
import type { LaunchSpec } from '../machine/ProcessGroup.js';

/**
 * How an agent takes standing instructions: its channels per intent (the one capability table,
 * measured against the recording model stub), and how the delivered text is put on them.
 */
export type InstructionDelivery = Readonly<{
  /** The channels, or "negotiated": read from the agent's answer to `initialize` (custom agents). */
  capability: InstructionCapability | 'negotiated';
  /** Process-level channels: puts the text on the launch (arguments, environment, files in `folder`). */
  project?: (launch: LaunchSpec, delivered: DeliveredInstructions, folder: () => SessionFolder) => LaunchSpec;
  /** A per-session channel: `_meta` for session/new, load and resume (sent every time). */
  sessionMeta?: (delivered: DeliveredInstructions) => Record<string, unknown> | undefined;
  /**
   * Where the protocol's standard `systemPrompt` lands for this agent, as it documents it (the
   * protocol does not say), and what Baton expects it to advertise before it has answered
   * `initialize` (checks made before a start; the answer decides).
   */
  standard?: { level: 'system' | 'developer'; lands?: string; expected?: { append: boolean; override: boolean } };
  /** Environment variables by which a person sets the agent's prompt themselves, per intent. */
  ownPromptEnv?: Readonly<Partial<Record<InstructionIntent, readonly string[]>>>;
}>;

export type { Env } from '../process/env.js';
export type { PermissionModes } from '../acp/permissionModes.js';

/** A harness adapter. */
export type AgentAdapter = Readonly<{
  agentId: string;
  displayName: string;
  source: 'builtin' | 'custom' | 'registry';
  /** Executable name or path, resolved against PATH at launch. */
  command: string;
  args: readonly string[];
  /** Extra environment for this agent (custom agents' `env`). */
  env?: Env;
  /** False for agents that ignore MCP servers: a binding with tools is refused for them. */
  takesMcpServers?: boolean;
  /**
   * `_meta` for session/new, load and resume when the session has MCP servers: how the agent is
   * asked to have them started before it answers (an agent that starts them in the background and
   * lets its first turn go without the ones still starting would drop the person's tools unsaid).
   */
  toolboxSessionMeta?: Readonly<Record<string, unknown>>;
  /**
   * Whether the agent asks the person before it calls an MCP tool in its default mode (measured
   * by the conformance suite). Shown on the agent's card: Baton cannot make an agent ask.
   */
  asksBeforeMcpTools?: boolean;
  /** How standing instructions reach it; undefined: it takes none, and any are refused. */
  instructions?: InstructionDelivery;
  /**
   * How long the agent may still be saving a turn to its own session file after answering it
   * (measured; Qwen Code writes after its answer and loses the reply if ended at once). Only used
   * for agents without `session/close`: before ending such an agent, Baton waits this long since
   * its last turn ended. Undefined: no wait.
   */
  saveGraceMs?: number;
  /**
   * True when a cancelled prompt leaves the agent's session out of step (see
   * `quirks/claudeStaleEndOfTurn.ts`): the session is closed and resumed before the next prompt.
   */
  reopenAfterCancel?: (version: string | undefined) => boolean;
  /**
   * True for a message the agent replays as the person's but that the agent wrote itself (Claude
   * Code records its own slash commands and their output that way). Left out of imports.
   */
  isOwnReplayedMessage?: (text: string) => boolean;
  /**
   * The npm packages Baton installs for it, pinned to versions known to work (the ones the
   * conformance suite runs); the first holds the command. Undefined: Baton cannot install it.
   */
  npmPackages?: readonly string[];
  /**
   * Files, relative to the working folder, where the agent may save an "always" permission answer
   * itself. Named to the person when they revoke one, since Baton does not edit the agent's files.
   */
  savedRuleFiles?: readonly string[];
  /** How a person installs it, shown when it is missing. */
  installHint?: string;
  /** Adjusts the inherited environment for this agent (a protocol quirk, documented where defined). */
  projectEnv?: (env: Env) => Env;
  /**
   * True when the agent writes its MCP server config, environment values and headers included, on
   * a command line (measured by the conformance suite: claude-agent-acp 0.101 starts Claude Code
   * with `--mcp-config <json>`). Servers holding secrets then reach it through Baton's launcher.
   */
  exposesServerConfig?: boolean;
  /** True when the agent, at this version, cannot carry several sessions in one process (see `quirks/`): each gets its own. */
  processPerSession?: (version: string | undefined) => boolean;
  /**
   * Quirk (see `quirks/geminiMissingFile.ts`): the agent cannot tell an error answer to the read of
   * a missing file from a failed read, so such a read (inside the folder) is answered with no content.
   */
  missingFileReadsAsEmpty?: (version: string | undefined) => boolean;
  /**
   * The `_meta` of a `session/fork` whose copy ends at the agent's message `messageId` (an extension,
   * see `quirks/claudeForkAtMessage.ts`), at the versions that take it; undefined elsewhere.
   */
  forkAtMessage?: (version: string | undefined, messageId: string) => Record<string, unknown> | undefined;
  /**
   * For an agent that cannot run twice on one state (see `quirks/`): at which versions, and where
   * its state is for a launch environment. The pool never starts a second process on one state.
   */
  exclusiveState?: { applies(version: string | undefined): boolean; key(env: Env): string };
  /** True for an agent two of whose processes must not start at once (see `quirks/`): the pool starts them one at a time. */
  startsAlone?: boolean;
  /**
   * The agent's permission modes by what they do: the one that asks the person before acting, and
   * those in which the agent approves on its own. A session starts in the asking mode unless the
   * person chose another; a self-approving mode is never entered unless the person picked it.
   */
  modes?: PermissionModes;
  /** True when the agent defers MCP tools: its model is given their names and fetches a tool when it needs it (measured). */
  loadsToolsOnDemand?: boolean;
  /**
   * How the agent titles a call of an MCP tool, with `{server}` and `{tool}` standing for the
   * server's and the tool's names (Claude and Qwen: `mcp__{server}__{tool}`; Codex:
   * `{server}/{tool}`). "Tools this agent sees" finds the tools a conversation called by it.
   */
  mcpToolTitle?: string;
  /** The oldest release Baton supports (older ones get a card that says so, with Update). */
  oldestSupported?: string;
  /**
   * An archive Baton installs it from (a registry `binary` distribution for this platform): where,
   * the checksum the registry gives (none: installed only once the person agrees), and the
   * executable inside it.
   */
  archive?: Readonly<{ url: string; sha256?: string; cmd: string }>;
  /** False when the agent is never looked for on PATH (a registry package whose command name is not known before it is installed). */
  onPath?: boolean;
  /** What the ACP Registry says of it (its entry), for agents it lists. */
  registry?: RegistryFacts;
}>;

/** What the ACP Registry lists of an agent, as the picker shows it. */
export type RegistryFacts = Readonly<{
  id: string;
  version: string;
  description: string;
  distribution: 'npx' | 'binary' | 'uvx';
  website?: string;
  repository?: string;
  license?: string;
}>;
