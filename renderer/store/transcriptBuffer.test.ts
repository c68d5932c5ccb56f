import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../app/events/index.js';
import { emptyContext } from '../../app/transcript/index.js';
import { applyEnvelopes, bufferedTail, emptyBuffered, readEarlierInSlices, readInSlices } from './transcriptBuffer.js';

const envelope = (seq: number, type: string, payload: unknown): Envelope => ({ conversationId: 'c', seq, at: 'now', v: 1, type, payload });
const history = [
  envelope(1, 'conversation.created', { title: '', agentId: 'a', agentName: 'A', cwd: '/' }),
  envelope(2, 'turn.started', { turnId: 't', agentId: 'a', agentName: 'A', text: 'hi' }),
  envelope(3, 'message.chunk', { turnId: 't', text: 'Hel' }),
  envelope(4, 'message.chunk', { turnId: 't', text: 'lo' }),
];

describe('applyEnvelopes', () => {
  it('gives the same state whatever order pushed and fetched events arrive in', () => {
    const inOrder = applyEnvelopes(emptyBuffered('c'), history);
    const pushedFirst = applyEnvelopes(applyEnvelopes(emptyBuffered('c'), [history[3]!]), history);
    expect(pushedFirst.state).toEqual(inOrder.state);
    expect(pushedFirst.waiting.size).toBe(0);
  });

  it('holds events after a gap until the gap is filled', () => {
    const early = applyEnvelopes(emptyBuffered('c'), [history[0]!, history[2]!]);
    expect(early.state.lastSeq).toBe(1);
    expect(early.waiting.size).toBe(1);
    const filled = applyEnvelopes(early, [history[1]!]);
    expect(filled.state.lastSeq).toBe(3);
  });

  it('moves past an event it cannot read instead of stalling', () => {
    const state = applyEnvelopes(emptyBuffered('c'), [
      history[0]!,
      envelope(2, 'notice', { severity: 'loud' }),
      envelope(3, 'notice', { severity: 'info', text: 'after' }),
    ]).state;
    expect(state.lastSeq).toBe(3);
    expect(state.items.at(-1)).toMatchObject({ kind: 'notice', text: 'after' });
  });

  it('returns the same object when nothing is new', () => {
    const once = applyEnvelopes(emptyBuffered('c'), history);
    expect(applyEnvelopes(once, history)).toBe(once);
  });
});

/** A thread of `turns` turns (a question, a reply, the end), from its creation. */
function longThread(turns: number): Envelope[] {
  const long: Envelope[] = [
    {
      conversationId: 'c1',
      seq: 1,
      at: '2026-01-01T00:00:00Z',
      v: 1,
      type: 'conversation.created',
      payload: { title: '', agentId: 'a', agentName: 'A', cwd: '/' },
    },
  ];
  for (let turn = 0; turn < turns; turn += 1) {
    const at = '2026-01-01T00:00:01Z';
    long.push({
      conversationId: 'c1',
      seq: long.length + 1,
      at,
      v: 1,
      type: 'turn.started',
      payload: { turnId: `t${turn}`, agentId: 'a', agentName: 'A', text: `q${turn}` },
    });
    long.push({
      conversationId: 'c1',
      seq: long.length + 1,
      at,
      v: 1,
      type: 'message.chunk',
      payload: { turnId: `t${turn}`, text: `r${turn}` },
    });
    long.push({
      conversationId: 'c1',
      seq: long.length + 1,
      at,
      v: 1,
      type: 'turn.ended',
      payload: { turnId: `t${turn}`, outcome: 'completed' },
    });
  }
  return long;
}

describe('readInSlices', () => {
  it('folds a long read in slices, pausing between them, to the same state as one fold', async () => {
    const long = longThread(1500);
    let pauses = 0;
    const pause = (): Promise<void> => {
      pauses += 1;
      return Promise.resolve();
    };
    const sliced = await readInSlices(bufferedTail(emptyContext('c1'), 1, []), [long], pause, 0);
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(long.length / 50) - 1);
    expect(sliced).toEqual(bufferedTail(emptyContext('c1'), 1, long));
    expect(sliced.state.items).toHaveLength(3000);

    // Read in pages (as a long "Show earlier" comes), pages out of order included, the result is the same.
    async function* pages(): AsyncGenerator<readonly Envelope[]> {
      // Each page arrives in a later task, as answers from the host do.
      await Promise.resolve();
      yield long.slice(0, 1000);
      yield long.slice(2000);
      yield long.slice(1000, 2000);
    }
    const paged = await readInSlices(bufferedTail(emptyContext('c1'), 1, []), pages(), pause, 0);
    expect(paged).toEqual(sliced);
    // What is already folded is not folded again; an event past a gap waits.
    const after = await readInSlices(paged, [[...long.slice(-3), { ...long[0]!, seq: long.length + 2 }]]);
    expect(after.state).toEqual(paged.state);
    expect([...after.waiting.keys()]).toEqual([long.length + 2]);
  });

  it('gives the window its turn before putting the state together once a slice is used, so the render is not in the same frame', async () => {
    const short = longThread(5);
    const seen: string[] = [];
    const pause = (): Promise<void> => {
      seen.push('pause');
      return Promise.resolve();
    };
    // A slice of no time at all is used up by the first event: the state waits for a pause.
    const read = await readInSlices(bufferedTail(emptyContext('c1'), 1, []), [short], pause, -1);
    expect(seen).toEqual(['pause']);
    expect(read).toEqual(bufferedTail(emptyContext('c1'), 1, short));
    // A slice hardly begun is put together at once.
    seen.length = 0;
    await readInSlices(bufferedTail(emptyContext('c1'), 1, []), [short], pause, 60_000);
    expect(seen).toEqual([]);
  });
});

describe('readEarlierInSlices', () => {
  it('folds the earlier pages, then what was read already, to the state of one read from the earlier start', async () => {
    const long = longThread(1500);
    const context = emptyContext('c1');
    // Read from turn 1000 on (seq 3002), then earlier from turn 500 on (seq 1502).
    const later = await readInSlices(bufferedTail(context, 3002, []), [long.slice(3001)]);
    const asked: Envelope[][] = [long.slice(1501, 2500), long.slice(2500, 3500)];
    const earlier = await readEarlierInSlices(context, 1502, asked, later, () => Promise.resolve(), 0);
    expect(earlier).toEqual(bufferedTail(context, 1502, long.slice(1501)));
    expect(earlier.state.items[0]).toMatchObject({ kind: 'user', text: 'q500' });
    // A read that came back short says which events are missing.
    await expect(readEarlierInSlices(context, 1502, [long.slice(1501, 2000)], later)).rejects.toThrow('events 2001 to 3001 are missing');
  });
});
