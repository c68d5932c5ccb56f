// @vitest-environment happy-dom
/**
 * Dialog "Rewind" as the person meets it: what is set aside, the files the agent changed that go
 * back, the person's own and those changed outside a turn put back only when ticked, what cannot
 * be put back, "the conversation only", and a folder with no checkpoint said plainly. Dialog
 * "Branch from here": where the branch works and what its files will be.
 */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Result } from '../../../app/ipc/index.js';
import { answers, calls, openConversation, resetStore, useBaton } from '../../store/testStore.js';
import { BranchDialog, RewindDialog } from './RewindDialog.js';

vi.mock('../../store/index.js', () => import('../../store/testStore.js'));

type Plan = Result<'previewRewind'>;
type PlannedFile = Plan['files'][number];

const file = (path: string, overrides: Partial<PlannedFile> = {}): PlannedFile => ({
  path,
  action: 'restored',
  changedByYou: false,
  outsideTurn: false,
  before: 'now\n',
  after: 'then\n',
  binary: false,
  ...overrides,
});

const plan = (overrides: Partial<Plan> = {}): Plan => ({
  setAside: [
    { turnId: 't2', text: 'Rename the module', at: '2026-12-03T10:00:00Z' },
    { turnId: 't3', text: 'Now add tests', at: '2026-12-03T10:05:00Z' },
  ],
  files: [
    file('src/agent.ts'),
    file('src/new.ts', { action: 'removed', after: null }),
    file('logo.png', { binary: true, before: null, after: null }),
    file('src/yours.ts', { changedByYou: true }),
    file('notes.md', { outsideTurn: true, action: 'recreated', before: null }),
  ],
  cannot: [{ path: 'big.bin', reason: 'over the size limit, not kept' }],
  unavailable: null,
  ...overrides,
});

const opened = async (preview: Plan): Promise<void> => {
  answers.previewRewind = () => preview;
  await act(async () => {
    await useBaton.getState().openRewind('t2');
  });
};

beforeEach(() => {
  resetStore();
  openConversation('c1');
});
afterEach(cleanup);

describe('RewindDialog', () => {
  it('lists what is set aside and the files the agent changed; rewinds with the ticked files of yours', async () => {
    render(<RewindDialog />);
    await opened(plan());
    const dialog = screen.getByRole('dialog', { name: 'Rewind' });
    const aside = within(dialog).getByRole('list', { name: 'Messages that will be set aside' });
    expect(
      within(aside)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Rename the module', 'Now add tests']);
    const files = within(dialog).getByRole('list', { name: 'Files that will change' });
    expect(
      within(files)
        .getAllByRole('listitem')
        .map((item) => item.getAttribute('aria-label')),
    ).toEqual(['src/agent.ts: restored', 'src/new.ts: removed', 'logo.png: restored']);
    expect(within(files).getByText(/\(not text\)/)).toBeTruthy();
    expect(within(dialog).getByText('These cannot be put back: big.bin (over the size limit, not kept).')).toBeTruthy();

    const yours = within(dialog).getByRole('checkbox', { name: 'Overwrite src/yours.ts (restored)' });
    const outside = within(dialog).getByRole('checkbox', { name: 'Put back notes.md (recreated)' });
    expect(yours.getAttribute('aria-checked')).toBe('false');
    expect(outside.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(outside);

    answers.rewindConversation = () => ({ rewindId: 'rw1', text: 'Rename the module', changed: [], failed: [] });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Rewind' }));
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(calls.at(-1)).toEqual({
      method: 'rewindConversation',
      params: { conversationId: 'c1', turnId: 't2', keepFiles: false, overwrite: ['notes.md'] },
    });
    expect(screen.queryByRole('dialog', { name: 'Rewind' })).toBeNull();
    expect(JSON.stringify(useBaton.getState().composer)).toContain('Rename the module');
  });

  it('"the conversation only" keeps the files and hides the list', async () => {
    render(<RewindDialog />);
    await opened(plan());
    fireEvent.click(screen.getByRole('checkbox', { name: /Rewind the conversation only and keep the files as they are/ }));
    expect(screen.queryByRole('list', { name: 'Files that will change' })).toBeNull();
    expect(useBaton.getState().rewindDialog?.keepFiles).toBe(true);
  });

  it('with no checkpoint before the message, says why and rewinds the conversation only', async () => {
    render(<RewindDialog />);
    await opened(plan({ files: [], cannot: [], unavailable: 'No checkpoint was taken before this message.' }));
    expect(screen.getByText('No checkpoint was taken before this message.')).toBeTruthy();
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(useBaton.getState().rewindDialog?.keepFiles).toBe(true);
  });

  it('while the plan is asked for, says so and cannot be confirmed; a failure is said in the dialog', async () => {
    render(<RewindDialog />);
    let answer: (plan: Plan) => void = () => {};
    answers.previewRewind = () => new Promise<Plan>((resolve) => (answer = resolve));
    let opening: Promise<void> = Promise.resolve();
    act(() => {
      opening = useBaton.getState().openRewind('t2');
    });
    expect(screen.getByText('Comparing the folder with its checkpoints…')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Rewind' }).disabled).toBe(true);
    await act(async () => {
      answer(plan({ files: [] }));
      await opening;
    });
    expect(screen.getByText('No file the agent changed needs to be put back.')).toBeTruthy();

    answers.rewindConversation = () => {
      throw new Error('A turn is running in this conversation.');
    };
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Rewind' }));
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(screen.getByText('A turn is running in this conversation.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog', { name: 'Rewind' })).toBeNull();
  });
});

describe('BranchDialog', () => {
  it('says where the branch works and what its files will be, as the boxes are ticked', () => {
    useBaton.setState({
      branchDialog: {
        conversationId: 'c1',
        turnId: 't2',
        agentId: 'claude',
        ownCopy: false,
        restoreFiles: false,
        busy: false,
        problem: null,
      },
    } as never);
    render(<BranchDialog />);
    const dialog = screen.getByRole('dialog', { name: 'Branch from here' });
    expect(within(dialog).getByText('The branch works in this folder, as this conversation does.')).toBeTruthy();
    expect(within(dialog).getByText('The files stay as they are now.')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /Restore the files of that point in this folder/ }));
    expect(within(dialog).getByText(/The files the agent changed after that point are put back as they were then/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /In its own copy of the folder/ }));
    expect(within(dialog).getByText(/The branch works in a copy of its own/)).toBeTruthy();
    expect(within(dialog).getByText('The copy holds the files as they were before this message.')).toBeTruthy();
    expect(within(dialog).getByRole('checkbox', { name: /Start the copy from the files of that point/ })).toBeTruthy();
  });
});
