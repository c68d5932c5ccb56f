import { describe, expect, it } from 'vitest';
import type { EventDraft, TranscriptEvent } from '../events/index.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../transcript/index.js';
import { buildHandoff, DEFAULT_HANDOFF_BUDGET, handoffBudget, handoffTurns } from './handoff.js';

function transcript(drafts: EventDraft[]): TranscriptState {
  const events: TranscriptEvent[] = drafts.map((draft, index) => ({
    conversationId: 'c',
    seq: index + 1,
    at: '2026-01-01T00:00:00Z',
    v: 1,
    ...draft,
  }));
  return reduceAll(emptyTranscript('c'), events);
}

/** A seeded conversation: `count` turns alternating between Claude and Qwen, each with a tool call, thinking and a long reply. */
function longConversation(count: number): TranscriptState {
  const drafts: EventDraft[] = [
    { type: 'conversation.created', payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/w' } },
  ];
  for (let turn = 1; turn <= count; turn += 1) {
    const agentName = turn % 2 === 0 ? 'Qwen' : 'Claude';
    const turnId = `t${turn}`;
    drafts.push(
      {
        type: 'turn.started',
        payload: {
          turnId,
          agentId: agentName.toLowerCase(),
          agentName,
          text: `Question ${turn}: ${'please look at this carefully '.repeat(3)}`,
        },
      },
      { type: 'thought.chunk', payload: { turnId, text: `SECRET-THOUGHT-${turn}` } },
      {
        type: 'tool.call',
        payload: {
          turnId,
          toolCallId: 'x',
          title: `Read src/file${turn}.ts`,
          status: 'completed',
          content: [
            { type: 'text', text: 'line\n'.repeat(200) },
            { type: 'diff', path: `src/file${turn}.ts`, oldText: 'a', newText: 'b' },
          ],
        },
      },
      { type: 'message.chunk', payload: { turnId, text: `Answer ${turn}. ${'Here is a long explanation. '.repeat(20)}` } },
      { type: 'turn.ended', payload: { turnId, outcome: 'completed' } },
    );
  }
  return transcript(drafts);
}

describe('a handoff', () => {
  it('over a conversation longer than its budget stays within it: newest in full, older in brief, the oldest left out, and it says so', () => {
    const state = longConversation(200);
    const turns = handoffTurns(state, Object.keys(state.turns));
    const handoff = buildHandoff({ kind: 'handoff', targetName: 'Qwen', turns, plan: undefined, budget: DEFAULT_HANDOFF_BUDGET });
    expect(handoff.text.length).toBeLessThanOrEqual(DEFAULT_HANDOFF_BUDGET);
    expect(handoff.full + handoff.summarised + handoff.omitted).toBe(200);
    expect(handoff.full).toBeGreaterThan(0);
    expect(handoff.summarised).toBeGreaterThan(0);
    expect(handoff.omitted).toBeGreaterThan(0);
    expect(handoff.text).toContain(`${handoff.omitted} earlier turns were left out`);
    expect(handoff.text).toContain(`${handoff.summarised} are summarised in one line`);
    // The newest turn is there in full, the person's message verbatim; the oldest is gone; thinking never goes.
    expect(handoff.text).toContain(`## Turn 200 (Qwen)`);
    expect(handoff.text).toContain(`Question 200: ${'please look at this carefully '.repeat(3).trim()}`);
    expect(handoff.text).not.toContain('Question 1:');
    expect(handoff.text).not.toMatch(/SECRET-THOUGHT/);
    expect(handoff.text).toMatch(/- Turn \d+ \(Claude\): the person wrote “Question \d+/);
    // Tool calls one line each, trimmed; files touched listed.
    const toolLine = handoff.text.split('\n').find((line) => line.startsWith('- Read src/file200.ts'));
    expect(toolLine?.length).toBeLessThanOrEqual(202);
    expect(handoff.text).toContain('## Files touched');
    expect(handoff.text).toContain('- src/file200.ts');
  });

  it('of a short conversation carries every turn in full, the latest plan and the last error', () => {
    const state = transcript([
      { type: 'conversation.created', payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/w' } },
      { type: 'turn.started', payload: { turnId: 'a', agentId: 'claude', agentName: 'Claude', text: 'Fix the build' } },
      {
        type: 'plan',
        payload: {
          turnId: 'a',
          entries: [
            { content: 'Run the tests', status: 'completed', priority: 'high' },
            { content: 'Fix the import', status: 'pending', priority: 'high' },
          ],
        },
      },
      { type: 'message.chunk', payload: { turnId: 'a', text: 'The tests fail on an import.' } },
      {
        type: 'turn.ended',
        payload: { turnId: 'a', outcome: 'failed', error: { code: 'AgentExited', message: 'Claude exited (code 1).' } },
      },
    ]);
    const plan = state.items.find((item) => item.kind === 'plan');
    const handoff = buildHandoff({
      kind: 'handoff',
      targetName: 'Qwen',
      turns: handoffTurns(state, ['a']),
      plan: plan?.kind === 'plan' ? plan.entries : undefined,
      budget: DEFAULT_HANDOFF_BUDGET,
    });
    expect(handoff).toMatchObject({ full: 1, summarised: 0, omitted: 0 });
    expect(handoff.text).toContain('from Claude');
    expect(handoff.text).toContain('Fix the build');
    expect(handoff.text).toContain('The tests fail on an import.');
    expect(handoff.text).toContain('- [x] Run the tests (completed)');
    expect(handoff.text).toContain('- [ ] Fix the import (pending)');
    expect(handoff.text).toContain('## The last error\n\nClaude exited (code 1).');
    expect(handoff.text).not.toContain('left out');
  });

  it('as a delta says what happened since the agent took part', () => {
    const state = longConversation(3);
    const delta = buildHandoff({
      kind: 'delta',
      targetName: 'Claude',
      turns: handoffTurns(state, ['t2']),
      plan: undefined,
      budget: DEFAULT_HANDOFF_BUDGET,
    });
    expect(delta.text).toMatch(/^# Since you last took part/);
    expect(delta.text).toContain('went on with Qwen');
    expect(delta.text).toContain('## Turn 2 (Qwen)');
    expect(delta.text).not.toContain('Turn 1');
  });

  it('whose newest turn alone is larger than the budget sends it shortened rather than nothing', () => {
    const state = longConversation(1);
    const handoff = buildHandoff({ kind: 'handoff', targetName: 'Qwen', turns: handoffTurns(state, ['t1']), plan: undefined, budget: 800 });
    expect(handoff.text.length).toBeLessThanOrEqual(800);
    expect(handoff.text).toContain('(shortened to fit)');
    expect(handoff.full).toBe(1);
  });

  it("is budgeted from the agent's reported context size when known", () => {
    expect(handoffBudget(undefined)).toBe(DEFAULT_HANDOFF_BUDGET);
    expect(handoffBudget(200_000)).toBe(200_000);
    expect(handoffBudget(1_000)).toBe(4_000);
    expect(handoffBudget(2_000_000)).toBe(200_000);
  });
});
