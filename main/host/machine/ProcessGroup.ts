/**
 * A child process in its own process group, so that disposing it ends everything it started
 * (agents launch native children and MCP servers). Keeps the last bytes of stderr. A lifeline
 * ends the group when the host dies without disposing it (SIGKILL, a crash, the OOM killer).
 */
import { execFile, spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { readdirSync, readFileSync } from 'node:fs';
import { ByteRing } from '../process/ByteRing.js';
import type { ExitInfo, LaunchSpec, MachineProcess } from './Machine.js';
import { windowsShimLaunch } from './windowsShim.js';

export type { ExitInfo, LaunchSpec } from './Machine.js';

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

/**
 * The lifeline: a small shell in a session of its own, holding a pipe from the host that the host
 * never writes to. When the host dies, however it dies, the kernel closes that pipe; the shell
 * reads end-of-file and ends the group it watches (SIGTERM, a grace period for every member,
 * then SIGKILL). Agents cannot be trusted to do this themselves: claude-agent-acp keeps running
 * after its stdin closes. A shell rather than a Node script: a packaged Electron app cannot run
 * itself as Node (the RunAsNode fuse is off).
 */
const LIFELINE_SCRIPT = [
  'while IFS= read -r _; do :; done',
  'kill -s TERM -- "-$1" 2>/dev/null || exit 0',
  'n=0',
  `while [ "$n" -lt ${KILL_GRACE_MS / 100} ] && kill -s 0 -- "-$1" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done`,
  'kill -s KILL -- "-$1" 2>/dev/null',
  'exit 0',
].join('\n');

/** Starts the lifeline of group `pgid` (POSIX only; Windows has no process groups to end this way). */
function startLifeline(pgid: number): ChildProcess | undefined {
  if (process.platform === 'win32') {
    return undefined;
  }
  // Its own session (detached): a signal to the host's group, such as a terminal's, spares it.
  const lifeline = spawn('/bin/sh', ['-c', LIFELINE_SCRIPT, 'baton-lifeline', String(pgid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  lifeline.on('error', () => {
    // No shell: the group is still ended by dispose, only not after a crash.
  });
  // Neither the process nor its pipe keeps the host's event loop alive.
  lifeline.unref();
  (lifeline.stdin as (Writable & { unref?: () => void }) | null)?.unref?.();
  lifeline.stdin?.on('error', () => undefined);
  return lifeline;
}

/** The direct children of a process (`pgrep -P`, on Linux and macOS alike). */
function childPids(pid: number): Promise<number[]> {
  return new Promise((resolve) =>
    execFile('pgrep', ['-P', String(pid)], { encoding: 'utf8' }, (error, stdout) =>
      // None (pgrep exits 1), or no pgrep: no children to hang up.
      resolve(
        error
          ? []
          : stdout
              .split('\n')
              .map((line) => Number(line.trim()))
              .filter((child) => Number.isInteger(child) && child > 0),
      ),
    ),
  );
}

/** A running child in its own group: this computer's {@link MachineProcess}. */
export class ProcessGroup implements MachineProcess {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly errorOutput = new ByteRing(STDERR_LIMIT);
  /** Resolves when the child has exited. */
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private lifeline: ChildProcess | undefined;

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
    this.child.stderr.on('data', (chunk: Buffer) => this.errorOutput.push(chunk));
    if (this.child.pid !== undefined && process.platform !== 'win32') {
      this.lifeline = startLifeline(this.child.pid);
    }
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        this.exitInfo = { code, signal };
        // The leader is gone; if nothing else of its group runs, the lifeline has nothing to watch.
        if (this.child.pid !== undefined && !groupHasLiveMembers(this.child.pid)) {
          this.releaseLifeline();
        }
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

  get pid(): number | undefined {
    return this.child.pid;
  }

  get stdin(): Writable {
    return this.child.stdin;
  }

  get stdout(): Readable {
    return this.child.stdout;
  }

  get stderr(): Readable {
    return this.child.stderr;
  }

  lastErrorLines(lines: number): string {
    return this.errorOutput.lastLines(lines);
  }

  /**
   * Hangs up the process groups of its direct children: a program that runs its child in a
   * session of its own (`script`, giving it a terminal) passes no signal on, and ignores SIGHUP
   * itself; its child's group gets the hang-up a closing terminal window gives.
   */
  async hangUpChildren(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined || this.exitInfo !== undefined || process.platform === 'win32') {
      return;
    }
    for (const child of await childPids(pid)) {
      try {
        process.kill(-child, 'SIGHUP');
      } catch {
        // It has just ended.
      }
    }
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
    this.releaseLifeline();
  }

  /** Lets the lifeline go: it reads end-of-file, finds the group gone, and exits. */
  private releaseLifeline(): void {
    this.lifeline?.stdin?.end();
    this.lifeline = undefined;
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
