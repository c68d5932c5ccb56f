/**
 * Numbered schema migrations, applied in order under `PRAGMA user_version`. Never edit a
 * migration that has shipped; add the next number.
 */
import type Database from 'better-sqlite3';

/** Migration N is at index N-1. */
export const migrations: ReadonlyArray<(db: Database.Database) => void> = [
  // 1: the append-only event log and the catalog projection.
  (db) => {
    db.exec(`
      CREATE TABLE events (
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        v INTEGER NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE conversations (
        conversation_id TEXT PRIMARY KEY,
        last_seq INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        summary TEXT NOT NULL
      );
      CREATE INDEX conversations_by_activity ON conversations (updated_at DESC);
    `);
  },
];

/** Throws when the file is not a database or was written by a newer Baton; writes nothing. */
export function checkSchemaVersion(db: Database.Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`it was written by a newer Baton (schema ${current}; this build knows ${migrations.length})`);
  }
  return current;
}

/** Brings the database to the newest schema. */
export function migrate(db: Database.Database): void {
  const current = checkSchemaVersion(db);
  for (let version = current; version < migrations.length; version += 1) {
    const step = migrations[version]!;
    db.transaction(() => {
      step(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
