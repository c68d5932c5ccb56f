/** The conversation list: paged per view, kept in order as summaries come, deletes with Undo, and errors said in the banner. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { createBatonStore } from '../store.js';
import { testApi } from '../testApi.js';
import { testSummary } from '../testSummary.js';
import { questionsWaiting, UNDO_MS } from './historySlice.js';

/** A summary last active at `updatedAt`. */
const summary = (conversationId: string, updatedAt: string, overrides: Partial<ConversationSummary> = {}): ConversationSummary =>
  testSummary(conversationId, { createdAt: updatedAt, updatedAt, ...overrides });

afterEach(() => {
  vi.useRealTimers();
});

describe('the history slice', () => {
  it("counts an attempt's open questions on the conversation that asked (the list's and the title's \"waiting for you\")", () => {
    const store = createBatonStore(testApi({}).api);
    const asking = summary('asking', '2026-12-03T10:00:00Z');
    store.getState().upsertSummary(asking);
    const attempt = (conversationId: string, pendingPermissions: number): ConversationSummary =>
      summary(conversationId, '2026-12-03T10:00:01Z', {
        lifecycle: 'attempt',
        attemptOf: { conversationId: 'asking', attemptsId: 's', attemptId: conversationId, fromSeq: 1 },
        pendingPermissions,
      });
    expect(questionsWaiting(asking, store.getState().attemptQuestions)).toBe(0);
    store.getState().upsertSummary(attempt('qwen', 1));
    store.getState().upsertSummary(attempt('claude', 1));
    expect(questionsWaiting(asking, store.getState().attemptQuestions)).toBe(2);
    // The attempts are not listed themselves.
    expect(store.getState().conversations.map((c) => c.conversationId)).toEqual(['asking']);
    store.getState().upsertSummary(attempt('qwen', 0));
    store.getState().upsertSummary(attempt('claude', 0));
    expect(questionsWaiting(asking, store.getState().attemptQuestions)).toBe(0);
  });

  it('reads a view, then the next page by its cursor, without repeating a conversation', async () => {
    const first = [summary('b', '2026-12-03T10:00:02Z'), summary('a', '2026-12-03T10:00:01Z')];
    const cursor = { updatedAt: '2026-12-03T10:00:01Z', conversationId: 'a' };
    const { api, calls } = testApi({
      listConversations: (params) =>
        params.before
          ? { conversations: [summary('a', '2026-12-03T10:00:01Z'), summary('z', '2026-12-03T09:00:00Z')], nextCursor: null }
          : { conversations: first, nextCursor: cursor },
    });
    const store = createBatonStore(api);
    await store.getState().setView('archived');
    expect(calls[0]).toEqual({ method: 'listConversations', params: { lifecycle: 'archived', limit: 200 } });
    expect(store.getState().conversations.map((c) => c.conversationId)).toEqual(['b', 'a']);
    await store.getState().loadMore();
    expect(calls[1]?.params).toMatchObject({ lifecycle: 'archived', before: cursor });
    expect(store.getState().conversations.map((c) => c.conversationId)).toEqual(['b', 'a', 'z']);
    expect(store.getState().nextCursor).toBeNull();
    // No cursor, no more reads.
    await store.getState().loadMore();
    expect(calls).toHaveLength(2);
  });

  it('keeps the list ordered by activity as summaries come, and drops one that left the view', () => {
    const store = createBatonStore(testApi({}).api);
    store.getState().upsertSummary(summary('a', '2026-12-03T10:00:01Z'));
    store.getState().upsertSummary(summary('b', '2026-12-03T10:00:02Z'));
    store.getState().upsertSummary(summary('a', '2026-12-03T10:00:03Z'));
    expect(store.getState().conversations.map((c) => c.conversationId)).toEqual(['a', 'b']);
    store.getState().upsertSummary(summary('b', '2026-12-03T10:00:04Z', { lifecycle: 'archived' }));
    expect(store.getState().conversations.map((c) => c.conversationId)).toEqual(['a']);
  });

  it('offers Undo for a while after a delete, and a restore takes it away', async () => {
    vi.useFakeTimers();
    const { api } = testApi({
      deleteConversation: ({ conversationId }) => ({
        conversation: summary(conversationId, 'now', { title: 'Plans', lifecycle: 'deleted' }),
      }),
      restoreConversation: ({ conversationId }) => ({ conversation: summary(conversationId, 'now') }),
    });
    const store = createBatonStore(api);
    await store.getState().remove('c1');
    expect(store.getState().undo).toEqual({ conversationId: 'c1', title: 'Plans' });
    vi.advanceTimersByTime(UNDO_MS + 1);
    expect(store.getState().undo).toBeNull();
    await store.getState().remove('c1');
    await store.getState().restore('c1');
    expect(store.getState().undo).toBeNull();
  });

  it('an erased conversation that was open leaves a new one in the pane', () => {
    const store = createBatonStore(testApi({}).api);
    store.setState({ conversations: [summary('c1', 'now')], selection: { kind: 'conversation', conversationId: 'c1' } });
    store.getState().removeSummary('c1');
    expect(store.getState().selection).toEqual({ kind: 'draft' });
    expect(store.getState().conversations).toEqual([]);
  });

  it('says in the banner what the host refused', async () => {
    const { api } = testApi({
      renameConversation: () => {
        throw Object.assign(new Error('The title is too long.'), { code: 'InvalidRequest' });
      },
    });
    const store = createBatonStore(api);
    await store.getState().rename('c1', 'x'.repeat(1000));
    expect(store.getState().error).toMatchObject({ code: 'InvalidRequest', message: 'The title is too long.' });
  });
});
