// @vitest-environment happy-dom
/**
 * Dialog "Instructions" as the person meets it: their own, the agent profile's and the
 * conversation's texts each with its intent, what the agent receives and at what level (a part
 * that cannot reach it said), the injectors to choose, the folder's instructions to trust, the
 * agent's switches, and on Save the agents that would refuse them with their ways out.
 */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InstructionPreview } from '../../../app/ipc/index.js';
import { agentInfoSchema } from '../../../app/agents/agentInfo.js';
import { answers, calls, resetStore, useBaton, settle } from '../../store/testStore.js';
import { InstructionsDialog } from './InstructionsDialog.js';

vi.mock('../../store/index.js', () => import('../../store/testStore.js'));

/** What the host answers for Claude: the person's text added to the system prompt, one injector, a folder not trusted yet. */
const preview = (overrides: Partial<InstructionPreview> = {}): InstructionPreview => ({
  agentId: 'claude',
  agentName: 'Claude Code',
  parts: [
    {
      source: 'person',
      sourceName: 'Your instructions',
      intent: 'append',
      text: 'Be brief.',
      level: { kind: 'system-added' },
      label: 'added to its system prompt',
      sha256: 'a'.repeat(64),
    },
  ],
  perTurn: [],
  injectors: {
    available: [
      {
        name: 'house-style',
        description: 'How we write.',
        timing: 'every_turn',
        timingName: 'every turn',
        origin: 'data',
        folder: '/home/me/.baton/injectors/house-style',
        ignored: ['tools'],
        selected: false,
      },
    ],
    broken: [
      {
        name: 'broken-one',
        origin: 'folder',
        folder: '.agents/instructions/broken-one',
        problem: 'its manifest is not JSON',
        selected: true,
      },
    ],
    off: false,
  },
  sha256: 'b'.repeat(64),
  fragment: 'delivered',
  settings: { off: false, contextAsText: false, commandLineAccepted: false },
  channels: {},
  commandLine: false,
  refusal: null,
  profile: { text: '', intent: 'append', revision: 0 },
  project: {
    state: 'untrusted',
    folder: '/work',
    text: 'Use tabs.',
    sha256: 'c'.repeat(64),
    problem: null,
    trustedText: null,
    injectors: [],
    changes: [],
  },
  ...overrides,
});

const agent = (agentId: string) =>
  agentInfoSchema.parse({ agentId, displayName: agentId, source: 'builtin', command: agentId, available: true });

beforeEach(() => {
  resetStore();
  useBaton.setState({ agents: [agent('claude'), agent('gemini')], draft: { agentId: 'claude', cwd: '/work' } } as never);
  answers.getInstructions = () => ({ person: { text: 'Be brief.', intent: 'append' }, conversation: null, injectors: null });
  answers.previewInstructions = ({ agentId }) => ({
    preview:
      agentId === 'gemini'
        ? preview({
            agentId: 'gemini',
            agentName: 'Gemini CLI',
            refusal: 'Gemini CLI cannot add to its own prompt; replace it instead',
            commandLine: true,
          })
        : preview(),
  });
});
afterEach(cleanup);

const open = async (): Promise<HTMLElement> => {
  render(<InstructionsDialog />);
  await act(async () => {
    await useBaton.getState().openInstructions();
  });
  await settle();
  return screen.getByRole('dialog', { name: 'Instructions' });
};

describe('InstructionsDialog', () => {
  it('shows each text with its intent, and what the agent receives at which level', async () => {
    const dialog = await open();
    expect(within(dialog).getByRole<HTMLTextAreaElement>('textbox', { name: 'Your instructions' }).value).toBe('Be brief.');
    const intent = within(dialog).getByRole('radiogroup', { name: 'Your instructions' });
    expect(within(intent).getByRole<HTMLInputElement>('radio', { name: "Add to the agent's prompt" }).checked).toBe(true);
    expect(within(dialog).getByRole('textbox', { name: 'Instructions for Claude Code' })).toBeTruthy();
    expect(within(dialog).getByText('(its profile, not written yet)')).toBeTruthy();
    const delivery = within(dialog).getByRole('region', { name: 'Delivery preview' });
    expect(within(delivery).getByText('What Claude Code receives')).toBeTruthy();
    expect(delivery.textContent).toContain('Your instructions: added to its system prompt');
    expect(delivery.textContent).toContain("Baton's note (that the conversation may pass between agents): added");

    fireEvent.change(within(dialog).getByRole('textbox', { name: "This conversation's instructions" }), {
      target: { value: 'Write tests first.' },
    });
    fireEvent.click(
      within(within(dialog).getByRole('radiogroup', { name: "This conversation's instructions" })).getByRole('radio', {
        name: "Replace the agent's prompt",
      }),
    );
    await settle();
    expect(calls.filter((call) => call.method === 'previewInstructions').at(-1)?.params).toMatchObject({
      agentId: 'claude',
      conversation: { text: 'Write tests first.', intent: 'replace' },
      cwd: '/work',
    });
  });

  it('offers the injectors, says what an injector cannot use, and a broken one that was chosen can be deselected', async () => {
    const dialog = await open();
    const list = within(dialog).getByRole('list', { name: 'Injectors' });
    expect(list.textContent).toContain('every turn; your instructions folder (/home/me/.baton/injectors/house-style). How we write.');
    expect(list.textContent).toContain('Its manifest also names tools: ignored, an injector contributes only text.');
    fireEvent.click(within(list).getByRole('checkbox', { name: 'house-style' }));
    await settle();
    expect(useBaton.getState().instructionsDialog?.injectors.names).toEqual(['house-style']);
    expect(within(dialog).getByRole('alert').textContent).toContain(
      'Injector broken-one (.agents/instructions/broken-one) cannot be used: its manifest is not JSON',
    );
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Turn all injectors off for this conversation' }));
    await settle();
    expect(within(list).getByRole<HTMLButtonElement>('checkbox', { name: 'house-style' }).disabled).toBe(true);
  });

  it("shows the folder's instructions as not trusted, and trusting them is one click", async () => {
    answers.setFolderTrust = () => ({});
    const dialog = await open();
    const folder = within(dialog).getByRole('region', { name: "This folder's instructions" });
    expect(folder.textContent).toContain('/work: .baton/instructions.md — not trusted: it contributes nothing.');
    expect(within(folder).getByText('Use tabs.')).toBeTruthy();
    fireEvent.click(within(folder).getByRole('button', { name: 'Trust this folder' }));
    await settle();
    expect(calls.find((call) => call.method === 'setFolderTrust')?.params).toEqual({ cwd: '/work', trusted: true, sha256: 'c'.repeat(64) });
  });

  it("a part the agent cannot take is said, and the agent's switches apply to it", async () => {
    answers.previewInstructions = () => ({
      preview: preview({
        parts: [{ ...preview().parts[0]!, level: { kind: 'refused', reason: 'no channel' } as never }],
        refusal: 'Claude Code cannot take a replaced prompt',
        commandLine: true,
      }),
    });
    answers.setAgentInstructionSettings = () => ({});
    const dialog = await open();
    expect(within(dialog).getByText(/Cannot reach Claude Code at the level asked for\./)).toBeTruthy();
    expect(within(dialog).getByText('Claude Code would refuse this: Claude Code cannot take a replaced prompt.')).toBeTruthy();
    expect(within(dialog).getByText(/Baton's note/).parentElement?.textContent).toContain('not sent while a part is refused');
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /Let Claude Code take them on its command line/ }));
    await settle();
    expect(calls.find((call) => call.method === 'setAgentInstructionSettings')?.params).toEqual({
      agentId: 'claude',
      settings: { commandLineAccepted: true },
    });
  });

  it('on Save, lists the agents that would refuse them with their ways out; Save anyway saves', async () => {
    answers.saveInstructions = () => ({});
    answers.setAgentInstructionSettings = () => ({});
    const dialog = await open();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await settle();
    const refusing = within(dialog).getByRole('list', { name: 'Agents that cannot take these instructions' });
    expect(refusing.textContent).toContain('Gemini CLI: Gemini CLI cannot add to its own prompt; replace it instead.');
    const choices = within(refusing).getByRole('group', { name: 'Choices for Gemini CLI' });
    fireEvent.click(within(choices).getByRole('button', { name: 'Allow for Gemini CLI' }));
    await settle();
    expect(calls.find((call) => call.method === 'setAgentInstructionSettings')?.params).toEqual({
      agentId: 'gemini',
      settings: { commandLineAccepted: true },
    });
    expect(calls.some((call) => call.method === 'saveInstructions')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save anyway' }));
    await settle();
    expect(calls.some((call) => call.method === 'saveInstructions')).toBe(true);
  });
});
