/**
 * The agent outside a conversation, reached one way: the one place that finds an agent's
 * executable (or says plainly that it is not installed), builds its launch outside any
 * conversation (in its home folder, `HOME` of the agents' environment, unless a folder is given),
 * and lends its process for a card, a log-in or its own sessions. A loan is a process of the
 * agent that runs already (any conversation's: one process is what the agent is; not for an import
 * of an agent that carries one session per process), or one started for it; its only way out is
 * `release()`, so a loan never ends a process a conversation uses.
 */
import { AgentNotInstalledError, AgentTooOldError } from '../../../app/errors.js';
import type { AgentConnection, SessionUpdate } from '../acp/AgentConnection.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import { bareLaunch, ownLaunch } from '../binding/ownLaunch.js';
import type { AgentProcesses, Lease } from '../pool/AgentProcesses.js';
import { leaseFor, oneSessionPerProcess } from '../pool/leaseFor.js';
import type { Env } from '../process/env.js';
import type { LaunchSpec, Machine } from '../machine/Machine.js';
import type { AgentCatalog } from './AgentCatalog.js';

/** A lent connection: everything but ending the process (a loan ends with `release()`). */
export type LentConnection = Omit<AgentConnection, 'dispose'>;

/** A loan of an agent's process. */
export type AgentLoan = {
  adapter: AgentAdapter;
  connection: LentConnection;
  /** Routes a session's updates (one the borrower loads) to `onUpdate`; returns the removal. Questions are answered "cancelled". */
  route(sessionId: string, onUpdate: (update: SessionUpdate) => void): () => void;
  /** Gives the process back; it ends when nothing else uses it. */
  release(): Promise<void>;
};

/**
 * How long a process started for a loan stays once the loan is given back. A person who reads an
 * agent's card, or lists its sessions, mostly goes on to use it: to import a session, or to send
 * the new conversation's first message (which shares the process when its launch is the same). An
 * agent's start takes seconds (OpenCode's several seconds of CPU), so it is not started again for
 * each step; an idle process ends after this.
 */
export const LOAN_LINGER_MS = 60_000;

/** Finds agents and lends their processes outside conversations. */
export class AgentAccess {
  constructor(
    readonly catalog: AgentCatalog,
    private readonly env: Env,
    private readonly pool: AgentProcesses,
    private readonly homeDir: string,
  ) {}

  /** The machine the agents run on. */
  get machine(): Machine {
    return this.pool.machine;
  }

  /** The adapter and its executable; {@link AgentNotInstalledError} when it is not installed. */
  find(agentId: string): { adapter: AgentAdapter; executable: string } {
    const adapter = this.catalog.get(agentId);
    return { adapter, executable: this.executableOf(adapter) };
  }

  /**
   * The adapter and its executable on another machine, as `executableThere` found it on that
   * machine's PATH; {@link AgentNotInstalledError} naming the machine when it is not there.
   */
  findOn(
    agentId: string,
    machine: Pick<Machine, 'name'>,
    executableThere: (command: string) => string | undefined,
  ): { adapter: AgentAdapter; executable: string } {
    const adapter = this.catalog.get(agentId);
    const executable = executableThere(adapter.command);
    if (!executable) {
      throw new AgentNotInstalledError(
        `${adapter.displayName} (on ${machine.name})`,
        adapter.command,
        `Install it on ${machine.name}${adapter.npmPackages?.length ? ` (npm i -g ${adapter.npmPackages.join(' ')})` : ''}, then test the machine again in Settings › Machines.`,
      );
    }
    return { adapter, executable };
  }

  /** The adapter's executable; {@link AgentNotInstalledError} when it is not installed. */
  executableOf(adapter: AgentAdapter): string {
    const executable = this.catalog.resolve(adapter);
    if (!executable) {
      throw new AgentNotInstalledError(adapter.displayName, adapter.command, adapter.installHint);
    }
    return executable;
  }

  /**
   * Refuses to run a copy older than the oldest release Baton supports when it would be given the
   * person's instructions: an older one can lose them silently (codex-acp 0.16 reads no channel
   * Baton writes). The catalog already prefers Baton's own copy when that one is current; this
   * refuses only when none is, with Update as the way out.
   */
  requireCurrentFor(adapter: AgentAdapter, instructions: { replace: string | null; append: string | null } | null): void {
    if (!instructions || (instructions.replace === null && instructions.append === null)) {
      return;
    }
    const { version, tooOld } = this.catalog.runningVersion(adapter);
    if (tooOld && version && adapter.oldestSupported) {
      throw new AgentTooOldError(adapter.displayName, adapter.agentId, version, adapter.oldestSupported, 'your instructions');
    }
  }

  /** True when the agent can be run here. */
  installed(agentId: string): boolean {
    return this.catalog.resolve(this.catalog.get(agentId)) !== undefined;
  }

  /** The folder the agent runs in outside a conversation: its home folder. */
  get outsideFolder(): string {
    return this.env.HOME ?? this.homeDir;
  }

  /** The agent's own launch outside a conversation, with no instruction channel. */
  launch(agentId: string, cwd: string = this.outsideFolder): { adapter: AgentAdapter; launch: LaunchSpec } {
    const { adapter, executable } = this.find(agentId);
    return { adapter, launch: ownLaunch(adapter, executable, this.env, cwd) };
  }

  /**
   * Lends the agent's process: one that runs already, or one started for the loan (kept
   * {@link LOAN_LINGER_MS} after the last loan). A loan that loads a session (`loadsSession`: an
   * import) of an agent that carries one session per process (`processPerSession`: pi-acp ends the
   * other sessions' pi at each load) gets a process of its own, never a conversation's.
   */
  async borrow(agentId: string, options: { cwd?: string; loadsSession?: boolean } = {}): Promise<AgentLoan> {
    const { adapter, executable } = this.find(agentId);
    const ownProcess = options.loadsSession === true && oneSessionPerProcess(adapter, executable, this.pool);
    const running = ownProcess ? undefined : await this.pool.running(agentId);
    const held = running ? this.pool.leaseRunning(running, { linger: LOAN_LINGER_MS }) : undefined;
    const lease: Lease =
      held ??
      (await leaseFor({
        adapter,
        executable,
        baseEnv: this.env,
        pool: this.pool,
        binding: { launch: bareLaunch(adapter, executable, this.env, options.cwd ?? this.outsideFolder) },
        linger: LOAN_LINGER_MS,
      }));
    return {
      adapter,
      connection: lease.agent.connection,
      // Nothing a loan runs can ask the person: a question is answered "cancelled", never allowed.
      route: (sessionId, onUpdate) =>
        lease.agent.register(sessionId, { onUpdate, requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) }),
      release: () => lease.release(),
    };
  }
}
