/**
 * What the agent a conversation passes to cannot take, refused at the switch — before anything is
 * committed or started — with the typed error saying what the person can do: a toolbox for an
 * agent without MCP, instructions it has no channel for, an agent that is not installed. Agents
 * that negotiate their channels are checked when they start, before any model request.
 */
import { AgentNotInstalledError, UnsupportedInputError } from '../../../app/errors.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import type { AgentCatalog } from '../adapters/AgentCatalog.js';
import { prepareBinding, type Instructions } from '../binding/PreparedBinding.js';
import { negotiatesInstructions, planFor, requireDeliverable } from '../instructions/deliverInstructions.js';

/** Throws the typed error for the first thing `adapter` cannot take. */
export function refuseSwitch(adapter: AgentAdapter, catalog: AgentCatalog, instructions: Instructions, serverCount: number, baseEnv: Env): void {
  if (!catalog.resolve(adapter)) {
    throw new AgentNotInstalledError(adapter.displayName, adapter.command, adapter.installHint);
  }
  if (serverCount > 0 && adapter.takesMcpServers === false) {
    throw new UnsupportedInputError(adapter.displayName, `the conversation's toolbox (${serverCount} MCP server(s))`, 'it does not use MCP servers; choose no tools in Toolbox before switching to it');
  }
  if (!negotiatesInstructions(adapter)) {
    const binding = prepareBinding({ agentId: adapter.agentId, agentName: adapter.displayName, cwd: '/', instructions });
    requireDeliverable(adapter, planFor(adapter, binding, { args: adapter.args, env: { ...baseEnv, ...adapter.env } }));
  }
}
