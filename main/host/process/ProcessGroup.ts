/**
 * A child process in its own process group, so that disposing it ends everything it started
 * (agents launch native children and MCP servers). Keeps the last bytes of stderr.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { ByteRing } from './ByteRing.js';
import { windowsShimLaunch } from './windowsShim.js';

/** How to start a child. */
export type LaunchSpec = {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** Windows: pass the arguments as they are (a cmd.exe line built by windowsShimLaunch). */
  verbatimArguments?: boolean;
};

/** How a child ended. */
export type ExitInfo = { code: number | null; signal: NodeJS.Signals | null };

const STDERR_LIMIT = 64 * 1024;
const KILL_GRACE_MS = 2_000;
const GROUP_POLL_MS = 25;

/**
 * True while any member of process group `pgid` is running. On Linux, zombies (ended, waiting to
 * be reaped) do not count; elsewhere any member does.
 */
export function groupHasLiveMembers(pgid: number): boolean {
  if (process.platform === 'linux') {
    try {
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) {
          continue;
        }
        try {
          // /proc/<pid>/stat: "pid (name) state ppid pgrp …"; the name may contain spaces or parentheses.
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          if (fields[2] === String(pgid) && fields[0] !== 'Z') {
            return true;
          }
        } catch {
          // The process ended while we looked.
        }
      }
      return false;
    } catch {
      // No /proc: fall through to the signal probe.
    }
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A running child in its own group. */
export class ProcessGroup {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stderr = new ByteRing(STDERR_LIMIT);
  /** Resolves when the child has exited. */
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;

  /** Spawns; a missing executable surfaces as a rejected {@link spawned}. */
  constructor(launch: LaunchSpec) {
    const spec = windowsShimLaunch(launch);
    this.child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // A new process group (POSIX): the group id is the child's pid, so one signal reaches all.
      detached: process.platform !== 'win32',
      windowsHide: true,
      ...(spec.verbatimArguments ? { windowsVerbatimArguments: true } : {}),
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

  /**
   * Ends the whole group: SIGTERM, then SIGKILL for whatever is still running after a grace
   * period. The grace applies to every member, not just the leader: an agent's own children
   * (Claude Code under its ACP adapter) save their state on SIGTERM and must not be cut off.
   */
  async dispose(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) {
      return;
    }
    if (!this.exitInfo) {
      this.signalGroup('SIGTERM');
    }
    const deadline = Date.now() + KILL_GRACE_MS;
    const leaderGone = Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, KILL_GRACE_MS))]);
    await leaderGone;
    while (Date.now() < deadline && groupHasLiveMembers(pid)) {
      await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
    }
    this.signalGroup('SIGKILL');
    await this.exited;
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
