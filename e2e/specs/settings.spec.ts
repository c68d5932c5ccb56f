/**
 * The settings page in a real browser with the fake agent: an "always" answer listed under
 * Permissions and revoked (recorded in the conversation, the agent started afresh), every section
 * reachable by keyboard, Claude's own "Always Allow" revoked so that it asks again, the theme, the data folder, exporting every
 * conversation; and the web
 * host's "Working folder" field completing folder paths.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../fixtures/fakeAgentConfig.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { saveInstructions } from '../fixtures/instructionsDialog.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';

let host: WebHost | undefined;
let stub: ModelStub | undefined;

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
  await stub?.close();
  stub = undefined;
});

async function open(page: Page, options: { requireAuth?: boolean } = {}): Promise<string> {
  const dataDir = tempDir('e2e-settings');
  registerFakeAgent(dataDir, options);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await openStartingWith(page, host.url, FAKE_AGENT_ID);
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-settings-work'));
  return dataDir;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** The fake agent's process id, as it says it. */
async function agentPid(page: Page): Promise<string> {
  const replies = page.getByRole('article', { name: /^Fake/ });
  const before = await replies.count();
  await send(page, 'pid?');
  await expect(replies).toHaveCount(before + 1);
  await expect(replies.last()).toContainText(/Agent pid \d+/);
  return (await replies.last().innerText()).match(/Agent pid (\d+)/)![1]!;
}

test('an "always" answer is listed in Settings › Permissions and revoked there', async ({ page }) => {
  await open(page);
  const firstPid = await agentPid(page);
  await send(page, 'please ask permission');
  const question = page.getByRole('group', { name: 'Permission: Write notes.txt' });
  await question.getByRole('button', { name: /Always allow/ }).click();
  await expect(question).toContainText('✓ You chose: Always allow');
  await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Permission granted (allow-always).');
  await expect(question).toContainText('Fake remembers this answer.');
  await question.getByRole('button', { name: 'Review or revoke it in Settings' }).click();

  const settings = page.getByRole('main', { name: 'Settings' });
  await expect(settings.getByRole('tab', { name: 'Permissions' })).toHaveAttribute('aria-selected', 'true');
  const answers = settings.getByRole('list', { name: 'Always answers' });
  await expect(answers.getByRole('listitem')).toHaveCount(1);
  await expect(answers.getByRole('listitem', { name: 'Always allow — Fake: Write notes.txt' })).toContainText('Always allowed');
  await settings.getByRole('button', { name: 'Revoke Always allow for Fake: Write notes.txt' }).click();
  await expect(settings.getByRole('status')).toHaveText(
    'Fake starts afresh for its next message in this folder: rules it kept for the session are gone.',
  );
  await expect(settings).toContainText('You have given no “always” answers.');

  // Recorded in the conversation, and the next message runs in a new agent process.
  await settings.getByRole('button', { name: 'Close settings' }).click();
  await expect(page.getByRole('group', { name: 'Permission: Write notes.txt' })).toContainText(/Revoked .*: Fake starts afresh/);
  expect(await agentPid(page)).not.toBe(firstPid);
  // Still there after a reload (the list and the record are durable).
  await page.reload();
  await page.getByRole('list', { name: 'Conversations' }).getByRole('button').first().click();
  await expect(page.getByRole('group', { name: 'Permission: Write notes.txt' })).toContainText('Revoked');
});

test('Claude: "Always Allow" stops its questions until it is revoked in Settings; then Claude asks again', async ({ page }) => {
  test.setTimeout(240_000);
  const work = tempDir('e2e-settings-claude');
  stub = await startModelStub({
    reply: (request) => {
      if (request.jsonSchema !== undefined) {
        return undefined;
      }
      if (request.toolResult !== undefined) {
        return { kind: 'text', chunks: ['Saved.'] };
      }
      const file = /write (\w+)/.exec(request.lastUserText)?.[1];
      return file
        ? { kind: 'tool', name: 'Write', arguments: { file_path: path.join(work, `${file}.md`), content: `${file}\n` } }
        : { kind: 'text', chunks: ['Hello.'] };
    },
  });
  host = await startWebHost(tempDir('e2e-settings-claude-data'), allAgentsHome(stub.url));
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  const questions = page.getByRole('group', { name: /^Permission: / });
  const replies = page.getByRole('article', { name: 'Claude' });

  await send(page, 'please write one');
  await expect(questions).toHaveCount(1);
  // Every option Claude offered, allow-once first, the "always" one marked as remembered.
  // claude-agent-acp 0.101 names them "Yes", "Yes, allow all edits during this session", "No".
  await expect(questions.first().getByRole('button')).toHaveText([
    '1 Yes',
    '2 Yes, allow all edits during this session (remembered)',
    '3 No',
  ]);
  await expect(questions.first().getByRole('button', { name: /allow all edits/ })).toHaveClass(/\balways\b/);
  await questions
    .first()
    .getByRole('button', { name: /allow all edits/ })
    .click();
  await expect(replies.last()).toContainText('Saved.');
  expect(readFileSync(path.join(work, 'one.md'), 'utf8')).toBe('one\n');
  await expect(questions.first()).toContainText('Claude remembers this answer.');

  // Claude keeps the rule: the next edit runs without a question.
  await send(page, 'please write two');
  await expect(replies).toHaveCount(2);
  await expect(replies.last()).toContainText('Saved.');
  expect(readFileSync(path.join(work, 'two.md'), 'utf8')).toBe('two\n');
  await expect(questions).toHaveCount(1);

  await questions.first().getByRole('button', { name: 'Review or revoke it in Settings' }).click();
  const settings = page.getByRole('main', { name: 'Settings' });
  const answer = settings.getByRole('list', { name: 'Always answers' }).getByRole('listitem');
  await expect(answer).toHaveCount(1);
  await expect(answer).toContainText('Claude: Write');
  await answer.getByRole('button', { name: /^Revoke Yes, allow all edits during this session for Claude: Write/ }).click();
  // This Claude keeps the rule for the session only (nothing in .claude/settings.local.json), so nothing else is named.
  await expect(settings.getByRole('status')).toHaveText(
    'Claude starts afresh for its next message in this folder: rules it kept for the session are gone.',
  );
  await settings.getByRole('button', { name: 'Close settings' }).click();

  // Claude was started afresh: the same kind of edit is asked about again.
  await send(page, 'please write three');
  await expect(questions).toHaveCount(2);
  await questions.last().getByRole('button', { name: 'No', exact: true }).click();
  await expect(questions.last()).toContainText('✓ You chose: No');
});

test('every settings section by keyboard: agents, machines, toolboxes, instructions, appearance, data folder, export', async ({ page }) => {
  const dataDir = await open(page);
  await send(page, 'hello there');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello there');
  await page.getByRole('textbox', { name: 'Message' }).blur();
  await page.keyboard.press('Control+,');
  const settings = page.getByRole('main', { name: 'Settings' });
  await expect(settings.getByRole('heading', { name: 'Settings', level: 1 })).toBeFocused();
  const tabs = settings.getByRole('tablist', { name: 'Settings sections' });
  await expect(tabs.getByRole('tab')).toHaveText([
    'Agents',
    'Machines',
    'Toolboxes',
    'Instructions',
    'Permissions',
    'Notifications',
    'Appearance',
    'Data folder',
    'Export',
  ]);

  // Agents: the catalog, and on request what one can do.
  const fake = settings.getByRole('listitem', { name: 'Fake', exact: true });
  await expect(fake).toContainText('Ready:');
  await fake.getByRole('button', { name: 'Show what Fake can do' }).click();
  await expect(fake.getByRole('list', { name: 'What Fake can do' })).toBeVisible();

  // The arrow keys move between sections.
  await tabs.getByRole('tab', { name: 'Agents' }).focus();
  await page.keyboard.press('ArrowDown');
  await expect(tabs.getByRole('tab', { name: 'Machines' })).toBeFocused();
  // Machines: this computer, and one added by address (what ssh would read as an option is refused).
  const machines = settings.getByRole('tabpanel', { name: 'Machines' });
  await expect(machines.getByRole('list', { name: 'Machines' }).getByRole('listitem')).toHaveText([/^This computer/]);
  const address = machines.getByRole('textbox', { name: 'Machine address' });
  await address.fill('-oProxyCommand=sh');
  await machines.getByRole('button', { name: 'Add machine' }).click();
  await expect(machines.getByRole('alert')).toContainText('is not a machine Baton can reach');
  await address.fill('me@build.example:2222');
  await address.press('Enter');
  const added = machines.getByRole('listitem').filter({ hasText: 'me@build.example:2222' });
  await expect(added).toContainText('added here · not connected');
  await added.getByRole('button', { name: 'Remove me@build.example:2222' }).click();
  await expect(added).toHaveCount(0);
  await tabs.getByRole('tab', { name: 'Machines' }).focus();
  await page.keyboard.press('ArrowDown');
  await expect(tabs.getByRole('tab', { name: 'Toolboxes' })).toBeFocused();
  await expect(settings.getByRole('tabpanel', { name: 'Toolboxes' })).toContainText('No servers yet.');
  await page.keyboard.press('ArrowDown');
  const instructions = settings.getByRole('tabpanel', { name: 'Instructions' });
  await expect(instructions).toContainText('You have not written any instructions yet.');
  await instructions.getByRole('button', { name: 'Edit instructions…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Instructions' });
  await dialog.getByRole('textbox', { name: 'Your instructions' }).fill('Answer briefly.');
  await saveInstructions(dialog);
  await expect(dialog).toBeHidden();

  await tabs.getByRole('tab', { name: 'Appearance' }).click();
  await settings.getByRole('combobox', { name: 'Theme' }).selectOption({ label: 'Dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  await tabs.getByRole('tab', { name: 'Data folder' }).click();
  await expect(settings.getByLabel('Data folder path')).toHaveText(dataDir);
  // The turns so far kept checkpoints of their folder: the data folder says how much they take.
  await expect(settings.getByLabel('Checkpoints')).toContainText(
    /Checkpoints of working folders \(kept as long as their conversations\): \d+(\.\d)? (KB|MB)/,
  );

  await tabs.getByRole('tab', { name: 'Export' }).click();
  const download = page.waitForEvent('download');
  await settings.getByRole('button', { name: 'Export all conversations' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^baton-conversations-\d{4}-\d{2}-\d{2}\.md$/);
  expect(readFileSync(await file.path(), 'utf8')).toContain('Fake reply: hello there');
  await expect(page.getByRole('status').filter({ hasText: 'Exported 1 conversation' })).toBeVisible();

  // Escape goes back to the conversation; the instructions saved from Settings hold.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('main', { name: 'Settings' })).toBeHidden();
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello there');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByRole('tab', { name: 'Instructions' }).click();
  await expect(page.getByRole('tabpanel', { name: 'Instructions' })).toContainText('Answer briefly.');
});

test('Settings › Agents: the log-in methods an agent offers (in a terminal where it says so), and log out', async ({ page }) => {
  await open(page, { requireAuth: true });
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const fake = page.getByRole('main', { name: 'Settings' }).getByRole('listitem', { name: 'Fake', exact: true });
  await fake.getByRole('button', { name: 'Show what Fake can do' }).click();
  await expect(fake.getByRole('button', { name: 'Log in with Terminal login (in a terminal)' })).toBeVisible();
  await fake.getByRole('button', { name: 'Log in with Token' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Logged in to Fake.' })).toBeVisible();
  await fake.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Logged out of Fake.' })).toBeVisible();
});

test('the working folder field completes folder paths from the host', async ({ page }) => {
  await open(page);
  const root = tempDir('e2e-folders');
  mkdirSync(path.join(root, 'projects', 'baton'), { recursive: true });
  mkdirSync(path.join(root, 'projects', 'banana'));
  const field = page.getByRole('textbox', { name: 'Working folder' });
  await field.fill(path.join(root, 'projects', 'ba'));
  const folders = page.getByRole('listbox', { name: 'Folders' });
  await expect(folders.getByRole('option')).toHaveText([path.join(root, 'projects', 'banana'), path.join(root, 'projects', 'baton')]);
  await field.press('ArrowDown');
  await field.press('ArrowDown');
  await expect(folders.getByRole('option', { name: path.join(root, 'projects', 'baton') })).toHaveAttribute('aria-selected', 'true');
  await field.press('Enter');
  await expect(field).toHaveValue(path.join(root, 'projects', 'baton'));
  await expect(folders).toBeHidden();
  // Escape closes the suggestions and keeps what was typed.
  await field.fill(path.join(root, 'pro'));
  await expect(folders.getByRole('option')).toHaveText([path.join(root, 'projects')]);
  await field.press('Escape');
  await expect(folders).toBeHidden();
  await expect(field).toHaveValue(path.join(root, 'pro'));
});
