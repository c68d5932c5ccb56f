/**
 * The prepared binding: everything one agent session will be given, resolved once into an
 * immutable value before the session starts. Changing any part makes a new binding; a running
 * session keeps the one it was started with. Adapters project it onto their launch.
 */
import type { AgentInstructionSettings } from '../../../app/instructions/delivery.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';

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

/** Everything a session is given. */
export type PreparedBinding = Readonly<{
  agentId: string;
  agentName: string;
  /** Absolute working folder of the session. */
  cwd: string;
  /** The complete toolbox, exactly as sent in `session/new`. */
  mcpServers: readonly McpServer[];
  instructions: Instructions | null;
  /** Baton never approves on the person's behalf. */
  permissionMode: 'ask';
}>;

/** Builds a frozen binding. */
export function prepareBinding(input: {
  agentId: string;
  agentName: string;
  cwd: string;
  mcpServers?: readonly McpServer[];
  instructions?: Instructions | null;
}): PreparedBinding {
  return Object.freeze({
    agentId: input.agentId,
    agentName: input.agentName,
    cwd: input.cwd,
    mcpServers: Object.freeze([...(input.mcpServers ?? [])]),
    instructions: input.instructions ? Object.freeze({ ...input.instructions, settings: Object.freeze({ ...input.instructions.settings }) }) : null,
    permissionMode: 'ask' as const,
  });
}
