// @vitest-environment happy-dom
/**
 * An agent's permission question: said as "<Agent> wants to <kind>: <title>", allow options first
 * and "always" ones set apart, answered only by a click or a number key (never while typing in a
 * field or inside an open dialog), and, once answered, what was chosen.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TranscriptItem } from '../../../app/transcript/index.js';
import { answers, calls, openConversation, resetStore, useBaton, settle } from '../../store/testStore.js';
import { ConversationScope } from '../../components/conversationScope.js';
import { PermissionPrompt } from './PermissionPrompt.js';

vi.mock('../../store/index.js', () => import('../../store/testStore.js'));

type PermissionItem = Extract<TranscriptItem, { kind: 'permission' }>;

const question = (overrides: Partial<PermissionItem> = {}): PermissionItem => ({
  kind: 'permission',
  key: 'p1',
  turnId: 't1',
  requestId: 'r1',
  toolCallId: 'c1',
  title: 'rm -rf build',
  options: [
    { optionId: 'no', name: 'Reject', kind: 'reject_once' },
    { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
    { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
  ],
  decision: undefined,
  rawInput: { command: 'rm -rf build' },
  ...overrides,
});

/** The question answered with `optionId` (`gone`: withdrawn). */
const answered = (optionId: string, overrides: Partial<PermissionItem> = {}): PermissionItem =>
  question({ decision: { requestId: 'r1', optionId } as PermissionItem['decision'], ...overrides });

beforeEach(() => {
  resetStore();
  openConversation('conv-1');
  answers.answerPermission = () => ({});
});
afterEach(cleanup);

describe('PermissionPrompt', () => {
  it('says who wants to do what, orders the options, and focuses the first', () => {
    render(<PermissionPrompt item={question()} agentName="Claude Code" toolKind="execute" />);
    expect(screen.getByRole('group', { name: 'Permission: rm -rf build' })).toBeTruthy();
    expect(screen.getByText('Claude Code wants to run a command: rm -rf build')).toBeTruthy();
    const buttons = screen.getAllByRole('button');
    expect(buttons.map((button) => button.textContent?.trim())).toEqual(['1 Allow once', '2 Always allow (remembered)', '3 Reject']);
    expect(buttons.map((button) => button.getAttribute('aria-keyshortcuts'))).toEqual(['1', '2', '3']);
    expect(document.activeElement).toBe(buttons[0]);
    expect(screen.getByText('Press a number to answer. Nothing runs until you do.')).toBeTruthy();
  });

  it('a click answers for the open conversation and gives the message box its focus back', async () => {
    render(<PermissionPrompt item={question()} agentName="Codex" toolKind="edit" />);
    const focusBefore = useBaton.getState().messageBoxFocus;
    fireEvent.click(screen.getByRole('button', { name: /Reject/ }));
    await settle();
    expect(calls).toEqual([{ method: 'answerPermission', params: { conversationId: 'conv-1', requestId: 'r1', optionId: 'no' } }]);
    expect(useBaton.getState().messageBoxFocus).toBe(focusBefore + 1);
  });

  it("an attempt's question is answered in the attempt's conversation, and the focus stays", async () => {
    render(
      <ConversationScope.Provider value="attempt-2">
        <PermissionPrompt item={question()} agentName="Qwen Code" toolKind="execute" />
      </ConversationScope.Provider>,
    );
    const focusBefore = useBaton.getState().messageBoxFocus;
    fireEvent.click(screen.getByRole('button', { name: /Allow once/ }));
    await settle();
    expect(calls[0]?.params).toEqual({ conversationId: 'attempt-2', requestId: 'r1', optionId: 'once' });
    expect(useBaton.getState().messageBoxFocus).toBe(focusBefore);
  });

  it('a number key answers from anywhere, but not while typing in a field, with a modifier, or past the options', async () => {
    render(
      <>
        <textarea aria-label="Message" />
        <PermissionPrompt item={question()} agentName="Claude Code" toolKind="execute" />
      </>,
    );
    const box = screen.getByRole('textbox', { name: 'Message' });
    fireEvent.keyDown(box, { key: '1' });
    fireEvent.keyDown(document.body, { key: '2', ctrlKey: true });
    fireEvent.keyDown(document.body, { key: '4' });
    await settle();
    expect(calls).toEqual([]);
    fireEvent.keyDown(document.body, { key: '2' });
    await settle();
    expect(calls).toEqual([{ method: 'answerPermission', params: { conversationId: 'conv-1', requestId: 'r1', optionId: 'always' } }]);
  });

  it('with two questions open, a key answers the one with focus; the other keeps its focus, shows no keys and takes none', async () => {
    render(
      <>
        <ConversationScope.Provider value="claude-attempt">
          <PermissionPrompt item={question({ title: 'claude: rm', requestId: 'rc' })} agentName="Claude Code" toolKind="execute" />
        </ConversationScope.Provider>
        <ConversationScope.Provider value="qwen-attempt">
          <PermissionPrompt item={question({ title: 'qwen: rm', requestId: 'rq' })} agentName="Qwen Code" toolKind="execute" />
        </ConversationScope.Provider>
      </>,
    );
    const claude = screen.getByRole('group', { name: 'Permission: claude: rm' });
    const qwen = screen.getByRole('group', { name: 'Permission: qwen: rm' });
    // Qwen's question came second: it did not take the focus from Claude's.
    expect(claude.contains(document.activeElement)).toBe(true);
    expect(qwen.querySelectorAll('kbd')).toHaveLength(0);
    expect(qwen.querySelector('button')?.getAttribute('aria-keyshortcuts')).toBeNull();
    expect(qwen.textContent).toContain('Several questions are open: move to this one to answer it with a number.');
    expect(claude.querySelectorAll('kbd')).toHaveLength(3);
    // From nowhere in particular, a key answers neither: two questions never share a key silently.
    (document.activeElement as HTMLElement).blur();
    fireEvent.keyDown(document.body, { key: '1' });
    await settle();
    expect(calls).toEqual([]);
    // The key goes to the question that has focus.
    fireEvent.focus(qwen.querySelector('button')!);
    fireEvent.keyDown(qwen.querySelector('button')!, { key: '1' });
    await settle();
    expect(calls.map((call) => call.params)).toEqual([{ conversationId: 'qwen-attempt', requestId: 'rq', optionId: 'once' }]);
  });

  it('inside the question its own keys answer; an open dialog keeps the number keys', async () => {
    render(
      <>
        <dialog open aria-label="Settings" />
        <PermissionPrompt item={question()} agentName="Claude Code" toolKind="execute" />
      </>,
    );
    fireEvent.keyDown(document.body, { key: '1' });
    await settle();
    expect(calls).toEqual([]);
    fireEvent.keyDown(screen.getByRole('group', { name: 'Permission: rm -rf build' }), { key: '3' });
    await settle();
    expect(calls.map((call) => (call.params as { optionId: string }).optionId)).toEqual(['no']);
  });

  it('answered: says what was chosen, offers no buttons to answer again, and points at Settings for an "always"', async () => {
    const openSettings = vi.fn(async () => {});
    useBaton.setState({ openSettings });
    const { rerender } = render(<PermissionPrompt item={answered('once')} agentName="Codex" toolKind="execute" />);
    expect(screen.getByText('✓ You chose: Allow once')).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
    fireEvent.keyDown(document.body, { key: '1' });
    await settle();
    expect(calls).toEqual([]);

    rerender(<PermissionPrompt item={answered('always')} agentName="Codex" toolKind="execute" />);
    expect(screen.getByText(/Codex remembers this answer\./)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Review or revoke it in Settings' }));
    expect(openSettings).toHaveBeenCalledWith('permissions');

    rerender(
      <PermissionPrompt
        item={answered('always', { revoked: { at: '2026-12-03T10:00:00Z', note: 'The agent keeps its own settings file.' } })}
        agentName="Codex"
        toolKind="execute"
      />,
    );
    expect(screen.getByText(/^Revoked .*Codex starts afresh for its next message.*The agent keeps its own settings file\.$/)).toBeTruthy();
  });

  it('a question withdrawn when the reply ended says so; an unknown kind of tool is "use a tool"', () => {
    render(<PermissionPrompt item={answered('gone')} agentName="pi" toolKind="other" />);
    expect(screen.getByText('✓ Withdrawn: the reply ended before an answer.')).toBeTruthy();
    expect(screen.getByText('pi wants to use a tool: rm -rf build')).toBeTruthy();
  });
});
