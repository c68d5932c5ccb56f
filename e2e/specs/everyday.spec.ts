/**
 * Everyday use (what a new user tripped over), in the page with the fake agent: where a new
 * conversation starts; permission questions (number keys anywhere, the tool's input shown); the
 * address carrying the open conversation; a failed turn's agent output and Retry; dialogs and
 * confirmations that behave one way; a bad agents.json said where agents are picked.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { FAKE_AGENT_ID, fakeAgentLog, registerFakeAgent, registerFakeAgents } from '../fixtures/fakeAgentConfig.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { saveInstructions } from '../fixtures/instructionsDialog.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';
import { choiceNames, pickValue } from '../fixtures/choices.js';

let host: WebHost | undefined;

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
});

/**
 * The web host (with the fake agent registered, unless `fake` is false) on a data folder of its own, open in the page; resolves with the
 * folder.
 */
async function openHost(page: Page, name: string, { fake = true } = {}): Promise<string> {
  const dataDir = tempDir(name);
  if (fake) {
    registerFakeAgent(dataDir);
  }
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  if (fake) {
    await openStartingWith(page, host.url, FAKE_AGENT_ID);
  } else {
    await page.goto(host.url);
  }
  return dataDir;
}

/** Adds a stdio server with the open Toolbox dialog's "Add server" form; `secret` is a variable saved as a secret. */
async function addServerInDialog(
  dialog: Locator,
  server: { name: string; command: string; args?: string; secret?: { name: string; value: string } },
): Promise<void> {
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(server.name);
  await dialog.getByRole('textbox', { name: 'Command' }).fill(server.command);
  if (server.args !== undefined) {
    await dialog.getByRole('textbox', { name: 'Arguments' }).fill(server.args);
  }
  if (server.secret) {
    await dialog.getByRole('button', { name: 'Add variable' }).click();
    await dialog.getByRole('textbox', { name: 'Variable name' }).fill(server.secret.name);
    await dialog.getByRole('textbox', { name: 'Value' }).fill(server.secret.value);
    await dialog.getByRole('checkbox', { name: 'Secret' }).check();
  }
  await dialog.getByRole('button', { name: 'Save server' }).click();
}

/** Sets the new conversation up with the fake agent in a folder of its own. */
async function fakeDraft(page: Page, name: string): Promise<void> {
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir(name));
}

test('the first conversation asks for a folder (never the home folder), checks it as it is typed; the next starts where the last one did', async ({
  page,
}) => {
  await openHost(page, 'e2e-everyday');
  const folder = page.getByRole('textbox', { name: 'Working folder' });
  const send = page.getByRole('button', { name: 'Send', exact: true });
  const work = tempDir('e2e-everyday-work');
  await chooseAgent(page, 'Fake');
  // No folder yet: it asks for one, and nothing can be sent.
  await expect(folder).toHaveValue('');
  await expect(page.getByRole('status').filter({ hasText: 'Choose the folder Fake will work in' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill('hello');
  await expect(send).toBeDisabled();
  await expect(send).toHaveAccessibleDescription('Choose a working folder first.');
  // A folder that is not there, or a file, is said as it is typed, before any Send.
  await folder.fill(path.join(work, 'no-such-folder'));
  await expect(
    page.getByRole('alert').filter({ hasText: `The working folder ${path.join(work, 'no-such-folder')} does not exist.` }),
  ).toBeVisible();
  await expect(folder).toHaveAttribute('aria-invalid', 'true');
  await expect(send).toBeDisabled();
  writeFileSync(path.join(work, 'a-file'), '');
  await folder.fill(path.join(work, 'a-file'));
  await expect(page.getByRole('alert').filter({ hasText: 'is not a folder' })).toBeVisible();
  await folder.fill(work);
  await expect(folder).not.toHaveAttribute('aria-invalid', 'true');
  // Before the first message, it says where the agent will work.
  await expect(page.getByRole('status').filter({ hasText: `Fake will work in ${work}` })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill('hello');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello');

  await page.reload();
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page.getByRole('textbox', { name: 'Working folder' })).toHaveValue(work);
  await expect(page.getByRole('status').filter({ hasText: `will work in ${work}` })).toBeVisible();
});

test('a waiting permission question is answered by its number key wherever focus is, unless the person is typing', async ({ page }) => {
  await openHost(page, 'e2e-everyday-keys');
  await fakeDraft(page, 'e2e-everyday-keys-work');
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
  await openHost(page, 'e2e-everyday-input');
  await fakeDraft(page, 'e2e-everyday-input-work');
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

test('the address carries the open conversation: a reload keeps it, Back and Forward move between conversations', async ({ page }) => {
  await openHost(page, 'e2e-everyday-address');
  await fakeDraft(page, 'e2e-everyday-address-work');
  const message = page.getByRole('textbox', { name: 'Message' });
  for (const title of ['First talk', 'Second talk']) {
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(page).toHaveURL(/\/(#\/)?$/);
    await message.fill(title);
    await message.press('Enter');
    await expect(page.getByRole('main', { name: title })).toBeVisible();
    await expect(page).toHaveURL(/#\/c\/[\w-]+$/);
  }
  const second = page.url();
  // In a conversation the folder is a value (it stays), not a field that refuses typing.
  await expect(page.getByRole('textbox', { name: 'Working folder' })).toHaveCount(0);
  const folder = page.getByRole('group', { name: 'Working folder' });
  await expect(folder).toContainText('e2e-everyday-address-work');
  await expect(folder.getByRole('button', { name: 'Copy path' })).toBeVisible();

  // A reload opens the same conversation, not an empty new one.
  await page.reload();
  await expect(page.getByRole('main', { name: 'Second talk' })).toContainText('Fake reply: Second talk');

  // Back and Forward go through the conversations opened.
  await page
    .getByRole('list', { name: 'Conversations' })
    .getByRole('button', { name: /^First talk/ })
    .click();
  await expect(page.getByRole('main', { name: 'First talk' })).toContainText('Fake reply: First talk');
  await page.goBack();
  await expect(page.getByRole('main', { name: 'Second talk' })).toContainText('Fake reply: Second talk');
  expect(page.url()).toBe(second);
  await page.goForward();
  await expect(page.getByRole('main', { name: 'First talk' })).toBeVisible();

  // An address naming a conversation that is gone opens a new one and says so.
  await page.goto(`${host!.url.split('#')[0]}#/c/no-such-conversation`);
  await expect(page.getByRole('alert')).toContainText(/no-such-conversation|not found|No conversation/i);
  await expect(page.getByRole('textbox', { name: 'Working folder' })).toBeEditable();
});

test('a failed turn shows what the agent wrote to its error output, under "Agent output", and offers Retry', async ({ page }) => {
  await openHost(page, 'e2e-everyday-failed');
  await fakeDraft(page, 'e2e-everyday-failed-work');
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('please break down');
  await message.press('Enter');
  const failure = page.getByRole('alert').filter({ hasText: 'Cannot call write after a stream was destroyed' });
  await expect(failure).toBeVisible();
  await failure.getByText('Agent output').click();
  await expect(failure).toContainText('fake agent: the real cause: its helper binary is missing');
  // Retry sends the message again (it fails the same way here): the failed turn is set aside, not added to.
  await failure.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('region', { name: 'Rewind' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(page.getByRole('alert').filter({ hasText: 'Cannot call write after a stream was destroyed' })).toHaveCount(1);
});

test('a long dialog keeps its buttons in view in a short window', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 420 });
  await openHost(page, 'e2e-everyday-dialog');
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Instructions' });
  await dialog
    .getByRole('textbox', { name: 'Your instructions' })
    .fill(Array.from({ length: 40 }, (_, line) => `Rule ${line + 1}: be careful.`).join('\n'));
  await expect(dialog.getByRole('button', { name: 'Save' })).toBeInViewport();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeInViewport();
  // Scrolled to its end, with every part opened, nothing of the dialog lies under its actions.
  for (const summary of await dialog.locator('details > summary').all()) {
    await summary.click();
  }
  const covered = await dialog.evaluate((element) => {
    // The body scrolls between the heading and the actions (DialogFrame).
    const body = element.querySelector('.dialog-body')!;
    body.scrollTop = body.scrollHeight;
    const actions = element.querySelector(':scope > .dialog-actions')!;
    const top = actions.getBoundingClientRect().top;
    return Array.from(body.querySelectorAll('*'))
      .filter(
        (node) =>
          !actions.contains(node) &&
          node.checkVisibility() &&
          node.getBoundingClientRect().height > 0 &&
          node.getBoundingClientRect().bottom > top + 0.5,
      )
      .map((node) => `${node.tagName.toLowerCase()}.${node.className}`);
  });
  expect(covered).toEqual([]);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});

test('a confirmation stays with its conversation and fades on its own', async ({ page }) => {
  await openHost(page, 'e2e-everyday-notice');
  await fakeDraft(page, 'e2e-everyday-notice-work');
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('hello');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello');
  const saved = page.getByRole('status').filter({ hasText: 'Instructions saved' });
  const writeAndSave = async (): Promise<void> => {
    await page.getByRole('button', { name: 'Instructions', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Instructions' });
    await dialog.getByRole('textbox', { name: 'Your instructions' }).fill(`Be brief. ${Date.now()}`);
    await saveInstructions(dialog);
    await expect(dialog).toBeHidden();
  };
  await writeAndSave();
  await expect(saved).toBeVisible();
  // Another conversation does not show it.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(saved).toBeHidden();
  // Said again, it goes by itself after a few seconds.
  await writeAndSave();
  await expect(saved).toBeVisible();
  await expect(saved).toBeHidden({ timeout: 15_000 });
});

test('a bad agents.json is shown with its line and column where agents are picked, and in Settings', async ({ page }) => {
  const dataDir = tempDir('e2e-everyday-agents-file');
  writeFileSync(path.join(dataDir, 'agents.json'), '{\n  "agents": [\n    { "name": "x", "command": "y" }\n    { "name": "z" }\n  ]\n}\n');
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await page.goto(host.url);
  await expect(page.getByRole('alert').filter({ hasText: 'Your custom agents are not offered' })).toContainText(
    /agents\.json is not valid JSON: \w+ at line 4, column 5/,
  );
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('main', { name: 'Settings' })).toContainText(/agents\.json is not valid JSON: \w+ at line 4, column 5/);
});

test('a conversation whose agent is gone says so before anything is sent', async ({ page }) => {
  const dataDir = await openHost(page, 'e2e-everyday-gone');
  await fakeDraft(page, 'e2e-everyday-gone-work');
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('hello');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello');

  // The agent's program goes away (uninstalled, moved): the conversation says so at once.
  writeFileSync(
    path.join(dataDir, 'agents.json'),
    JSON.stringify({ agents: [{ name: 'Fake', command: path.join(dataDir, 'no-such-agent') }] }),
  );
  await page.reload();
  await message.fill('are you there?');
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toHaveAccessibleDescription(
    /Fake is not available here, so nothing can be sent to it/,
  );
  // The reason has a line of its own: the message box keeps its width, and every button stays in the window.
  const form = await page.locator('form.composer').boundingBox();
  const box = await message.boundingBox();
  expect(box!.width).toBeGreaterThan(form!.width * 0.6);
  const viewport = page.viewportSize()!;
  for (const name of ['Attach files', 'Send', 'Stop']) {
    const button = await page.getByRole('button', { name, exact: true }).boundingBox();
    expect(button!.x + button!.width, name).toBeLessThanOrEqual(viewport.width);
    expect(button!.width, name).toBeLessThan(200);
  }
  await message.press('Enter');
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(message).toHaveValue('are you there?');
});

test('a whole command line pasted into Command is shown split, and split with one click', async ({ page }) => {
  await openHost(page, 'e2e-everyday-command', { fake: false });
  await page.getByRole('button', { name: 'Toolbox' }).click();
  const dialog = page.getByRole('dialog', { name: 'Toolbox' });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await dialog.getByRole('textbox', { name: 'Name' }).fill('files');
  const command = dialog.getByRole('textbox', { name: 'Command' });
  await command.fill('node "/srv/my tools/index.js" --root /tmp');
  const note = dialog.getByRole('note').filter({ hasText: 'This looks like a whole command line' });
  await expect(note).toContainText('Command: node; arguments: /srv/my tools/index.js --root /tmp.');
  await note.getByRole('button', { name: 'Split into command and arguments' }).click();
  await expect(command).toHaveValue('node');
  await expect(dialog.getByRole('textbox', { name: 'Arguments' })).toHaveValue('/srv/my tools/index.js\n--root\n/tmp');
  await expect(note).toBeHidden();
  // What only a shell does is refused with the reason, before saving.
  await command.fill('node a.js | tee log');
  await expect(dialog).toContainText('This command cannot be started as it is: It uses the shell\'s "|"');
  // Saved as pasted, a command line is split, not refused.
  await command.fill(`${process.execPath} "/srv/my tools/index.js" --root /tmp`);
  await dialog.getByRole('textbox', { name: 'Arguments' }).fill('');
  await dialog.getByRole('button', { name: 'Save server' }).click();
  const saved = dialog.getByRole('listitem').filter({ hasText: 'files' });
  await expect(saved).toContainText(`stdio · ${process.execPath} /srv/my tools/index.js --root /tmp`);
  await expect(dialog.getByRole('checkbox', { name: 'files', exact: true })).toBeVisible();
});

test('a server can be removed from the toolbox, saying first which conversations use it', async ({ page }) => {
  await openHost(page, 'e2e-everyday-remove');
  await fakeDraft(page, 'e2e-everyday-remove-work');
  await page.getByRole('button', { name: 'Toolbox' }).click();
  const dialog = page.getByRole('dialog', { name: 'Toolbox' });
  await addServerInDialog(dialog, { name: 'files', command: 'node', args: '/srv/files/index.js' });
  await dialog.getByRole('checkbox', { name: 'files', exact: true }).check();
  await dialog.getByRole('button', { name: 'Close' }).click();
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('hello with files');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello with files');

  await page.getByRole('button', { name: 'Toolbox' }).click();
  await dialog.getByRole('button', { name: 'Remove files' }).click();
  const confirm = dialog.getByRole('group', { name: 'Remove files?' });
  await expect(confirm).toContainText('One conversation uses files: “hello with files”. It loses it');
  await confirm.getByRole('button', { name: 'Keep it' }).click();
  await expect(dialog.getByRole('checkbox', { name: 'files', exact: true })).toBeChecked();
  await dialog.getByRole('button', { name: 'Remove files' }).click();
  await confirm.getByRole('button', { name: 'Remove files' }).click();
  await expect(dialog.getByRole('list', { name: 'Servers' }).getByRole('listitem')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Close' }).click();
  // The open conversation let it go: its next message goes without it.
  await message.fill('and now?');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Fake reply: and now?');
});

test('a server can be edited in place, in the Toolbox and from Settings: its name too, its secret kept unless retyped', async ({
  page,
}) => {
  await openHost(page, 'e2e-everyday-edit');
  await fakeDraft(page, 'e2e-everyday-edit-work');
  await page.getByRole('button', { name: 'Toolbox' }).click();
  const dialog = page.getByRole('dialog', { name: 'Toolbox' });
  await addServerInDialog(dialog, {
    name: 'files',
    command: 'nodee',
    args: '/srv/files/index.js',
    secret: { name: 'FILES_TOKEN', value: 't0ken-value' },
  });
  const servers = dialog.getByRole('list', { name: 'Servers' });
  await expect(servers).toContainText('stdio · nodee /srv/files/index.js');

  // The typo is fixed in place, and the server renamed; its secret is never shown, and kept.
  await dialog.getByRole('button', { name: 'Edit files' }).click();
  const form = dialog.getByRole('group', { name: 'Edit files' });
  await expect(form.getByRole('textbox', { name: 'Command' })).toHaveValue('nodee');
  await expect(form.getByRole('textbox', { name: 'Arguments' })).toHaveValue('/srv/files/index.js');
  await expect(form.getByRole('textbox', { name: 'Variable name' })).toHaveValue('FILES_TOKEN');
  await expect(form.getByRole('textbox', { name: 'Value' })).toHaveValue('');
  await expect(form.getByRole('textbox', { name: 'Value' })).toHaveAttribute('placeholder', 'Kept as it is: type to replace');
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('my-files');
  await form.getByRole('textbox', { name: 'Command' }).fill('node');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(form).toBeHidden();
  await expect(servers.getByRole('listitem')).toHaveCount(1);
  await expect(servers).toContainText('my-files stdio · node /srv/files/index.js');
  // A name another server has is refused, saying so.
  await addServerInDialog(dialog, { name: 'other', command: 'node' });
  await dialog.getByRole('button', { name: 'Edit other' }).click();
  await dialog.getByRole('group', { name: 'Edit other' }).getByRole('textbox', { name: 'Name', exact: true }).fill('My-Files');
  await dialog.getByRole('group', { name: 'Edit other' }).getByRole('button', { name: 'Save changes' }).click();
  await expect(dialog.getByRole('alert')).toContainText('A server named "My-Files" is already in your toolbox; choose another name.');
  await dialog.getByRole('group', { name: 'Edit other' }).getByRole('button', { name: 'Cancel' }).click();
  await dialog.getByRole('button', { name: 'Close' }).click();

  // Settings › Toolboxes has Edit and Remove for each server too.
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('main', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Toolboxes' }).click();
  await settings.getByRole('button', { name: 'Edit my-files' }).click();
  const fromSettings = page.getByRole('dialog', { name: 'Toolbox' }).getByRole('group', { name: 'Edit my-files' });
  await expect(fromSettings.getByRole('textbox', { name: 'Command' })).toHaveValue('node');
  await fromSettings.getByRole('textbox', { name: 'Arguments' }).fill('/srv/files/main.js');
  await fromSettings.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('dialog', { name: 'Toolbox' }).getByRole('button', { name: 'Close' }).click();
  await expect(settings.getByRole('list', { name: 'Servers' })).toContainText('node /srv/files/main.js');
  await settings.getByRole('button', { name: 'Remove other' }).click();
  await page
    .getByRole('dialog', { name: 'Toolbox' })
    .getByRole('group', { name: 'Remove other?' })
    .getByRole('button', { name: 'Remove other' })
    .click();
  await page.getByRole('dialog', { name: 'Toolbox' }).getByRole('button', { name: 'Close' }).click();
  await expect(settings.getByRole('list', { name: 'Servers' }).getByRole('listitem')).toHaveCount(1);
});

test("Settings shows Baton's log in the browser version too", async ({ page }) => {
  const dataDir = await openHost(page, 'e2e-everyday-log', { fake: false });
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('main', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Data folder' }).click();
  const log = settings.getByRole('region', { name: "Baton's log" });
  await log.getByRole('button', { name: 'Show the log' }).click();
  await expect(log).toContainText(path.join(dataDir, 'logs', 'baton.log'));
  await expect(log.getByLabel('Log lines')).toContainText(/web host started on port \d+/);
});

test('the Toolbox opened from Settings edits the default toolbox, never the open conversation', async ({ page }) => {
  await openHost(page, 'e2e-everyday-default-toolbox');
  await fakeDraft(page, 'e2e-everyday-default-toolbox-work');
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('hello');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello');
  // A server, not chosen for this conversation.
  await page.getByRole('button', { name: 'Toolbox' }).click();
  const dialog = page.getByRole('dialog', { name: 'Toolbox' });
  await addServerInDialog(dialog, { name: 'files', command: 'node' });
  // A new server is checked for the conversation it was added in: this one does without it.
  await dialog.getByRole('checkbox', { name: 'files', exact: true }).uncheck();
  await expect(dialog.getByRole('checkbox', { name: 'files', exact: true })).not.toBeChecked();
  await dialog.getByRole('button', { name: 'Close' }).click();

  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('main', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Toolboxes' }).click();
  await settings.getByRole('button', { name: 'Edit the default toolbox…' }).click();
  await expect(dialog).toContainText('The default toolbox: the servers a new conversation starts with.');
  await dialog.getByRole('checkbox', { name: 'files', exact: true }).check();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(settings.getByRole('list', { name: 'Named toolboxes' })).toContainText('Default (default for new conversations)');
  await settings.getByRole('button', { name: 'Close settings' }).click();

  // The conversation still has no server; a new one starts with the default.
  await page.getByRole('button', { name: 'Toolbox' }).click();
  await expect(dialog.getByRole('checkbox', { name: 'files', exact: true })).not.toBeChecked();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'New conversation' }).click();
  await message.fill('a second one');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: a second one');
  await page.getByRole('button', { name: 'Toolbox' }).click();
  await expect(dialog.getByRole('checkbox', { name: 'files', exact: true })).toBeChecked();
});

test('the theme, the recent folders and the agent last started are kept by Baton, not the browser: a new run on another port has them', async ({
  page,
}) => {
  const dataDir = await openHost(page, 'e2e-everyday-preferences');
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('main', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Appearance' }).click();
  await settings.getByRole('combobox', { name: 'Theme' }).selectOption({ label: 'Dark' });
  await settings.getByRole('button', { name: 'Close settings' }).click();
  const work = tempDir('e2e-everyday-preferences-work');
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('hello');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello');

  // Another run: another port, so another origin with empty browser storage.
  const firstUrl = host!.url;
  await host!.kill();
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  expect(new URL(host.url).port).not.toBe(new URL(firstUrl).port);
  // A window of its own: nothing of the first one's (its storage, the agent it was opened with) comes along.
  const again = await page.context().newPage();
  await again.goto(host.url);
  await expect(again.locator('html')).toHaveAttribute('data-theme', 'dark');
  await again.getByRole('button', { name: 'New conversation' }).click();
  await expect(again.getByRole('textbox', { name: 'Working folder' })).toHaveValue(work);
  await expect(again.getByRole('status').filter({ hasText: `Fake will work in ${work}` })).toBeVisible();
  // Claude can run here too, and comes first: the new conversation starts with the agent the last one was started with.
  await expect(again.getByRole('combobox', { name: 'Agent', exact: true })).toHaveValue('Fake');
});

/** How tall the pane's header is: the title row and the session row together. */
async function headerHeight(page: Page): Promise<number> {
  const top = await page.locator('.conversation-header').boundingBox();
  const bottom = await page.locator('header.session-header').boundingBox();
  if (!top || !bottom) {
    throw new Error('the header is not on screen');
  }
  return Math.round(bottom.y + bottom.height - top.y);
}

test('the header is one compact row, the options a row beside the composer that folds into their values; narrow, Toolbox and Instructions are in "Conversation actions"; the options shown are those of the agent the next message goes to', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const dataDir = tempDir('e2e-everyday-header');
  registerFakeAgents(dataDir, [
    { name: 'Fake', options: { models: ['alpha', 'beta'] } },
    { name: 'Other', options: { models: ['gamma', 'delta'] } },
  ]);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await page.goto(host.url);
  // Other has been used before: Baton knows the options it offers.
  await chooseAgent(page, 'Other');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-everyday-header-other'));
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('first');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Other/ })).toContainText('Fake reply: first');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await fakeDraft(page, 'e2e-everyday-header-work');
  await message.fill('hello');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello');
  const options = page.getByRole('group', { name: 'Session options' });
  await expect(options.getByRole('combobox', { name: 'Model' })).toHaveAttribute('data-value', 'alpha');
  const wideOpen = await headerHeight(page);
  console.log(`header at 1280×800: ${wideOpen} px with its options`);
  // The options sit beside the composer: the header is the title row and one session row.
  expect(wideOpen).toBeLessThanOrEqual(90);
  // From the window's top to the first message: at most 96 px, options shown or not (issue 37).
  const firstMessage = async (): Promise<number> => Math.round((await page.getByRole('article').first().boundingBox())!.y);
  console.log(`first message at 1280×800: ${await firstMessage()} px with the options shown`);
  expect(await firstMessage()).toBeLessThanOrEqual(96);
  const composer = await page.locator('form.composer').boundingBox();
  const bar = await page.getByRole('region', { name: 'Options of the next message' }).boundingBox();
  expect(bar!.y + bar!.height).toBeLessThanOrEqual(composer!.y + 1);

  const toggle = page.getByRole('button', { name: 'Hide options' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await toggle.click();
  await expect(options).toBeHidden();
  await expect(page.getByRole('button', { name: 'Options', exact: true })).toHaveAttribute('aria-expanded', 'false');
  const wideClosed = await headerHeight(page);
  console.log(`header at 1280×800: ${wideClosed} px folded`);
  expect(wideClosed).toBeLessThanOrEqual(90);
  expect(await firstMessage()).toBeLessThanOrEqual(96);
  // Folded, the values stay in view.
  await expect(page.getByRole('region', { name: 'Options of the next message' })).toContainText('ALPHA');

  // Narrow: still compact, and Toolbox and Instructions are in "Conversation actions".
  await page.setViewportSize({ width: 520, height: 800 });
  const narrow = await headerHeight(page);
  console.log(`header at 520×800: ${narrow} px folded`);
  expect(narrow).toBeLessThanOrEqual(150);
  await expect(page.getByRole('button', { name: 'Toolbox' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Instructions', exact: true })).toBeHidden();
  await page.getByRole('button', { name: 'Conversation actions' }).click();
  await page.getByRole('menuitem', { name: 'Toolbox' }).click();
  await expect(page.getByRole('dialog', { name: 'Toolbox' })).toBeVisible();
  await page.getByRole('dialog', { name: 'Toolbox' }).getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Conversation actions' }).click();
  await page.getByRole('menuitem', { name: 'Instructions' }).click();
  await expect(page.getByRole('dialog', { name: 'Instructions' })).toBeVisible();
  await page.getByRole('dialog', { name: 'Instructions' }).getByRole('button', { name: 'Cancel' }).click();

  // Another agent for the next message: the pickers are its own, and its choice is applied when it takes over.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('button', { name: 'Options', exact: true }).click();
  await chooseAgent(page, 'Other');
  await expect(options.getByRole('combobox', { name: 'Model' })).toHaveAttribute('data-value', 'gamma');
  expect(await choiceNames(page, options.getByRole('combobox', { name: 'Model' }))).toEqual(['GAMMA', 'DELTA']);
  await expect(page.getByRole('meter', { name: 'Context used' })).toHaveCount(0);
  await pickValue(page, options.getByRole('combobox', { name: 'Model' }), 'delta');
  await message.fill('model?');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Other/ })).toContainText('Model: delta');
  await expect(options.getByRole('combobox', { name: 'Model' })).toHaveAttribute('data-value', 'delta');
  // Back to the first agent: its own options again, its model as it was.
  await chooseAgent(page, 'Fake');
  await expect.poll(() => choiceNames(page, options.getByRole('combobox', { name: 'Model' }))).toEqual(['ALPHA', 'BETA']);
});

test('the capability bullets stand in columns of one width, each wrapping under itself', async ({ page }) => {
  await openHost(page, 'e2e-everyday-capabilities');
  await fakeDraft(page, 'e2e-everyday-capabilities-work');
  await page.getByRole('region', { name: 'Agent capabilities' }).getByText('More about Fake').click();
  for (const width of [1280, 700]) {
    await page.setViewportSize({ width, height: 800 });
    const bullets = page.getByRole('list', { name: 'What Fake can do' }).getByRole('listitem');
    await expect(bullets.first()).toBeVisible();
    const boxes = (
      await bullets.evaluateAll((items) => items.map((item) => item.getBoundingClientRect().toJSON() as { x: number; width: number }))
    ).map(({ x, width: w }) => ({ x: Math.round(x), width: Math.round(w) }));
    expect(boxes.length).toBeGreaterThan(2);
    // One width for every bullet, and as many left edges as there are columns.
    expect(new Set(boxes.map((box) => box.width)).size).toBe(1);
    const columns = new Set(boxes.map((box) => box.x)).size;
    expect(columns).toBeLessThanOrEqual(Math.max(1, Math.floor(width / 240)));
  }
});

test('"Branch from here" in its own copy: the branch works in a copy of the folder, and the person\'s folder is left as it is', async ({
  page,
}) => {
  const dataDir = await openHost(page, 'e2e-everyday-branch-copy');
  const work = tempDir('e2e-everyday-branch-copy-work');
  writeFileSync(path.join(work, 'shared.txt'), 'original\n');
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('Change it: sh[printf "by the agent\\n" > shared.txt]');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Shell: 0');
  await page.getByRole('article', { name: 'You' }).getByRole('button', { name: 'Branch from here' }).click();
  const dialog = page.getByRole('dialog', { name: 'Branch from here' });
  await dialog.getByRole('checkbox', { name: 'In its own copy of the folder' }).check();
  await expect(dialog).toContainText('Your folder is left as it is.');
  await dialog.getByRole('checkbox', { name: 'Start the copy from the files of that point' }).check();
  await expect(dialog).toContainText('The copy holds the files as they were before this message.');
  await dialog.getByRole('button', { name: 'Branch' }).click();
  await expect(dialog).toBeHidden();
  // The branch's folder is its copy, in Baton's data folder, holding the files before the message.
  const folder = page.getByRole('group', { name: 'Working folder' }).locator('code');
  await expect(folder).toHaveText(new RegExp(`^${path.join(dataDir, 'branches').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/`));
  const copy = (await folder.textContent())!;
  expect(readFileSync(path.join(copy, 'shared.txt'), 'utf8')).toBe('original\n');
  expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by the agent\n');
});

test('the first message goes to the session opened while it was written; a change of folder before Send opens another', async ({
  page,
}) => {
  const dataDir = tempDir('e2e-everyday-early');
  registerFakeAgent(dataDir, { sessions: true });
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await page.goto(host.url);
  const opened = (): string[] => fakeAgentLog(dataDir).flatMap((entry) => (entry.method === 'session/new' ? [entry.sessionId] : []));
  const prompted = (): string[] => fakeAgentLog(dataDir).flatMap((entry) => (entry.method === 'session/prompt' ? [entry.sessionId] : []));
  await fakeDraft(page, 'e2e-everyday-early-first');
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('written with care');
  // Nothing is sent, but the agent's session is open already.
  await expect.poll(opened).toHaveLength(1);
  // Another folder before Send: that session is not the one used.
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-everyday-early-second'));
  await expect.poll(opened).toHaveLength(2);
  const [, second] = opened();
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: written with care');
  expect(opened()).toHaveLength(2);
  expect(prompted()).toEqual([second]);
});

test('a shared agent process is said behind one icon of the header, which keeps one row; its note opens beside it and closes with Escape', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openHost(page, 'e2e-sharing');
  // Two conversations in one folder share the agent's process.
  const work = tempDir('e2e-sharing-work');
  const start = async (text: string): Promise<void> => {
    await chooseAgent(page, 'Fake');
    await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('article', { name: /^Fake/ })).toContainText(`Fake reply: ${text}`);
  };
  await start('first one');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await start('second one');

  const shared = page.getByRole('button', { name: 'Shared agent process' });
  await expect(shared).toBeVisible();
  await expect(shared).toHaveAttribute('aria-expanded', 'false');
  // The header is one row with the icon in it (the note's text used to wrap it to three).
  const header = await page.locator('header.session-header').boundingBox();
  expect(header!.height).toBeLessThan(70);
  const note = page.getByRole('note', { name: 'Shared agent process' });
  await expect(note).toBeHidden();
  await shared.click();
  await expect(note).toBeVisible();
  await expect(note).toContainText("Fake's process also runs “first one”: what it does in one conversation it could do in the others.");
  await expect(note.getByRole('button', { name: 'One process per conversation for Fake' })).toBeVisible();
  expect((await page.locator('header.session-header').boundingBox())!.height).toBe(header!.height);
  await page.keyboard.press('Escape');
  await expect(note).toBeHidden();
  await expect(shared).toHaveAttribute('aria-expanded', 'false');
});
