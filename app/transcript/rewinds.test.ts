import { describe, expect, it } from 'vitest';
import type { EventDraft, TranscriptEvent } from '../events/index.js';
import { toMarkdown } from './exportFormats.js';
import { reduce, reduceAll } from './reduce.js';
import { canUndoRewind, isSetAside } from './rewinds.js';
import { emptyTranscript } from './state.js';
import { summarizeAll } from './summary.js';

function events(drafts: EventDraft[], conversationId = 'c1'): TranscriptEvent[] {
  return drafts.map((draft, index) => ({ conversationId, seq: index + 1, at: `2026-01-01T00:00:${String(index).padStart(2, '0')}Z`, v: 1, ...draft }));
}

const created: EventDraft = { type: 'conversation.created', payload: { title: 'Files', agentId: 'claude', agentName: 'Claude', cwd: '/w' } };
const turn = (turnId: string, text: string): EventDraft[] => [
  { type: 'turn.started', payload: { turnId, agentId: 'claude', agentName: 'Claude', text } },
  { type: 'message.chunk', payload: { turnId, text: `reply to ${text}` } },
  { type: 'turn.ended', payload: { turnId, outcome: 'completed', stopReason: 'end_turn' } },
];
const bound: EventDraft = { type: 'session.bound', payload: { agentId: 'claude', sessionId: 's1', how: 'new' } };
// seq: 1 created, 2 bound, 3-5 t1, 6-8 t2, 9-11 t3, 12 rewound (to t2, whose start is seq 6)
const rewound: EventDraft = { type: 'conversation.rewound', payload: { rewindId: 'r1', toTurnId: 't2', pointSeq: 6, pointAt: '2026-01-01T00:00:05Z', setAside: ['t2', 't3'], files: 'restored', checkpointId: 'k', changed: [{ path: 'a.txt', action: 'recreated' }], failed: [] } };
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
    const state = reduceAll(emptyTranscript('c1'), events([...earlier, ...turn('t3', 'three'), { ...rewound, payload: { ...rewound.payload, toTurnId: 't3', pointSeq: 9, setAside: ['t3'] } }]));
    expect(Object.keys(state.sessions)).toEqual([]);
    const kept = reduceAll(emptyTranscript('c1'), events([created, bound, ...turn('t1', 'one'), { type: 'session.bound', payload: { agentId: 'gemini', sessionId: 'g', how: 'new' } }, { ...rewound, payload: { ...rewound.payload, toTurnId: 't1', pointSeq: 3, setAside: ['t1'] } }]));
    expect(Object.keys(kept.sessions)).toEqual(['gemini']);
  });

  it('"Undo rewind" brings the turns back and says so; it cannot be undone twice', () => {
    const state = reduceAll(emptyTranscript('c1'), events([...threeTurns, rewound, { type: 'conversation.rewindUndone', payload: { rewindId: 'r1', failed: [] } }]));
    expect(state.setAside).toEqual({});
    expect(state.items.filter((item) => item.kind === 'user')).toHaveLength(3);
    const marker = state.items.find((item) => item.kind === 'rewind');
    expect(marker?.kind === 'rewind' && canUndoRewind(state, marker)).toBe(false);
    expect(state.items.at(-1)).toMatchObject({ kind: 'notice', severity: 'info', text: expect.stringContaining('Rewind undone') });
  });

  it('one event at a time folds the same as a whole fold', () => {
    const all = events([...threeTurns, rewound, ...turn('t4', 'four'), { type: 'conversation.rewindUndone', payload: { rewindId: 'r1', failed: [{ path: 'a.txt', reason: 'changed since the rewind; left as it is' }] } }]);
    expect(all.reduce(reduce, emptyTranscript('c1'))).toEqual(reduceAll(emptyTranscript('c1'), all));
  });

  it('the Markdown export shows the marker with what it set aside folded under it; a branch says where it came from', () => {
    const all = events([...threeTurns, rewound]);
    const summary = summarizeAll(undefined, [...all, ...events([{ type: 'conversation.branched', payload: { fromConversationId: 'c0', fromTitle: 'Original', fromTurnId: 'tx' } }]).map((event) => ({ ...event, seq: 13 }))])!;
    expect(summary.branchedFrom).toEqual({ conversationId: 'c0', title: 'Original' });
    const markdown = toMarkdown(summary, all);
    expect(markdown).toContain('_Branched from Original_');
    expect(markdown).toMatch(/Rewound to 2026-01-01T00:00:05Z: 2 turns set aside\. Files: 1 recreated\./);
    const folded = markdown.slice(markdown.indexOf('<details><summary>Set aside by this rewind'));
    expect(folded).toContain('two');
    expect(folded).toContain('three');
    expect(markdown.slice(0, markdown.indexOf('Rewound to'))).not.toContain('reply to two');
  });
});
