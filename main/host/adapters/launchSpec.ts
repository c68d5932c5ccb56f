/** How an adapter and a prepared binding become one process launch: inherited environment, the agent's own, its quirks, its instruction channel. */
import { UnsupportedInputError } from '../../../app/errors.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import type { LaunchSpec } from '../process/ProcessGroup.js';
import type { AgentAdapter, Env } from './AgentAdapter.js';

/** The launch for `binding`; refuses what the agent cannot take rather than dropping it. */
export function launchSpec(adapter: AgentAdapter, executable: string, binding: PreparedBinding, baseEnv: Env): LaunchSpec {
  if (binding.mcpServers.length > 0 && adapter.takesMcpServers === false) {
    throw new UnsupportedInputError(adapter.displayName, `${binding.mcpServers.length} MCP server(s)`, 'it does not use MCP servers, so the tools you picked would be silently missing');
  }
  if (binding.instructions && !adapter.deliverInstructions) {
    throw new UnsupportedInputError(adapter.displayName, 'standing instructions', 'it has no system-level channel Baton can use, and Baton never sends instructions as prompt text');
  }
  const inherited: Env = { ...baseEnv, ...adapter.env };
  const env = adapter.projectEnv ? adapter.projectEnv(inherited, binding) : inherited;
  const launch: LaunchSpec = { command: executable, args: adapter.args, env, cwd: binding.cwd };
  return binding.instructions && adapter.deliverInstructions ? adapter.deliverInstructions(launch, binding) : launch;
}
