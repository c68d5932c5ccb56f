/**
 * Search as the person types: one request once they pause (not one per key), the agent and the
 * days as the host takes them (a "to" day counts whole), the newest query's results kept over an
 * older one's that answered late, an empty box clears without asking, and a failure in the banner.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatonError } from '../../../app/errors.js';
import type { SearchHit } from '../../../app/ipc/index.js';
import { createBatonStore } from '../store.js';
import { testApi, type Answers } from '../testApi.js';

const hit = (conversationId: string): SearchHit => ({ conversationId }) as SearchHit;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function searchStore(answers: Answers) {
  const { api, calls } = testApi(answers);
  return { store: createBatonStore(api), calls };
}

describe('the search slice', () => {
  it('asks once the person pauses, with the agent and whole days', async () => {
    const { store, calls } = searchStore({ searchConversations: () => ({ results: [hit('c1')] }) });
    for (const text of ['f', 'fl', 'fla', 'flaky']) {
      store.getState().setSearch({ text });
    }
    store.getState().setSearch({ agentId: 'codex', from: '2026-12-01', to: '2026-12-02' });
    expect(store.getState().search.searching).toBe(true);
    await vi.advanceTimersByTimeAsync(200);
    expect(calls).toHaveLength(1);
    const params = calls[0]?.params as { text: string; agentId: string; from: string; to: string };
    expect(params).toMatchObject({ text: 'flaky', agentId: 'codex' });
    expect(new Date(params.to).getTime() - new Date(params.from).getTime()).toBe(2 * 24 * 60 * 60 * 1000);
    expect(store.getState().search).toMatchObject({ results: [hit('c1')], searching: false });
  });

  it('keeps the newest query, whatever answers last; an empty box asks nothing', async () => {
    const answers: Array<(results: SearchHit[]) => void> = [];
    const { store, calls } = searchStore({
      searchConversations: () => new Promise((resolve) => answers.push((results) => resolve({ results }))),
    });
    store.getState().setSearch({ text: 'old' });
    await vi.advanceTimersByTimeAsync(200);
    store.getState().setSearch({ text: 'new' });
    await vi.advanceTimersByTimeAsync(200);
    answers[1]?.([hit('new')]);
    answers[0]?.([hit('old')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().search.results).toEqual([hit('new')]);
    store.getState().setSearch({ text: '   ' });
    await vi.advanceTimersByTimeAsync(200);
    expect(calls).toHaveLength(2);
    expect(store.getState().search).toMatchObject({ results: [], searching: false });
  });

  it('a failure ends the search and is said in the banner; clearing forgets a query still asked', async () => {
    const { store } = searchStore({
      searchConversations: ({ text }) => {
        if (text === 'broken') {
          throw new BatonError('Internal', 'The search index is locked.');
        }
        return { results: [hit('late')] };
      },
    });
    store.getState().setSearch({ text: 'broken' });
    await vi.advanceTimersByTimeAsync(200);
    expect(store.getState().search.searching).toBe(false);
    expect(store.getState().error?.message).toBe('The search index is locked.');
    store.getState().setSearch({ text: 'late' });
    store.getState().clearSearch();
    await vi.advanceTimersByTimeAsync(200);
    expect(store.getState().search).toEqual({ text: '', agentId: '', from: '', to: '', results: [], searching: false });
  });
});
