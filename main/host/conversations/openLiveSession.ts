/**
 * Starting a live session the way the host does: the binding resolved with the agent's own
 * `initialize` answer (from the pool's memory, or from a process started to read it, which becomes
 * the session's when its launch is the same), then the session on the pool's process for it.
 */
import { resolveBinding, type BindingRequest } from '../binding/resolveBinding.js';
import type { AgentProcesses, Lease } from '../pool/AgentProcesses.js';
import { leaseFor } from '../pool/leaseFor.js';
import type { Sharing } from '../pool/poolKey.js';
import { LiveSession, type LiveSessionOwner } from './LiveSession.js';

/**
 * Resolves a binding with the agent's `initialize` answer (from a process of it started for that,
 * when none ran yet this time) and starts a live session on the pool's process for it.
 */
export async function openLiveSession(
  request: BindingRequest,
  options: { pool: AgentProcesses; owner: LiveSessionOwner; sessionFilesDir?: string; onDetach?: () => void; sharing?: Sharing },
): Promise<LiveSession> {
  const { adapter, executable, baseEnv } = request;
  const { pool } = options;
  const onDetach = options.onDetach ? { onDetach: options.onDetach } : {};
  const sharing = options.sharing ? { sharing: options.sharing } : {};
  const sessionFilesDir = options.sessionFilesDir !== undefined ? { sessionFilesDir: options.sessionFilesDir } : {};
  let initialized = pool.knownAnswer(adapter.agentId, executable);
  let held: Lease | undefined;
  if (!initialized) {
    held = await leaseFor({
      adapter,
      executable,
      baseEnv,
      pool,
      binding: resolveBinding({ ...request, instructions: null }),
      ...sessionFilesDir,
      ...sharing,
    });
    initialized = held.agent.initialized;
  }
  const binding = resolveBinding({ ...request, initialized });
  // The process started to read the answer is the session's own when its launch is the same; an
  // agent that cannot run twice must not find it still held for another launch.
  const adopted = held && held.agent.launchDigest === binding.launch.digest ? held : undefined;
  if (!adopted) {
    await held?.release();
  }
  return LiveSession.start({
    adapter,
    executable,
    binding,
    baseEnv,
    owner: options.owner,
    pool,
    ...(adopted ? { lease: adopted } : {}),
    ...sessionFilesDir,
    ...onDetach,
    ...sharing,
  }).catch(async (error: unknown) => {
    await adopted?.release();
    throw error;
  });
}
