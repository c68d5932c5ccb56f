/**
 * The prepared binding: everything one agent session will be given, resolved once into an
 * immutable value before the session starts. Changing any part makes a new binding; a running
 * session keeps the one it was started with. Adapters project it onto their launch.
 */
import type { McpServer } from '../../../app/toolbox/mcpServer.js';

/** Composed standing instructions and their digest (delivered by a later issue; never as prompt text). */
export type Instructions = { text: string; sha256: string };

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
    instructions: input.instructions ? Object.freeze({ ...input.instructions }) : null,
    permissionMode: 'ask' as const,
  });
}
