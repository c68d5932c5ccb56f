/**
 * Everyday use (what a new user tripped over), in the page with the fake agent: a new
 * conversation starts in the folder the last one was started in, after a reload too.
 */
import { expect, test } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { registerFakeAgent } from '../fixtures/fakeAgentConfig.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';

let host: WebHost | undefined;

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
});

test('a new conversation starts in the folder the last one was started in, not the home folder', async ({ page }) => {
  const dataDir = tempDir('e2e-everyday');
  registerFakeAgent(dataDir);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await page.goto(host.url);
  const folder = page.getByRole('textbox', { name: 'Working folder' });
  const work = tempDir('e2e-everyday-work');
  await expect(folder).not.toHaveValue('');
  await expect(folder).not.toHaveValue(work);
  await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Fake' });
  await folder.fill(work);
  await page.getByRole('textbox', { name: 'Message' }).fill('hello');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello');

  await page.reload();
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page.getByRole('textbox', { name: 'Working folder' })).toHaveValue(work);
});

test('a waiting permission question is answered by its number key wherever focus is, unless the person is typing', async ({ page }) => {
  const dataDir = tempDir('e2e-everyday-keys');
  registerFakeAgent(dataDir);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await page.goto(host.url);
  await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Fake' });
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-everyday-keys-work'));
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('permission please');
  await message.press('Enter');
  const question = page.getByRole('group', { name: /^Permission: / });
  await expect(question.getByRole('button').first()).toBeFocused();

  // Typing in the message box: the number is the person's text, not an answer.
  await message.focus();
  await page.keyboard.press('2');
  await expect(message).toHaveValue('2');
  await expect(question).toContainText('Press a number to answer');

  // Focus elsewhere (on the conversation list): the key answers.
  await page.getByRole('button', { name: 'New conversation' }).focus();
  await page.keyboard.press('1');
  await expect(question).toContainText('You chose:');
  await expect(question).toContainText('You chose: Allow once');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Permission granted (allow).');
});

test('a permission question shows what the tool will be given: its arguments, or the command it runs', async ({ page }) => {
  const dataDir = tempDir('e2e-everyday-input');
  registerFakeAgent(dataDir);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await page.goto(host.url);
  await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Fake' });
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-everyday-input-work'));
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('permission please');
  await message.press('Enter');
  const question = page.getByRole('group', { name: 'Permission: Write notes.txt' });
  const table = question.getByRole('table', { name: 'Tool input' });
  await expect(table.getByRole('row', { name: /path\s+notes\.txt/ })).toBeVisible();
  await expect(table.getByRole('row', { name: /content\s+the new notes/ })).toBeVisible();
  await question.getByRole('button', { name: 'Allow once' }).click();
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Permission granted');

  await message.fill('permission to run something');
  await message.press('Enter');
  const run = page.getByRole('group', { name: 'Permission: Run a command' });
  await expect(run).toContainText('wants to run a command');
  await expect(run.getByLabel('Command')).toHaveText('$ rm -rf build');
  await expect(run.getByRole('table', { name: 'Tool input' }).getByRole('row', { name: /cwd\s+src/ })).toBeVisible();
  await run.getByRole('button', { name: 'Reject' }).click();
  await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Permission denied.');
});
