/**
 * How a session gets its agent process: a lease on the pool's process for the binding's launch
 * part, started (with the files its launch channel needs) when none runs.
 */
import { AgentConnection } from '../acp/AgentConnection.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import { ptyProgram } from '../process/pty.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import type { SessionFolder, SessionFolders } from '../process/SessionFolder.js';
import type { Machine } from '../machine/Machine.js';
import type { AgentProcesses, Lease } from './AgentProcesses.js';
import { poolKey, type Sharing } from './poolKey.js';

/** True when the agent, at the version the pool last saw of `executable` (or not known yet), carries one session per process. */
export function oneSessionPerProcess(
  adapter: AgentAdapter,
  executable: string,
  pool: Pick<AgentProcesses, 'knownAnswer'>,
  machine?: Machine,
): boolean {
  return adapter.processPerSession?.(pool.knownAnswer(adapter.agentId, executable, machine)?.agentInfo?.version) === true;
}

/** Leases the process for a binding's launch part from the pool, starting it when none runs. */
export function leaseFor(options: {
  adapter: AgentAdapter;
  executable: string;
  /** The environment agents inherit (terminal log-in needs to know whether a pty can run). */
  baseEnv: Env;
  pool: AgentProcesses;
  binding: Pick<PreparedBinding, 'launch'>;
  /**
   * Files generated for a launch (instructions, wrappers) go in a private folder of these, on the
   * agent's machine, removed when the process ends.
   */
  sessionFiles?: SessionFolders;
  /** How widely the process may be shared (default: by every lease of the same launch). */
  sharing?: Sharing;
  /** The machine it runs on (default: the pool's). */
  machine?: Machine;
  /** How long the process waits for another lease once this one, the last, is released (see `ProcessRequest.linger`). */
  linger?: number;
}): Promise<Lease> {
  const { adapter, executable, binding, baseEnv, pool } = options;
  // An agent that cannot carry several sessions gets a process of its own for each.
  const sharing: Sharing = oneSessionPerProcess(adapter, executable, pool, options.machine)
    ? { kind: 'own' }
    : (options.sharing ?? { kind: 'launch' });
  return pool.lease({
    key: poolKey(binding.launch.digest, sharing),
    launchDigest: binding.launch.digest,
    agentId: adapter.agentId,
    agentName: adapter.displayName,
    executable,
    ...(adapter.startsAlone ? { startsAlone: true } : {}),
    ...(options.machine ? { machine: options.machine } : {}),
    ...(options.linger ? { linger: options.linger } : {}),
    ...(adapter.exclusiveState
      ? { exclusiveState: { key: adapter.exclusiveState.key(binding.launch.own.env), applies: adapter.exclusiveState.applies } }
      : {}),
    start: async (handlers) => {
      const machine = options.machine ?? pool.machine;
      let folder: SessionFolder | undefined;
      const makeFolder = (): SessionFolder => {
        if (!options.sessionFiles) {
          throw new Error(`${adapter.displayName}'s instructions need files, but no folder for them was given.`);
        }
        folder ??= options.sessionFiles.folderOn(machine);
        return folder;
      };
      try {
        const launch = binding.launch.materialize(makeFolder);
        // Written on the agent's machine before it starts: it reads them there.
        await folder?.make().catch((error: unknown) => {
          throw new Error(
            `${adapter.displayName}'s instructions could not be written on ${machine.name} (${folder?.path}): ${(error as Error).message}`,
          );
        });
        const connection = await AgentConnection.start({
          agentName: adapter.displayName,
          machine,
          launch,
          handlers: { ...handlers, terminalLogin: ptyProgram(baseEnv) !== undefined },
        });
        return { connection, cleanup: () => folder?.dispose() };
      } catch (error) {
        await folder
          ?.dispose()
          .catch((failed: unknown) => pool.log(`could not remove ${folder?.path} on ${machine.name}: ${String(failed)}`));
        throw error;
      }
    },
  });
}
