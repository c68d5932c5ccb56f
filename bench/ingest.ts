/**
 * ingest: chunk events per second through the store's append path (validation, the catalog and
 * search projections, one transaction per group as the Committer makes them) against raw
 * better-sqlite3 inserts of the same rows into the same table in one transaction.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import type { EventDraft } from '../app/events/index.js';
import { EventStore } from '../main/host/store/EventStore.js';
import { median, report, time, withTempDir } from './util.js';

const CHUNKS = 20_000;
const ROUNDS = 5;

function drafts(count: number): EventDraft[] {
  return Array.from({ length: count }, (_, index) => ({
    type: 'message.chunk',
    payload: { turnId: 't', text: `chunk ${index} of a streamed reply with a few words` },
  }));
}

function throughStore(batch: number): number {
  return withTempDir('ingest', (dir) => {
    const store = new EventStore(dir);
    store.append('c', 0, [
      { type: 'conversation.created', payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/' } },
      { type: 'turn.started', payload: { turnId: 't', agentId: 'claude', agentName: 'Claude', text: 'go' } },
    ]);
    const all = drafts(CHUNKS);
    let seq = 2;
    const ms = time(() => {
      for (let start = 0; start < all.length; start += batch) {
        const group = all.slice(start, start + batch);
        store.append('c', seq, group);
        seq += group.length;
      }
    });
    store.close();
    return (CHUNKS / ms) * 1000;
  });
}

function raw(): number {
  return withTempDir('ingest-raw', (dir) => {
    const db = new Database(path.join(dir, 'raw.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(
      'CREATE TABLE events (conversation_id TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL, v INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (conversation_id, seq)) WITHOUT ROWID',
    );
    const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)');
    const rows = drafts(CHUNKS).map(
      (draft, index) => ['c', index + 3, new Date().toISOString(), 1, draft.type, JSON.stringify(draft.payload)] as const,
    );
    const ms = time(() => db.transaction(() => rows.forEach((row) => insert.run(...row)))());
    db.close();
    return (CHUNKS / ms) * 1000;
  });
}

/** Runs the ingest benchmark and prints its figures. */
export function ingestBenchmark(): void {
  console.log(`\ningest: ${CHUNKS} chunk events, median of ${ROUNDS} alternating rounds`);
  const batches = [1, 10, 50, 250];
  const samples = new Map<string, number[]>([['raw', []], ...batches.map((batch): [string, number[]] => [`b${batch}`, []])]);
  for (let round = 0; round < ROUNDS; round += 1) {
    samples.get('raw')!.push(raw());
    for (const batch of batches) {
      samples.get(`b${batch}`)!.push(throughStore(batch));
    }
  }
  const baseline = median(samples.get('raw')!);
  report('raw better-sqlite3, one transaction (baseline)', `${Math.round(baseline).toLocaleString('en')} events/s`);
  for (const batch of batches) {
    const rate = median(samples.get(`b${batch}`)!);
    report(
      `store append, ${batch} chunk${batch === 1 ? '' : 's'} per transaction`,
      `${Math.round(rate).toLocaleString('en')} events/s  ratio ${(rate / baseline).toFixed(2)}x`,
    );
  }
}
