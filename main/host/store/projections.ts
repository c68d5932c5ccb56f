/**
 * The projections fed by the event log, in the same transaction as each append: the catalog row
 * (summary, lifecycle, agents used), where each turn started, the full-text index (one
 * document per message: the person's at `turn.started`, the agent's when its turn ends), which
 * conversation each agent session is bound to, and each conversation's own state (its context:
 * session, options, choices, usage), written only when an event changes it. All of them can be
 * rebuilt from the log.
 */
import type Database from 'better-sqlite3';
import { parseEnvelope, type Envelope, type TranscriptEvent, type UnknownEvent } from '../../../app/events/index.js';
import {
  conversationContextSchema,
  emptyContext,
  emptyTranscript,
  reduceAll,
  reduceContext,
  startFold,
  type ConversationContext,
  type TranscriptState,
} from '../../../app/transcript/index.js';
import { conversationSummarySchema, summarizeAll, type ConversationSummary } from '../../../app/transcript/summary.js';

/** An event as the `events` table holds it. */
export type EventRow = { conversation_id: string; seq: number; at: string; v: number; type: string; payload: string };

/** A stored row as an envelope, its payload parsed but not checked. */
export function envelopeFromRow(row: EventRow): Envelope {
  return {
    conversationId: row.conversation_id,
    seq: row.seq,
    at: row.at,
    v: row.v,
    type: row.type,
    payload: JSON.parse(row.payload) as unknown,
  };
}

/** Reads a stored row back as an event (unknown and unreadable rows come back unknown). */
export function eventFromRow(row: EventRow): TranscriptEvent | UnknownEvent {
  const raw = envelopeFromRow(row);
  const parsed = parseEnvelope(raw);
  return parsed.ok ? parsed.event : { ...raw, unknown: true };
}

/** How many events of a whole conversation are summarized at a time. */
const SUMMARY_RUN = 1024;

/** A stored summary row's JSON, read through its schema (the one way a summary leaves the database). */
export function summaryFromRow(json: string): ConversationSummary {
  return conversationSummarySchema.parse(JSON.parse(json));
}

/** Applies events to every projection; prepared once per connection. */
export class Projector {
  private readonly statements;
  /** Summaries as committed; this store is the database's only writer (the data-folder lock). */
  private readonly cache = new Map<string, ConversationSummary>();
  /** Contexts as committed, likewise. */
  private readonly contexts = new Map<string, ConversationContext>();

  constructor(private readonly db: Database.Database) {
    this.statements = {
      summary: db.prepare<[string], { summary: string }>('SELECT summary FROM conversations WHERE conversation_id = ?'),
      upsertSummary: db.prepare(
        `INSERT INTO conversations (conversation_id, last_seq, updated_at, summary, lifecycle, agent_ids) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET last_seq = excluded.last_seq, updated_at = excluded.updated_at,
           summary = excluded.summary, lifecycle = excluded.lifecycle, agent_ids = excluded.agent_ids`,
      ),
      insertTurn: db.prepare('INSERT OR REPLACE INTO turns (conversation_id, turn_id, start_seq) VALUES (?, ?, ?)'),
      turnStart: db.prepare<[string, string], { start_seq: number }>(
        'SELECT start_seq FROM turns WHERE conversation_id = ? AND turn_id = ?',
      ),
      eventsAfter: db.prepare<[string, number, number], EventRow>(
        'SELECT * FROM events WHERE conversation_id = ? AND seq > ? AND seq <= ? ORDER BY seq',
      ),
      insertDoc: db.prepare('INSERT INTO search_docs (conversation_id, seq, role, agent_id, at) VALUES (?, ?, ?, ?, ?)'),
      insertText: db.prepare('INSERT INTO search (rowid, text) VALUES (?, ?)'),
      bindSession: db.prepare('INSERT OR REPLACE INTO agent_sessions (agent_id, session_id, conversation_id) VALUES (?, ?, ?)'),
      context: db.prepare<[string], { context: string }>('SELECT context FROM conversation_context WHERE conversation_id = ?'),
      upsertContext: db.prepare('INSERT OR REPLACE INTO conversation_context (conversation_id, context) VALUES (?, ?)'),
    };
  }

  /** The stored summary of a conversation. */
  summary(conversationId: string): ConversationSummary | undefined {
    const cached = this.cache.get(conversationId);
    if (cached) {
      return cached;
    }
    const row = this.statements.summary.get(conversationId);
    const summary = row ? summaryFromRow(row.summary) : undefined;
    if (summary) {
      this.cache.set(conversationId, summary);
    }
    return summary;
  }

  /** The stored context of a conversation. */
  context(conversationId: string): ConversationContext | undefined {
    const cached = this.contexts.get(conversationId);
    if (cached) {
      return cached;
    }
    const row = this.statements.context.get(conversationId);
    const context = row ? conversationContextSchema.parse(JSON.parse(row.context)) : undefined;
    if (context) {
      this.contexts.set(conversationId, context);
    }
    return context;
  }

  /** Drops cached summaries and contexts: after a rolled-back transaction, a purge or a rebuild. */
  forget(conversationId?: string): void {
    if (conversationId === undefined) {
      this.cache.clear();
      this.contexts.clear();
    } else {
      this.cache.delete(conversationId);
      this.contexts.delete(conversationId);
    }
  }

  /** Folds events (already inserted into `events`) into the projections; returns the new summary. */
  apply(events: ReadonlyArray<TranscriptEvent | UnknownEvent>, before: ConversationSummary | undefined): ConversationSummary | undefined {
    const conversationId = events[0]?.conversationId;
    if (conversationId === undefined) {
      return before;
    }
    const stored = this.context(conversationId);
    // A conversation applied whole (its first commit, a rebuild) is folded once, as the screen would.
    if (stored === undefined && before === undefined && events[0]?.seq === 1) {
      const whole = this.applyWhole(conversationId);
      events.forEach((event) => whole.add(event));
      return whole.finish();
    }
    const summary = summarizeAll(before, events);
    const contextBefore = stored ?? emptyContext(conversationId);
    let context = contextBefore;
    events.forEach((event, at) => {
      if (!('unknown' in event)) {
        this.index(event, events, at);
        context = reduceContext(context, event);
      }
    });
    if (context !== contextBefore) {
      this.statements.upsertContext.run(context.conversationId, JSON.stringify(context));
      this.contexts.set(context.conversationId, context);
    }
    return this.storeSummary(summary);
  }

  /**
   * Applies a conversation's whole log (an import, a rebuild), events added in order (inserted into
   * `events` already) and none of them kept; `finish` writes what they add up to (the context,
   * the summary and, unless `search` is `later`, the search index) and returns the summary.
   */
  applyWhole(
    conversationId: string,
    search: 'now' | 'later' = 'now',
  ): { add(event: TranscriptEvent | UnknownEvent): void; finish(): ConversationSummary | undefined } {
    let summary: ConversationSummary | undefined;
    // Summarized a run at a time: one copy of the summary per run of streamed chunks, not per event.
    const unsummarized: Array<TranscriptEvent | UnknownEvent> = [];
    let context = emptyContext(conversationId);
    const index = search === 'now' ? this.searchIndexer(conversationId) : undefined;
    return {
      add: (event) => {
        if (unsummarized.push(event) === SUMMARY_RUN) {
          summary = summarizeAll(summary, unsummarized.splice(0));
        }
        index?.add(event);
        if ('unknown' in event) {
          return;
        }
        context = reduceContext(context, event);
        if (event.type === 'turn.started') {
          this.statements.insertTurn.run(event.conversationId, event.payload.turnId, event.seq);
        } else if (event.type === 'session.bound') {
          this.statements.bindSession.run(event.payload.agentId, event.payload.sessionId, event.conversationId);
        }
      },
      finish: () => {
        summary = summarizeAll(summary, unsummarized);
        index?.finish();
        this.statements.upsertContext.run(conversationId, JSON.stringify(context));
        this.contexts.set(conversationId, context);
        return this.storeSummary(summary);
      },
    };
  }

  /** Indexes for search a conversation applied with search `later`: its messages up to `upToSeq`, read from the log. */
  indexWhole(conversationId: string, upToSeq: number): void {
    const index = this.searchIndexer(conversationId);
    this.statements.eventsAfter.all(conversationId, 0, upToSeq).forEach((row) => index.add(eventFromRow(row)));
    index.finish();
  }

  /**
   * Indexes a conversation's messages from its events added in order: they are folded once, as
   * the screen would fold them, and `finish` writes the person's messages and each finished turn's
   * replies, in the order they were said.
   */
  private searchIndexer(conversationId: string): { add(event: TranscriptEvent | UnknownEvent): void; finish(): void } {
    const fold = startFold(emptyTranscript(conversationId));
    /** The person's message, or the turn whose replies go there. */
    const documents: Array<Reply | string> = [];
    return {
      add: (event) => {
        fold.add(event);
        if (event.type === 'turn.started' && !('unknown' in event)) {
          const { agentId, text } = event.payload;
          documents.push({ seq: event.seq, at: event.at, agentId, text });
        } else if (event.type === 'turn.ended' && !('unknown' in event)) {
          documents.push(event.payload.turnId);
        }
      },
      finish: () => {
        const replies = repliesByTurn(fold.result());
        for (const document of documents) {
          if (typeof document === 'string') {
            replies
              .get(document)
              ?.forEach((reply) => this.addDocument(conversationId, reply.seq, 'agent', reply.agentId, reply.at, reply.text));
          } else {
            this.addDocument(conversationId, document.seq, 'user', document.agentId, document.at, document.text);
          }
        }
      },
    };
  }

  private storeSummary(summary: ConversationSummary | undefined): ConversationSummary | undefined {
    if (summary) {
      const agentIds = `,${summary.agents.map((agent) => agent.agentId).join(',')},`;
      this.statements.upsertSummary.run(
        summary.conversationId,
        summary.lastSeq,
        summary.updatedAt,
        JSON.stringify(summary),
        summary.lifecycle,
        agentIds,
      );
      this.cache.set(summary.conversationId, summary);
    }
    return summary;
  }

  /** Indexes one event; `batch` (which holds it at `at`) spares reading back a turn whose start is in it. */
  private index(event: TranscriptEvent, batch: ReadonlyArray<TranscriptEvent | UnknownEvent>, at: number): void {
    if (event.type === 'turn.started') {
      const { turnId, agentId, text } = event.payload;
      this.statements.insertTurn.run(event.conversationId, turnId, event.seq);
      this.addDocument(event.conversationId, event.seq, 'user', agentId, event.at, text);
    } else if (event.type === 'turn.ended') {
      for (const reply of this.readReplies(event, batch, at)) {
        this.addDocument(event.conversationId, reply.seq, 'agent', reply.agentId, reply.at, reply.text);
      }
    } else if (event.type === 'session.bound') {
      this.statements.bindSession.run(event.payload.agentId, event.payload.sessionId, event.conversationId);
    }
  }

  /** The agent's messages of a finished turn, grouped exactly as the reducer shows them. */
  private readReplies(
    ended: Extract<TranscriptEvent, { type: 'turn.ended' }>,
    batch: ReadonlyArray<TranscriptEvent | UnknownEvent>,
    at: number,
  ): Reply[] {
    const start = this.statements.turnStart.get(ended.conversationId, ended.payload.turnId);
    if (!start) {
      return [];
    }
    // The turn's events: from the batch being applied when it holds them all (an import, a turn
    // committed at once), else read back from the log.
    const from = at - (ended.seq - start.start_seq);
    const inBatch = from >= 0 && batch[from]?.seq === start.start_seq && batch[at]?.seq === ended.seq;
    const events = inBatch
      ? batch.slice(from, at + 1)
      : this.statements.eventsAfter.all(ended.conversationId, start.start_seq - 1, ended.seq).map(eventFromRow);
    const state = reduceAll(
      emptyTranscript(ended.conversationId),
      events.map((event, index) => ({ ...event, seq: index + 1 })),
    );
    // Keys are the renumbered seqs: each reply is recorded at its first chunk's own seq.
    return (repliesByTurn(state).get(ended.payload.turnId) ?? []).map((reply) => ({ ...reply, seq: events[reply.seq - 1]!.seq }));
  }

  private addDocument(conversationId: string, seq: number, role: 'user' | 'agent', agentId: string, at: string, text: string): void {
    const { lastInsertRowid } = this.statements.insertDoc.run(conversationId, seq, role, agentId, at);
    this.statements.insertText.run(lastInsertRowid, text);
  }
}

/** One of the agent's messages, as the search index keeps it: at its first chunk. */
type Reply = { seq: number; at: string; agentId: string; text: string };

/** The agent's messages (not blank) of a folded transcript, by turn, in order. */
function repliesByTurn(state: TranscriptState): Map<string, Reply[]> {
  const replies = new Map<string, Reply[]>();
  for (const item of state.items) {
    if (item.kind === 'agent' && item.text.trim() !== '') {
      const reply = { seq: Number(item.key), at: item.at, agentId: state.turns[item.turnId]?.agentId ?? '', text: item.text };
      const ofTurn = replies.get(item.turnId);
      if (ofTurn) {
        ofTurn.push(reply);
      } else {
        replies.set(item.turnId, [reply]);
      }
    }
  }
  return replies;
}

/** Empties every projection and refills it from the event log. */
export function rebuildProjections(db: Database.Database): { conversations: number; events: number } {
  // A rebuild indexes every conversation for search, those imported a moment ago too.
  db.exec(
    'DELETE FROM conversations; DELETE FROM turns; DELETE FROM search_docs; DELETE FROM search; DELETE FROM agent_sessions; DELETE FROM conversation_context; DELETE FROM search_pending;',
  );
  const projector = new Projector(db);
  const ids = db.prepare<[], { conversation_id: string }>('SELECT DISTINCT conversation_id FROM events').all();
  const read = db.prepare<[string], EventRow>('SELECT * FROM events WHERE conversation_id = ? ORDER BY seq');
  let events = 0;
  for (const { conversation_id: conversationId } of ids) {
    const rows = read.all(conversationId).map(eventFromRow);
    events += rows.length;
    projector.apply(rows, undefined);
  }
  return { conversations: ids.length, events };
}
