/**
 * Terminal log-in methods (ACP `type: "terminal"`): the agent's own program, as configured, run
 * with the method's extra arguments and environment in an interactive terminal the person types
 * into. Exit status 0 means the log-in worked; the agent is then reconnected on the next message.
 *
 * The pseudo-terminal comes from the system's `script` command (util-linux on Linux, BSD on
 * macOS), so no native module is needed. Windows has none: there the methods are refused plainly.
 */
import { StringDecoder } from 'node:string_decoder';
import { InvalidRequestError, NotFoundError, UnsupportedInputError } from '../../../app/errors.js';
import { newId } from '../../../app/ids.js';
import { ptyProgram, scriptArgs } from '../process/pty.js';
import type { MachineProcess } from '../machine/Machine.js';
import { shellWord } from '../process/shellWord.js';
import type { TerminalLoginMethod } from '../acp/AgentConnection.js';
import type { Env } from '../process/env.js';
import type { AgentAccess } from './AgentAccess.js';
import type { AgentProbe } from './AgentProbe.js';

/** What a log-in terminal reports: output as it comes, then how it ended. */
export type LoginTerminalEvent = {
  terminalId: string;
  agentId: string;
  data?: string;
  exit?: { code: number | null; signal: string | null };
};

/** How long a hung-up log-in gets to end before its group is ended. */
const HANGUP_GRACE_MS = 1_000;

/** Smallest and largest terminal sizes accepted. */
const MIN_SIZE = { cols: 20, rows: 5 };
const MAX_SIZE = { cols: 500, rows: 200 };

type Running = { agentId: string; process: MachineProcess };

/** Runs terminal log-ins, one per agent at a time. */
export class LoginTerminals {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly access: AgentAccess,
    private readonly probe: AgentProbe,
    private readonly env: Env,
    private readonly report: (event: LoginTerminalEvent) => void,
  ) {}

  /** True when terminal log-ins can run on this machine. */
  get supported(): boolean {
    return ptyProgram(this.env) !== undefined;
  }

  /** Starts the agent's terminal log-in method; output and the exit come through `report`. */
  async start(agentId: string, methodId: string, size: { cols: number; rows: number }): Promise<string> {
    const adapter = this.access.catalog.get(agentId);
    const script = ptyProgram(this.env);
    if (!script) {
      throw new UnsupportedInputError(
        adapter.displayName,
        'a log-in that runs in a terminal',
        'this system offers no pseudo-terminal to Baton; log in from a terminal, then try again',
      );
    }
    if ([...this.running.values()].some((running) => running.agentId === agentId)) {
      throw new InvalidRequestError(`A log-in to ${adapter.displayName} is already open.`);
    }
    // The method's arguments come from the agent's own answer to initialize, read on a loan of
    // its process: given back, never ended (a conversation may be using it).
    const loan = await this.access.borrow(agentId);
    let method: TerminalLoginMethod | undefined;
    try {
      method = loan.connection.terminalMethod(methodId);
    } finally {
      await loan.release();
    }
    if (!method) {
      throw new InvalidRequestError(`${adapter.displayName} offers no terminal log-in method "${methodId}".`);
    }
    const cols = Math.min(Math.max(Math.round(size.cols), MIN_SIZE.cols), MAX_SIZE.cols);
    const rows = Math.min(Math.max(Math.round(size.rows), MIN_SIZE.rows), MAX_SIZE.rows);
    const { launch } = this.access.launch(agentId);
    // The agent's own program with the method's arguments, or the command the method names.
    const words = method.command ? [method.command, ...method.args] : [launch.command, ...launch.args, ...method.args];
    const line = `stty cols ${cols} rows ${rows} 2>/dev/null; exec ${words.map(shellWord).join(' ')}`;
    const child = this.access.machine.spawn({
      command: script,
      args: scriptArgs(line, process.platform),
      env: { ...launch.env, ...method.env, TERM: 'xterm-256color' },
      cwd: launch.cwd,
    });
    await child.spawned();
    const terminalId = `login-${newId()}`;
    this.running.set(terminalId, { agentId, process: child });
    const decoder = new StringDecoder('utf8');
    const forward = (chunk: Buffer): void => {
      const data = decoder.write(chunk);
      if (data) {
        this.report({ terminalId, agentId, data });
      }
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    void child.exited.then(({ code, signal }) => {
      this.running.delete(terminalId);
      if (code === 0) {
        // Logged in: the next probe and the next session see it.
        this.probe.forget(agentId);
      }
      this.report({ terminalId, agentId, exit: { code, signal } });
    });
    return terminalId;
  }

  /** What the person typed. */
  input(terminalId: string, data: string): void {
    const running = this.get(terminalId);
    running.process.stdin.write(data);
  }

  /**
   * Ends a log-in that is still running. The log-in runs under `script` in a session (and process
   * group) of its own, which signals to `script`'s group do not reach, and `script` itself ignores
   * SIGTERM and SIGHUP: so the log-in's own group gets a hang-up, as when a terminal window
   * closes; `script` then ends with it. Whatever is left is ended with the group.
   */
  async close(terminalId: string): Promise<void> {
    const running = this.running.get(terminalId);
    if (!running) {
      return;
    }
    const { process: child } = running;
    if (child.exit === undefined && child.pid !== undefined) {
      await child.hangUpChildren();
      await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, HANGUP_GRACE_MS))]);
    }
    await child.dispose();
  }

  /** Ends every log-in (shutdown). */
  async dispose(): Promise<void> {
    await Promise.all([...this.running.keys()].map((terminalId) => this.close(terminalId)));
  }

  private get(terminalId: string): Running {
    const running = this.running.get(terminalId);
    if (!running) {
      throw new NotFoundError('log-in terminal', terminalId);
    }
    return running;
  }
}
