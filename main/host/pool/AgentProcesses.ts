/**
 * The pool of agent processes: one process per launch digest, carrying every session whose
 * binding shares that launch part. Sessions lease a process and register their handlers by
 * session id (`PooledAgent.ts`); the process ends when its last lease is released (or, for a lease
 * that lingers, a while after unless leased again meanwhile), when it crashes (ending only its own
 * sessions' turns), or with the host. An agent that cannot run twice on one state (Codex 2.x
 * and its state database) is never started a second time while one of it runs.
 */
import { UnsupportedInputError } from '../../../app/errors.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import type { Machine } from '../machine/Machine.js';
import { definedEnv } from '../process/env.js';
import type { AgentConnection, AgentConnectionHandlers, InitializeResponse } from '../acp/AgentConnection.js';
import { PooledAgent } from './PooledAgent.js';

/** What the pool needs to start one process. */
export type ProcessRequest = {
  /** What processes are shared by: the launch digest, with the scope of sharing (see `pool/poolKey.ts`). */
  key: string;
  /** The launch digest alone (defaults to `key`). */
  launchDigest?: string;
  agentId: string;
  agentName: string;
  /** The executable it runs (its `initialize` answer is remembered by it). */
  executable: string;
  /**
   * For an agent that holds its state exclusively: where this launch's state is, and whether a
   * running version holds it. Asked of a running process of the agent on the same state before
   * another one is started.
   */
  exclusiveState?: { key: string; applies(version: string | undefined): boolean };
  /** Its processes start one at a time: the next once the one before has answered `initialize` (see the adapter's `startsAlone`). */
  startsAlone?: boolean;
  /** When this lease is the last one released, the process stays this many milliseconds for the next lease before it ends. */
  linger?: number;
  /** The machine it runs on (default: the pool's). The same launch on two machines is two processes. */
  machine?: Machine;
  /** Starts the process with the pool's router as its handlers; `cleanup` runs when it ends (its failure is logged). */
  start(handlers: AgentConnectionHandlers): Promise<{ connection: AgentConnection; cleanup?: () => void | Promise<void> }>;
};

/** A session's hold on a pooled process. */
export type Lease = {
  agent: PooledAgent;
  /** The machine the agent runs on (its terminals run there too). */
  machine: Machine;
  release(): Promise<void>;
};

/** One row of the process table. */
export type PooledProcessInfo = {
  agentId: string;
  agentName: string;
  /** The launch digest the process is shared by. */
  key: string;
  pid: number | undefined;
  /** The agent's version, as it reported it. */
  version: string | undefined;
  sessions: number;
  users: number;
  /** Idle: no session uses it; it waits a while for one (a card read or an import just used it), then ends. */
  state: 'starting' | 'running' | 'idle' | 'ending';
  /** The name of the machine it runs on (a container Baton started for an attempt is one). */
  machine: string;
};

/** The pool. */
export class AgentProcesses {
  private readonly entries = new Map<string, Promise<PooledAgent>>();
  /** The process of each entry, known from the moment it starts (for the table). */
  private readonly agents = new Map<string, PooledAgent>();
  /** The last `initialize` answer per agent and executable, kept after its process ended. */
  private readonly answers = new Map<string, InitializeResponse>();
  /** Per agent that starts alone, its latest start (the next one waits for it). */
  private readonly startsInTurn = new Map<string, Promise<unknown>>();
  /** The machine each process runs on. */
  private readonly machineOf = new WeakMap<PooledAgent, Machine>();
  private disposed = false;

  constructor(
    /** Where the pool says what went wrong that nobody waits for (an ended process's cleanup). */
    readonly log: (message: string) => void = () => {},
    /** The machine the agents run on. */
    readonly machine: Machine = new LocalMachine(definedEnv(process.env)),
  ) {}

  /** Leases the process for `request.key`, starting it when none runs. */
  async lease(request: ProcessRequest): Promise<Lease> {
    if (this.disposed) {
      throw new Error('The agent pool is shut down.');
    }
    const machine = request.machine ?? this.machine;
    // A process runs on one machine: the same launch elsewhere is another entry.
    const on: ProcessRequest =
      machine.id === this.machine.id
        ? request
        : {
            ...request,
            machine,
            key: `${machine.id}\t${request.key}`,
            // Its state is on that machine: only a process there can hold it.
            ...(request.exclusiveState
              ? { exclusiveState: { ...request.exclusiveState, key: `${machine.id}\t${request.exclusiveState.key}` } }
              : {}),
          };
    let agent = await this.entryFor(on);
    // A process whose last lease was just released is ending: it is not handed out again.
    if (agent.ending || agent.exited) {
      if (this.entries.get(on.key) !== undefined && (await this.entries.get(on.key)!.catch(() => undefined)) === agent) {
        this.entries.delete(on.key);
      }
      agent = await this.entryFor(on);
    }
    return this.leaseOf(agent, machine, request.linger);
  }

  /**
   * A new lease on `agent` (running on `machine`): the last one released ends it, at once or, when
   * it lingers, after `linger` milliseconds with no lease taken meanwhile.
   */
  private leaseOf(agent: PooledAgent, machine: Machine, linger = 0): Lease {
    agent.users += 1;
    agent.stopLingering();
    let released = false;
    return {
      agent,
      machine,
      release: async () => {
        if (released) {
          return;
        }
        released = true;
        agent.users -= 1;
        if (agent.users !== 0 || agent.ending) {
          return;
        }
        if (linger > 0 && !this.disposed && !agent.exited) {
          agent.linger(linger, () => void this.end(agent));
          return;
        }
        await this.end(agent);
      },
    };
  }

  /**
   * Leases a process that runs already (found with {@link running}); undefined when it is ending
   * or gone by now (the caller starts one instead).
   */
  leaseRunning(agent: PooledAgent, options: { linger?: number } = {}): Lease | undefined {
    if (this.disposed || agent.ending || agent.exited) {
      return undefined;
    }
    return this.leaseOf(agent, this.machineOf.get(agent) ?? this.machine, options.linger);
  }

  /**
   * Ends an agent's processes that no session uses and that wait for one (it was installed, updated
   * or removed, or logged in elsewhere: the next use starts it afresh).
   */
  async endIdle(agentId: string): Promise<void> {
    const idle = [...this.agents.values()].filter((agent) => agent.agentId === agentId && agent.idle);
    await Promise.all(idle.map((agent) => this.end(agent)));
  }

  /** The entry for a launch, started when there is none. */
  private entryFor(request: ProcessRequest): Promise<PooledAgent> {
    let entry = this.entries.get(request.key);
    if (!entry) {
      entry = this.startEntry(request);
      this.entries.set(request.key, entry);
      entry.catch(() => this.entries.delete(request.key));
    }
    return entry;
  }

  /** A running process of the agent (any launch), for reading its card or its sessions. */
  async running(agentId: string): Promise<PooledAgent | undefined> {
    for (const entry of this.entries.values()) {
      const agent = await entry.catch(() => undefined);
      const here = agent !== undefined && (this.machineOf.get(agent) ?? this.machine) === this.machine;
      if (agent && here && agent.agentId === agentId && !agent.exited && !agent.ending && agent.connection.usable) {
        return agent;
      }
    }
    return undefined;
  }

  /**
   * The last `initialize` answer of an agent's executable (on `machine`, default the pool's: the
   * same path elsewhere is another install), if one was started this run.
   */
  knownAnswer(agentId: string, executable: string, machine?: Pick<Machine, 'id'>): InitializeResponse | undefined {
    return this.answers.get(this.answerKey(agentId, executable, machine));
  }

  /** Records an answer (the pool records its own; callers add ones from processes of their own). */
  remember(agentId: string, executable: string, answer: InitializeResponse, machine?: Pick<Machine, 'id'>): void {
    this.answers.set(this.answerKey(agentId, executable, machine), answer);
  }

  /** An answer's key: the agent, then the executable, after its machine's id when that is not the pool's. */
  private answerKey(agentId: string, executable: string, machine: Pick<Machine, 'id'> | undefined): string {
    const elsewhere = machine && machine.id !== this.machine.id ? `${machine.id}\u0000` : '';
    return `${agentId}\u0000${elsewhere}${executable}`;
  }

  /** Forgets an agent's answers (it was installed, updated or removed). */
  forgetAnswers(agentId: string): void {
    for (const key of [...this.answers.keys()]) {
      if (key.startsWith(`${agentId}\u0000`)) {
        this.answers.delete(key);
      }
    }
  }

  /** The processes now, one row each, those still starting included. */
  table(): PooledProcessInfo[] {
    return [...this.entries.keys()].flatMap((key) => {
      const agent = this.agents.get(key);
      if (!agent || agent.exited) {
        return [];
      }
      const state = !agent.started ? 'starting' : agent.ending ? 'ending' : agent.idle ? 'idle' : 'running';
      return [
        {
          agentId: agent.agentId,
          agentName: agent.agentName,
          key,
          pid: agent.started ? agent.connection.processGroupId : undefined,
          version: agent.started ? agent.version : undefined,
          sessions: agent.sessionCount,
          users: agent.users,
          state,
          machine: (this.machineOf.get(agent) ?? this.machine).name,
        },
      ];
    });
  }

  /**
   * Ends one process now (the person's Stop); its sessions hear it exit and start again with their next message. False: none runs under
   * `key`.
   */
  async stop(key: string): Promise<boolean> {
    const agent = await this.entries.get(key)?.catch(() => undefined);
    if (!agent || agent.exited || agent.ending) {
      return false;
    }
    await this.end(agent);
    return true;
  }

  /** Ends every process (host shutdown). */
  async dispose(): Promise<void> {
    this.disposed = true;
    const agents = await Promise.all([...this.entries.values()].map((entry) => entry.catch(() => undefined)));
    await Promise.all(agents.flatMap((agent) => (agent ? [this.end(agent)] : [])));
  }

  private async startEntry(request: ProcessRequest): Promise<PooledAgent> {
    const exclusive = request.exclusiveState;
    if (exclusive) {
      for (const [key, other] of this.entries) {
        const running = key === request.key ? undefined : await other.catch(() => undefined);
        if (running?.ending) {
          // Being ended: its state is free once it has gone.
          await running.ended;
          continue;
        }
        if (
          running &&
          running.agentId === request.agentId &&
          running.stateKey === exclusive.key &&
          !running.exited &&
          exclusive.applies(running.version)
        ) {
          if (!running.busy) {
            // Idle (a card read, an early session, conversations between turns): ended, so that this
            // launch can hold the state. Its conversations reopen their sessions on their next message.
            this.log(`ending ${running.agentName}'s idle process (${running.key}): another launch needs the state it holds`);
            await this.end(running);
            continue;
          }
          throw new UnsupportedInputError(
            request.agentName,
            'a second agent process',
            `${request.agentName} ${running.version ?? ''} keeps its state in a database that one process holds, and that process is running a turn for another conversation with another launch (other instructions on its command line or environment); send again once that turn has ended`.replace(
              /\s+/g,
              ' ',
            ),
          );
        }
      }
    }
    const agent = new PooledAgent(request.key, request.agentId, request.agentName, request.launchDigest ?? request.key, this.log);
    agent.stateKey = exclusive?.key;
    this.machineOf.set(agent, request.machine ?? this.machine);
    this.agents.set(request.key, agent);
    const { connection, cleanup } = await this.started(request, agent);
    agent.connection = connection;
    agent.cleanup = cleanup;
    agent.started = true;
    this.remember(request.agentId, request.executable, connection.initialized, request.machine);
    agent.onExit(() => {
      agent.stopLingering();
      // A crashed process leaves the pool at once: the next message starts it again.
      if (this.entries.get(agent.key) !== undefined) {
        void this.entries.get(agent.key)!.then((current) => {
          if (current === agent) {
            this.entries.delete(agent.key);
            this.forget(agent);
            void this.cleanUp(agent);
          }
        });
      }
    });
    return agent;
  }

  /** Starts the request's process; for an agent that starts alone, once its start before has ended (answered or failed). */
  private async started(request: ProcessRequest, agent: PooledAgent): ReturnType<ProcessRequest['start']> {
    if (!request.startsAlone) {
      return request.start(agent.handlers);
    }
    const before = this.startsInTurn.get(request.agentId);
    const mine = (async () => {
      await before?.catch(() => undefined);
      return request.start(agent.handlers);
    })();
    this.startsInTurn.set(request.agentId, mine);
    try {
      return await mine;
    } finally {
      if (this.startsInTurn.get(request.agentId) === mine) {
        this.startsInTurn.delete(request.agentId);
      }
    }
  }

  /** Ends a process: from here on it is `ending` (never handed out again), until `ended`. */
  private async end(agent: PooledAgent): Promise<void> {
    agent.ending = true;
    agent.stopLingering();
    const entry = this.entries.get(agent.key);
    if (entry && (await entry.catch(() => undefined)) === agent) {
      this.entries.delete(agent.key);
    }
    await agent.connection.dispose().catch((error: unknown) => this.log(`could not end ${agent.agentName}: ${String(error)}`));
    this.forget(agent);
    await this.cleanUp(agent);
    agent.markEnded();
  }

  /** Runs an ended process's cleanup once, saying in the log when it fails. */
  private async cleanUp(agent: PooledAgent): Promise<void> {
    const cleanup = agent.cleanup;
    agent.cleanup = undefined;
    await Promise.resolve(cleanup?.()).catch((error: unknown) => this.log(`could not clean up after ${agent.agentName}: ${String(error)}`));
  }

  /** Takes an ended process out of the table. */
  private forget(agent: PooledAgent): void {
    if (this.agents.get(agent.key) === agent) {
      this.agents.delete(agent.key);
    }
  }
}
