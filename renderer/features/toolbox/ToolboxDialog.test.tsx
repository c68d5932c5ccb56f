// @vitest-environment happy-dom
/**
 * Dialog "Toolbox" as the person meets it: a checkbox per server (changing the conversation's
 * servers), a whole command line pasted into Command saved split, an edited server's secret kept
 * unless a new value is typed, the imports found with what each needs, removing a server after
 * being told who uses it, and the tools each server offers the agent.
 */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testServer } from '../../store/testCatalog.js';
import type { ImportCandidate } from '../../../app/ipc/index.js';
import { answers, calls, openConversation, resetStore, useBaton, settle } from '../../store/testStore.js';
import type { BatonState } from '../../store/types.js';
import { ToolboxDialog } from './ToolboxDialog.js';

vi.mock('../../store/index.js', () => import('../../store/testStore.js'));

const server = testServer;

const servers = [
  server('files'),
  server('github', { env: [{ name: 'GITHUB_TOKEN', secret: true }] }),
  server('web', { transport: 'http', command: undefined, args: [], url: 'https://mcp.example.com/mcp' }),
];

/** Opens the dialog for conversation c1, which uses `files`. */
const openDialog = async (): Promise<HTMLElement> => {
  openConversation('c1');
  useBaton.setState({
    transcripts: { c1: { state: { toolbox: { servers: [{ serverId: 'files', name: 'files', transport: 'stdio' }], digest: 'd' } } } },
  } as unknown as Partial<BatonState>);
  render(<ToolboxDialog />);
  await act(async () => {
    await useBaton.getState().openToolbox();
  });
  return screen.getByRole('dialog', { name: 'Toolbox' });
};

beforeEach(() => {
  resetStore();
  answers.listToolbox = () => ({ servers, toolboxes: [{ toolboxId: 't', name: 'Research', serverIds: ['web'], isDefault: true }] });
  answers.listConversationTools = () => ({
    servers: [
      { name: 'files', transport: 'stdio', tools: ['read_file', 'write_file'], error: null, calledByAgent: [] },
      {
        name: 'web',
        transport: 'http',
        tools: [],
        error: 'Could not reach https://mcp.example.com/mcp: connection refused.',
        calledByAgent: [],
      },
    ],
    onDemand: null,
  });
  answers.setConversationToolbox = () => ({});
});
afterEach(cleanup);

describe('ToolboxDialog', () => {
  it("checks the conversation's servers, changes them with a click, and shows the tools each offers", async () => {
    const dialog = await openDialog();
    const list = within(dialog).getByRole('list', { name: 'Servers' });
    expect(within(list).getByRole('checkbox', { name: 'files' }).getAttribute('aria-checked')).toBe('true');
    expect(within(list).getByRole('checkbox', { name: 'github' }).getAttribute('aria-checked')).toBe('false');
    expect(within(list).getByText('http · https://mcp.example.com/mcp')).toBeTruthy();
    expect(within(list).getByRole('checkbox', { name: 'Run web through a local bridge' })).toBeTruthy();
    const tools = within(dialog).getByRole('list', { name: 'Tools this agent sees' });
    expect(within(tools).getByText(/read_file, write_file/)).toBeTruthy();
    expect(within(tools).getByRole('alert').textContent).toBe('Could not reach https://mcp.example.com/mcp: connection refused.');
    expect(within(tools).getByText('(the agent has not called any of them yet)', { exact: false })).toBeTruthy();

    fireEvent.click(within(list).getByRole('checkbox', { name: 'github' }));
    await settle();
    expect(calls.find((call) => call.method === 'setConversationToolbox')?.params).toEqual({
      conversationId: 'c1',
      serverIds: ['files', 'github'],
    });
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Toolbox set' }), { target: { value: 't' } });
    await settle();
    expect(calls.filter((call) => call.method === 'setConversationToolbox').at(-1)?.params).toEqual({
      conversationId: 'c1',
      serverIds: ['web'],
    });
  });

  it('a whole command line pasted into Command is shown split, and saved split', async () => {
    answers.addServer = ({ server: input }) => ({ server: server('notes', { name: input.name }) });
    const dialog = await openDialog();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add server' }));
    const form = within(dialog).getByRole('group', { name: 'New server' });
    fireEvent.change(within(form).getByRole('textbox', { name: 'Name' }), { target: { value: 'Notes' } });
    fireEvent.change(within(form).getByRole('textbox', { name: 'Command' }), { target: { value: 'npx -y "@acme/notes mcp" --dir /tmp' } });
    expect(within(form).getByRole('note').textContent).toContain('This looks like a whole command line.');
    fireEvent.click(within(form).getByRole('button', { name: 'Save server' }));
    await settle();
    expect(calls.find((call) => call.method === 'addServer')?.params).toMatchObject({
      server: { name: 'Notes', transport: 'stdio', command: 'npx', args: ['-y', '@acme/notes mcp', '--dir', '/tmp'] },
    });
  });

  it('an edited server keeps its secret unless a new value is typed; a network server asks for a URL and headers', async () => {
    answers.updateServer = () => ({ server: servers[1]! });
    const dialog = await openDialog();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Edit github' }));
    const form = within(dialog).getByRole('group', { name: 'Edit github' });
    expect(within(form).getByRole<HTMLInputElement>('textbox', { name: 'Variable name' }).value).toBe('GITHUB_TOKEN');
    fireEvent.click(within(form).getByRole('button', { name: 'Save changes' }));
    await settle();
    expect(calls.find((call) => call.method === 'updateServer')?.params).toMatchObject({
      serverId: 'github',
      server: { env: [{ name: 'GITHUB_TOKEN', value: '', secret: true, keep: true }] },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add server' }));
    const added = within(dialog).getByRole('group', { name: 'New server' });
    fireEvent.change(within(added).getByRole('combobox', { name: 'Transport' }), { target: { value: 'http' } });
    expect(within(added).getByRole('textbox', { name: 'URL' })).toBeTruthy();
    expect(within(added).queryByRole('textbox', { name: 'Command' })).toBeNull();
    fireEvent.click(within(added).getByRole('button', { name: 'Add header' }));
    expect(within(added).getByRole('group', { name: 'Header 1' })).toBeTruthy();
  });

  it('lists the servers an import found, with what each needs, and imports the ones chosen', async () => {
    const found: ImportCandidate[] = [
      {
        candidateId: 'a',
        name: 'postgres',
        transport: 'stdio',
        summary: 'npx pg-mcp',
        dialect: 'Claude Code',
        file: '/home/me/.claude.json',
        key: 'mcpServers.postgres',
        secretNames: ['PGPASSWORD'],
        needsInput: [{ inputId: 'db', description: 'Database URL', password: true }],
        notCarried: ['timeout'],
        alreadyInCatalog: false,
      },
      {
        candidateId: 'b',
        name: 'files',
        transport: 'stdio',
        summary: 'npx files-mcp',
        dialect: 'Cursor',
        file: '/home/me/.cursor/mcp.json',
        key: 'files',
        secretNames: [],
        needsInput: [],
        notCarried: [],
        alreadyInCatalog: true,
      },
    ];
    answers.scanServerImports = () => ({
      candidates: found,
      problems: [{ file: '/home/me/.gemini/settings.json', message: 'settings.json is not JSON.' }],
    });
    answers.importServers = () => ({ servers: [] });
    const dialog = await openDialog();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Import servers' }));
    await settle();
    const section = within(dialog).getByRole('region', { name: 'Servers found' });
    expect(within(section).getByText('settings.json is not JSON.')).toBeTruthy();
    expect(within(section).getByText(/kept encrypted: PGPASSWORD — not carried over: timeout/)).toBeTruthy();
    expect(within(section).getByRole<HTMLButtonElement>('checkbox', { name: 'files' }).disabled).toBe(true);
    const importButton = within(section).getByRole<HTMLButtonElement>('button', { name: 'Import selected' });
    expect(importButton.disabled).toBe(true);
    fireEvent.click(within(section).getByRole('checkbox', { name: 'postgres' }));
    fireEvent.change(within(section).getByLabelText('Database URL'), { target: { value: 'postgres://localhost/db' } });
    fireEvent.click(importButton);
    await settle();
    expect(calls.find((call) => call.method === 'importServers')?.params).toEqual({
      candidateIds: ['a'],
      inputs: { db: 'postgres://localhost/db' },
    });
  });

  it('removing a server says which conversations lose it; Keep it leaves it', async () => {
    answers.listServerUsage = () => ({
      conversations: [
        { conversationId: 'c1', title: 'Fix the build' },
        { conversationId: 'c2', title: 'Docs' },
      ],
    });
    const dialog = await openDialog();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove files' }));
    await settle();
    const question = within(dialog).getByRole('group', { name: 'Remove files?' });
    expect(question.textContent).toContain('2 conversations use files: “Fix the build”, “Docs”. They lose it');
    fireEvent.click(within(question).getByRole('button', { name: 'Keep it' }));
    expect(within(dialog).queryByRole('group', { name: 'Remove files?' })).toBeNull();
    expect(calls.some((call) => call.method === 'removeServer')).toBe(false);
  });

  it('for the next message going to an agent without tools, says none of these reach it', async () => {
    useBaton.setState({
      nextAgent: { c1: 'pi' },
      agents: [{ agentId: 'pi', displayName: 'pi', usesTools: false }],
    } as unknown as Partial<BatonState>);
    const dialog = await openDialog();
    expect(
      within(dialog).getByText('None: your next message goes to pi, which uses no MCP servers, so none of these reach it.'),
    ).toBeTruthy();
  });
});
