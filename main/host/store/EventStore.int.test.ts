/** The event store on real SQLite files: append, the stale-writer refusal, reopening, and files it must not touch. */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { ConcurrencyError, StoreError } from '../../../app/errors.js';
import { DATABASE_FILE, EventStore } from './EventStore.js';
import { migrations } from './migrations.js';

const created = { type: 'conversation.created', payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/tmp' } } as const;
const started = (turnId: string, text: string) => ({ type: 'turn.started', payload: { turnId, agentId: 'claude', agentName: 'Claude', text } }) as const;

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
    const { events, summary } = store.append('c1', 1, [started('t1', 'Plan the migration\nwith details'), { type: 'message.chunk', payload: { turnId: 't1', text: 'OK' } }]);
    expect(events.map((event) => event.seq)).toEqual([2, 3]);
    expect(summary).toMatchObject({ title: 'Plan the migration', turnCount: 1, running: true, lastSeq: 3, preview: 'Plan the migration\nwith details' });
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
    expect(() => store.append('c1', 1, [started('t1', 'ok'), { type: 'message.chunk', payload: { turnId: '', text: 'x' } } as never])).toThrow();
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
});
