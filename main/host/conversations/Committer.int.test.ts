/**
 * The Committer over a real SQLite store: streamed chunks arriving together are one commit (one
 * push), anything else flushes what waits first so order is kept, nothing is pushed before it is
 * stored, and a known secret never reaches the store in text the person did not type.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import { EventStore } from '../store/EventStore.js';
import { Committer } from './Committer.js';

describe('the Committer', () => {
  let store: EventStore;
  let pushed: PushEvent[];
  let committer: Committer;
  let failures: unknown[];

  beforeEach(() => {
    store = new EventStore(tempDir('committer'));
    pushed = [];
    failures = [];
    committer = new Committer(
      store,
      (event) => {
        // Nothing is pushed before it is in the store.
        if (event.name === 'transcript') {
          for (const envelope of event.payload.events) {
            expect(store.readEvents(envelope.conversationId).events.some((stored) => stored.seq === envelope.seq)).toBe(true);
          }
        }
        pushed.push(event);
      },
      () => ['sk-secret-123456'],
    );
    committer.onBatchFailure((_conversationId, error) => failures.push(error));
    committer.commit(
      'c1',
      [{ type: 'conversation.created', payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/w' } }],
      0,
    );
    committer.commit('c1', [
      { type: 'turn.started', payload: { turnId: 't1', agentId: 'claude', agentName: 'Claude', text: 'my key is sk-secret-123456' } },
    ]);
    pushed = [];
  });
  afterEach(() => {
    store.close();
  });

  const transcriptPushes = (): number[][] =>
    pushed.flatMap((event) => (event.name === 'transcript' ? [event.payload.events.map((envelope) => envelope.seq)] : []));

  it('groups chunks that arrive together into one commit and one push', async () => {
    for (const text of ['one ', 'two ', 'three']) {
      committer.submit('c1', [{ type: 'message.chunk', payload: { turnId: 't1', text } }]);
    }
    expect(store.readEvents('c1').events).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(transcriptPushes()).toEqual([[3, 4, 5]]);
    expect(failures).toEqual([]);
  });

  it('another event flushes the waiting chunks first, in order', () => {
    committer.submit('c1', [{ type: 'message.chunk', payload: { turnId: 't1', text: 'partial' } }]);
    committer.submit('c1', [{ type: 'turn.ended', payload: { turnId: 't1', outcome: 'completed', stopReason: 'end_turn' } }]);
    expect(
      store
        .readEvents('c1')
        .events.map((event) => event.type)
        .slice(2),
    ).toEqual(['message.chunk', 'turn.ended']);
    expect(transcriptPushes()).toEqual([[3, 4]]);
  });

  it('takes a known secret out of what the agent wrote, never out of what the person typed', () => {
    committer.commit('c1', [{ type: 'message.chunk', payload: { turnId: 't1', text: 'I saw sk-secret-123456 in your env' } }]);
    const events = store.readEvents('c1').events;
    const typed = events.find((event) => event.type === 'turn.started');
    const written = events.find((event) => event.type === 'message.chunk');
    expect(typed?.type === 'turn.started' ? typed.payload.text : '').toContain('sk-secret-123456');
    expect(written?.type === 'message.chunk' ? written.payload.text : '').not.toContain('sk-secret-123456');
  });

  it('a grouped commit that fails reaches who listens for it; with no one listening, the windows are told', async () => {
    const appendFailure = new Error('disk full');
    const original = store.append.bind(store);
    store.append = () => {
      throw appendFailure;
    };
    committer.submit('c1', [{ type: 'message.chunk', payload: { turnId: 't1', text: 'lost' } }]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(failures).toEqual([appendFailure]);
    const unheard = new Committer(store, (event) => pushed.push(event));
    unheard.submit('c1', [{ type: 'message.chunk', payload: { turnId: 't1', text: 'lost too' } }]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    store.append = original;
    expect(pushed.filter((event) => event.name === 'hostError')).toEqual([
      { name: 'hostError', payload: { conversationId: 'c1', error: expect.objectContaining({ message: 'disk full' }) } },
    ]);
  });
});
