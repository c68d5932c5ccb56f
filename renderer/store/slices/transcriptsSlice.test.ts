import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../app/events/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { createBatonStore } from '../store.js';
import { testApi } from '../testApi.js';
import { emptyContext } from '../../../app/transcript/context.js';
import { bufferedTail, emptyBuffered } from '../transcriptBuffer.js';
import { testSummary } from '../testSummary.js';

const envelope = (seq: number, type: string, payload: unknown): Envelope => ({
  conversationId: 'c',
  seq,
  at: '2026-01-01T00:00:00.000Z',
  v: 1,
  type,
  payload,
});
const nextFrame = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 40));

/** A store with conversation "c" open (its transcript read, empty). */
function openStore() {
  const store = createBatonStore(testApi({}).api);
  store.setState({ selection: { kind: 'conversation', conversationId: 'c' }, transcripts: { c: emptyBuffered('c') } });
  return store;
}

describe('pushed events', () => {
  it('are applied together once per frame, however many arrive', async () => {
    const store = openStore();
    let transcriptUpdates = 0;
    store.subscribe((state, previous) => {
      if (state.transcripts !== previous.transcripts) {
        transcriptUpdates += 1;
      }
    });
    store.getState().receiveEnvelopes([envelope(1, 'conversation.created', { title: '', agentId: 'a', agentName: 'A', cwd: '/w' })]);
    store.getState().receiveEnvelopes([envelope(2, 'turn.started', { turnId: 't', agentId: 'a', agentName: 'A', text: 'hi' })]);
    for (let seq = 3; seq < 203; seq += 1) {
      store.getState().receiveEnvelopes([envelope(seq, 'message.chunk', { turnId: 't', text: 'x' })]);
    }
    expect(transcriptUpdates).toBe(0);
    await nextFrame();
    expect(transcriptUpdates).toBe(1);
    const state = store.getState().transcripts.c!.state;
    expect(state.lastSeq).toBe(202);
    expect(state.items.find((item) => item.kind === 'agent')).toMatchObject({ text: 'x'.repeat(200) });
  });

  it('are not kept for a conversation this window has not open', async () => {
    const store = openStore();
    store
      .getState()
      .receiveEnvelopes([
        { ...envelope(1, 'conversation.created', { title: '', agentId: 'a', agentName: 'A', cwd: '/w' }), conversationId: 'other' },
      ]);
    await nextFrame();
    expect(store.getState().transcripts.other).toBeUndefined();
  });

  it('apply only the newest summary of a conversation in a frame, and none after it was erased', async () => {
    const store = openStore();
    const summary = (title: string, conversationId = 'c'): ConversationSummary =>
      testSummary(conversationId, { title, agentId: 'a', agentName: 'A', agents: [{ agentId: 'a', agentName: 'A' }], turnCount: 0 });
    store.getState().receiveSummary(summary('gone', 'd'));
    store.getState().receiveRemoval('d');
    let listUpdates = 0;
    store.subscribe((state, previous) => {
      if (state.conversations !== previous.conversations) {
        listUpdates += 1;
      }
    });
    store.getState().receiveSummary(summary('first'));
    store.getState().receiveSummary(summary('second'));
    await nextFrame();
    expect(store.getState().conversations.map((entry) => [entry.conversationId, entry.title])).toEqual([['c', 'second']]);
    expect(listUpdates).toBe(1);
  });
});

describe('reading earlier turns', () => {
  /** A thread of 2,000 turns (seq 1 its creation; turn t from seq 2 + 3t: asked, answered, ended), answered like the host. */
  function longConversation() {
    const all: Envelope[] = [envelope(1, 'conversation.created', { title: 'Long', agentId: 'a', agentName: 'A', cwd: '/w' })];
    for (let turn = 0; turn < 2000; turn += 1) {
      const turnId = `t${turn}`;
      all.push(envelope(all.length + 1, 'turn.started', { turnId, agentId: 'a', agentName: 'A', text: `q${turn}` }));
      all.push(envelope(all.length + 1, 'message.chunk', { turnId, text: `r${turn}` }));
      all.push(envelope(all.length + 1, 'turn.ended', { turnId, outcome: 'completed' }));
    }
    const page = (fromSeq: number, limit: number) => {
      const events = all.filter((event) => event.seq >= fromSeq).slice(0, limit);
      const next = fromSeq + events.length;
      return { events, nextSeq: next <= all.length ? next : null };
    };
    const { api, calls } = testApi({
      openConversation: ({ turns = 50, aroundSeq, maxEvents = 1_500 }) => {
        const fromEnd = Math.min(turns, 2000);
        let firstSeq = turns >= 2000 ? 1 : 2 + 3 * (2000 - fromEnd);
        if (aroundSeq !== undefined) {
          firstSeq = Math.min(firstSeq, aroundSeq);
        }
        return { conversation: testSummary('c'), firstSeq, ...page(firstSeq, maxEvents), context: emptyContext('c') };
      },
      readConversationEvents: ({ fromSeq, limit }) => page(fromSeq, limit),
      getImportReview: () => ({ review: null }),
    });
    return { api, calls, all };
  }

  it('reads only the events before those already read, and folds them to the state of one read from the start', async () => {
    const { api, calls, all } = longConversation();
    const store = createBatonStore(api);
    await store.getState().select('c');
    expect(store.getState().transcripts.c!.firstSeq).toBe(2 + 3 * 1950);
    calls.length = 0;
    await store.getState().showEarlier();
    // Twice as many turns: the 100 last, from turn 1900.
    expect(store.getState().transcripts.c!.state.items[0]).toMatchObject({ kind: 'user', text: 'q1900' });
    calls.length = 0;
    await store.getState().showEarlier({ all: true });
    // From the start: one answer of 500 events, then the next pages of 500, only up to the events already read (5,702 on).
    expect(calls.map((call) => call.method)).toEqual(['openConversation', ...Array<string>(11).fill('readConversationEvents')]);
    expect(calls.slice(1).map((call) => call.params)).toEqual(
      Array.from({ length: 11 }, (_, index) => ({
        conversationId: 'c',
        fromSeq: 501 + 500 * index,
        limit: index < 10 ? 500 : 5_702 - 5_501,
      })),
    );
    const read = store.getState().transcripts.c!;
    expect(read.firstSeq).toBe(1);
    expect(read.state).toEqual(bufferedTail(emptyContext('c'), 1, all).state);
    // Nothing earlier now: asking again reads nothing.
    calls.length = 0;
    await store.getState().showEarlier();
    expect(calls).toEqual([]);
  });

  it('asked for every turn while a read of some is under way, reads them all right after it', async () => {
    const { api } = longConversation();
    const store = createBatonStore(api);
    await store.getState().select('c');
    const some = store.getState().showEarlier();
    const all = store.getState().showEarlier({ all: true });
    await all;
    expect(store.getState().transcripts.c!.firstSeq).toBe(1);
    await some;
  });
});
