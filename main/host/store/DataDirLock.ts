/**
 * One Baton per data folder: a lock file naming the holder's process id. A lock left by a process
 * that no longer exists (a crash, a SIGKILL) is taken over; a live holder makes the second
 * instance refuse to start.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirInUseError } from '../../../app/errors.js';

/** File name of the lock inside the data folder. */
export const LOCK_FILE = 'baton.lock';

type LockContent = { pid: number; hostname: string; startedAt: string };

/** Lock files held by this process: a lock naming our own pid is ours only if it is in here. */
const heldHere = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A held lock on a data folder. */
export class DataDirLock {
  private released = false;

  private constructor(private readonly file: string) {}

  /** Takes the lock, or throws DataDirInUseError naming the live holder. */
  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, LOCK_FILE);
    const content: LockContent = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        const fd = openSync(file, 'wx');
        writeSync(fd, JSON.stringify(content));
        closeSync(fd);
        heldHere.add(file);
        return new DataDirLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw error;
        }
      }
      const holder = readHolder(file);
      const live = holder?.pid === process.pid ? heldHere.has(file) : holder !== undefined && holder.hostname === os.hostname() && isRunning(holder.pid);
      if (holder && live) {
        throw new DataDirInUseError(dataDir, holder.pid);
      }
      // A stale lock (its process is gone, or an earlier process had our pid): take it over.
      rmSync(file, { force: true });
    }
    throw new DataDirInUseError(dataDir, readHolder(file)?.pid ?? 0);
  }

  /** Releases the lock if this process still holds it. */
  release(): void {
    if (this.released) {
      return;
    }
    this.released = true;
    heldHere.delete(this.file);
    if (readHolder(this.file)?.pid === process.pid) {
      rmSync(this.file, { force: true });
    }
  }
}

function readHolder(file: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockContent>;
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, hostname: String(parsed.hostname ?? ''), startedAt: String(parsed.startedAt ?? '') } : undefined;
  } catch {
    return undefined;
  }
}
