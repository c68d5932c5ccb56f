/**
 * The data-folder lock against real processes: it is the kernel's, so a holder that dies however
 * it dies (SIGKILL, left as an unreaped zombie) frees the folder at once, a stale pid file decides
 * nothing, and a live holder refuses a second Baton while it keeps serving.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError } from '../../../app/errors.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { ensureBuilt, builtFile } from '../../../e2e/fixtures/ensureBuilt.js';
import { DataDirLock, LOCK_FILE } from './DataDirLock.js';

beforeAll(() => ensureBuilt(), 120_000);

const children: ChildProcessWithoutNullStreams[] = [];
const held: DataDirLock[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  held.splice(0).forEach((lock) => lock.release());
});

/** A holder in a child process: takes the lock, says "locked", answers "ping" with "pong …". */
function holderScript(dataDir: string): string {
  const lockModule = pathToFileURL(builtFile('main/host/store/DataDirLock.js')).href;
  return `
    const { DataDirLock } = await import(${JSON.stringify(lockModule)});
    DataDirLock.acquire(${JSON.stringify(dataDir)});
    process.stdout.write('locked ' + process.pid + '\\n');
    process.stdin.on('data', () => process.stdout.write('pong ' + process.pid + '\\n'));
  `;
}

/** Starts `command` in its own process group and waits for its first line of output. */
async function startHolder(command: string, args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; lines: string[] }> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  children.push(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  await expect.poll(() => lines.length > 0 || child.exitCode !== null, { timeout: 10_000 }).toBe(true);
  expect(lines[0], stderr).toMatch(/^locked \d+$/);
  return { child, lines };
}

function take(dataDir: string): DataDirLock {
  const lock = DataDirLock.acquire(dataDir);
  held.push(lock);
  return lock;
}

const nodeArgs = (dataDir: string): string[] => ['--input-type=module', '-e', holderScript(dataDir)];

describe('the data-folder lock', () => {
  it('is free the moment its holder is SIGKILLed', async () => {
    const dataDir = tempDir('lock-kill');
    const { child } = await startHolder(process.execPath, nodeArgs(dataDir));
    expect(() => DataDirLock.acquire(dataDir)).toThrow(DataDirInUseError);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid!, 'SIGKILL');
    await exited;
    expect(() => take(dataDir)).not.toThrow();
  });

  it.skipIf(process.platform !== 'linux')(
    'is free when its SIGKILLed holder is a zombie nobody reaps (kill(pid, 0) still succeeds) [needs Linux /proc]',
    async () => {
      const dataDir = tempDir('lock-zombie');
      // sh starts the holder in the background, then becomes `sleep`, which never reaps it.
      const script = `${JSON.stringify(process.execPath)} ${nodeArgs(dataDir)
        .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)
        .join(' ')} & exec sleep 600`;
      const { lines } = await startHolder('/bin/sh', ['-c', script]);
      const holderPid = Number(lines[0]!.split(' ')[1]);
      process.kill(holderPid, 'SIGKILL');
      await expect.poll(() => zombie(holderPid), { timeout: 5_000 }).toBe(true);
      // The leader shows as a zombie a moment before the kernel has ended its other threads (and so
      // closed its files, and its lock): the lock is free once that is done, however long the pid stays.
      await expect
        .poll(
          () => {
            try {
              take(dataDir);
              return true;
            } catch (error) {
              if (error instanceof DataDirInUseError) {
                return false;
              }
              throw error;
            }
          },
          { timeout: 5_000 },
        )
        .toBe(true);
      // The pid still answers a signal probe: exactly what a pid-based lock mistook for a live holder.
      expect(zombie(holderPid)).toBe(true);
      expect(() => process.kill(holderPid, 0)).not.toThrow();
    },
  );

  it('ignores a pid file naming a live unrelated process (a reboot reused the pid)', () => {
    const dataDir = tempDir('lock-stale');
    writeFileSync(
      path.join(dataDir, LOCK_FILE),
      JSON.stringify({ pid: process.ppid, hostname: 'this-host', startedAt: 'before the reboot' }),
    );
    expect(() => take(dataDir)).not.toThrow();
  });

  it('refuses a second Baton while the first lives, naming it, and the first keeps serving', async () => {
    const dataDir = tempDir('lock-live');
    const { child, lines } = await startHolder(process.execPath, nodeArgs(dataDir));
    let refusal: unknown;
    try {
      DataDirLock.acquire(dataDir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirInUseError);
    expect((refusal as Error).message).toContain(`Another Baton (process ${child.pid})`);
    child.stdin.write('ping\n');
    await expect.poll(() => lines.includes(`pong ${child.pid}`), { timeout: 5_000 }).toBe(true);
    // Still held: a second try is refused the same way.
    expect(() => DataDirLock.acquire(dataDir)).toThrow(DataDirInUseError);
  });

  it('within one process too, until it is released', () => {
    const dataDir = tempDir('lock-same');
    const first = take(dataDir);
    expect(() => DataDirLock.acquire(dataDir)).toThrow(DataDirInUseError);
    first.release();
    expect(() => take(dataDir)).not.toThrow();
  });
});

/** True when `pid` has ended and waits to be reaped (Linux /proc). */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
