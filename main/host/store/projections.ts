/**
 * The projections fed by the event log, in the same transaction as each append: the catalog row
 * (summary, lifecycle, agents used), where each turn started, the full-text index (one
 * document per message: the person's at `turn.started`, the agent's when its turn ends), which
 * conversation each agent session is bound to, and each conversation's own state (its context:
 * session, options, choices, usage), written only when an event changes it. All of them can be
 * rebuilt from the log.
 */
import type Database from 'better-sqlite3';
import { parseEnvelope, type TranscriptEvent, type UnknownEvent } from '../../../app/events/index.js';
import { conversationContextSchema, emptyContext, emptyTranscript, reduceAll, reduceContext, type ConversationContext } from '../../../app/transcript/index.js';
import { conversationSummarySchema, summarizeAll, type ConversationSummary } from '../../../app/transcript/summary.js';

type EventRow = { conversation_id: string; seq: number; at: string; v: number; type: string; payload: string };

/** Reads a stored row back as an event (unknown and unreadable rows come back unknown). */
export function eventFromRow(row: EventRow): TranscriptEvent | UnknownEvent {
  const raw = { conversationId: row.conversation_id, seq: row.seq, at: row.at, v: row.v, type: row.type, payload: JSON.parse(row.payload) as unknown };
  const parsed = parseEnvelope(raw);
  return parsed.ok ? parsed.event : { ...raw, unknown: true };
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
      turnStart: db.prepare<[string, string], { start_seq: number }>('SELECT start_seq FROM turns WHERE conversation_id = ? AND turn_id = ?'),
      eventsAfter: db.prepare<[string, number, number], EventRow>('SELECT * FROM events WHERE conversation_id = ? AND seq > ? AND seq <= ? ORDER BY seq'),
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
    const summary = row ? conversationSummarySchema.parse(JSON.parse(row.summary)) : undefined;
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
    const summary = summarizeAll(before, events);
    const conversationId = events[0]?.conversationId;
    const contextBefore = conversationId === undefined ? undefined : (this.context(conversationId) ?? emptyContext(conversationId));
    let context = contextBefore;
    events.forEach((event, at) => {
      if (!('unknown' in event)) {
        this.index(event, events, at);
        context = context && reduceContext(context, event);
      }
    });
    if (context && context !== contextBefore) {
      this.statements.upsertContext.run(context.conversationId, JSON.stringify(context));
      this.contexts.set(context.conversationId, context);
    }
    if (summary) {
      const agentIds = `,${summary.agents.map((agent) => agent.agentId).join(',')},`;
      this.statements.upsertSummary.run(summary.conversationId, summary.lastSeq, summary.updatedAt, JSON.stringify(summary), summary.lifecycle, agentIds);
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
      this.indexReplies(event, batch, at);
    } else if (event.type === 'session.bound') {
      this.statements.bindSession.run(event.payload.agentId, event.payload.sessionId, event.conversationId);
    }
  }

  /** Indexes the agent's messages of a finished turn, grouped exactly as the reducer shows them. */
  private indexReplies(ended: Extract<TranscriptEvent, { type: 'turn.ended' }>, batch: ReadonlyArray<TranscriptEvent | UnknownEvent>, at: number): void {
    const start = this.statements.turnStart.get(ended.conversationId, ended.payload.turnId);
    if (!start) {
      return;
    }
    // The turn's events: from the batch being applied when it holds them all (an import, a turn
    // committed at once), else read back from the log.
    const from = at - (ended.seq - start.start_seq);
    const inBatch = from >= 0 && batch[from]?.seq === start.start_seq && batch[at]?.seq === ended.seq;
    const events = inBatch ? batch.slice(from, at + 1) : this.statements.eventsAfter.all(ended.conversationId, start.start_seq - 1, ended.seq).map(eventFromRow);
    const state = reduceAll(emptyTranscript(ended.conversationId), events.map((event, index) => ({ ...event, seq: index + 1 })));
    const turn = state.turns[ended.payload.turnId];
    for (const item of state.items) {
      if (item.kind === 'agent' && item.text.trim() !== '') {
        const original = events[Number(item.key) - 1]!;
        this.addDocument(ended.conversationId, original.seq, 'agent', turn?.agentId ?? '', original.at, item.text);
      }
    }
  }

  private addDocument(conversationId: string, seq: number, role: 'user' | 'agent', agentId: string, at: string, text: string): void {
    const { lastInsertRowid } = this.statements.insertDoc.run(conversationId, seq, role, agentId, at);
    this.statements.insertText.run(lastInsertRowid, text);
  }
}

/** Empties every projection and refills it from the event log. */
export function rebuildProjections(db: Database.Database): { conversations: number; events: number } {
  db.exec('DELETE FROM conversations; DELETE FROM turns; DELETE FROM search_docs; DELETE FROM search; DELETE FROM agent_sessions; DELETE FROM conversation_context;');
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
