/**
 * The conversation UI in a real browser: highlighted code with its language and a copy button,
 * links that open outside; an image pasted for Claude reaching the model; a permission request from Claude (an edit with its diff) answered
 * with the keyboard alone; the list badge while it waits; one live announcement per reply;
 * shortcuts; "Jump to latest"; the narrow layout; axe-core (every impact) on the main screens; light and dark
 * themes, with screenshots saved under e2e/artifacts/.
 */
/// <reference lib="dom" />
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../fixtures/fakeAgentConfig.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';
import { axeViolations } from '../fixtures/axe.js';

const ARTIFACTS = path.resolve('e2e/artifacts');
const CODE_REPLY = [
  'Here is the fix:\n\n```ts\nconst answer: number = 42; // the answer\n```\n\n',
  'See [the docs](https://example.com/docs).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
];

/** A 1×1 PNG. */
const DOT_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let host: WebHost | undefined;
let stub: ModelStub | undefined;

// axe-core is injected as an inline script, which the page's own policy rightly refuses.
test.use({ bypassCSP: true });

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
  await stub?.close();
  stub = undefined;
});

async function send(page: Page, text: string): Promise<void> {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(text);
  await composer.press('Enter');
}

/** Chooses a theme in Settings › Appearance and goes back to the conversation. */
async function chooseTheme(page: Page, label: 'Light' | 'Dark' | 'As the system'): Promise<void> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByRole('tab', { name: 'Appearance' }).click();
  await page.getByRole('combobox', { name: 'Theme' }).selectOption({ label });
  await page.getByRole('button', { name: 'Close settings' }).click();
}

async function fakeAgentPage(page: Page): Promise<void> {
  const dataDir = tempDir('e2e-ui');
  registerFakeAgent(dataDir);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await openStartingWith(page, host.url, FAKE_AGENT_ID);
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-ui-work'));
}

test('Claude: highlighted code with a copy button, outside links, and an edit permission answered with the keyboard alone', async ({
  page,
  context,
}) => {
  test.setTimeout(180_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const work = tempDir('e2e-ui-claude');
  stub = await startModelStub({
    reply: (request) => {
      if (request.jsonSchema !== undefined) {
        return undefined;
      }
      if (request.toolResult !== undefined) {
        return { kind: 'text', chunks: ['Saved the notes.'] };
      }
      if (request.lastUserText.includes('edit please')) {
        return { kind: 'tool', name: 'Write', arguments: { file_path: path.join(work, 'notes.md'), content: 'first line\nsecond line\n' } };
      }
      return { kind: 'text', chunks: CODE_REPLY };
    },
  });
  host = await startWebHost(tempDir('e2e-ui-data'), allAgentsHome(stub.url));
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);

  await send(page, 'code please');
  const reply = page.getByRole('article', { name: 'Claude' });
  await expect(reply).toContainText('const answer');
  await expect(reply.locator('.code-language')).toHaveText('ts');
  await expect(reply.locator('.hljs-keyword').first()).toHaveText('const');
  await reply.getByRole('button', { name: 'Copy ts code' }).click();
  await expect(reply.getByRole('button', { name: 'Copied ts code' })).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const answer: number = 42; // the answer');
  await expect(reply.getByRole('link', { name: 'the docs' })).toHaveAttribute('target', '_blank');
  await expect(reply.getByRole('link', { name: 'the docs' })).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(reply.getByRole('table')).toBeVisible();
  // One announcement for the finished reply.
  await expect(page.getByTestId('reply-announcer')).toHaveText('Claude replied');
  // The tokens Claude reported for the turn (the model stub's usage), under its reply.
  await expect(reply.getByLabel('Usage of this turn')).toContainText(/\d+ tokens in · \d+ out/);

  await send(page, 'edit please');
  const permission = page.getByRole('group', { name: /^Permission: / });
  await expect(permission).toContainText('Claude wants to edit a file');
  // Focus moved to the question; the list badges the conversation while it waits.
  await expect(permission.getByRole('button').first()).toBeFocused();
  await expect(permission.getByRole('button').first()).toHaveAttribute('aria-keyshortcuts', '1');
  await expect(page.getByRole('list', { name: 'Conversations' })).toContainText('Waiting for you');
  // The mark is a small icon (its words read out and in its tooltip): the time keeps its line beside it.
  const row = page.getByRole('list', { name: 'Conversations' }).getByRole('listitem').first();
  const mark = await row.locator('.status-mark').boundingBox();
  const time = await row.locator('time').boundingBox();
  expect(Math.abs(mark!.y + mark!.height / 2 - (time!.y + time!.height / 2))).toBeLessThan(4);
  await page.screenshot({ path: path.join(ARTIFACTS, 'permission-light.png') });
  await page.keyboard.press('1');
  await expect(permission).toContainText('✓ You chose:');
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Saved the notes.');
  await expect(page.getByRole('list', { name: 'Conversations' })).not.toContainText('Waiting for you');
  expect(readFileSync(path.join(work, 'notes.md'), 'utf8')).toBe('first line\nsecond line\n');
  const diff = page.getByRole('figure', { name: /^Changes to .*notes\.md$/ });
  await expect(diff).toContainText('+ first line');
  await diff.getByRole('button', { name: 'Side by side' }).click();
  await expect(diff.getByRole('table', { name: /^Side by side changes/ })).toContainText('second line');
  expect(await axeViolations(page)).toEqual([]);
});

test('Claude: an image pasted into the message goes to the model as an image', async ({ page }) => {
  test.setTimeout(180_000);
  const work = tempDir('e2e-ui-image');
  stub = await startModelStub({
    reply: (request) => (request.jsonSchema === undefined ? { kind: 'text', chunks: ['A single dot.'] } : undefined),
  });
  host = await startWebHost(tempDir('e2e-ui-image-data'), allAgentsHome(stub.url));
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.evaluate((box, base64) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], 'dot.png', { type: 'image/png' }));
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, DOT_PNG);
  await expect(page.getByRole('list', { name: 'Attachments' })).toContainText('dot.png');
  await message.fill('What is in this picture?');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('article', { name: 'Claude' })).toContainText('A single dot.');
  await expect(page.getByRole('article', { name: 'You' }).getByRole('list', { name: 'Attached' })).toContainText('dot.png');
  // What Claude sent the model: the picture itself, as an image block with the same bytes.
  const images = stub.requests.flatMap((request) => JSON.stringify(request.body ?? '').match(/"type":"image","source":\{[^}]*\}/g) ?? []);
  expect(images.length).toBeGreaterThan(0);
  expect(images[0]).toContain('"media_type":"image/png"');
  expect(images[0]).toContain(DOT_PNG);
});

test('Claude: a card per tool call with its kind and one clear status, the output Claude read as it is, and a rejected edit still showing what it proposed', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const work = tempDir('e2e-ui-tools');
  writeFileSync(path.join(work, 'readme.txt'), 'hello from the file\n');
  stub = await startModelStub({
    reply: (request) => {
      if (request.jsonSchema !== undefined) {
        return undefined;
      }
      if (request.toolResult !== undefined) {
        return { kind: 'text', chunks: ['Done with that.'] };
      }
      if (request.lastUserText.includes('read it')) {
        return { kind: 'tool', name: 'Read', arguments: { file_path: path.join(work, 'readme.txt') } };
      }
      if (request.lastUserText.includes('run it')) {
        return { kind: 'tool', name: 'Bash', arguments: { command: 'echo from-bash > ran.txt', description: 'Write ran.txt' } };
      }
      return { kind: 'tool', name: 'Write', arguments: { file_path: path.join(work, 'proposed.md'), content: 'a proposed line\n' } };
    },
  });
  host = await startWebHost(tempDir('e2e-ui-tools-data'), allAgentsHome(stub.url));
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);

  await send(page, 'please read it');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Done with that.');
  const read = page.getByRole('group', { name: /^Tool call: Read .*readme\.txt/ });
  await expect(read.locator('.tool-icon')).toHaveText('📄');
  await expect(read.locator('.tool-status')).toHaveText('done');
  await expect(read).toContainText('hello from the file');
  // Claude Code 2.1 (in claude-agent-acp 0.101) appends no notes of its own to a Read's output any
  // more (0.23.1 did, which the card folds away): the output reaches the model and the card as read.
  const sent = stub
    .modelRequests()
    .map((request) => request.toolResult ?? '')
    .join('\n');
  expect(sent).toContain('hello from the file');
  expect(sent).not.toContain('<system-reminder>');
  await expect(read.locator('details.agent-notes')).toHaveCount(0);
  expect(await read.innerText()).not.toContain('system-reminder');
  // The card folds and unfolds.
  await read.locator('summary').first().click();
  await expect(read.getByText('hello from the file')).toBeHidden();
  await read.locator('summary').first().click();
  await expect(read.getByText('hello from the file')).toBeVisible();

  await send(page, 'please write it');
  const question = page.getByRole('group', { name: /^Permission: / });
  await question.getByRole('button', { name: 'No', exact: true }).click();
  await expect(question).toContainText('✓ You chose: No');
  const write = page.getByRole('group', { name: /^Tool call: Write .*proposed\.md/ });
  await expect(write.locator('.tool-status')).toHaveText('rejected');
  await expect(write.locator('.tool-icon')).toHaveText('✏️');
  // Nothing was written, and the card still shows what was proposed.
  await expect(write.getByRole('figure', { name: /^Changes to .*proposed\.md$/ })).toContainText('+ a proposed line');
  expect(existsSync(path.join(work, 'proposed.md'))).toBe(false);

  // A command waiting for the person's answer has one status: its terminal does not say it runs.
  await send(page, 'please run it');
  const asking = page.getByRole('group', { name: /^Permission: / }).last();
  await expect(asking.getByRole('button', { name: 'No', exact: true })).toBeVisible();
  const bash = page.getByRole('group', { name: /^Tool call: / }).last();
  await expect(bash.locator('.tool-status')).toHaveText('awaiting your permission');
  await expect(bash.getByRole('figure', { name: /^Terminal: / })).toContainText('not run yet');
  await expect(bash).not.toContainText('running');
  await asking.getByRole('button', { name: 'No', exact: true }).click();
  await expect(bash.locator('.tool-status')).toHaveText('rejected');
  await expect(bash).not.toContainText('running');
  expect(existsSync(path.join(work, 'ran.txt'))).toBe(false);
});

test('shortcuts, Escape to stop, and "Jump to latest" while a long reply streams', async ({ page }) => {
  test.setTimeout(120_000);
  await fakeAgentPage(page);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('?');
  const shortcuts = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(shortcuts).toContainText('Stop the running turn');
  await page.keyboard.press('Escape');
  await expect(shortcuts).toBeHidden();
  await page.keyboard.press('Alt+M');
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  await page.keyboard.press('Control+K');
  await expect(
    page.getByRole('searchbox', { name: 'Search conversations' }).or(page.getByRole('searchbox', { name: 'Search conversations' })),
  ).toBeFocused();
  await page.keyboard.press('Alt+A');
  await expect(page.getByRole('combobox', { name: 'Agent' })).toBeFocused();

  await send(page, 'long');
  const transcript = page.getByRole('region', { name: 'Transcript' });
  await expect(page.getByRole('article', { name: 'Fake' })).toBeVisible();
  // Scrolling up to read stops the following; the button brings the person back.
  await expect.poll(async () => transcript.evaluate((node) => node.scrollHeight > node.clientHeight * 2), { timeout: 20_000 }).toBe(true);
  await transcript.evaluate((node) => node.scrollTo({ top: 0 }));
  const jump = page.getByRole('button', { name: 'Jump to latest' });
  await expect(jump).toBeVisible();
  const top = await transcript.evaluate((node) => node.scrollTop);
  await page.waitForTimeout(300);
  expect(await transcript.evaluate((node) => node.scrollTop)).toBe(top);
  await jump.click();
  await expect(jump).toBeHidden();
  await expect.poll(async () => transcript.evaluate((node) => node.scrollHeight - node.scrollTop - node.clientHeight < 60)).toBe(true);
  await expect(page.getByTestId('reply-announcer')).toHaveText('Fake replied', { timeout: 30_000 });

  await send(page, 'slow');
  await expect(page.getByText('Fake is working…')).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).press('Escape');
  await expect(page.getByTestId('reply-announcer')).toHaveText('Fake stopped');
});

test('the narrow layouts at 700 and 480 px: no sideways scrolling, the list behind a button, actions in one menu', async ({ page }) => {
  await page.setViewportSize({ width: 700, height: 800 });
  await fakeAgentPage(page);
  await send(page, 'hello from a narrow window');
  await expect(page.getByRole('article', { name: 'Fake' })).toContainText('Fake reply: hello from a narrow window');
  // At 700 px the conversation's header is still one row, nothing scrolls sideways, and axe finds nothing.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(700);
  const header = await page.locator('.pane-header').boundingBox();
  expect(header?.height).toBeLessThanOrEqual(48);
  await expect(page.getByRole('button', { name: 'Conversation actions' })).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeInViewport();
  await page.screenshot({ path: path.join(ARTIFACTS, 'narrow-700-light.png') });
  expect(await axeViolations(page)).toEqual([]);

  await page.setViewportSize({ width: 480, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(480);
  const toggle = page.getByRole('button', { name: '☰ Conversations' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await page.getByRole('button', { name: 'Conversation actions' }).click();
  await expect(page.getByRole('menuitem', { name: 'Rename' })).toBeVisible();
  await page.keyboard.press('Escape');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const list = page.getByRole('list', { name: 'Conversations' });
  await expect(list).toBeInViewport();
  await list.getByRole('button', { name: /hello from a narrow window/ }).click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(list).toBeHidden();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(480);
  await page.screenshot({ path: path.join(ARTIFACTS, 'narrow-light.png') });
  expect(await axeViolations(page)).toEqual([]);

  // Settings from the sidebar: the sidebar gives way, the sections sit above the open one.
  await toggle.click();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(list).toBeHidden();
  await page.getByRole('tab', { name: 'Data folder' }).click();
  await expect(page.getByLabel('Data folder path')).toBeInViewport();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(480);
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Close settings' }).click();
  await expect(page.getByRole('article', { name: 'Fake' })).toBeVisible();
});

/**
 * Opens each of the conversation's other dialogs in turn (Toolbox, Rewind, Branch, Ask several agents, the shortcuts); axe finds nothing in
 * any.
 */
async function otherDialogsPassAxe(page: Page): Promise<void> {
  const mine = page.getByRole('article', { name: 'You' }).first();
  const dialogs: Array<{ name: string; open: () => Promise<void>; close: string }> = [
    { name: 'Toolbox', open: () => page.getByRole('button', { name: 'Toolbox', exact: true }).click(), close: 'Close' },
    { name: 'Rewind', open: () => mine.getByRole('button', { name: 'Rewind to here' }).click(), close: 'Cancel' },
    { name: 'Branch from here', open: () => mine.getByRole('button', { name: 'Branch from here' }).click(), close: 'Cancel' },
    {
      name: 'Ask several agents',
      open: async () => {
        await page.getByRole('textbox', { name: 'Message' }).fill('Which of you does it best?');
        await page.getByRole('button', { name: 'Ask several agents…' }).click();
      },
      close: 'Cancel',
    },
    {
      name: 'Keyboard shortcuts',
      open: async () => {
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        await page.keyboard.press('?');
      },
      close: 'Close',
    },
  ];
  for (const { name, open, close } of dialogs) {
    await open();
    const dialog = page.getByRole('dialog', { name });
    await expect(dialog).toBeVisible();
    expect(await axeViolations(page), `the ${name} dialog`).toEqual([]);
    await dialog.getByRole('button', { name: close, exact: true }).click();
    await expect(dialog).toBeHidden();
  }
  await page.getByRole('textbox', { name: 'Message' }).fill('');
}

test('light and dark themes, from the system or chosen, with screenshots of the main screens', async ({ page }) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await fakeAgentPage(page);
  await send(
    page,
    'Show me a table and some code:\n\n| agent | turns |\n|---|---|\n| Claude | 2 |\n| Qwen | 1 |\n\n```ts\n// hand the conversation over\nconst next: string = "qwen";\nawait send(next);\n```',
  );
  await expect(page.getByRole('article', { name: 'Fake' })).toBeVisible();
  const background = (): Promise<string> => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  // The page hears of a change of the system's setting a moment later: wait for it to follow.
  const shown = page.locator('html');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(shown).toHaveAttribute('data-theme', 'light');
  const light = await background();
  await page.screenshot({ path: path.join(ARTIFACTS, 'conversation-light.png') });
  expect(await axeViolations(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(shown).toHaveAttribute('data-theme', 'dark');
  const dark = await background();
  expect(dark).not.toBe(light);
  await page.screenshot({ path: path.join(ARTIFACTS, 'conversation-dark.png') });
  expect(await axeViolations(page)).toEqual([]);

  // A chosen theme wins over the system's, and is remembered across a reload.
  await chooseTheme(page, 'Light');
  expect(await background()).toBe(light);
  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByRole('tab', { name: 'Appearance' }).click();
  await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveValue('light');
  await page.getByRole('button', { name: 'Close settings' }).click();
  expect(await background()).toBe(light);
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Instructions' })).toBeVisible();
  await page.screenshot({ path: path.join(ARTIFACTS, 'instructions-light.png') });
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('dialog', { name: 'Instructions' }).getByRole('button', { name: 'Cancel' }).click();
  await chooseTheme(page, 'Dark');
  await page.emulateMedia({ colorScheme: 'light' });
  // The system's change is heard (the media query matches light again) and the choice still wins.
  await expect.poll(() => page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(false);
  await expect(shown).toHaveAttribute('data-theme', 'dark');
  expect(await background()).toBe(dark);
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  await page.screenshot({ path: path.join(ARTIFACTS, 'instructions-dark.png') });
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('dialog', { name: 'Instructions' }).getByRole('button', { name: 'Cancel' }).click();
  // The other dialogs, in the dark theme, then in the light one.
  await otherDialogsPassAxe(page);
  await chooseTheme(page, 'Light');
  await otherDialogsPassAxe(page);
  await chooseTheme(page, 'Dark');

  // The settings page, in both themes.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByRole('tab', { name: 'Permissions' }).click();
  await expect(page.getByRole('tabpanel', { name: 'Permissions' })).toContainText('You have given no “always” answers.');
  await page.screenshot({ path: path.join(ARTIFACTS, 'settings-dark.png') });
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('tab', { name: 'Appearance' }).click();
  await page.getByRole('combobox', { name: 'Theme' }).selectOption({ label: 'Light' });
  await page.getByRole('tab', { name: 'Agents' }).click();
  await page.screenshot({ path: path.join(ARTIFACTS, 'settings-light.png') });
  expect(await axeViolations(page)).toEqual([]);
});

test('messages: their time, copy, edit and resend, retry; a follow-up queued while a reply runs; plain search results; the list preview; recent folders', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await fakeAgentPage(page);
  const folder = await page.getByRole('textbox', { name: 'Working folder' }).inputValue();
  await send(page, 'Please **review** the `parser` module');
  const mine = page.getByRole('article', { name: 'You' });
  await expect(page.getByRole('article', { name: 'Fake' })).toContainText('Fake reply: Please');
  await expect(mine.locator('time')).toHaveText(/^\d{1,2}:\d{2}/);
  await mine.getByRole('button', { name: 'Copy' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Please **review** the `parser` module');

  // Edit and resend is a rewind to that message; of the last message, with no file to put back,
  // there is nothing to decide, so no dialog: the message is back in the box alone; what was
  // written there is set aside whole (never glued on), can be swapped in, and comes back once the
  // message is sent. The turn it replaces is set aside.
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('a draft of mine');
  await mine.getByRole('button', { name: 'Edit and resend' }).click();
  await expect(composer).toHaveValue('Please **review** the `parser` module');
  await expect(page.getByRole('dialog', { name: 'Rewind' })).toHaveCount(0);
  // Undo puts the message back in the transcript and takes it out of the box (Enter would send it twice); the draft returns.
  await page.getByRole('region', { name: 'Rewind' }).getByRole('button', { name: 'Undo rewind' }).click();
  await expect(page.getByRole('article', { name: 'Fake' })).toHaveCount(1);
  await expect(composer).toHaveValue('a draft of mine');
  await mine.getByRole('button', { name: 'Edit and resend' }).click();
  await expect(composer).toHaveValue('Please **review** the `parser` module');
  await expect(composer).toBeFocused();
  const aside = page.getByRole('status').filter({ hasText: 'Your unsent draft is kept aside: “a draft of mine”' });
  await expect(aside).toBeVisible();
  await aside.getByRole('button', { name: 'Swap in my draft' }).click();
  await expect(composer).toHaveValue('a draft of mine');
  await expect(page.getByRole('status').filter({ hasText: 'kept aside: “Please **review** the `parser` module”' })).toBeVisible();
  await page.getByRole('button', { name: 'Swap in my draft' }).click();
  await expect(composer).toHaveValue('Please **review** the `parser` module');
  await expect(page.getByRole('article', { name: 'Fake' })).toHaveCount(0);
  await composer.fill('Please review the lexer instead');
  await composer.press('Enter');
  await expect(page.getByRole('article', { name: 'Fake' }).last()).toContainText('Fake reply: Please review the lexer instead');
  await expect(composer).toHaveValue('a draft of mine');
  await expect(page.getByRole('button', { name: 'Swap in my draft' })).toHaveCount(0);
  await composer.fill('');
  // Retry is offered on the last reply only, and replaces it in place: the same message again, the
  // old reply set aside, one line "Retried · Undo".
  await expect(page.getByRole('button', { name: 'Retry' })).toHaveCount(1);
  await page.getByRole('article', { name: 'Fake' }).last().getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('region', { name: 'Rewind' })).toHaveCount(3);
  const retried = page.getByRole('region', { name: 'Rewind' }).last();
  await expect(retried).toHaveText(/^Retried · Undo$/);
  await expect(retried.getByRole('button', { name: 'Undo retry' })).toBeVisible();
  await expect(page.getByRole('article', { name: 'Fake' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'Fake' })).toContainText('Fake reply: Please review the lexer instead');
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'You' }).last()).toHaveText(/Please review the lexer instead$/);

  // A follow-up written while a reply runs is queued and goes when the turn ends.
  await send(page, 'slow');
  await expect(page.getByText('Fake is working…')).toBeVisible();
  await composer.fill('and then this follow-up');
  await composer.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Queued, sent when this reply ends: “and then this follow-up”' })).toBeVisible();
  await expect(composer).toHaveValue('');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('article', { name: 'Fake' }).last()).toContainText('Fake reply: and then this follow-up');

  // The list shows a one-line preview; search shows plain text, and clearing it clears the mark.
  await expect(page.getByRole('list', { name: 'Conversations' })).toContainText('and then this follow-up');
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('parser');
  const results = page.getByRole('list', { name: 'Search results' });
  await expect(results).toContainText('Please review the parser module');
  await expect(results).not.toContainText('**');
  await results.getByRole('button').first().click();
  await expect(page.locator('.entry.focused')).toHaveCount(1);
  await page.getByRole('searchbox', { name: 'Search conversations' }).press('Escape');
  await expect(page.locator('.entry.focused')).toHaveCount(0);

  // The folder is offered again for the next conversation, after a reload too.
  await page.reload();
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('textbox', { name: 'Working folder' }).fill('');
  const recent = page.getByRole('group', { name: 'Recent folders' }).getByRole('button', { name: path.basename(folder) });
  // Its tip (on hover, and on keyboard focus; Escape hides it) gives the whole path.
  await recent.hover();
  await expect(page.getByRole('tooltip')).toHaveText(folder);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('tooltip')).toHaveCount(0);
  await page.mouse.move(0, 0);
  await recent.focus();
  await expect(page.getByRole('tooltip')).toHaveText(folder);
  await recent.click();
  await expect(page.getByRole('textbox', { name: 'Working folder' })).toHaveValue(folder);
});
