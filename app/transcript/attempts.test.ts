import { describe, expect, it } from 'vitest';
import type { EventDraft, TranscriptEvent } from '../events/index.js';
import { branchPart, openAttempts } from './attempts.js';
import { reduce, reduceAll } from './reduce.js';
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

const created: EventDraft = { type: 'conversation.created', payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/w' } };
const asked: EventDraft = {
  type: 'attempts.started',
  payload: {
    attemptsId: 'a1',
    text: 'Fix it',
    attempts: [
      { attemptId: 'x', agentId: 'claude', agentName: 'Claude', conversationId: 'cx', folder: '/data/attempts/a1/claude', kind: 'copy' },
      { attemptId: 'y', agentId: 'codex', agentName: 'Codex', conversationId: 'cy', folder: '/data/attempts/a1/codex', kind: 'copy' },
    ],
  },
};
const turn = (turnId: string): EventDraft[] => [
  { type: 'turn.started', payload: { turnId, agentId: 'claude', agentName: 'Claude', text: 'compare' } },
  { type: 'turn.ended', payload: { turnId, outcome: 'completed' } },
];

describe('attempts in the transcript', () => {
  it('folds each attempt from preparing to prepared or failed, then the one kept and the copies removed', () => {
    const log = events([
      created,
      asked,
      { type: 'attempt.prepared', payload: { attemptsId: 'a1', attemptId: 'x', checkpointId: 'k', fromSeq: 4 } },
      { type: 'attempt.failed', payload: { attemptsId: 'a1', attemptId: 'y', reason: 'no copy' } },
      // A turn of the conversation meanwhile (asking an agent to compare): the attempts' item is settled by it.
      ...turn('t1'),
      {
        type: 'attempt.kept',
        payload: { attemptsId: 'a1', attemptId: 'x', applied: [{ path: 'a.txt', change: 'modified' }], left: [], failed: [] },
      },
      { type: 'attempts.removed', payload: { attemptsId: 'a1', failed: [] } },
    ]);
    const whole = reduceAll(emptyTranscript('c1'), log);
    const oneByOne = log.reduce(reduce, emptyTranscript('c1'));
    for (const state of [whole, oneByOne]) {
      const item = state.items.find((entry) => entry.kind === 'attempts');
      expect(item).toMatchObject({
        attemptsId: 'a1',
        text: 'Fix it',
        attempts: [
          { attemptId: 'x', state: 'prepared', checkpointId: 'k', fromSeq: 4 },
          { attemptId: 'y', state: 'failed', reason: 'no copy' },
        ],
        kept: { attemptId: 'x' },
        removed: { failed: [] },
      });
      expect(openAttempts(state)).toEqual([]);
    }
    expect(openAttempts(reduceAll(emptyTranscript('c1'), log.slice(0, 3)))).toHaveLength(1);
  });

  it('an attempt is hidden from the list until continued, with the options picked for its agent', () => {
    const log = events(
      [
        created,
        {
          type: 'conversation.attempt',
          payload: {
            ofConversationId: 'c0',
            attemptsId: 'a1',
            attemptId: 'x',
            fromSeq: 2,
            agentId: 'codex',
            chosen: { mode: 'read-only' },
          },
        },
        {
          type: 'agent.switched',
          payload: { turnId: 't1', fromAgentId: 'claude', fromAgentName: 'Claude', toAgentId: 'codex', toAgentName: 'Codex' },
        },
      ],
      'cx',
    );
    expect(summarizeAll(undefined, log)).toMatchObject({
      lifecycle: 'attempt',
      attemptOf: { conversationId: 'c0', attemptsId: 'a1', attemptId: 'x', fromSeq: 2 },
    });
    expect(reduceAll(emptyTranscript('cx'), log)).toMatchObject({
      lifecycle: 'attempt',
      agentId: 'codex',
      chosenOptions: { mode: 'read-only' },
    });
    const continued = [
      ...log,
      ...events([{ type: 'conversation.branched', payload: { fromConversationId: 'c0', fromTitle: 'T', fromTurnId: 't1' } }], 'cx').map(
        (event) => ({ ...event, seq: 4 }),
      ),
    ];
    expect(summarizeAll(undefined, continued)).toMatchObject({ lifecycle: 'active', branchedFrom: { conversationId: 'c0' } });
  });

  it('makes branch names git accepts out of agent ids', () => {
    expect(branchPart('registry:kilo')).toBe('registry-kilo');
    expect(branchPart('custom:my agent..x.lock')).toBe('custom-my-agent.x-lock');
    expect(branchPart('..')).toBe('agent');
  });
});
