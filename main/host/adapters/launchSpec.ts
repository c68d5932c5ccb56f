/** How an adapter and a prepared binding become one process launch: inherited environment, the agent's own, its quirks, its instruction channel. */
import { UnsupportedInputError } from '../../../app/errors.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import { negotiatesInstructions, planFor, requireDeliverable } from '../instructions/deliverInstructions.js';
import type { SessionFolder } from '../instructions/SessionFolder.js';
import type { LaunchSpec } from '../process/ProcessGroup.js';
import type { AgentAdapter, Env } from './AgentAdapter.js';

/**
 * The launch for `binding`; refuses what the agent cannot take rather than dropping it.
 * Process-level instruction channels are applied here (files go in `folder`, made on first use).
 */
export function launchSpec(adapter: AgentAdapter, executable: string, binding: PreparedBinding, baseEnv: Env, folder?: () => SessionFolder): LaunchSpec {
  if (binding.mcpServers.length > 0 && adapter.takesMcpServers === false) {
    throw new UnsupportedInputError(adapter.displayName, `${binding.mcpServers.length} MCP server(s)`, 'it does not use MCP servers, so the tools you picked would be silently missing');
  }
  const inherited: Env = { ...baseEnv, ...adapter.env };
  const env = adapter.projectEnv ? adapter.projectEnv(inherited, binding) : inherited;
  const launch: LaunchSpec = { command: executable, args: adapter.args, env, cwd: binding.cwd };
  // Agents that negotiate their channels get them on the session, once `initialize` has answered.
  if (!binding.instructions || negotiatesInstructions(adapter)) {
    return launch;
  }
  const delivered = requireDeliverable(adapter, planFor(adapter, binding, launch));
  const project = adapter.instructions?.project;
  if (!project) {
    return launch;
  }
  if (!folder) {
    throw new Error(`${adapter.displayName}'s instructions need files, but no session folder was given.`);
  }
  return project(launch, delivered, folder);
}
