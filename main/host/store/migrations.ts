/**
 * Numbered schema migrations, applied in order under `PRAGMA user_version`. Never edit a
 * migration that has shipped; add the next number. A migration that adds a projection fills it
 * from the event log, so an old database gains it with nothing lost.
 */
import type Database from 'better-sqlite3';
import { rebuildProjections } from './projections.js';

/**
 * Migration N is at index N-1. A step that adds a projection returns "rebuild": the projections
 * are then refilled from the log once, after the last step, by the code of this build (so an old
 * step never runs against tables it did not know).
 */
export const migrations: ReadonlyArray<(db: Database.Database) => 'rebuild' | void> = [
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
  // 2: history (lifecycle, agents used), turn starts, and the full-text index; all rebuilt from the log.
  (db) => {
    db.exec(`
      ALTER TABLE conversations ADD COLUMN lifecycle TEXT NOT NULL DEFAULT 'active';
      ALTER TABLE conversations ADD COLUMN agent_ids TEXT NOT NULL DEFAULT '';
      DROP INDEX conversations_by_activity;
      CREATE INDEX conversations_by_lifecycle_activity ON conversations (lifecycle, updated_at DESC, conversation_id DESC);
      CREATE TABLE turns (
        conversation_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        start_seq INTEGER NOT NULL,
        PRIMARY KEY (conversation_id, turn_id)
      ) WITHOUT ROWID;
      CREATE INDEX turns_by_start ON turns (conversation_id, start_seq);
      CREATE TABLE search_docs (
        doc_id INTEGER PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        at TEXT NOT NULL
      );
      CREATE INDEX search_docs_by_conversation ON search_docs (conversation_id);
      CREATE VIRTUAL TABLE search USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
    `);
    return 'rebuild';
  },
  // 3: which conversation each agent session is bound to (imports from an agent's own session list are de-duplicated by it).
  (db) => {
    db.exec(`
      CREATE TABLE agent_sessions (
        agent_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        PRIMARY KEY (agent_id, session_id)
      ) WITHOUT ROWID;
      CREATE INDEX agent_sessions_by_conversation ON agent_sessions (conversation_id);
    `);
    return 'rebuild';
  },
  // 4: each conversation's own state (session, options, choices, usage…), so a transcript opened at its tail keeps it.
  (db) => {
    db.exec('CREATE TABLE conversation_context (conversation_id TEXT PRIMARY KEY, context TEXT NOT NULL) WITHOUT ROWID');
    return 'rebuild';
  },
  // 5: the person's settings (their own instructions, per-agent choices): data of their own, not a projection.
  (db) => {
    db.exec('CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID');
  },
  // 6: the toolbox catalog (MCP servers, encrypted secret values, named toolboxes): the person's data, not a projection.
  (db) => {
    db.exec(`
      CREATE TABLE mcp_servers (
        server_id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        spec TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE secrets (secret_id TEXT PRIMARY KEY, ciphertext TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE toolboxes (
        toolbox_id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        server_ids TEXT NOT NULL,
        is_default INTEGER NOT NULL DEFAULT 0
      ) WITHOUT ROWID;
    `);
  },
  // 7: the conversation context learned whether an agent was ever prompted (first-turn injectors): fold it again.
  () => 'rebuild',
  // 8: an imported conversation is indexed for search after the import (up to the seq it was imported with).
  (db) => {
    db.exec('CREATE TABLE search_pending (conversation_id TEXT PRIMARY KEY, up_to_seq INTEGER NOT NULL) WITHOUT ROWID;');
  },
];

/** Throws when the file was written by a newer Baton; writes nothing. */
export function checkSchemaVersion(db: Database.Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`it was written by a newer Baton (schema ${current}; this build knows ${migrations.length})`);
  }
  return current;
}

/**
 * Brings the database to schema `upTo` (the newest by default) in one transaction: every step,
 * then one rebuild of the projections if any step asked for it. A failure leaves the file as it was.
 * `rebuild` is this build's projection code; tests pass an older version's to build old files.
 */
export function migrate(
  db: Database.Database,
  upTo = migrations.length,
  rebuild: (db: Database.Database) => unknown = rebuildProjections,
): void {
  const current = checkSchemaVersion(db);
  if (current >= upTo) {
    return;
  }
  db.transaction(() => {
    let needsRebuild = false;
    for (let version = current; version < upTo; version += 1) {
      needsRebuild = migrations[version]!(db) === 'rebuild' || needsRebuild;
      db.pragma(`user_version = ${version + 1}`);
    }
    if (needsRebuild) {
      rebuild(db);
    }
  })();
}
