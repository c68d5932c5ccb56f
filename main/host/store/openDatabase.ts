/**
 * Opens the transcript database without ever harming it. An existing file is first checked on a
 * read-only connection (it is a database, it passes `quick_check`, it is not from a newer Baton);
 * only then is it opened for writing, switched to WAL and migrated. A file that fails is left
 * byte-identical, and the error says where it is and how to recover.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from '../../../app/errors.js';
import { checkSchemaVersion, migrate } from './migrations.js';
import { createPrivateFile, PRIVATE_FOLDER_MODE } from './privateDataDir.js';

/** File name of the database inside the data folder. */
export const DATABASE_FILE = 'baton.sqlite';

/** Options for tests and tools. */
export type OpenOptions = {
  /** Extra pragmas after opening (tests use `max_page_count` to simulate a full disk). */
  pragmas?: readonly string[];
  /** Stop migrating at this schema version (tests of old schemas). */
  schemaVersion?: number;
};

function refuse(file: string, reason: string): StoreError {
  return new StoreError(
    `Baton cannot use its database at ${file}: ${reason}. The file was left exactly as it was. To recover, quit Baton, move that file (with any -wal and -shm files beside it) somewhere safe or restore a backup, then start Baton again; it starts with an empty history and your old file stays where you put it.`,
    { file, reason },
  );
}

/** Opens (creating if needed) and migrates the database in `dataDir`. */
export function openDatabase(dataDir: string, options: OpenOptions = {}): Database.Database {
  const file = path.join(dataDir, DATABASE_FILE);
  try {
    mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  } catch (error) {
    throw new StoreError(`Baton could not create its data folder ${dataDir}: ${(error as Error).message}`, { dataDir });
  }
  if (existsSync(file)) {
    let check: Database.Database | undefined;
    try {
      check = new Database(file, { readonly: true, fileMustExist: true });
      checkSchemaVersion(check);
      const result = check.pragma('quick_check', { simple: true });
      if (result !== 'ok') {
        throw new Error(`the integrity check failed (${String(result)})`);
      }
    } catch (error) {
      throw refuse(file, (error as Error).message);
    } finally {
      check?.close();
    }
  }
  let db: Database.Database;
  try {
    createPrivateFile(file);
    db = new Database(file);
  } catch (error) {
    throw refuse(file, (error as Error).message);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 2000');
    // Reads of a large history go through memory maps and a bigger page cache, not a syscall a page.
    db.pragma('mmap_size = 268435456');
    db.pragma('cache_size = -32000');
    for (const pragma of options.pragmas ?? []) {
      db.pragma(pragma);
    }
    migrate(db, options.schemaVersion);
    return db;
  } catch (error) {
    db.close();
    throw refuse(file, (error as Error).message);
  }
}
