/** Read queries over the projections: the paged conversation list and full-text search. */
import type Database from 'better-sqlite3';
import { conversationSummarySchema, type ConversationSummary } from '../../../app/transcript/summary.js';
import { summaryFromRow } from './projections.js';

/** An attempt's summary's `attemptOf`: where it was asked. */
const attemptOfSchema = conversationSummarySchema.shape.attemptOf.unwrap();

/** Keyset cursor: the last row of the previous page. */
export type ListCursor = { updatedAt: string; conversationId: string };

/** Which page of the list. */
export type ListQuery = {
  lifecycle?: ConversationSummary['lifecycle'];
  before?: ListCursor;
  limit?: number;
};

/** What to search for. */
export type SearchQuery = { text: string; agentId?: string; from?: string; to?: string; limit?: number };

/** One matching message. `snippet` marks matches with \u0002 … \u0003. */
export type SearchHit = {
  conversationId: string;
  seq: number;
  role: 'user' | 'agent';
  agentId: string;
  at: string;
  snippet: string;
  title: string;
};

const DEFAULT_PAGE = 200;

/** Statements prepared once per connection and SQL text (search has a few filter variants). */
const prepared = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function statement(db: Database.Database, sql: string): Database.Statement {
  let cache = prepared.get(db);
  if (!cache) {
    cache = new Map();
    prepared.set(db, cache);
  }
  let found = cache.get(sql);
  if (!found) {
    found = db.prepare(sql);
    cache.set(sql, found);
  }
  return found;
}

/** A page of summaries in the order of last activity. */
export function listPage(db: Database.Database, query: ListQuery): { conversations: ConversationSummary[]; nextCursor: ListCursor | null } {
  const limit = Math.min(Math.max(query.limit ?? DEFAULT_PAGE, 1), 1000);
  const lifecycle = query.lifecycle ?? 'active';
  const rows = (
    query.before
      ? statement(
          db,
          `SELECT summary FROM conversations WHERE lifecycle = ? AND (updated_at, conversation_id) < (?, ?)
           ORDER BY updated_at DESC, conversation_id DESC LIMIT ?`,
        ).all(lifecycle, query.before.updatedAt, query.before.conversationId, limit + 1)
      : statement(db, 'SELECT summary FROM conversations WHERE lifecycle = ? ORDER BY updated_at DESC, conversation_id DESC LIMIT ?').all(
          lifecycle,
          limit + 1,
        )
  ) as Array<{ summary: string }>;
  const conversations = rows.slice(0, limit).map((row) => summaryFromRow(row.summary));
  const last = conversations.at(-1);
  return {
    conversations,
    nextCursor: rows.length > limit && last ? { updatedAt: last.updatedAt, conversationId: last.conversationId } : null,
  };
}

/**
 * Turns what a person typed into an FTS5 query: every word must match, the last one also as a
 * prefix. Operators and quotes in the input are treated as text, never as query syntax.
 */
export function toFtsQuery(text: string): string | undefined {
  const words = text.match(/[\p{L}\p{N}_]+/gu);
  if (!words || words.length === 0) {
    return undefined;
  }
  return words.map((word, index) => `"${word}"${index === words.length - 1 ? '*' : ''}`).join(' ');
}

/** Best matches first, from conversations that are not deleted. */
export function searchMessages(db: Database.Database, query: SearchQuery): SearchHit[] {
  const match = toFtsQuery(query.text);
  if (!match) {
    return [];
  }
  const filters: string[] = [];
  const params: Array<string | number> = [match];
  if (query.agentId) {
    filters.push('AND d.agent_id = ?');
    params.push(query.agentId);
  }
  if (query.from) {
    filters.push('AND d.at >= ?');
    params.push(query.from);
  }
  if (query.to) {
    filters.push('AND d.at < ?');
    params.push(query.to);
  }
  params.push(Math.min(Math.max(query.limit ?? 50, 1), 200));
  // Only what a hit shows is read from the summary (its title, and for an attempt where it was asked), in SQL: no summary
  // is parsed whole for a hit.
  const rows = statement(
    db,
    `SELECT d.conversation_id, d.seq, d.role, d.agent_id, d.at, snippet(search, 0, char(2), char(3), '…', 16) AS snippet,
            json_extract(c.summary, '$.title') AS title,
            CASE WHEN c.lifecycle = 'attempt' THEN json_extract(c.summary, '$.attemptOf') END AS attempt_of
       FROM search JOIN search_docs d ON d.doc_id = search.rowid JOIN conversations c ON c.conversation_id = d.conversation_id
       WHERE search MATCH ? AND c.lifecycle != 'deleted' ${filters.join(' ')}
       ORDER BY rank LIMIT ?`,
  ).all(...params) as Array<{
    conversation_id: string;
    seq: number;
    role: 'user' | 'agent';
    agent_id: string;
    at: string;
    snippet: string;
    title: string;
    attempt_of: string | null;
  }>;
  return rows.flatMap((row) => {
    const hit = {
      conversationId: row.conversation_id,
      seq: row.seq,
      role: row.role,
      agentId: row.agent_id,
      at: row.at,
      snippet: row.snippet,
      title: row.title,
    };
    if (row.attempt_of === null) {
      return [hit];
    }
    // An attempt's text is found where it is shown: in the conversation that asked, at its message.
    // The history it was given is that conversation's own, found there already.
    const { conversationId, attemptsId, fromSeq } = attemptOfSchema.parse(JSON.parse(row.attempt_of));
    const asked = row.seq > fromSeq ? askedAt(db, conversationId, attemptsId) : undefined;
    return asked === undefined ? [] : [{ ...hit, conversationId, seq: asked }];
  });
}

/** Where a conversation asked the attempts `attemptsId` (the seq of its `attempts.started`), if it still does. */
function askedAt(db: Database.Database, conversationId: string, attemptsId: string): number | undefined {
  const row = statement(
    db,
    "SELECT e.seq FROM events e JOIN conversations c ON c.conversation_id = e.conversation_id WHERE e.conversation_id = ? AND e.type = 'attempts.started' AND json_extract(e.payload, '$.attemptsId') = ? AND c.lifecycle != 'deleted'",
  ).get(conversationId, attemptsId) as { seq: number } | undefined;
  return row?.seq;
}
