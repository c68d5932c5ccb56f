import { describe, expect, it } from 'vitest';
import type { EventDraft, TranscriptEvent } from '../events/index.js';
import { toMarkdown } from './exportFormats.js';
import { reduce, reduceAll } from './reduce.js';
import { canUndoRewind, isSetAside, sessionForkPoint } from './rewinds.js';
import { emptyTranscript } from './state.js';
import { summarizeAll } from './summary.js';

function events(drafts: EventDraft[], conversationId = 'c1'): TranscriptEvent[] {
  return drafts.map((draft, index) => ({
    conversationId,
    seq: index + 1,
    at: `2026-01-01T00:00:${String(index).padStart(2, '0')}Z`,
    v: 1,
    ...draft,
  }));
}

const created: EventDraft = {
  type: 'conversation.created',
  payload: { title: 'Files', agentId: 'claude', agentName: 'Claude', cwd: '/w' },
};
const turn = (turnId: string, text: string): EventDraft[] => [
  { type: 'turn.started', payload: { turnId, agentId: 'claude', agentName: 'Claude', text } },
  { type: 'message.chunk', payload: { turnId, text: `reply to ${text}` } },
  { type: 'turn.ended', payload: { turnId, outcome: 'completed', stopReason: 'end_turn' } },
];
const bound: EventDraft = { type: 'session.bound', payload: { agentId: 'claude', sessionId: 's1', how: 'new' } };
// seq: 1 created, 2 bound, 3-5 t1, 6-8 t2, 9-11 t3, 12 rewound (to t2, whose start is seq 6)
const rewound: EventDraft = {
  type: 'conversation.rewound',
  payload: {
    rewindId: 'r1',
    toTurnId: 't2',
    pointSeq: 6,
    pointAt: '2026-01-01T00:00:05Z',
    setAside: ['t2', 't3'],
    files: 'restored',
    checkpointId: 'k',
    changed: [{ path: 'a.txt', action: 'recreated' }],
    failed: [],
  },
};
const threeTurns = [created, bound, ...turn('t1', 'one'), ...turn('t2', 'two'), ...turn('t3', 'three')];

describe('rewinds in the transcript', () => {
  it('sets the later turns aside (kept, with a marker) and drops the agent session that saw them', () => {
    const before = reduceAll(emptyTranscript('c1'), events(threeTurns));
    expect(before.sessions.claude?.watermark).toBe(11);
    const state = reduceAll(emptyTranscript('c1'), events([...threeTurns, rewound]));
    expect(state.setAside).toEqual({ t2: 'r1', t3: 'r1' });
    expect(state.items.filter((item) => item.kind === 'user')).toHaveLength(3);
    expect(state.items.filter((item) => !isSetAside(state, item)).map((item) => item.kind)).toEqual(['user', 'agent', 'rewind']);
    const marker = state.items.at(-1);
    expect(marker).toMatchObject({ kind: 'rewind', rewindId: 'r1', pointAt: '2026-01-01T00:00:05Z', files: 'restored' });
    expect(marker?.kind === 'rewind' && canUndoRewind(state, marker)).toBe(true);
    // Claude's session took part in turns past the point: it is not reopened.
    expect(state.sessions).toEqual({});
    expect(state.session).toBeNull();
  });

  it('keeps a session that saw nothing past the point', () => {
    const earlier = [created, ...turn('t1', 'one'), bound, ...turn('t2', 'two')];
    // t2's start is seq 5; the session was bound at 5 and took part in t2 (ends at 8): dropped. Rewinding to t3 keeps it.
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        ...earlier,
        ...turn('t3', 'three'),
        { ...rewound, payload: { ...rewound.payload, toTurnId: 't3', pointSeq: 9, setAside: ['t3'] } },
      ]),
    );
    expect(Object.keys(state.sessions)).toEqual([]);
    const kept = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        bound,
        ...turn('t1', 'one'),
        { type: 'session.bound', payload: { agentId: 'gemini', sessionId: 'g', how: 'new' } },
        { ...rewound, payload: { ...rewound.payload, toTurnId: 't1', pointSeq: 3, setAside: ['t1'] } },
      ]),
    );
    expect(Object.keys(kept.sessions)).toEqual(['gemini']);
  });

  it('"Undo rewind" puts back the sessions that saw the turns it brings back; only the latest rewind\'s', () => {
    const undone = (rewindId: string): EventDraft => ({ type: 'conversation.rewindUndone', payload: { rewindId, failed: [] } });
    const state = reduceAll(emptyTranscript('c1'), events([...threeTurns, rewound, undone('r1')]));
    expect(state.sessions.claude).toMatchObject({ sessionId: 's1', watermark: 11 });
    expect(state.session).toMatchObject({ sessionId: 's1' });
    expect(state.rewoundFrom).toEqual({});
    // A later rewind still stands: undoing the earlier one brings back no session (none saw both).
    const second: EventDraft = {
      ...rewound,
      payload: { ...rewound.payload, rewindId: 'r2', toTurnId: 't1', pointSeq: 3, setAside: ['t1'] },
    };
    const nested = reduceAll(emptyTranscript('c1'), events([...threeTurns, rewound, second, undone('r1')]));
    expect(nested.sessions).toEqual({});
    expect(nested.session).toBeNull();
    expect(nested.rewoundFrom).toEqual({});
  });

  it('"Undo rewind" brings the turns back and says so; it cannot be undone twice', () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([...threeTurns, rewound, { type: 'conversation.rewindUndone', payload: { rewindId: 'r1', failed: [] } }]),
    );
    expect(state.setAside).toEqual({});
    expect(state.items.filter((item) => item.kind === 'user')).toHaveLength(3);
    const marker = state.items.find((item) => item.kind === 'rewind');
    expect(marker?.kind === 'rewind' && canUndoRewind(state, marker)).toBe(false);
    expect(state.items.at(-1)).toMatchObject({ kind: 'notice', severity: 'info', text: expect.stringContaining('Rewind undone') });
  });

  it('one event at a time folds the same as a whole fold', () => {
    const all = events([
      ...threeTurns,
      rewound,
      ...turn('t4', 'four'),
      {
        type: 'conversation.rewindUndone',
        payload: { rewindId: 'r1', failed: [{ path: 'a.txt', reason: 'changed since the rewind; left as it is' }] },
      },
    ]);
    expect(all.reduce(reduce, emptyTranscript('c1'))).toEqual(reduceAll(emptyTranscript('c1'), all));
  });

  it('the Markdown export shows the marker with what it set aside folded under it; a branch says where it came from', () => {
    const all = events([...threeTurns, rewound]);
    const summary = summarizeAll(undefined, [
      ...all,
      ...events([{ type: 'conversation.branched', payload: { fromConversationId: 'c0', fromTitle: 'Original', fromTurnId: 'tx' } }]).map(
        (event) => ({ ...event, seq: 13 }),
      ),
    ])!;
    expect(summary.branchedFrom).toEqual({ conversationId: 'c0', title: 'Original' });
    const markdown = toMarkdown(summary, all);
    expect(markdown).toContain('_Branched from Original_');
    expect(markdown).toMatch(/Rewound to 2026-01-01T00:00:05Z: 2 turns set aside\. Files: 1 recreated\./);
    const folded = markdown.slice(markdown.indexOf('<details><summary>Set aside by this rewind'));
    expect(folded).toContain('two');
    expect(folded).toContain('three');
    expect(markdown.slice(0, markdown.indexOf('Rewound to'))).not.toContain('reply to two');
  });

  describe('where the agent session can be forked after a rewind', () => {
    /** Turn t2 with chunks carrying the agent's message ids; `extra` after its message. */
    const withIds = (turnId: string, extra: EventDraft[] = []): EventDraft[] => [
      { type: 'turn.started', payload: { turnId, agentId: 'claude', agentName: 'Claude', text: turnId } },
      { type: 'message.chunk', payload: { turnId, messageId: `msg_${turnId}`, text: 'reply' } },
      ...extra,
      { type: 'turn.ended', payload: { turnId, outcome: 'completed', stopReason: 'end_turn' } },
    ];
    // seq: 1 created, 2 bound, 3-5 t1, 6-8 t2 (retried: its start is seq 6)
    const two = [created, bound, ...withIds('t1'), ...withIds('t2')];
    const pointOf = (drafts: EventDraft[], pointSeq = 6) => {
      const all = events(drafts);
      return sessionForkPoint(all, reduceAll(emptyTranscript('c1'), all), pointSeq);
    };

    it("is the last kept turn's closing message, in the session that ran it", () => {
      expect(pointOf(two)).toEqual({ agentId: 'claude', sessionId: 's1', messageId: 'msg_t1', watermark: 5 });
    });

    it('the context keeps that session, to be forked there, with the watermark of the point', () => {
      const all = events([
        ...two,
        {
          type: 'conversation.rewound',
          payload: {
            rewindId: 'r1',
            toTurnId: 't2',
            pointSeq: 6,
            pointAt: 'x',
            setAside: ['t2'],
            files: 'kept',
            changed: [],
            failed: [],
            fork: pointOf(two),
          },
        },
      ]);
      const state = reduceAll(emptyTranscript('c1'), all);
      expect(state.sessions.claude).toMatchObject({ sessionId: 's1', watermark: 5, forkAt: 'msg_t1' });
      // The fork, once bound, saw what the session saw up to the point; it is reopened as itself later.
      const forked = reduceAll(
        state,
        events([{ type: 'session.bound', payload: { agentId: 'claude', sessionId: 's2', how: 'fork' } }]).map((event) => ({
          ...event,
          seq: 10,
        })),
      );
      expect(forked.sessions.claude).toEqual({ sessionId: 's2', how: 'fork', watermark: 5 });
    });

    it('is none when a tool call came after the message, the turn did not complete, another session ran it, or nothing before the point', () => {
      const tool: EventDraft = {
        type: 'tool.call',
        payload: { turnId: 't1', toolCallId: 'k1', title: 'Read', kind: 'read', status: 'completed' },
      };
      expect(pointOf([created, bound, ...withIds('t1', [tool]), ...withIds('t2')])).toBeUndefined();
      const failed = withIds('t1').map((draft) =>
        draft.type === 'turn.ended' ? { ...draft, payload: { ...draft.payload, outcome: 'failed' as const } } : draft,
      );
      expect(pointOf([created, bound, ...failed, ...withIds('t2')])).toBeUndefined();
      const rebound: EventDraft = { type: 'session.bound', payload: { agentId: 'claude', sessionId: 's9', how: 'new' } };
      // t1 ran in s1; the conversation's Claude session is now s9 (bound in t2).
      expect(pointOf([created, bound, ...withIds('t1'), rebound, ...withIds('t2')], 7)).toBeUndefined();
      expect(pointOf(two, 3)).toBeUndefined();
    });
  });
});
