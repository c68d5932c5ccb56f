/**
 * The append-only transcript store (SQLite, WAL). Events are appended with the sequence number
 * the writer expects; the projections (catalog, turns, full-text index) change in the same
 * transaction. Deleting is a tombstone event; only `purge` erases, and only what was deleted.
 */
import type Database from 'better-sqlite3';
import type { z } from 'zod';
import { ConcurrencyError, InvalidRequestError, NotFoundError, StoreError } from '../../../app/errors.js';
import {
  EVENT_VERSION,
  parseDraft,
  type Envelope,
  type EventDraft,
  type TranscriptEvent,
  type UnknownEvent,
} from '../../../app/events/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { conversationContextSchema, type ConversationContext } from '../../../app/transcript/context.js';
import { openDatabase, type OpenOptions } from './openDatabase.js';
import { envelopeFromRow, eventFromRow, Projector, rebuildProjections, summaryFromRow, type EventRow } from './projections.js';
import { listPage, searchMessages, type ListCursor, type ListQuery, type SearchHit, type SearchQuery } from './queries.js';

export { DATABASE_FILE } from './openDatabase.js';

/** How long after an import its search index is built (a search before that builds it at once). */
const SEARCH_INDEX_DELAY_MS = 2_000;

/** What an append committed. */
export type AppendResult = { events: TranscriptEvent[]; summary: ConversationSummary };

/** The transcript store. */
export class EventStore {
  private readonly db: Database.Database;
  private readonly projector: Projector;
  private readonly statements;

  /** Opens (creating and migrating if needed) the database in `dataDir`. */
  constructor(dataDir: string, options: OpenOptions & { now?: () => Date } = {}) {
    this.db = openDatabase(dataDir, options);
    this.now = options.now ?? (() => new Date());
    this.projector = new Projector(this.db);
    this.inTransaction = this.db.transaction((work: () => unknown) => work());
    this.statements = {
      insertEvent: this.db.prepare('INSERT INTO events (conversation_id, seq, at, v, type, payload) VALUES (?, ?, ?, ?, ?, ?)'),
      events: this.db.prepare<[string], EventRow>('SELECT * FROM events WHERE conversation_id = ? ORDER BY seq'),
      eventsFrom: this.db.prepare<[string, number], EventRow>('SELECT * FROM events WHERE conversation_id = ? AND seq >= ? ORDER BY seq'),
      eventsPage: this.db.prepare<[string, number, number], EventRow>(
        'SELECT * FROM events WHERE conversation_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
      ),
      nthLastTurn: this.db.prepare<[string, number], { start_seq: number }>(
        'SELECT start_seq FROM turns WHERE conversation_id = ? ORDER BY start_seq DESC LIMIT 1 OFFSET ?',
      ),
      turnHolding: this.db.prepare<[string, number], { start_seq: number | null }>(
        'SELECT MAX(start_seq) AS start_seq FROM turns WHERE conversation_id = ? AND start_seq <= ?',
      ),
      exists: this.db.prepare<[string], { one: number }>('SELECT 1 AS one FROM events WHERE conversation_id = ? LIMIT 1'),
      running: this.db.prepare<[], { summary: string }>("SELECT summary FROM conversations WHERE json_extract(summary, '$.running') = 1"),
      purgeEvents: this.db.prepare('DELETE FROM events WHERE conversation_id = ?'),
      purgeCatalog: this.db.prepare('DELETE FROM conversations WHERE conversation_id = ?'),
      purgeTurns: this.db.prepare('DELETE FROM turns WHERE conversation_id = ?'),
      purgeText: this.db.prepare('DELETE FROM search WHERE rowid IN (SELECT doc_id FROM search_docs WHERE conversation_id = ?)'),
      purgeDocs: this.db.prepare('DELETE FROM search_docs WHERE conversation_id = ?'),
      purgeSessions: this.db.prepare('DELETE FROM agent_sessions WHERE conversation_id = ?'),
      purgeContext: this.db.prepare('DELETE FROM conversation_context WHERE conversation_id = ?'),
      searchPending: this.db.prepare<[], { conversation_id: string; up_to_seq: number }>(
        'SELECT conversation_id, up_to_seq FROM search_pending',
      ),
      putSearchPending: this.db.prepare('INSERT OR REPLACE INTO search_pending (conversation_id, up_to_seq) VALUES (?, ?)'),
      clearSearchPending: this.db.prepare('DELETE FROM search_pending WHERE conversation_id = ?'),
      setting: this.db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?'),
      putSetting: this.db.prepare('INSERT OR REPLACE INTO settings (key, value, updated_at) VALUES (?, ?, ?)'),
      sessionsOf: this.db.prepare<[string], { session_id: string; conversation_id: string }>(
        'SELECT session_id, conversation_id FROM agent_sessions WHERE agent_id = ?',
      ),
    };
    // An import the last run did not get to index.
    if (this.statements.searchPending.all().length > 0) {
      this.indexSearchSoon();
    }
  }

  private readonly now: () => Date;
  /** better-sqlite3's transaction wrapper, made once (building one per append costs as much as a small append). */
  private readonly inTransaction: (work: () => unknown) => unknown;

  /**
   * Appends `drafts` after `expectedSeq` (0 for a new conversation). Throws ConcurrencyError when
   * another writer got there first. All-or-nothing.
   */
  append(conversationId: string, expectedSeq: number, drafts: readonly EventDraft[]): AppendResult {
    const validated = drafts.map((draft) => parseDraft(draft));
    const at = this.now().toISOString();
    return this.write(() => {
      const before = this.projector.summary(conversationId);
      const actual = before?.lastSeq ?? 0;
      if (actual !== expectedSeq) {
        throw new ConcurrencyError(conversationId, expectedSeq, actual);
      }
      const events = validated.map((draft, index): TranscriptEvent => {
        const event = { conversationId, seq: expectedSeq + index + 1, at, v: EVENT_VERSION, ...draft };
        this.statements.insertEvent.run(conversationId, event.seq, at, EVENT_VERSION, event.type, JSON.stringify(event.payload));
        return event;
      });
      const summary = this.projector.apply(events, before);
      if (!summary) {
        throw new NotFoundError('conversation', conversationId);
      }
      return { events, summary };
    });
  }

  /**
   * Stores an exported transcript under a new id, event for event (times, versions and unknown
   * types kept). The envelopes must run from seq 1 without gaps and start with its creation.
   */
  importEnvelopes(conversationId: string, envelopes: Iterable<Envelope>): ConversationSummary {
    return this.importRecords(
      conversationId,
      (function* () {
        for (const envelope of envelopes) {
          yield { envelope };
        }
      })(),
    );
  }

  /**
   * Stores a whole transcript as a new conversation, one record at a time, in one transaction:
   * nothing is stored unless every record is (a bad one, a gap in the seqs, a first event that is
   * not the creation all refuse the whole). A record's event, when the caller has read it already
   * (an import from a file), is not read again.
   */
  importRecords(
    conversationId: string,
    records: Iterable<{ envelope: Envelope; event?: TranscriptEvent | UnknownEvent }>,
    options: { search?: 'now' | 'later' } = {},
  ): ConversationSummary {
    const search = options.search ?? 'now';
    const summary = this.write(() => {
      if (this.statements.exists.get(conversationId)) {
        throw new InvalidRequestError(`Conversation ${conversationId} already exists.`);
      }
      const whole = this.projector.applyWhole(conversationId, search);
      let expected = 0;
      for (const { envelope, event } of records) {
        expected += 1;
        if (envelope.seq !== expected) {
          throw new InvalidRequestError(`The transcript is not complete: event ${expected} has seq ${envelope.seq}.`);
        }
        if (expected === 1 && envelope.type !== 'conversation.created') {
          throw new InvalidRequestError('The transcript does not start with the creation of a conversation.');
        }
        const payload = JSON.stringify(envelope.payload);
        this.statements.insertEvent.run(conversationId, envelope.seq, envelope.at, envelope.v, envelope.type, payload);
        whole.add(
          event
            ? { ...event, conversationId }
            : eventFromRow({
                conversation_id: conversationId,
                seq: envelope.seq,
                at: envelope.at,
                v: envelope.v,
                type: envelope.type,
                payload,
              }),
        );
      }
      const summary = expected === 0 ? undefined : whole.finish();
      if (!summary) {
        throw new InvalidRequestError(expected === 0 ? 'The transcript has no events.' : "The transcript's first event could not be read.");
      }
      if (search === 'later') {
        this.statements.putSearchPending.run(conversationId, expected);
      }
      return summary;
    });
    if (search === 'later') {
      this.indexSearchSoon();
    }
    return summary;
  }

  /**
   * Indexes for search what was imported with search `later` (each conversation up to the seq it
   * was imported with: what came after was indexed as it was committed); returns how many
   * conversations. Every search does this first, so none misses an imported message.
   */
  indexPendingSearch(): number {
    const pending = this.statements.searchPending.all();
    for (const { conversation_id: conversationId, up_to_seq: upToSeq } of pending) {
      this.write(() => {
        this.projector.indexWhole(conversationId, upToSeq);
        this.statements.clearSearchPending.run(conversationId);
      });
    }
    return pending.length;
  }

  /** Indexes the pending imports a moment from now, once the import's copy has been opened (a search does it at once). */
  private indexSearchSoon(): void {
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => {
      try {
        if (this.db.open) {
          this.indexPendingSearch();
        }
      } catch {
        // Left pending: the next search, or the next start, tries again and reports what fails.
      }
    }, SEARCH_INDEX_DELAY_MS);
    this.searchTimer.unref();
  }

  private searchTimer: NodeJS.Timeout | undefined;

  /** The stored envelopes of a conversation, oldest first, exactly as written. */
  readEnvelopes(conversationId: string): Envelope[] {
    return this.statements.events.all(conversationId).map(envelopeFromRow);
  }

  /**
   * The tail of a transcript in whole turns: from the start of the `turns`-th last turn, or of
   * the turn holding `aroundSeq` if that is earlier. Seq 1 when the conversation is shorter.
   */
  readTail(
    conversationId: string,
    turns: number,
    aroundSeq?: number,
    maxEvents?: number,
  ): { firstSeq: number; envelopes: Envelope[]; nextSeq: number | null } {
    const start = this.statements.nthLastTurn.get(conversationId, turns - 1)?.start_seq;
    // A conversation with no more turns than asked for is read whole, with what preceded its first turn.
    const hasEarlierTurns = this.statements.nthLastTurn.get(conversationId, turns) !== undefined;
    let firstSeq = start !== undefined && hasEarlierTurns ? start : 1;
    if (aroundSeq !== undefined) {
      firstSeq = Math.min(firstSeq, this.statements.turnHolding.get(conversationId, aroundSeq)?.start_seq ?? 1);
    }
    if (maxEvents === undefined) {
      return { firstSeq, envelopes: this.statements.eventsFrom.all(conversationId, firstSeq).map(envelopeFromRow), nextSeq: null };
    }
    return { firstSeq, ...this.readPage(conversationId, firstSeq, maxEvents) };
  }

  /** Up to `limit` events from `fromSeq` on, and where the next page starts (null: none after these). */
  readPage(conversationId: string, fromSeq: number, limit: number): { envelopes: Envelope[]; nextSeq: number | null } {
    const rows = this.statements.eventsPage.all(conversationId, fromSeq, limit + 1);
    const more = rows.length > limit;
    const envelopes = (more ? rows.slice(0, limit) : rows).map(envelopeFromRow);
    return { envelopes, nextSeq: more ? rows[limit]!.seq : null };
  }

  /** The events of a conversation; those this build cannot read are counted, and stay on disk. */
  readEvents(conversationId: string): { events: TranscriptEvent[]; unreadable: number } {
    const all: Array<TranscriptEvent | UnknownEvent> = this.statements.events.all(conversationId).map(eventFromRow);
    const events = all.filter((event): event is TranscriptEvent => !('unknown' in event));
    return { events, unreadable: all.length - events.length };
  }

  /** One conversation's summary. */
  getSummary(conversationId: string): ConversationSummary {
    const summary = this.projector.summary(conversationId);
    if (!summary) {
      throw new NotFoundError('conversation', conversationId);
    }
    return summary;
  }

  /** A conversation's own state (session, options, choices, usage…) as of its last event. */
  getContext(conversationId: string): ConversationContext {
    const context = this.projector.context(conversationId);
    if (!context) {
      throw new NotFoundError('conversation', conversationId);
    }
    return context;
  }

  /**
   * One of the person's settings, checked against its schema; `fallback` when it was never set
   * or no longer reads (a newer shape), which is never silently overwritten by reading.
   */
  getSetting<T>(key: string, schema: z.ZodType<T>, fallback: T): T {
    const row = this.statements.setting.get(key);
    if (!row) {
      return fallback;
    }
    const parsed = schema.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : fallback;
  }

  /**
   * Gives a sibling repository (the toolbox catalog) the database and this store's transaction
   * wrapper, so its writes fail the same readable way.
   */
  repository<T>(make: (db: Database.Database, write: <R>(work: () => R) => R) => T): T {
    return make(this.db, (work) => this.write(work));
  }

  /** Stores one of the person's settings durably. */
  setSetting(key: string, value: unknown): void {
    this.write(() => this.statements.putSetting.run(key, JSON.stringify(value), this.now().toISOString()));
  }

  /** A page of the conversation list, most recent activity first. */
  listSummaries(query: ListQuery = {}): { conversations: ConversationSummary[]; nextCursor: ListCursor | null } {
    return listPage(this.db, query);
  }

  /** Conversations with a turn still marked running (left by a process that died). */
  runningSummaries(): ConversationSummary[] {
    return this.statements.running.all().map((row) => summaryFromRow(row.summary));
  }

  /** Full-text search over messages of conversations that are not deleted. */
  search(query: SearchQuery): SearchHit[] {
    this.indexPendingSearch();
    return searchMessages(this.db, query);
  }

  /** The conversations bound to each of an agent's sessions (by session id). */
  sessionsBoundTo(agentId: string): Map<string, string> {
    return new Map(this.statements.sessionsOf.all(agentId).map((row) => [row.session_id, row.conversation_id]));
  }

  /** The conversations not in the trash whose toolbox has the server, by title. */
  conversationsUsingServer(serverId: string): Array<{ conversationId: string; title: string }> {
    const rows = this.db
      .prepare<[string], { conversation_id: string; context: string }>(
        'SELECT conversation_id, context FROM conversation_context WHERE instr(context, ?) > 0',
      )
      .all(serverId);
    return rows.flatMap((row) => {
      const context = conversationContextSchema.parse(JSON.parse(row.context));
      return context.lifecycle !== 'deleted' && context.toolbox?.servers.some((server) => server.serverId === serverId)
        ? [{ conversationId: row.conversation_id, title: this.getSummary(row.conversation_id).title || 'New conversation' }]
        : [];
    });
  }

  /** The checkpoints of working folders that some conversation's events name (a branch shares its original's). */
  checkpointIdsInUse(): Set<string> {
    const rows = this.db
      .prepare<[], { id: string | null }>(
        "SELECT DISTINCT json_extract(payload, '$.checkpointId') AS id FROM events WHERE type IN ('checkpoint.taken', 'conversation.rewound')",
      )
      .all();
    return new Set(rows.flatMap((row) => (row.id ? [row.id] : [])));
  }

  /** Erases a deleted conversation for good: its events and every projection of them. */
  purge(conversationId: string): void {
    const summary = this.getSummary(conversationId);
    if (summary.lifecycle !== 'deleted') {
      throw new InvalidRequestError('Only a deleted conversation can be erased for good; delete it first.');
    }
    this.write(() => {
      for (const statement of [
        this.statements.clearSearchPending,
        this.statements.purgeText,
        this.statements.purgeDocs,
        this.statements.purgeSessions,
        this.statements.purgeContext,
        this.statements.purgeTurns,
        this.statements.purgeCatalog,
        this.statements.purgeEvents,
      ]) {
        statement.run(conversationId);
      }
    });
    this.projector.forget(conversationId);
  }

  /** Rebuilds every projection from the event log. */
  rebuildProjections(): { conversations: number; events: number } {
    this.projector.forget();
    return this.write(() => rebuildProjections(this.db));
  }

  /** Closes the database. */
  close(): void {
    clearTimeout(this.searchTimer);
    if (this.db.open) {
      this.db.close();
    }
  }

  /** Runs `work` in one transaction; SQLite failures (a full disk, I/O) become a readable StoreError. */
  private write<T>(work: () => T): T {
    try {
      return this.inTransaction(work) as T;
    } catch (error) {
      // What the failed transaction cached was rolled back with it.
      this.projector.forget();
      if (error instanceof ConcurrencyError || error instanceof NotFoundError || error instanceof InvalidRequestError) {
        throw error;
      }
      const code = (error as { code?: string }).code;
      const reason = code === 'SQLITE_FULL' ? 'the disk (or the database) is full' : (error as Error).message;
      throw new StoreError(`The transcript could not be saved: ${reason}.`, { sqliteCode: code ?? null });
    }
  }
}
