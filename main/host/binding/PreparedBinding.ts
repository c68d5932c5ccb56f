/**
 * The prepared binding: everything one agent session will be given, resolved once (by
 * `resolveBinding`, the only place that builds one) into an immutable value before the session
 * starts. It has two parts, each with its digest: the launch (what the process is started with;
 * processes are shared by it) and the session (what `session/new`, load and resume carry).
 * Changing any part makes a new binding; a running session keeps the one it was started with.
 */
import type { UnsupportedInputError } from '../../../app/errors.js';
import type { AgentInstructionSettings, DeliveryPlan, InstructionCapability } from '../../../app/instructions/delivery.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import type { SessionFolder } from '../process/SessionFolder.js';
import type { LaunchSpec } from '../machine/ProcessGroup.js';

/**
 * Composed standing instructions (never sent as prompt text): the replacement and the addition,
 * their digest, the person's settings for this agent, and whether Baton's own note goes along.
 */
export type Instructions = Readonly<{
  replace: string | null;
  append: string | null;
  sha256: string;
  settings: AgentInstructionSettings;
  fragment: boolean;
}>;

/** The protocol's standard system prompt, as sent on the session. */
export type SystemPrompt = Readonly<{ mode: 'append' | 'override'; content: ReadonlyArray<{ type: 'text'; text: string }> }>;

/** What the agent process is started with. */
export type LaunchPart = Readonly<{
  /** The launch without Baton's instruction channels (the person's own settings are read from it; terminals get its environment). */
  own: LaunchSpec;
  /** In words, how instructions ride this launch (arguments, environment, files); undefined: they do not. */
  channel?: string;
  /** Digest of the launch (command, arguments, environment, launch-time instructions): processes are shared by it. */
  digest: string;
  /** The launch to start, with the files its instruction channel needs written into `folder`. */
  materialize(folder: () => SessionFolder): LaunchSpec;
}>;

/** What a session is given on `session/new`, load and resume. */
export type SessionPart = Readonly<{
  cwd: string;
  /** The complete toolbox, exactly as sent. */
  mcpServers: readonly McpServer[];
  /** The standard system prompt, where the agent takes it. */
  systemPrompt?: SystemPrompt;
  /** `_meta` for the agent's own per-session channel or Baton's extension. */
  meta?: Readonly<Record<string, unknown>>;
  /** Baton never approves on the person's behalf: a session starts in the agent's asking mode unless the person chose another. */
  permissionMode: 'ask';
  /** The person's option choices for this conversation (model, mode…), applied once the session is bound. */
  chosenOptions: Readonly<Record<string, string>>;
  digest: string;
}>;

/** Everything a session is given. */
export type PreparedBinding = Readonly<{
  agentId: string;
  agentName: string;
  /** The agent's version, from its `initialize` answer (undefined before it has answered). */
  agentVersion?: string;
  /** Absolute working folder of the session. */
  cwd: string;
  /** The complete toolbox, exactly as sent in `session/new`. */
  mcpServers: readonly McpServer[];
  instructions: Instructions | null;
  /** Baton never approves on the person's behalf. */
  permissionMode: 'ask';
  launch: LaunchPart;
  session: SessionPart;
  /** Where the instructions land (the dialog's preview reads the same plan). */
  plan: DeliveryPlan;
  /** The agent's channels the plan was made with. */
  channels: InstructionCapability;
  /** Whether the plan rests on the agent's own `initialize` answer, or on what its adapter expects before it. */
  negotiated: boolean;
  /** What the agent cannot take, each with its one text; the first is thrown before any session starts. */
  refusals: readonly UnsupportedInputError[];
}>;
