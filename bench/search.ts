/**
 * search: a two-word query over 1,000,000 events (5,000 conversations of 40 turns), through the
 * store's search (joins, filters out deleted conversations, snippets) against a bare FTS5 MATCH
 * on the same index.
 */
import type Database from 'better-sqlite3';
import { EventStore } from '../main/host/store/EventStore.js';
import { median, random, report, settle, syntheticEnvelopes, time, withTempDir } from './util.js';

const CONVERSATIONS = 5_000;
const TURNS = 40;
const VOCABULARY = Array.from({ length: 2_000 }, (_, index) => `word${index.toString(36)}`);
const QUERIES = 30;

/** Runs the search benchmark and prints its figures. */
export function searchBenchmark(): void {
  withTempDir('search', (dir) => {
    const next = random(42);
    const pick = (): string => VOCABULARY[Math.floor(next() * VOCABULARY.length)]!;
    // Two common words (each in about 30% of replies) for a broad query, besides the rare vocabulary.
    const sentence = (words: number): string =>
      [...Array.from({ length: words }, pick), ...(next() < 0.3 ? ['alpha'] : []), ...(next() < 0.3 ? ['omega'] : [])].join(' ');
    const store = new EventStore(dir);
    let events = 0;
    const seeded = time(() => {
      for (let index = 0; index < CONVERSATIONS; index += 1) {
        const envelopes = syntheticEnvelopes(
          TURNS,
          (_turn, role) => sentence(role === 'user' ? 8 : 20),
          Date.UTC(2025, 0, 1) + index * 60_000,
        );
        events += envelopes.length;
        store.importEnvelopes(`c${index}`, envelopes);
      }
    });
    console.log(
      `\nsearch: ${events.toLocaleString('en')} events in ${CONVERSATIONS} conversations (seeded in ${(seeded / 1000).toFixed(1)} s), median of ${QUERIES} two-word queries`,
    );
    settle();
    const db = (store as unknown as { db: Database.Database }).db;
    const bare = db.prepare<[string], { rowid: number }>('SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT 50');
    const ours: number[] = [];
    const baseline: number[] = [];
    let hits = 0;
    for (let query = 0; query < QUERIES; query += 1) {
      const words = `${pick()} ${pick()}`;
      baseline.push(
        time(() =>
          bare.all(
            words
              .split(' ')
              .map((word) => `"${word}"`)
              .join(' '),
          ),
        ),
      );
      ours.push(
        time(() => {
          hits += store.search({ text: words }).length;
        }),
      );
    }
    const broadBaseline: number[] = [];
    const broad: number[] = [];
    const matches =
      db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM search WHERE search MATCH ?').get('"alpha" "omega"')?.n ?? 0;
    for (let query = 0; query < 5; query += 1) {
      broadBaseline.push(time(() => bare.all('"alpha" "omega"')));
      broad.push(time(() => store.search({ text: 'alpha omega' })));
    }
    store.close();
    const base = median(baseline);
    const mine = median(ours);
    report('rare words: bare FTS5 MATCH ... ORDER BY rank LIMIT 50 (baseline)', `${base.toFixed(2)} ms`);
    report(
      'rare words: store search (joins, deleted filtered, snippets)',
      `${mine.toFixed(2)} ms  ratio ${(mine / base).toFixed(2)}x  (${(hits / QUERIES).toFixed(1)} hits a query)`,
    );
    const broadBase = median(broadBaseline);
    const broadMine = median(broad);
    report(`common words (${matches.toLocaleString('en')} matches): bare FTS5 (baseline)`, `${broadBase.toFixed(2)} ms`);
    report('common words: store search', `${broadMine.toFixed(2)} ms  ratio ${(broadMine / broadBase).toFixed(2)}x`);
  });
}
