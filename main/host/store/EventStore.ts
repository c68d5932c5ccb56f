/**
 * The append-only transcript store: SQLite (better-sqlite3, WAL). Events are appended with the
 * sequence number the writer expects; the catalog projection is updated in the same transaction.
 * It never deletes, renames or "repairs" a file it cannot read: it refuses with a StoreError.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConcurrencyError, NotFoundError, StoreError } from '../../../app/errors.js';
import { EVENT_VERSION, parseDraft, parseEnvelope, type Envelope, type EventDraft, type TranscriptEvent } from '../../../app/events/index.js';
import { conversationSummarySchema, summarize, type ConversationSummary } from '../../../app/transcript/summary.js';
import { checkSchemaVersion, migrate } from './migrations.js';

/** File name of the database inside the data folder. */
export const DATABASE_FILE = 'baton.sqlite';

type EventRow = { conversation_id: string; seq: number; at: string; v: number; type: string; payload: string };

/** What an append committed. */
export type AppendResult = { events: TranscriptEvent[]; summary: ConversationSummary };

/** The transcript store. */
export class EventStore {
  private readonly db: Database.Database;
  private readonly statements;

  /** Opens (creating if needed) the database in `dataDir`. */
  constructor(
    dataDir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    const file = path.join(dataDir, DATABASE_FILE);
    try {
      mkdirSync(dataDir, { recursive: true });
      this.db = new Database(file);
    } catch (error) {
      throw new StoreError(`Baton could not open its database at ${file}: ${(error as Error).message}`, { file });
    }
    try {
      // Read-only checks first: a file Baton must refuse is refused before anything is written to it.
      checkSchemaVersion(this.db);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      migrate(this.db);
    } catch (error) {
      this.db.close();
      throw new StoreError(
        `Baton cannot use the database at ${file}: ${(error as Error).message}. The file was left exactly as it was; move it aside or restore a backup, then start Baton again.`,
        { file },
      );
    }
    this.statements = {
      lastSeq: this.db.prepare<[string], { last_seq: number }>('SELECT last_seq FROM conversations WHERE conversation_id = ?'),
      summary: this.db.prepare<[string], { summary: string }>('SELECT summary FROM conversations WHERE conversation_id = ?'),
      insertEvent: this.db.prepare('INSERT INTO events (conversation_id, seq, at, v, type, payload) VALUES (?, ?, ?, ?, ?, ?)'),
      upsertSummary: this.db.prepare(
        `INSERT INTO conversations (conversation_id, last_seq, updated_at, summary) VALUES (?, ?, ?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET last_seq = excluded.last_seq, updated_at = excluded.updated_at, summary = excluded.summary`,
      ),
      events: this.db.prepare<[string], EventRow>('SELECT * FROM events WHERE conversation_id = ? ORDER BY seq'),
      list: this.db.prepare<[], { summary: string }>('SELECT summary FROM conversations ORDER BY updated_at DESC'),
    };
  }

  /**
   * Appends `drafts` after `expectedSeq` (0 for a new conversation). Throws ConcurrencyError
   * when another writer got there first. All-or-nothing.
   */
  append(conversationId: string, expectedSeq: number, drafts: readonly EventDraft[]): AppendResult {
    const validated = drafts.map((draft) => parseDraft(draft));
    const run = this.db.transaction((): AppendResult => {
      const actual = this.statements.lastSeq.get(conversationId)?.last_seq ?? 0;
      if (actual !== expectedSeq) {
        throw new ConcurrencyError(conversationId, expectedSeq, actual);
      }
      let summary = this.readSummary(conversationId);
      const at = this.now().toISOString();
      const events = validated.map((draft, index): TranscriptEvent => {
        const event = { conversationId, seq: expectedSeq + index + 1, at, v: EVENT_VERSION, ...draft } as TranscriptEvent;
        this.statements.insertEvent.run(conversationId, event.seq, at, EVENT_VERSION, event.type, JSON.stringify(event.payload));
        summary = summarize(summary, event);
        return event;
      });
      if (!summary) {
        throw new NotFoundError('conversation', conversationId);
      }
      this.statements.upsertSummary.run(conversationId, summary.lastSeq, summary.updatedAt, JSON.stringify(summary));
      return { events, summary };
    });
    try {
      return run();
    } catch (error) {
      if (error instanceof ConcurrencyError || error instanceof NotFoundError) {
        throw error;
      }
      throw new StoreError(`The transcript could not be saved: ${(error as Error).message}`);
    }
  }

  /** The stored envelopes of a conversation, oldest first. */
  readEnvelopes(conversationId: string): Envelope[] {
    return this.statements.events.all(conversationId).map((row) => ({
      conversationId: row.conversation_id,
      seq: row.seq,
      at: row.at,
      v: row.v,
      type: row.type,
      payload: JSON.parse(row.payload) as unknown,
    }));
  }

  /** The known events of a conversation; unreadable rows are reported, not dropped from disk. */
  readEvents(conversationId: string): { events: TranscriptEvent[]; unreadable: number } {
    const events: TranscriptEvent[] = [];
    let unreadable = 0;
    for (const envelope of this.readEnvelopes(conversationId)) {
      const parsed = parseEnvelope(envelope);
      if (parsed.ok && !('unknown' in parsed.event)) {
        events.push(parsed.event);
      } else {
        unreadable += 1;
      }
    }
    return { events, unreadable };
  }

  /** One conversation's summary. */
  getSummary(conversationId: string): ConversationSummary {
    const summary = this.readSummary(conversationId);
    if (!summary) {
      throw new NotFoundError('conversation', conversationId);
    }
    return summary;
  }

  /** All conversations, most recent activity first. */
  listSummaries(): ConversationSummary[] {
    return this.statements.list.all().map((row) => conversationSummarySchema.parse(JSON.parse(row.summary)));
  }

  /** Closes the database. */
  close(): void {
    if (this.db.open) {
      this.db.close();
    }
  }

  private readSummary(conversationId: string): ConversationSummary | undefined {
    const row = this.statements.summary.get(conversationId);
    return row ? conversationSummarySchema.parse(JSON.parse(row.summary)) : undefined;
  }
}
