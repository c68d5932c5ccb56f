// @vitest-environment happy-dom
/**
 * One entry of a transcript as the person meets it: their message with its ways back (edit and
 * resend, rewind, branch), a reply with what the turn cost and Retry while it is the last, a
 * switch between agents with what the new one was given, a tool call's state in words, a plan's
 * progress, a rewind's marker with Undo, injected context kept apart from what they typed, and a
 * failure with the agent's own output and the ways out.
 */
import { cleanup, fireEvent, render as renderBare, screen, within } from '@testing-library/react';
import type { ReactElement } from 'react';
import { TipProvider } from '../../components/Tip.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TranscriptItem } from '../../../app/transcript/index.js';
import { agentInfoSchema } from '../../../app/agents/agentInfo.js';
import { answers, calls, openConversation, resetStore, useBaton, settle } from '../../store/testStore.js';
import { testSummary } from '../../store/testSummary.js';
import { ConversationScope } from '../../components/conversationScope.js';
import { TranscriptEntry, type EntryProps } from './TranscriptEntry.js';

/** Renders as the app does: inside the tooltips' provider (a message's actions have tooltips). */
const render = (ui: ReactElement) => renderBare(ui, { wrapper: TipProvider });

vi.mock('../../store/index.js', () => import('../../store/testStore.js'));

type Item<K extends TranscriptItem['kind']> = Extract<TranscriptItem, { kind: K }>;

const entry = (item: TranscriptItem, props: Partial<EntryProps> = {}) => (
  <TranscriptEntry
    item={item}
    lastReply={false}
    terminals={undefined}
    agentName={undefined}
    toolKind={undefined}
    turnUsage={undefined}
    {...props}
  />
);

const user: Item<'user'> = {
  kind: 'user',
  key: 'u1',
  turnId: 't1',
  text: 'Fix the failing test',
  at: '2026-12-03T10:00:00.000Z',
};
const reply: Item<'agent'> = {
  kind: 'agent',
  key: 'a1',
  turnId: 't1',
  messageId: undefined,
  agentName: 'Claude Code',
  text: 'Done: the test **passes** now.',
  at: '2026-12-03T10:00:05.000Z',
};

beforeEach(() => {
  resetStore();
  openConversation('c1');
  useBaton.setState({ openSummary: testSummary('c1') });
});
afterEach(cleanup);

describe('TranscriptEntry', () => {
  it("the person's message: its text as typed, and Rewind to here asks what a rewind would do", async () => {
    answers.previewRewind = () => ({ setAside: [], files: [], cannot: [], unavailable: null });
    render(entry({ ...user, withoutTools: true as const }));
    const message = screen.getByRole('article', { name: 'You' });
    expect(within(message).getByText('Fix the failing test')).toBeTruthy();
    expect(within(message).getByText('sent without your tools')).toBeTruthy();
    expect(within(message).getByRole('button', { name: 'Edit and resend' })).toBeTruthy();
    fireEvent.click(within(message).getByRole('button', { name: 'Rewind to here' }));
    await settle();
    expect(calls).toEqual([{ method: 'previewRewind', params: { conversationId: 'c1', turnId: 't1' } }]);
    fireEvent.click(within(message).getByRole('button', { name: 'Branch from here' }));
    expect(useBaton.getState().branchDialog).toMatchObject({ turnId: 't1' });
  });

  it("an attempt's message, shown beside its conversation, offers only Copy", () => {
    render(<ConversationScope.Provider value="attempt-1">{entry(user)}</ConversationScope.Provider>);
    const message = screen.getByRole('article', { name: 'You' });
    expect(
      within(message)
        .getAllByRole('button')
        .map((button) => button.getAttribute('aria-label') ?? button.textContent),
    ).toEqual(['Copy']);
  });

  it('a reply: its Markdown, what the turn cost, the mode that decided without asking, and Retry while it is the last', () => {
    const { rerender } = render(
      entry(reply, {
        lastReply: true,
        selfApprovingMode: 'Bypass permissions',
        turnUsage: {
          tokens: { inputTokens: 12_000, outputTokens: 345, cachedReadTokens: 1000 },
          usage: { used: 50_000, size: 200_000, cost: { amount: 0.0123, currency: 'USD' } },
        } as never,
      }),
    );
    const message = screen.getByRole('article', { name: 'Claude Code' });
    expect(within(message).getByText('passes').tagName).toBe('STRONG');
    expect(within(message).getByText('in Bypass permissions: the agent decided without asking you')).toBeTruthy();
    const usage = within(message).getByLabelText('Usage of this turn').textContent ?? '';
    expect(usage).toContain('12,000 tokens in · 345 out · 1,000 cached · context 25% (50,000 of 200,000)');
    expect(usage).toMatch(/\$0\.0123 so far this session/);
    expect(within(message).getByRole('button', { name: 'Retry' })).toBeTruthy();
    rerender(entry(reply));
    expect(within(screen.getByRole('article', { name: 'Claude Code' })).queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('a switch between agents says how the new one took over and what it was given', () => {
    const handoff: Item<'handoff'> = {
      kind: 'handoff',
      key: 'h1',
      turnId: 't2',
      fromAgentName: 'Claude Code',
      toAgentName: 'Codex',
      prepared: {
        turnId: 't2',
        toAgentId: 'codex',
        toAgentName: 'Codex',
        fidelity: 'handed-off',
        how: 'new',
        kind: 'handoff',
        text: '## The conversation so far',
        sha256: 'f'.repeat(64),
        level: 'resource',
        turns: { full: 3, summarised: 0, omitted: 0 },
        carried: [],
        notCarried: [],
      },
    };
    render(entry(handoff));
    const marker = screen.getByRole('group', { name: 'Switched from Claude Code to Codex' });
    expect(within(marker).getByText('What Codex was given')).toBeTruthy();
    expect(marker.textContent).toContain('sent as an embedded resource');
    expect(marker.textContent).toContain('ffffffffffff');
    render(entry({ ...handoff, key: 'h2', fromAgentName: undefined, prepared: undefined }));
    expect(within(screen.getByRole('group', { name: 'Codex was caught up' })).getByText('preparing…')).toBeTruthy();
  });

  it("a handoff of nothing says so, and is not shown in an attempt's column at all", () => {
    const nothing: Item<'handoff'> = {
      kind: 'handoff',
      key: 'h0',
      turnId: 't1',
      fromAgentName: 'Claude Code',
      toAgentName: 'Qwen Code',
      prepared: {
        turnId: 't1',
        toAgentId: 'qwen',
        toAgentName: 'Qwen Code',
        fidelity: 'handed-off',
        how: 'new',
        kind: 'handoff',
        text: '',
        sha256: '0'.repeat(64),
        level: 'resource',
        turns: { full: 0, summarised: 0, omitted: 0 },
        carried: [],
        notCarried: [],
      },
    };
    render(entry(nothing));
    const marker = screen.getByRole('group', { name: 'Switched from Claude Code to Qwen Code' });
    expect(marker.textContent).toContain('nothing to hand over yet: no earlier turns');
    expect(marker.textContent).not.toContain('0 turns in full');
    cleanup();
    render(<ConversationScope.Provider value="attempt-qwen">{entry(nothing)}</ConversationScope.Provider>);
    expect(screen.queryByRole('group', { name: /Switched from/ })).toBeNull();
  });

  it("a tool call's state in words, and a plan's progress", () => {
    const tool = {
      kind: 'tool',
      key: 'k',
      turnId: 't1',
      toolCallId: 'c',
      title: 'npm test',
      toolKind: 'execute',
      status: 'awaiting_permission',
      content: [],
    } as unknown as Item<'tool'>;
    render(entry(tool));
    expect(within(screen.getByRole('group', { name: 'Tool call: npm test' })).getByText('awaiting your permission')).toBeTruthy();
    const plan: Item<'plan'> = {
      kind: 'plan',
      key: 'p',
      turnId: 't1',
      entries: [
        { content: 'Read the test', status: 'completed', priority: 'medium' },
        { content: 'Fix the code', status: 'in_progress', priority: 'high' },
        { content: 'Run the suite', status: 'pending', priority: 'low' },
      ],
    };
    render(entry(plan));
    const section = screen.getByRole('region', { name: 'Plan' });
    expect(within(section).getByText('1 of 3 done')).toBeTruthy();
    expect(
      within(section)
        .getAllByRole('listitem')
        .map((item) => item.getAttribute('aria-label')),
    ).toEqual(['Read the test: done', 'Fix the code: in progress', 'Run the suite: to do']);
    expect(within(section).getByText('high priority')).toBeTruthy();
  });

  it("a rewind's marker: what it set aside and did to the files, with Undo while it can be undone; a Retry's is one line", async () => {
    answers.undoRewind = () => ({ failed: [] });
    const rewind = {
      kind: 'rewind',
      key: 'r',
      at: '2026-12-03T10:10:00.000Z',
      rewindId: 'rw1',
      toTurnId: 't1',
      pointAt: '2026-12-03T10:00:00.000Z',
      setAside: ['t1', 't2'],
      files: 'restored',
      changed: [{ path: 'a.ts', action: 'restored' }],
      failed: [],
    } as unknown as Item<'rewind'>;
    render(entry(rewind, { rewound: { aside: ['Fix the failing test', 'Now the docs'], canUndo: true } }));
    const marker = screen.getByRole('region', { name: 'Rewind' });
    expect(marker.textContent).toContain('2 messages set aside');
    expect(
      within(marker)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Fix the failing test', 'Now the docs']);
    fireEvent.click(within(marker).getByRole('button', { name: 'Undo rewind' }));
    await settle();
    expect(calls.find((call) => call.method === 'undoRewind')?.params).toEqual({ conversationId: 'c1', rewindId: 'rw1' });
    cleanup();
    render(entry({ ...rewind, retry: true }, { rewound: { aside: [], canUndo: false } }));
    expect(screen.getByRole('region', { name: 'Rewind' }).textContent?.trim()).toBe('Retried');
  });

  it("injected context is shown apart, as Baton's and not typed by the person", () => {
    const injected = {
      kind: 'injected',
      key: 'i',
      turnId: 't1',
      injector: 'house-style',
      timing: 'every_turn',
      level: 'embedded resource',
      text: 'Write short sentences.',
      sha256: 'e'.repeat(64),
      uri: undefined,
    } as unknown as Item<'injected'>;
    render(entry(injected));
    const group = screen.getByRole('group', { name: 'Injected context: house-style' });
    expect(group.textContent).toContain('added by Baton, not typed by you');
    expect(within(group).getByText('Write short sentences.')).toBeTruthy();
  });

  it("a failure: the agent's own output, Retry while it is the last, and Update for an agent too old", async () => {
    useBaton.setState({
      agents: [
        agentInfoSchema.parse({
          agentId: 'codex',
          displayName: 'Codex',
          source: 'builtin',
          command: 'codex-acp',
          available: true,
          managed: { pinned: '0.9.0', installed: '0.5.0', inUse: true },
        }),
      ],
    });
    answers.installAgent = () => ({ agents: useBaton.getState().agents, agentsFileProblem: null, registry: null });
    const notice: Item<'notice'> = {
      kind: 'notice',
      key: 'n',
      turnId: 't3',
      severity: 'error',
      text: 'Codex 0.5.0 is older than Baton supports.',
      error: { code: 'AgentTooOld', message: 'too old', details: { agentId: 'codex', stderrTail: 'panic: unknown method session/resume' } },
    };
    render(entry(notice, { lastReply: true }));
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Codex 0.5.0 is older than Baton supports.')).toBeTruthy();
    expect(within(alert).getByText('panic: unknown method session/resume')).toBeTruthy();
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
    fireEvent.click(within(alert).getByRole('button', { name: 'Update Codex to 0.9.0' }));
    await settle();
    expect(calls.some((call) => call.method === 'installAgent')).toBe(true);
    cleanup();
    render(entry({ ...notice, severity: 'info', text: 'Claude Code started afresh.', error: undefined }));
    expect(screen.getByRole('note').textContent).toBe('Claude Code started afresh.');
  });
});
