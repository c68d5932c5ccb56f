/**
 * The person's permission mode wins: a session that starts in a mode where the agent decides on
 * its own, which the person did not pick, is set to the asking mode (said in the agent's own
 * words); one the person picked is kept; an agent that switches itself into such a mode is
 * switched back and the transcript says so; a value the agent does not offer is refused.
 */
import { describe, expect, it, vi } from 'vitest';
import type { EventDraft } from '../../../app/events/index.js';
import type { AgentConnection } from '../acp/AgentConnection.js';
import { MODE_OPTION_ID, withCurrentMode, type SessionOption } from '../acp/sessionOptions.js';
import { SessionModes } from './SessionModes.js';

const modeOption = (current: string): SessionOption => ({
  id: MODE_OPTION_ID,
  name: 'Mode',
  category: 'mode',
  type: 'select',
  currentValue: current,
  options: [
    { value: 'read-only', name: 'Read Only', description: 'Requires approval to edit files and run commands.' },
    { value: 'agent', name: 'Agent' },
    { value: 'agent-full-access', name: 'Agent (full access)' },
  ],
});
const model: SessionOption = {
  id: 'model',
  name: 'Model',
  type: 'select',
  currentValue: 'gpt-5',
  options: [
    { value: 'gpt-5', name: 'GPT-5' },
    { value: 'gpt-5-mini', name: 'GPT-5 mini' },
  ],
};

/** Codex's session: its options, a connection that sets them, and what was committed. */
function codexSession(startMode: string) {
  const committed: EventDraft[][] = [];
  const logged: string[] = [];
  const setOption = vi.fn((_sessionId: string, current: SessionOption[], optionId: string, value: string) =>
    Promise.resolve(
      optionId === MODE_OPTION_ID
        ? withCurrentMode(current, value)
        : current.map((option) => (option.id === optionId ? { ...option, currentValue: value } : option)),
    ),
  );
  const connection = { setOption, exited: false } as unknown as AgentConnection;
  const modes = new SessionModes({
    agentName: 'Codex',
    modes: { asking: 'read-only', selfApproving: ['agent', 'agent-full-access'] },
    owner: {
      commit: (drafts) => committed.push(drafts),
      activeTurnId: () => 'turn-1',
      onExit: () => {},
      log: (message) => logged.push(message),
    },
    connection: () => connection,
    sessionId: () => 's1',
  });
  modes.reported([modeOption(startMode), model]);
  return { modes, setOption, committed, logged };
}

/** Lets the switch back (started without waiting) finish. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('SessionModes', () => {
  it('marks the self-approving modes, and sets a session started in one to the asking mode, in its own words', async () => {
    const { modes, setOption } = codexSession('agent-full-access');
    const marked = modes.current.find((option) => option.id === MODE_OPTION_ID)!.options;
    expect(marked.map((value) => [value.value, value.selfApproving === true])).toEqual([
      ['read-only', false],
      ['agent', true],
      ['agent-full-access', true],
    ]);
    const drafts = await modes.keepAsking('s1', undefined);
    expect(setOption).toHaveBeenCalledWith('s1', expect.any(Array), MODE_OPTION_ID, 'read-only');
    expect(drafts).toEqual([
      {
        type: 'notice',
        payload: {
          severity: 'info',
          text: 'Codex started this session in Agent (full access), where it decides without asking you. Baton set it to Read Only (Codex: “Requires approval to edit files and run commands”); pick another mode in the Mode menu if you want one.',
        },
      },
    ]);
    expect(modes.current.find((option) => option.id === MODE_OPTION_ID)?.currentValue).toBe('read-only');
  });

  it('keeps a self-approving mode the person picked, and leaves an asking one alone', async () => {
    const picked = codexSession('agent');
    expect(await picked.modes.keepAsking('s1', 'agent')).toEqual([]);
    expect(picked.setOption).not.toHaveBeenCalled();
    expect(picked.modes.pickedIn({ [MODE_OPTION_ID]: 'agent', model: 'gpt-5' })).toBe('agent');
    const asking = codexSession('read-only');
    expect(await asking.modes.keepAsking('s1', undefined)).toEqual([]);
  });

  it('an agent that switches itself into a self-approving mode is switched back, and the transcript says so', async () => {
    const { modes, setOption, committed } = codexSession('read-only');
    await modes.keepAsking('s1', undefined);
    expect(modes.onUpdate({ sessionUpdate: 'current_mode_update', currentModeId: 'agent' } as never)).toBe(true);
    await settle();
    expect(setOption).toHaveBeenLastCalledWith('s1', expect.any(Array), MODE_OPTION_ID, 'read-only');
    expect(committed[0]).toEqual([{ type: 'session.options', payload: { options: expect.any(Array) } }]);
    expect(committed[1]?.[1]).toEqual({
      type: 'notice',
      payload: {
        turnId: 'turn-1',
        severity: 'warning',
        text: 'Codex switched itself to Agent, where it decides without asking you. Baton switched it back to Read Only (Codex: “Requires approval to edit files and run commands”).',
      },
    });
    expect(modes.onUpdate({ sessionUpdate: 'agent_message_chunk' } as never)).toBe(false);
  });

  it('the person choosing a self-approving mode keeps it; a value the agent does not offer is refused', async () => {
    const { modes, committed } = codexSession('read-only');
    expect(await modes.choose('s1', MODE_OPTION_ID, 'agent')).toMatchObject({ type: 'session.options' });
    modes.onUpdate({ sessionUpdate: 'current_mode_update', currentModeId: 'agent' } as never);
    await settle();
    expect(committed.flat().some((draft) => draft.type === 'notice')).toBe(false);
    await expect(modes.choose('s1', 'model', 'gpt-9')).rejects.toThrow('Codex does not offer "gpt-9" for Model.');
    await expect(modes.choose('s1', 'effort', 'high')).rejects.toThrow('Codex does not offer "high" for effort.');
  });

  it('a failed switch back is logged, not thrown', async () => {
    const { modes, setOption, logged } = codexSession('read-only');
    setOption.mockImplementationOnce(() => Promise.reject(new Error('Method not found')));
    modes.onUpdate({ sessionUpdate: 'current_mode_update', currentModeId: 'agent-full-access' } as never);
    await settle();
    expect(logged).toEqual(['could not switch Codex back to read-only: Error: Method not found']);
  });

  it('a session just bound records its options after setting the asking mode; the choices the person made are applied again', async () => {
    const { modes, setOption } = codexSession('read-only');
    const drafts = await modes.bound('s1', [modeOption('agent'), model], {});
    expect(drafts.map((draft) => draft.type)).toEqual(['notice', 'session.options']);
    expect(modes.current.find((option) => option.id === MODE_OPTION_ID)?.currentValue).toBe('read-only');
    setOption.mockClear();
    const applied = await modes.applyChoices('s1', { model: 'gpt-5-mini', [MODE_OPTION_ID]: 'read-only', gone: 'x' });
    // Only what differs is set; an option the session no longer has is left out.
    expect(setOption.mock.calls.map((call) => [call[2], call[3]])).toEqual([['model', 'gpt-5-mini']]);
    expect(applied).toEqual([{ type: 'session.options', payload: { options: expect.any(Array) } }]);
    expect(modes.current.find((option) => option.id === 'model')?.currentValue).toBe('gpt-5-mini');
  });

  it('a choice that cannot be applied again is said in a notice, and the others still are', async () => {
    const { modes, setOption } = codexSession('read-only');
    setOption.mockImplementationOnce(() => Promise.reject(new Error('Method not found')));
    const applied = await modes.applyChoices('s1', { model: 'gpt-5-mini', [MODE_OPTION_ID]: 'agent' });
    expect(applied).toEqual([
      {
        type: 'notice',
        payload: { severity: 'warning', text: 'Your choice of Model could not be applied again: Method not found' },
      },
      { type: 'session.options', payload: { options: expect.any(Array) } },
    ]);
    expect(modes.current.find((option) => option.id === MODE_OPTION_ID)?.currentValue).toBe('agent');
  });
});
