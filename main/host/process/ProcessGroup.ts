/**
 * A child process in its own process group, so that disposing it ends everything it started
 * (agents launch native children and MCP servers). Keeps the last bytes of stderr.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { ByteRing } from './ByteRing.js';

/** How to start a child. */
export type LaunchSpec = {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
};

/** How a child ended. */
export type ExitInfo = { code: number | null; signal: NodeJS.Signals | null };

const STDERR_LIMIT = 64 * 1024;
const KILL_GRACE_MS = 2_000;

/** A running child in its own group. */
export class ProcessGroup {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stderr = new ByteRing(STDERR_LIMIT);
  /** Resolves when the child has exited. */
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;

  /** Spawns; a missing executable surfaces as a rejected {@link spawned}. */
  constructor(spec: LaunchSpec) {
    this.child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // A new process group (POSIX): the group id is the child's pid, so one signal reaches all.
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      this.child.once('error', () => {
        // 'close' still follows an 'error' from spawn; nothing to do here but keep it handled.
      });
    });
  }

  /** Resolves once the process is running, rejects with the spawn error (ENOENT, EACCES). */
  spawned(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.child.pid !== undefined) {
        resolve();
        return;
      }
      this.child.once('spawn', () => resolve());
      this.child.once('error', reject);
    });
  }

  /** How it ended, once it has. */
  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** Ends the whole group: SIGTERM, then SIGKILL after a grace period. */
  async dispose(): Promise<void> {
    if (this.exitInfo || this.child.pid === undefined) {
      return;
    }
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), KILL_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
    // The leader is gone; children that ignored SIGTERM may remain in the group.
    this.signalGroup('SIGKILL');
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) {
      return;
    }
    try {
      if (process.platform === 'win32') {
        this.child.kill(signal);
      } else {
        process.kill(-pid, signal);
      }
    } catch {
      // ESRCH: the group has already gone.
    }
  }
}

/** Describes an exit for people: "exit code 1" or "signal SIGKILL". */
export function describeExit(exit: ExitInfo | undefined): string {
  if (!exit) {
    return 'still running';
  }
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
}
