/** The event store on real SQLite files: append, the stale-writer refusal, reopening, and files it must not touch. */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { ConcurrencyError, StoreError } from '../../../app/errors.js';
import type { EventDraft } from '../../../app/events/index.js';
import { DATABASE_FILE, EventStore } from './EventStore.js';
import { migrations } from './migrations.js';

const created = { type: 'conversation.created', payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/tmp' } } as const;
const started = (turnId: string, text: string) =>
  ({ type: 'turn.started', payload: { turnId, agentId: 'claude', agentName: 'Claude', text } }) as const;

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('EventStore', () => {
  const open: EventStore[] = [];
  const openStore = (dir: string): EventStore => {
    const store = new EventStore(dir);
    open.push(store);
    return store;
  };
  afterEach(() => open.splice(0).forEach((store) => store.close()));

  it('appends in order, projects the catalog in the same transaction, and reads back after reopening', () => {
    const dir = tempDir('store');
    const store = openStore(dir);
    store.append('c1', 0, [created]);
    const { events, summary } = store.append('c1', 1, [
      started('t1', 'Plan the migration\nwith details'),
      { type: 'message.chunk', payload: { turnId: 't1', text: 'OK' } },
    ]);
    expect(events.map((event) => event.seq)).toEqual([2, 3]);
    expect(summary).toMatchObject({
      title: 'Plan the migration',
      turnCount: 1,
      running: true,
      lastSeq: 3,
      preview: 'Plan the migration\nwith details',
    });
    store.close();

    const again = openStore(dir);
    expect(again.readEvents('c1').events.map((event) => event.type)).toEqual(['conversation.created', 'turn.started', 'message.chunk']);
    expect(again.listSummaries().conversations.map((row) => row.conversationId)).toEqual(['c1']);
    const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    db.close();
  });

  it('refuses a stale writer with ConcurrencyError and writes nothing of its batch', () => {
    const store = openStore(tempDir('store'));
    store.append('c1', 0, [created]);
    store.append('c1', 1, [started('t1', 'one')]);
    expect(() => store.append('c1', 1, [started('t2', 'two')])).toThrow(ConcurrencyError);
    expect(store.readEvents('c1').events).toHaveLength(2);
  });

  it('rejects an invalid event before anything is written', () => {
    const store = openStore(tempDir('store'));
    store.append('c1', 0, [created]);
    expect(() =>
      store.append('c1', 1, [started('t1', 'ok'), { type: 'message.chunk', payload: { turnId: '', text: 'x' } } as never]),
    ).toThrow();
    expect(store.getSummary('c1').lastSeq).toBe(1);
  });

  it('keeps events of a newer version in the file and reports them as unreadable to this build', () => {
    const dir = tempDir('store');
    const store = openStore(dir);
    store.append('c1', 0, [created]);
    store.close();
    const db = new Database(path.join(dir, DATABASE_FILE));
    db.prepare("INSERT INTO events VALUES ('c1', 2, '2030-01-01T00:00:00Z', 2, 'hologram.projected', '{}')").run();
    db.prepare("UPDATE conversations SET last_seq = 2 WHERE conversation_id = 'c1'").run();
    db.close();
    const again = openStore(dir);
    expect(again.readEnvelopes('c1').map((envelope) => envelope.type)).toEqual(['conversation.created', 'hologram.projected']);
    expect(again.readEvents('c1')).toMatchObject({ unreadable: 1 });
  });

  it('leaves a file that is not a database byte-identical and says where it is', () => {
    const dir = tempDir('store');
    const file = path.join(dir, DATABASE_FILE);
    writeFileSync(file, 'these are my notes, not a database '.repeat(200));
    const before = sha(file);
    let error: unknown;
    try {
      openStore(dir);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toContain(file);
    expect((error as StoreError).message).toContain('left exactly as it was');
    expect(sha(file)).toBe(before);
  });

  it('refuses a database written by a newer Baton without changing it', () => {
    const dir = tempDir('store');
    const file = path.join(dir, DATABASE_FILE);
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    const before = sha(file);
    expect(() => openStore(dir)).toThrow(/newer Baton/);
    expect(sha(file)).toBe(before);
  });

  it('projects a conversation imported whole exactly as the same events appended one at a time', () => {
    const chunk = (turnId: string, text: string, messageId?: string) =>
      ({ type: 'message.chunk', payload: { turnId, text, ...(messageId ? { messageId } : {}) } }) as const;
    const ended = (turnId: string) => ({ type: 'turn.ended', payload: { turnId, outcome: 'completed', stopReason: 'end_turn' } }) as const;
    const drafts = [
      created,
      { type: 'session.bound', payload: { agentId: 'claude', sessionId: 's-1', how: 'new' } },
      { type: 'session.option.chosen', payload: { optionId: 'model', value: 'deep' } },
      started('t1', 'first question about parsers'),
      chunk('t1', 'Hello', 'm1'),
      chunk('t1', ' parser world', 'm1'),
      { type: 'tool.call', payload: { turnId: 't1', toolCallId: 'x1', title: 'Read file', status: 'completed' } },
      chunk('t1', 'after the tool', 'm1'),
      { type: 'thought.chunk', payload: { turnId: 't1', text: 'thinking' } },
      chunk('t1', 'a second message', 'm2'),
      chunk('t1', '   '),
      ended('t1'),
      started('t2', 'second question'),
      chunk('t2', 'no message id here'),
      chunk('t2', ' and more of it'),
      ended('t2'),
      {
        type: 'conversation.rewound',
        payload: { rewindId: 'r1', toTurnId: 't2', pointSeq: 13, pointAt: 'then', setAside: ['t2'], files: 'kept' },
      },
      started('t3', 'third, still running'),
      chunk('t3', 'partial reply'),
    ] as const;
    const envelopes = drafts.map((draft, index) => ({
      conversationId: 'source',
      seq: index + 1,
      at: `2026-12-02T10:00:${String(index).padStart(2, '0')}Z`,
      v: 1,
      type: draft.type,
      payload: draft.payload,
    }));
    const dir = tempDir('whole');
    const whole = openStore(path.join(dir, 'whole'));
    whole.importEnvelopes('c', envelopes);
    const oneByOne = openStore(path.join(dir, 'one-by-one'));
    // Appended as they were recorded, each in its own commit.
    envelopes.forEach((envelope) =>
      oneByOne.append('c', envelope.seq - 1, [{ type: envelope.type, payload: envelope.payload } as EventDraft]),
    );
    // Appending stamps its own times, so times are compared only where they must be the events' own.
    const times = /"(updatedAt|createdAt|at|startedAt)":"[^"]*"/g;
    const withoutTimes = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(times, '"$1":"…"'));
    const projections = (store: EventStore, file: string) => {
      const db = new Database(path.join(dir, file, DATABASE_FILE), { readonly: true });
      try {
        return {
          // A document's time must be its event's (its message's first chunk).
          docs: db
            .prepare(
              'SELECT d.seq, d.role, d.agent_id, d.at = e.at AS atOfEvent, s.text FROM search_docs d JOIN search s ON s.rowid = d.rowid JOIN events e ON e.conversation_id = d.conversation_id AND e.seq = d.seq ORDER BY d.rowid',
            )
            .all(),
          turns: db.prepare('SELECT turn_id, start_seq FROM turns ORDER BY start_seq').all(),
          sessions: db.prepare('SELECT * FROM agent_sessions').all(),
          context: withoutTimes(store.getContext('c')) as ReturnType<EventStore['getContext']>,
          summary: withoutTimes(store.getSummary('c')),
        };
      } finally {
        db.close();
      }
    };
    const expected = projections(oneByOne, 'one-by-one');
    expect(expected.docs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ role: 'agent', text: 'Hello parser world', atOfEvent: 1 }),
        expect.objectContaining({ role: 'agent', text: 'no message id here and more of it' }),
      ]),
    );
    expect(expected.docs.every((doc) => (doc as { atOfEvent: number }).atOfEvent === 1)).toBe(true);
    expect(expected.docs.some((doc) => (doc as { text: string }).text === 'partial reply')).toBe(false);
    expect(expected.context.setAside).toEqual({ t2: 'r1' });
    expect(projections(whole, 'whole')).toEqual(expected);

    // Imported with its search index built later: the same once it is built, and a search builds it first.
    const later = openStore(path.join(dir, 'later'));
    later.importRecords(
      'c',
      envelopes.map((envelope) => ({ envelope })),
      { search: 'later' },
    );
    expect(projections(later, 'later')).toEqual({ ...expected, docs: [] });
    expect(
      later
        .search({ text: 'parser' })
        .map((hit) => [hit.role, hit.seq])
        .sort((a, b) => Number(a[1]) - Number(b[1])),
    ).toEqual([
      ['user', 4],
      ['agent', 5],
    ]);
    expect(projections(later, 'later')).toEqual(expected);
    expect(later.indexPendingSearch()).toBe(0);
  });

  it('indexes an import left for later exactly once: after a restart, and not what was committed after it', () => {
    const envelopes = [
      created,
      started('t1', 'alpha question'),
      { type: 'message.chunk', payload: { turnId: 't1', text: 'alpha answer' } },
      { type: 'turn.ended', payload: { turnId: 't1', outcome: 'completed' } },
    ].map((draft, index) => ({
      conversationId: 'source',
      seq: index + 1,
      at: '2026-12-02T10:00:00Z',
      v: 1,
      type: draft.type,
      payload: draft.payload,
    }));
    const dir = tempDir('later');
    const store = openStore(dir);
    store.importRecords(
      'c',
      envelopes.map((envelope) => ({ envelope })),
      { search: 'later' },
    );
    // A turn after the import is indexed as it is committed.
    store.append('c', 4, [
      started('t2', 'alpha again'),
      { type: 'message.chunk', payload: { turnId: 't2', text: 'alpha twice' } },
      { type: 'turn.ended', payload: { turnId: 't2', outcome: 'completed' } },
    ]);
    store.close();
    // Stopped before the import was indexed: the next run still owes it, and owes it once.
    const reopened = openStore(dir);
    expect(
      reopened
        .search({ text: 'alpha' })
        .map((hit) => hit.seq)
        .sort((a, b) => a - b),
    ).toEqual([2, 3, 5, 6]);
    expect(reopened.indexPendingSearch()).toBe(0);
    expect(reopened.search({ text: 'alpha' })).toHaveLength(4);
  });
});
