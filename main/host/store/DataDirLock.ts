/**
 * One Baton per data folder, held by a lock the operating system releases when its holder dies,
 * however it dies (SIGKILL, a crash, a reboot): SQLite's own file lock on a small lock database,
 * opened in exclusive locking mode with a write that keeps the lock for the life of the
 * connection. Nothing is guessed from process ids: a pid is written beside it only so that the
 * refusal can say who holds the folder.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DataDirInUseError, StoreError } from '../../../app/errors.js';
import { createPrivateFile, PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from './privateDataDir.js';

/** The lock database inside the data folder (its SQLite file lock is the lock). */
export const LOCK_DATABASE = 'baton.lock.sqlite';
/** Who holds the lock, for the refusal's message only: never consulted to decide anything. */
export const LOCK_FILE = 'baton.lock';

type Holder = { pid: number; hostname: string; startedAt: string };

/** Locks held by this process: a collected connection would close, and so let its lock go. */
const heldHere = new Set<DataDirLock>();

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/** A held lock on a data folder. */
export class DataDirLock {
  private released = false;

  private constructor(
    private readonly connection: Database.Database,
    private readonly holderFile: string,
  ) {}

  /** Takes the lock, or throws DataDirInUseError naming the live holder. */
  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    const file = path.join(dataDir, LOCK_DATABASE);
    const holderFile = path.join(dataDir, LOCK_FILE);
    let connection: Database.Database | undefined;
    try {
      // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting for it.
      createPrivateFile(file);
      connection = new Database(file, { timeout: 0 });
      connection.pragma('locking_mode = EXCLUSIVE');
      // The first write takes the exclusive lock; in exclusive mode it is kept after the commit,
      // until the connection closes or the process ends.
      connection.exec('CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY, taken_at TEXT NOT NULL)');
      connection.prepare('INSERT OR REPLACE INTO lock (id, taken_at) VALUES (1, ?)').run(new Date().toISOString());
    } catch (error) {
      connection?.close();
      if (isBusy(error)) {
        throw new DataDirInUseError(dataDir, readHolder(holderFile)?.pid ?? 0);
      }
      throw new StoreError(`Baton could not lock its data folder ${dataDir}: ${(error as Error).message}`, { dataDir });
    }
    const holder: Holder = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() };
    try {
      writeFileSync(holderFile, JSON.stringify(holder), { mode: PRIVATE_FILE_MODE });
    } catch {
      // Only the refusal's message would miss it.
    }
    const lock = new DataDirLock(connection, holderFile);
    heldHere.add(lock);
    return lock;
  }

  /** Releases the lock (the kernel does the same if this process dies first). */
  release(): void {
    if (this.released) {
      return;
    }
    this.released = true;
    heldHere.delete(this);
    if (readHolder(this.holderFile)?.pid === process.pid) {
      rmSync(this.holderFile, { force: true });
    }
    this.connection.close();
  }
}

function readHolder(file: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    return typeof parsed.pid === 'number'
      ? { pid: parsed.pid, hostname: String(parsed.hostname ?? ''), startedAt: String(parsed.startedAt ?? '') }
      : undefined;
  } catch {
    return undefined;
  }
}
