import { describe, expect, it } from 'vitest';
import type { EventDraft, TranscriptEvent, UnknownEvent } from '../events/index.js';
import { reduce, reduceAll } from './reduce.js';
import { contextOf, emptyContext, reduceContext } from './context.js';
import { emptyTranscript, tailTranscript } from './state.js';
import { interruptUnfinished } from './unfinished.js';

function events(drafts: EventDraft[], conversationId = 'c1'): TranscriptEvent[] {
  return drafts.map((draft, index) => ({ conversationId, seq: index + 1, at: `2026-01-01T00:00:0${index}Z`, v: 1, ...draft }));
}

const created: EventDraft = { type: 'conversation.created', payload: { title: '', agentId: 'claude', agentName: 'Claude', cwd: '/w' } };
const started = (turnId: string, text = 'hi'): EventDraft => ({
  type: 'turn.started',
  payload: { turnId, agentId: 'claude', agentName: 'Claude', text },
});
const chunk = (turnId: string, text: string, messageId?: string): EventDraft => ({
  type: 'message.chunk',
  payload: { turnId, text, ...(messageId ? { messageId } : {}) },
});

describe('reduce', () => {
  it('folds a whole turn: the person, streamed agent text, the end', () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1', 'hello'),
        chunk('t1', 'Hel'),
        chunk('t1', 'lo!'),
        { type: 'turn.ended', payload: { turnId: 't1', outcome: 'completed', stopReason: 'end_turn' } },
      ]),
    );
    expect(state.items).toEqual([
      { kind: 'user', key: '2', turnId: 't1', text: 'hello', at: '2026-01-01T00:00:01Z' },
      { kind: 'agent', key: '3', turnId: 't1', messageId: undefined, agentName: 'Claude', text: 'Hello!', at: '2026-01-01T00:00:02Z' },
    ]);
    expect(state.turns.t1?.status).toBe('completed');
    expect(state.activeTurnId).toBeNull();
    expect(state.lastSeq).toBe(5);
  });

  it('marks a turn that ran in a mode where the agent decides alone, and only such a turn', () => {
    const options = (current: string): EventDraft => ({
      type: 'session.options',
      payload: {
        options: [
          {
            id: 'mode',
            name: 'Mode',
            type: 'select',
            category: 'mode',
            currentValue: current,
            options: [
              { value: 'default', name: 'Manual' },
              { value: 'auto', name: 'Auto', selfApproving: true },
            ],
          },
        ],
      },
    });
    const running = (turnId: string): EventDraft => ({ type: 'turn.running', payload: { turnId } });
    const ended = (turnId: string): EventDraft => ({
      type: 'turn.ended',
      payload: { turnId, outcome: 'completed', stopReason: 'end_turn' },
    });
    // t1 asks first; t2 runs in Auto (picked); t3 starts in Manual and the agent switches itself to Auto while it runs.
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        options('default'),
        running('t1'),
        ended('t1'),
        options('auto'),
        started('t2'),
        running('t2'),
        ended('t2'),
        options('default'),
        started('t3'),
        running('t3'),
        options('auto'),
        options('default'),
        ended('t3'),
      ]),
    );
    expect(state.turns.t1?.selfApprovingMode).toBeUndefined();
    expect(state.turns.t2?.selfApprovingMode).toBe('Auto');
    expect(state.turns.t3?.selfApprovingMode).toBe('Auto');
  });

  it("folds a subagent's work into its own card in the turn, and closes its open tool calls when a stopped turn ends", () => {
    const sub = (event: Extract<EventDraft, { type: 'subagent.event' }>['payload']['event']): EventDraft => ({
      type: 'subagent.event',
      payload: { turnId: 't1', subagentId: 's1', event },
    });
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        { type: 'subagent.updated', payload: { turnId: 't1', subagentId: 's1', title: 'Researcher', state: 'running' } },
        sub({ type: 'message.chunk', payload: { turnId: 't1', text: 'Look' } }),
        sub({ type: 'message.chunk', payload: { turnId: 't1', text: 'ing' } }),
        sub({ type: 'tool.call', payload: { turnId: 't1', toolCallId: 'x', title: 'Read a.md', status: 'in_progress' } }),
        chunk('t1', 'Parent text'),
        { type: 'turn.ended', payload: { turnId: 't1', outcome: 'cancelled' } },
      ]),
    );
    expect(state.items.map((item) => item.kind)).toEqual(['user', 'subagent', 'agent', 'notice']);
    const card = state.items[1];
    expect(card).toMatchObject({ kind: 'subagent', title: 'Researcher', state: 'running' });
    expect(card?.kind === 'subagent' && card.items).toMatchObject([
      { kind: 'agent', agentName: 'Researcher', text: 'Looking' },
      { kind: 'tool', title: 'Read a.md', status: 'cancelled' },
    ]);
    expect(state.items[2]).toMatchObject({ kind: 'agent', text: 'Parent text' });
  });

  it('makes no empty reply out of an empty chunk ahead of a tool call', () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        chunk('t1', ''),
        chunk('t1', ' \n'),
        { type: 'tool.call', payload: { turnId: 't1', toolCallId: 'x', title: 'Read a.md', status: 'in_progress' } },
        chunk('t1', 'Done.'),
      ]),
    );
    expect(state.items.map((item) => item.kind)).toEqual(['user', 'tool', 'agent']);
  });

  it('starts a new message when the agent starts a new messageId', () => {
    const state = reduceAll(emptyTranscript('c1'), events([created, started('t1'), chunk('t1', 'a', 'm1'), chunk('t1', 'b', 'm2')]));
    expect(state.items.filter((item) => item.kind === 'agent').map((item) => item.kind === 'agent' && item.text)).toEqual(['a', 'b']);
  });

  it('ignores events already folded in, and events of another conversation', () => {
    const [first, second] = events([created, started('t1')]);
    const once = reduceAll(emptyTranscript('c1'), [first!, second!]);
    expect(reduce(once, second!)).toBe(once);
    const foreign = { ...second!, conversationId: 'c2', seq: 3 };
    expect(reduce(once, foreign)).toBe(once);
  });

  it('keeps unknown (newer) events out of the view but moves past them', () => {
    const base = reduceAll(emptyTranscript('c1'), events([created]));
    const unknown: UnknownEvent = { conversationId: 'c1', seq: 2, at: 'x', v: 2, type: 'hologram', payload: {}, unknown: true };
    const next = reduce(base, unknown);
    expect(next.items).toEqual(base.items);
    expect(next.lastSeq).toBe(2);
    expect(next.skippedEvents).toBe(1);
  });

  it('a rejected edit keeps its proposed diff and its status when the agent reports the refusal', () => {
    const diff = { type: 'diff' as const, path: '/w/a.md', oldText: null, newText: 'proposed\n' };
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        {
          type: 'tool.call',
          payload: { turnId: 't1', toolCallId: 'x', title: 'Write a.md', kind: 'edit', status: 'pending', content: [diff] },
        },
        {
          type: 'permission.requested',
          payload: {
            turnId: 't1',
            requestId: 'r',
            toolCallId: 'x',
            title: 'Write a.md',
            options: [{ optionId: 'no', name: 'Reject', kind: 'reject_once' }],
          },
        },
        { type: 'permission.decided', payload: { turnId: 't1', requestId: 'r', optionId: 'no', by: 'person' } },
        {
          type: 'tool.updated',
          payload: {
            turnId: 't1',
            toolCallId: 'x',
            status: 'failed',
            content: [{ type: 'text', text: 'User refused permission to run tool' }],
          },
        },
      ]),
    );
    expect(state.items.find((item) => item.kind === 'tool')).toMatchObject({
      status: 'rejected',
      content: [diff, { type: 'text', text: 'User refused permission to run tool' }],
    });
  });

  it('marks an "always" answer revoked, long after its turn ended', () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        {
          type: 'permission.requested',
          payload: {
            turnId: 't1',
            requestId: 'r',
            title: 'Run ls',
            options: [{ optionId: 'always', name: 'Always allow', kind: 'allow_always' }],
          },
        },
        { type: 'permission.decided', payload: { turnId: 't1', requestId: 'r', optionId: 'always', by: 'person' } },
        { type: 'turn.ended', payload: { turnId: 't1', outcome: 'completed', stopReason: 'end_turn' } },
        started('t2'),
        { type: 'turn.ended', payload: { turnId: 't2', outcome: 'completed', stopReason: 'end_turn' } },
        { type: 'permission.revoked', payload: { turnId: 't1', requestId: 'r', note: 'Kept in .claude/settings.local.json.' } },
      ]),
    );
    expect(state.items.find((item) => item.kind === 'permission')).toMatchObject({
      decision: { optionId: 'always' },
      revoked: { at: '2026-01-01T00:00:07Z', note: 'Kept in .claude/settings.local.json.' },
    });
  });

  it('tracks tool calls, permission questions and their answers', () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        { type: 'tool.call', payload: { turnId: 't1', toolCallId: 'x', title: 'Edit a.ts', status: 'pending' } },
        {
          type: 'permission.requested',
          payload: {
            turnId: 't1',
            requestId: 'r',
            toolCallId: 'x',
            title: 'Edit a.ts',
            options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }],
          },
        },
        { type: 'permission.decided', payload: { turnId: 't1', requestId: 'r', optionId: 'ok', by: 'person' } },
        { type: 'tool.updated', payload: { turnId: 't1', toolCallId: 'x', status: 'completed' } },
      ]),
    );
    const steps = events([
      created,
      started('t1'),
      { type: 'tool.call', payload: { turnId: 't1', toolCallId: 'x', title: 'Edit a.ts', status: 'pending' } },
      {
        type: 'permission.requested',
        payload: {
          turnId: 't1',
          requestId: 'r',
          toolCallId: 'x',
          title: 'Edit a.ts',
          options: [{ optionId: 'no', name: 'Reject', kind: 'reject_once' }],
        },
      },
      { type: 'permission.decided', payload: { turnId: 't1', requestId: 'r', optionId: 'no', by: 'person' } },
    ]);
    const toolStatus = (count: number) =>
      reduceAll(emptyTranscript('c1'), steps.slice(0, count)).items.find((item) => item.kind === 'tool');
    expect(toolStatus(4)).toMatchObject({ status: 'awaiting_permission' });
    expect(toolStatus(5)).toMatchObject({ status: 'rejected' });
    expect(state.items.find((item) => item.kind === 'tool')).toMatchObject({ status: 'completed', title: 'Edit a.ts' });
    expect(state.items.find((item) => item.kind === 'permission')).toMatchObject({ decision: { optionId: 'ok', by: 'person' } });
  });

  it('a cancelled turn closes its open tool calls and says it stopped', () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        { type: 'tool.call', payload: { turnId: 't1', toolCallId: 'x', title: 'Run tests', status: 'in_progress' } },
        { type: 'turn.ended', payload: { turnId: 't1', outcome: 'cancelled' } },
      ]),
    );
    expect(state.items.find((item) => item.kind === 'tool')).toMatchObject({ status: 'cancelled' });
    expect(state.items.at(-1)).toMatchObject({ kind: 'notice', severity: 'info', text: 'Stopped.' });
  });

  it('a failed turn shows the error it carried', () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        {
          type: 'turn.ended',
          payload: {
            turnId: 't1',
            outcome: 'failed',
            error: { code: 'AgentExited', message: 'Claude exited unexpectedly (exit code 1).' },
          },
        },
      ]),
    );
    expect(state.items.at(-1)).toMatchObject({
      kind: 'notice',
      severity: 'error',
      text: 'Claude exited unexpectedly (exit code 1).',
      error: { code: 'AgentExited' },
    });
    expect(state.turns.t1?.status).toBe('failed');
  });

  it("keeps a session per agent with its watermark, and switches to the new agent's own session and choices", () => {
    const log = events([
      created,
      { type: 'session.bound', payload: { agentId: 'claude', sessionId: 's1', how: 'new' } },
      { type: 'session.option.chosen', payload: { optionId: 'mode', value: 'plan' } },
      started('t1'),
      { type: 'usage', payload: { turnId: 't1', used: 1200, size: 200000 } },
      { type: 'turn.ended', payload: { turnId: 't1', outcome: 'completed' } },
      {
        type: 'agent.switched',
        payload: { turnId: 't2', fromAgentId: 'claude', fromAgentName: 'Claude', toAgentId: 'codex', toAgentName: 'Codex' },
      },
      { type: 'turn.started', payload: { turnId: 't2', agentId: 'codex', agentName: 'Codex', text: 'hi' } },
      { type: 'session.bound', payload: { agentId: 'codex', sessionId: 'x1', how: 'new' } },
      { type: 'turn.ended', payload: { turnId: 't2', outcome: 'completed' } },
    ]);
    const afterFirst = reduceAll(emptyTranscript('c1'), log.slice(0, 6));
    expect(afterFirst.sessions).toEqual({ claude: { sessionId: 's1', how: 'new', watermark: 6 } });
    expect(afterFirst.usage).toMatchObject({ used: 1200 });
    const switched = reduceAll(emptyTranscript('c1'), log.slice(0, 7));
    // Claude's context figure is not Codex's.
    expect(switched).toMatchObject({ session: null, agentId: 'codex', agentName: 'Codex', chosenOptions: {}, usage: null });
    const state = reduceAll(emptyTranscript('c1'), log);
    expect(state.sessions).toEqual({
      claude: { sessionId: 's1', how: 'new', watermark: 6 },
      codex: { sessionId: 'x1', how: 'new', watermark: 10 },
    });
    expect(state.chosenByAgent).toEqual({ claude: { mode: 'plan' } });
    // Back to Claude: its own session and its own choices again.
    const back = reduce(state, {
      conversationId: 'c1',
      seq: 11,
      at: 'x',
      v: 1,
      type: 'agent.switched',
      payload: { turnId: 't3', fromAgentId: 'codex', fromAgentName: 'Codex', toAgentId: 'claude', toAgentName: 'Claude' },
    });
    expect(back).toMatchObject({ agentId: 'claude', session: { sessionId: 's1' }, chosenOptions: { mode: 'plan' } });
    // A reopened session keeps its watermark; folding a tail over the latest context agrees with the whole log.
    const resumed = reduce(back, {
      conversationId: 'c1',
      seq: 12,
      at: 'x',
      v: 1,
      type: 'session.bound',
      payload: { agentId: 'claude', sessionId: 's1', how: 'resume' },
    });
    expect(resumed.sessions.claude).toEqual({ sessionId: 's1', how: 'resume', watermark: 6 });
    const tail = reduceAll(tailTranscript(contextOf(state), 7), log.slice(6));
    expect(contextOf(tail)).toEqual(contextOf(state));
  });

  it('never mutates the state it is given', () => {
    const all = events([created, started('t1'), chunk('t1', 'a'), chunk('t1', 'b')]);
    const before = reduceAll(emptyTranscript('c1'), all.slice(0, 3));
    const snapshot = JSON.stringify(before);
    reduce(before, all[3]!);
    expect(JSON.stringify(before)).toBe(snapshot);
  });

  it('moves a turn from accepted to running to its end', () => {
    const all = events([
      created,
      started('t1'),
      { type: 'turn.running', payload: { turnId: 't1' } },
      { type: 'turn.ended', payload: { turnId: 't1', outcome: 'interrupted' } },
    ]);
    expect(reduceAll(emptyTranscript('c1'), all.slice(0, 2)).turns.t1?.status).toBe('accepted');
    expect(reduceAll(emptyTranscript('c1'), all.slice(0, 3)).turns.t1?.status).toBe('running');
    const ended = reduceAll(emptyTranscript('c1'), all);
    expect(ended.turns.t1?.status).toBe('interrupted');
    expect(ended.items.at(-1)).toMatchObject({ kind: 'notice', severity: 'warning' });
  });

  it('tracks archive, delete and restore', () => {
    const lifecycle = (drafts: EventDraft[]) => reduceAll(emptyTranscript('c1'), events([created, ...drafts])).lifecycle;
    expect(lifecycle([{ type: 'conversation.archived', payload: {} }])).toBe('archived');
    expect(
      lifecycle([
        { type: 'conversation.archived', payload: {} },
        { type: 'conversation.unarchived', payload: {} },
      ]),
    ).toBe('active');
    expect(lifecycle([{ type: 'conversation.deleted', payload: {} }])).toBe('deleted');
    expect(
      lifecycle([
        { type: 'conversation.deleted', payload: {} },
        { type: 'conversation.restored', payload: {} },
      ]),
    ).toBe('active');
  });

  it('folds a tail the same as the whole for the part it covers', () => {
    const all = events([created, started('t1', 'one'), chunk('t1', 'a'), started('t2', 'two'), chunk('t2', 'b')]);
    const whole = reduceAll(emptyTranscript('c1'), all);
    const tail = reduceAll(tailTranscript(contextOf(whole), 4), all.slice(3));
    expect(tail.items).toEqual(whole.items.slice(2));
    expect(tail.activeTurnId).toBe(whole.activeTurnId);
    expect(tail.agentName).toBe('Claude');
  });

  it("keeps the agent's options, commands and title, and the person's choices", () => {
    const option = {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select' as const,
      currentValue: 'a',
      options: [
        { value: 'a', name: 'A' },
        { value: 'b', name: 'B' },
      ],
    };
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        { type: 'session.options', payload: { options: [option] } },
        { type: 'session.option.chosen', payload: { optionId: 'model', value: 'b' } },
        { type: 'session.options', payload: { options: [{ ...option, currentValue: 'b' }] } },
        { type: 'session.commands', payload: { commands: [{ name: 'review', description: 'Review the diff' }] } },
        { type: 'session.info', payload: { title: 'Fixing the parser' } },
      ]),
    );
    expect(state.sessionOptions[0]?.currentValue).toBe('b');
    expect(state.chosenOptions).toEqual({ model: 'b' });
    expect(state.commands).toEqual([{ name: 'review', description: 'Review the diff' }]);
    expect(state.sessionTitle).toBe('Fixing the parser');
    expect(state.items).toEqual([]);
  });
});

describe('tool calls', () => {
  it('an update or a permission question reaches the tool call of its own turn, though an earlier turn used the same id', () => {
    const call = (turnId: string): EventDraft => ({
      type: 'tool.call',
      payload: { turnId, toolCallId: 'call-1', title: `read in ${turnId}`, status: 'in_progress' },
    });
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        call('t1'),
        { type: 'tool.updated', payload: { turnId: 't1', toolCallId: 'call-1', status: 'completed' } },
        { type: 'turn.ended', payload: { turnId: 't1', outcome: 'completed' } },
        started('t2'),
        call('t2'),
        { type: 'tool.updated', payload: { turnId: 't2', toolCallId: 'call-1', status: 'failed', title: 'read again' } },
        {
          type: 'permission.requested',
          payload: {
            turnId: 't2',
            requestId: 'r1',
            toolCallId: 'call-1',
            title: 'May I?',
            options: [{ optionId: 'y', name: 'Yes', kind: 'allow_once' }],
          },
        },
      ]),
    );
    const tools = state.items.filter((item) => item.kind === 'tool');
    expect(tools.map((item) => [item.turnId, item.title, item.status])).toEqual([
      ['t1', 'read in t1', 'completed'],
      ['t2', 'read again', 'awaiting_permission'],
    ]);
  });
});

describe('a long conversation opened at its tail', () => {
  const option = {
    id: 'model',
    name: 'Model',
    category: 'model',
    type: 'select' as const,
    currentValue: 'deep',
    options: [
      { value: 'quick', name: 'Quick' },
      { value: 'deep', name: 'Deep' },
    ],
  };
  const drafts: EventDraft[] = [created];
  for (let turn = 0; turn < 200; turn += 1) {
    drafts.push(started(`t${turn}`, `question ${turn}`));
    if (turn === 0) {
      drafts.push(
        { type: 'session.bound', payload: { agentId: 'claude', sessionId: 's-1', how: 'new' } },
        { type: 'session.options', payload: { options: [{ ...option, currentValue: 'quick' }] } },
        { type: 'session.option.chosen', payload: { optionId: 'model', value: 'deep' } },
        { type: 'session.options', payload: { options: [option] } },
        { type: 'session.commands', payload: { commands: [{ name: 'review', description: 'Review' }] } },
        { type: 'session.info', payload: { title: 'Long session' } },
        { type: 'usage', payload: { turnId: 't0', used: 1200, size: 200000 } },
      );
    }
    drafts.push(chunk(`t${turn}`, `answer ${turn}`), { type: 'turn.ended', payload: { turnId: `t${turn}`, outcome: 'completed' } });
  }
  const all = events(drafts);
  const whole = reduceAll(emptyTranscript('c1'), all);
  // What the store's projection keeps: the context folded over every event.
  const projected = all.reduce(reduceContext, emptyContext('c1'));

  it('keeps the session, options, choices, commands, title and usage set in turn 1', () => {
    const firstSeq = all.findIndex((event) => event.type === 'turn.started' && event.payload.turnId === 't150') + 1;
    const tail = reduceAll(tailTranscript(projected, firstSeq), all.slice(firstSeq - 1));
    expect(tail.session).toEqual({ agentId: 'claude', sessionId: 's-1', how: 'new' });
    expect(tail.sessionOptions).toEqual([option]);
    expect(tail.chosenOptions).toEqual({ model: 'deep' });
    expect(tail.commands).toEqual([{ name: 'review', description: 'Review' }]);
    expect(tail.sessionTitle).toBe('Long session');
    expect(tail.usage).toMatchObject({ used: 1200 });
    expect(contextOf(tail)).toEqual(contextOf(whole));
    expect(tail.items).toEqual(whole.items.slice(-100));
  });

  it("the projected context is the whole transcript's context, and only context events change it", () => {
    expect(projected).toEqual(contextOf(whole));
    const chunkEvent = all.find((event) => event.type === 'message.chunk')!;
    expect(reduceContext(projected, chunkEvent)).toBe(projected);
  });
});

describe('terminals and elicitations in the transcript', () => {
  it("keeps a terminal's output and exit; an elicitation's answer and completion", () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        { type: 'terminal.started', payload: { turnId: 't1', terminalId: 'term', command: 'ls', cwd: '/w' } },
        { type: 'terminal.output', payload: { terminalId: 'term', text: 'a\n' } },
        { type: 'terminal.output', payload: { terminalId: 'term', text: 'b\n' } },
        { type: 'terminal.exited', payload: { terminalId: 'term', exitCode: 0, signal: null, truncated: false } },
        {
          type: 'elicitation.requested',
          payload: { turnId: 't1', requestId: 'e1', message: 'Sign in', mode: 'url', url: 'https://example.test' },
        },
        { type: 'elicitation.answered', payload: { requestId: 'e1', action: 'accept', by: 'person' } },
        { type: 'elicitation.completed', payload: { requestId: 'e1' } },
      ]),
    );
    expect(state.terminals.term).toEqual({
      terminalId: 'term',
      command: 'ls',
      cwd: '/w',
      output: 'a\nb\n',
      exit: { exitCode: 0, signal: null },
      truncated: false,
    });
    expect(state.items.at(-1)).toMatchObject({ kind: 'elicitation', answer: { action: 'accept' }, completed: true });
  });

  it('a host that died leaves no question open and no terminal running', () => {
    const state = reduceAll(
      emptyTranscript('c1'),
      events([
        created,
        started('t1'),
        { type: 'terminal.started', payload: { turnId: 't1', terminalId: 'term', command: 'sleep 100', cwd: '/w' } },
        {
          type: 'elicitation.requested',
          payload: { turnId: 't1', requestId: 'e1', message: 'Details?', mode: 'form', schema: { properties: {} } },
        },
      ]),
    );
    const drafts = interruptUnfinished(state);
    expect(drafts.map((draft) => draft.type)).toEqual(['elicitation.answered', 'terminal.exited', 'turn.ended']);
    const closed = reduceAll(
      state,
      events([...drafts], 'c1').map((event, index) => ({ ...event, seq: state.lastSeq + index + 1 })),
    );
    expect(closed.items.find((item) => item.kind === 'elicitation')).toMatchObject({ answer: { action: 'cancel', by: 'turn-cancelled' } });
    expect(closed.terminals.term?.exit).toEqual({ exitCode: null, signal: null });
  });
});

describe('reduceAll', () => {
  const ended = (turnId: string, outcome: 'completed' | 'cancelled' = 'completed'): EventDraft => ({
    type: 'turn.ended',
    payload: { turnId, outcome, stopReason: 'end_turn' },
  });
  // A thread where later events reach back into finished turns: a late tool update, a permission
  // decided after its turn ended, an elicitation answered late, a late chunk, injected context.
  const drafts: EventDraft[] = [
    created,
    started('t1'),
    { type: 'turn.running', payload: { turnId: 't1' } },
    { type: 'tool.call', payload: { turnId: 't1', toolCallId: 'x', title: 'Edit a', kind: 'edit', status: 'pending' } },
    {
      type: 'permission.requested',
      payload: {
        turnId: 't1',
        requestId: 'p1',
        toolCallId: 'x',
        title: 'Edit a',
        options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }],
      },
    },
    { type: 'elicitation.requested', payload: { turnId: 't1', requestId: 'e1', mode: 'form', message: 'Name?' } },
    chunk('t1', 'one'),
    { type: 'plan', payload: { turnId: 't1', entries: [{ content: 'a', status: 'pending', priority: 'low' }] } },
    ended('t1'),
    { type: 'toolbox.set', payload: { servers: [], digest: 'd' } },
    started('t2'),
    {
      type: 'context.injected',
      payload: {
        turnId: 't2',
        injector: 'concise',
        timing: 'every_turn',
        origin: 'builtin',
        level: 'per-turn resource',
        sha256: 'a'.repeat(64),
        text: 'Be brief.',
      },
    },
    { type: 'tool.updated', payload: { turnId: 't1', toolCallId: 'x', status: 'completed' } },
    chunk('t2', 'two'),
    { type: 'permission.decided', payload: { turnId: 't1', requestId: 'p1', optionId: 'ok', by: 'person' } },
    ended('t2'),
    started('t3'),
    chunk('t1', ' late'),
    { type: 'usage', payload: { turnId: 't3', used: 10, size: 100, cost: { amount: 0.01, currency: 'USD' } } },
    { type: 'elicitation.answered', payload: { requestId: 'e1', action: 'decline', by: 'person' } },
    { type: 'plan', payload: { turnId: 't1', entries: [{ content: 'a', status: 'completed', priority: 'low' }] } },
    ended('t3', 'cancelled'),
    started('t4'),
    chunk('t4', 'four'),
  ];

  it('gives what folding one event at a time gives, from every starting point', () => {
    const all = events(drafts);
    const naive = (from: ReturnType<typeof emptyTranscript>, list: TranscriptEvent[]) => list.reduce(reduce, from);
    for (let split = 0; split <= all.length; split += 1) {
      const start = naive(emptyTranscript('c1'), all.slice(0, split));
      expect(reduceAll(start, all.slice(split))).toEqual(naive(start, all.slice(split)));
    }
    // The late events did reach the finished turns.
    const final = naive(emptyTranscript('c1'), all);
    expect(final.items.find((item) => item.kind === 'tool')).toMatchObject({ status: 'completed' });
    expect(final.items.find((item) => item.kind === 'permission')).toMatchObject({ decision: { optionId: 'ok' } });
    expect(final.items.find((item) => item.kind === 'elicitation')).toMatchObject({ answer: { action: 'decline' } });
    expect(final.items.find((item) => item.kind === 'plan')).toMatchObject({ entries: [{ status: 'completed' }] });
    expect(final.items.filter((item) => item.kind === 'agent').map((item) => item.kind === 'agent' && item.text)).toEqual([
      'one',
      'two',
      ' late',
      'four',
    ]);
    expect(final.turns.t3?.usage).toMatchObject({ cost: { amount: 0.01 } });
  });

  it('folds a 4000-turn thread whole', () => {
    const long: EventDraft[] = [created];
    for (let turn = 0; turn < 4000; turn += 1) {
      long.push(started(`t${turn}`), chunk(`t${turn}`, 'a'), chunk(`t${turn}`, 'b'), ended(`t${turn}`));
    }
    const state = reduceAll(emptyTranscript('c1'), events(long));
    expect(state.items).toHaveLength(8000);
    expect(Object.keys(state.turns)).toHaveLength(4000);
    expect(state.items.at(-1)).toMatchObject({ kind: 'agent', text: 'ab', turnId: 't3999' });
  });
});
