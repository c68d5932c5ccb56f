/**
 * What the agent a conversation passes to cannot take, refused at the switch — before anything is
 * committed or started — with the typed error saying what the person can do: a toolbox for an
 * agent without MCP, instructions it has no channel for, an agent that is not installed. Read from
 * the binding the agent would get (with its last `initialize` answer this run, or what its adapter
 * expects before one); what only the answer can tell is checked when it starts.
 */
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import type { AgentAccess } from '../agents/AgentAccess.js';
import { requireBindable, resolveBinding, type BindingRequest } from '../binding/resolveBinding.js';
import type { AgentProcesses } from '../pool/AgentProcesses.js';

/** Throws the typed error for the first thing `adapter` cannot take. */
export function refuseSwitch(
  adapter: AgentAdapter,
  access: AgentAccess,
  pool: AgentProcesses,
  request: Omit<BindingRequest, 'adapter' | 'executable' | 'initialized'>,
): void {
  const executable = access.executableOf(adapter);
  access.requireCurrentFor(adapter, request.instructions ?? null);
  const initialized = pool.knownAnswer(adapter.agentId, executable);
  requireBindable(resolveBinding({ ...request, adapter, executable, ...(initialized ? { initialized } : {}) }));
}
