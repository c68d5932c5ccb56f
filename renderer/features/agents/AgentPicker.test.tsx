// @vitest-environment happy-dom
/** Combobox "Agent" while the list of agents is still on its way: what the person typed stays theirs. */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { agentInfoSchema, type AgentInfo } from '../../../app/agents/agentInfo.js';
import { AgentPicker } from './AgentPicker.js';

const agent = (agentId: string, displayName: string): AgentInfo =>
  agentInfoSchema.parse({ agentId, displayName, source: 'builtin', command: agentId, available: true });

afterEach(cleanup);

describe('AgentPicker', () => {
  it('keeps what was typed when the agents arrive while the picker is open, and lists the matches', () => {
    const onChange = (): void => undefined;
    const { rerender } = render(<AgentPicker agents={[]} value="claude" onChange={onChange} />);
    const box = screen.getByRole<HTMLInputElement>('combobox', { name: 'Agent' });
    fireEvent.click(box);
    fireEvent.change(box, { target: { value: 'Cla' } });
    rerender(<AgentPicker agents={[agent('claude', 'Claude'), agent('codex', 'Codex')]} value="claude" onChange={onChange} />);
    expect(box.value).toBe('Cla');
    expect(screen.getAllByRole('option').map((option) => option.getAttribute('aria-label'))).toEqual(['Claude']);
  });

  it("shows the chosen agent's name when the agents arrive with the picker closed", () => {
    const onChange = (): void => undefined;
    const { rerender } = render(<AgentPicker agents={[]} value="claude" onChange={onChange} />);
    rerender(<AgentPicker agents={[agent('claude', 'Claude'), agent('codex', 'Codex')]} value="claude" onChange={onChange} />);
    expect(screen.getByRole<HTMLInputElement>('combobox', { name: 'Agent' }).value).toBe('Claude');
  });
});
