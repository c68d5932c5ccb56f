import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../app/events/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { createBatonStore } from '../store.js';
import { testApi } from '../testApi.js';
import { emptyBuffered } from '../transcriptBuffer.js';
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
