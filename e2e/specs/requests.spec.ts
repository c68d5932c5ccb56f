/**
 * What an agent asks of the client, in a real browser with the fake agent: a command run in a
 * client terminal shown in its tool call, a request for input shown as a form that only the
 * person answers, and logging out from the agent's card; plans, usage, thoughts, attachments.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../fixtures/fakeAgentConfig.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';

let host: WebHost | undefined;

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
});

async function open(page: Page, options: { requireAuth?: boolean } = {}): Promise<void> {
  const dataDir = tempDir('e2e-requests');
  registerFakeAgent(dataDir, options);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await openStartingWith(page, host.url, FAKE_AGENT_ID);
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-work'));
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

test('a command the agent runs in a client terminal shows its output and exit code', async ({ page }) => {
  await open(page);
  await send(page, 'terminal echo');
  const terminal = page.getByRole('figure', { name: /^Terminal: / });
  await expect(terminal).toContainText('héllo from the terminal');
  await expect(terminal).toContainText('and from stderr');
  await expect(terminal).toContainText('exit code 3');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Exit 3 (3)');
});

test('a request for input is a form: checked before sending, answered only by the person', async ({ page }) => {
  await open(page);
  await send(page, 'elicit form');
  const form = page.getByRole('group', { name: 'Input requested: The deploy server needs a few details.' });
  await expect(form).toBeVisible();
  // Nothing is sent on the person's behalf: the reply waits.
  await expect(page.getByText('Fake is working…')).toBeVisible();

  await form.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(form.getByRole('alert')).toContainText('Project name is required.');
  await form.getByRole('textbox', { name: 'Project name' }).fill('baton-demo');
  await form.getByRole('combobox', { name: 'Region' }).selectOption({ label: 'Europe' });
  await form.getByRole('spinbutton', { name: 'Replicas' }).fill('3');
  await form.getByRole('checkbox', { name: 'backup' }).check();
  await form.getByRole('button', { name: 'Send', exact: true }).click();

  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText(
    'Elicitation accept {"name":"baton-demo","region":"eu","replicas":3,"public":false,"features":["backup"]}',
  );
  await expect(form).toContainText('You sent: name, region, replicas, public, features (values not kept here).');
  await expect(form.getByRole('button', { name: 'Send', exact: true })).toHaveCount(0);
});

test('an agent that never answers: the page shows how long it has waited, and Stop ends it', async ({ page }) => {
  await open(page);
  await send(page, 'hang');
  const waiting = page.getByRole('timer', { name: 'Fake is working' });
  await expect(waiting).toContainText('Fake is working… 0 s');
  await expect(waiting).toContainText(/Waiting for Fake to answer… \d+ s, nothing yet/, { timeout: 10_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('note').filter({ hasText: 'did not stop within 5 s of being asked, so Baton ended it' })).toBeVisible({
    timeout: 15_000,
  });
  await expect(waiting).toHaveCount(0);
  await send(page, 'are you back');
  await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Fake reply: are you back');
});

test('an agent that offers logout shows Log out on its card', async ({ page }) => {
  await open(page, { requireAuth: true });
  const card = page.getByRole('region', { name: 'Agent capabilities' });
  await card.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Logged out of Fake.' })).toBeVisible();
});

test('the context use the agent reports is shown, a running total past the window is not, and an agent that reports none says so', async ({
  page,
}) => {
  await open(page);
  // A turn without a report: the agent does not report it (no meter, no figure Baton made up).
  await send(page, 'hello');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: hello');
  await expect(page.getByText('Context: Fake does not report how much it uses.')).toBeVisible();
  await expect(page.getByRole('meter', { name: 'Context used' })).toHaveCount(0);
  await send(page, 'usage please');
  await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Fake reply: usage please');
  await expect(page.getByText(/^Context: 12\.3K of 200K tokens/)).toBeVisible();
  await expect(page.getByRole('meter', { name: 'Context used' })).toHaveAttribute('value', '12345');
  // Under the turn's reply: its tokens, the context window and the session's cost so far.
  await expect(page.getByRole('article', { name: /^Fake/ }).last().getByLabel('Usage of this turn')).toHaveText(
    '1,200 tokens in · 34 out · context 6% (12,345 of 200,000) · $0.0123 so far this session',
  );
  // A figure beyond the window is a running total: never "521%".
  await send(page, 'usage beyond please');
  await expect(page.getByText(/^Context: not known\. The agent reported 1M tokens, more than its window of 200K/)).toBeVisible();
  await expect(page.getByRole('meter', { name: 'Context used' })).toHaveCount(0);
  await expect(page.getByRole('article', { name: /^Fake/ }).last().getByLabel('Usage of this turn')).toHaveText(
    '1,200 tokens in · 34 out · 1,042,000 tokens reported in all, more than the context window of 200,000 · $0.0123 so far this session',
  );
});

test('a plan is a checklist that updates as the agent works', async ({ page }) => {
  await open(page);
  const work = await page.getByRole('textbox', { name: 'Working folder' }).inputValue();
  // The fake agent moves to its next step when the step's file appears in the working folder.
  const nextStep = (n: number) => writeFileSync(path.join(work, `plan-step-${n}`), '');
  await send(page, 'make a plan');
  const plan = page.getByRole('region', { name: 'Plan' });
  await expect(plan.getByRole('listitem', { name: 'Read the code: in progress' })).toBeVisible();
  await expect(plan).toContainText('0 of 3 done');
  nextStep(1);
  await expect(plan.getByRole('listitem', { name: 'Change the parser: in progress' })).toBeVisible();
  await expect(plan.getByRole('listitem', { name: 'Read the code: done' })).toBeVisible();
  await expect(plan).toContainText('1 of 3 done');
  await expect(plan).toContainText('high priority');
  nextStep(2);
  await expect(plan.getByRole('listitem', { name: 'Run the tests: in progress' })).toBeVisible();
  nextStep(3);
  await expect(plan).toContainText('3 of 3 done');
  await expect(plan.getByRole('listitem', { name: /: done$/ })).toHaveCount(3);
  // One plan per turn, replaced in place.
  await expect(page.getByRole('region', { name: 'Plan' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: make a plan');
});

test('a follow-up queued while a reply runs keeps what was attached to it', async ({ page }) => {
  await open(page);
  const work = await page.getByRole('textbox', { name: 'Working folder' }).inputValue();
  writeFileSync(path.join(work, 'notes.md'), '# Notes\n');
  await send(page, 'slow');
  await expect(page.getByText('Fake is working…')).toBeVisible();
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('blocks? see @not');
  await expect(page.getByRole('listbox', { name: 'Files' }).getByRole('option')).toHaveText(['@notes.md']);
  await message.press('Enter');
  await message.press('Enter');
  await expect(
    page.getByRole('status').filter({ hasText: 'Queued, sent when this reply ends: “blocks? see @notes.md” with @notes.md' }),
  ).toBeVisible();
  await expect(page.getByRole('list', { name: 'Attachments' })).toHaveCount(0);
  // Taken back to edit, the attachment comes back with the text; queued again, it goes with it.
  await page.getByRole('button', { name: 'Edit queued message' }).click();
  await expect(message).toHaveValue('blocks? see @notes.md');
  await expect(message).toBeFocused();
  await message.press('End');
  await expect(page.getByRole('list', { name: 'Attachments' })).toContainText('@notes.md');
  // The mention at the caret is attached already: no file list opens for it (the host's answer
  // would come within this wait), so Enter queues the message rather than choosing the file again.
  await page.waitForTimeout(500);
  await expect(page.getByRole('listbox', { name: 'Files' })).toHaveCount(0);
  await message.press('Enter');
  await expect(
    page.getByRole('status').filter({ hasText: 'Queued, sent when this reply ends: “blocks? see @notes.md” with @notes.md' }),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Stop' }).click();
  const reply = page.getByRole('article', { name: /^Fake/ }).last();
  await expect(reply).toContainText('"type":"resource_link"');
  await expect(reply).toContainText('notes.md');
  await expect(page.getByRole('article', { name: 'You' }).last().getByRole('list', { name: 'Attached' })).toContainText('notes.md');
});

test('what is typed while a message is on its way stays in the box once the host has it', async ({ page }) => {
  // The host's answer to the send is held back until the next message has been typed.
  let release = (): void => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.routeWebSocket(/\/api/, (socket) => {
    const server = socket.connectToServer();
    const sends = new Set<number>();
    socket.onMessage((message) => {
      const frame = JSON.parse(String(message)) as { id?: number; method?: string };
      if (frame.method === 'sendMessage' && frame.id !== undefined) {
        sends.add(frame.id);
      }
      server.send(message);
    });
    server.onMessage((message) => {
      const frame = JSON.parse(String(message)) as { kind?: string; id?: number };
      if (frame.kind === 'response' && frame.id !== undefined && sends.has(frame.id)) {
        void held.then(() => socket.send(message));
      } else {
        socket.send(message);
      }
    });
  });
  await open(page);
  await send(page, 'first message');
  const message = page.getByRole('textbox', { name: 'Message' });
  await expect(message).toHaveValue('first message');
  await message.fill('the next one');
  release();
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: first message');
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeEnabled();
  await expect(message).toHaveValue('the next one');
});

test('a thought is folded away by default and opens on request', async ({ page }) => {
  await open(page);
  await send(page, 'think first');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: think first');
  const thought = page.locator('details.thought');
  await expect(thought).toHaveCount(1);
  await expect(thought).not.toHaveAttribute('open', '');
  await expect(thought.getByText('Weighing the options…')).toBeHidden();
  await thought.getByText('Thinking').click();
  await expect(thought.getByText('Weighing the options…')).toBeVisible();
});

test('a link an MCP server asks the person to open is shown with its host, and opened only on request', async ({ page }) => {
  await open(page);
  await send(page, 'elicit url');
  const request = page.getByRole('group', { name: 'Input requested: Authorize the deploy server.' });
  await expect(request).toContainText('auth.example.test');
  // The page it opens is answered here (nothing leaves this machine).
  await page
    .context()
    .route('https://auth.example.test/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Authorize</title>' }));
  const popup = page.waitForEvent('popup');
  await request.getByRole('button', { name: 'Open link' }).click();
  expect((await popup).url()).toContain('https://auth.example.test/authorize?state=abc');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Elicitation accept');
  await expect(request).toContainText('You opened the link. The agent reports it done.');
});

test('a file mentioned with @ goes as a link; an image pasted goes only to an agent that takes images', async ({ page }) => {
  await open(page);
  const work = await page.getByRole('textbox', { name: 'Working folder' }).inputValue();
  mkdirSync(path.join(work, 'docs'));
  writeFileSync(path.join(work, 'docs', 'notes.md'), '# Notes\n');
  writeFileSync(path.join(work, 'other.txt'), 'x');
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('blocks? see @no');
  const files = page.getByRole('listbox', { name: 'Files' });
  await expect(files.getByRole('option')).toHaveText(['@docs/notes.md']);
  await message.press('Enter');
  await expect(message).toHaveValue('blocks? see @docs/notes.md ');
  await expect(page.getByRole('list', { name: 'Attachments' })).toContainText('@docs/notes.md');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const reply = page.getByRole('article', { name: /^Fake/ });
  await expect(reply).toContainText('"type":"resource_link"');
  await expect(reply).toContainText('docs/notes.md');
  await expect(page.getByRole('article', { name: 'You' }).getByRole('list', { name: 'Attached' })).toContainText('docs/notes.md');
  await expect(page.getByRole('list', { name: 'Attachments' })).toHaveCount(0);

  // Paste an image: it is listed, and removed with one click; pasted again and sent, the fake agent
  // (no promptCapabilities.image) refuses the turn, naming the image. The message keeps it on record.
  const paste = (): Promise<void> =>
    message.evaluate((box) => {
      const bytes = Uint8Array.from(
        atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
        (c) => c.charCodeAt(0),
      );
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'dot.png', { type: 'image/png' }));
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
  await paste();
  await expect(page.getByRole('list', { name: 'Attachments' })).toContainText('dot.png');
  await page.getByRole('button', { name: 'Remove dot.png' }).click();
  await expect(page.getByRole('list', { name: 'Attachments' })).toHaveCount(0);
  // Dropped on the message box, an image is attached the same way.
  await message.evaluate((box) => {
    const data = new DataTransfer();
    data.items.add(
      new File(
        [
          Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) =>
            c.charCodeAt(0),
          ),
        ],
        'dropped.png',
        { type: 'image/png' },
      ),
    );
    box.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
    box.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  });
  await expect(page.getByRole('list', { name: 'Attachments' })).toContainText('dropped.png');
  await page.getByRole('button', { name: 'Remove dropped.png' }).click();
  await paste();
  await message.fill('look at this');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Fake cannot take the image dot.png' })).toContainText('promptCapabilities.image');
  await expect(page.getByRole('article', { name: 'You' }).last().getByRole('list', { name: 'Attached' })).toContainText('dot.png');
});

test('a subagent the agent runs shows as a collapsible card inside the turn, with its own tool calls', async ({ page }) => {
  await open(page);
  await send(page, 'use a subagent please');
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('The researcher is done.');
  const card = page.getByRole('group', { name: 'Subagent Researcher' });
  await expect(card).toContainText('done');
  await expect(card.getByText('Reading the notes for the parent.')).toBeHidden();
  await card.getByText('Researcher', { exact: true }).click();
  await expect(card.getByText('Reads the notes')).toBeVisible();
  await expect(card.getByRole('article', { name: 'Researcher' })).toContainText('Reading the notes for the parent.');
  await expect(card).toContainText('Read notes.md');
  // The parent's reply is its own, outside the card.
  await expect(card.getByText('The researcher is done.')).toHaveCount(0);
});

test("a turn's card lists the files it changed, from the checkpoints before and after it, with their diffs", async ({ page }) => {
  const work = tempDir('e2e-turn-files');
  writeFileSync(path.join(work, 'notes.md'), 'the old notes\n');
  const dataDir = tempDir('e2e-requests');
  registerFakeAgent(dataDir);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await openStartingWith(page, host.url, FAKE_AGENT_ID);
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  await send(page, `write:${path.join(work, 'notes.md')}`);
  const reply = page.getByRole('article', { name: /^Fake/ });
  await expect(reply).toContainText('Wrote');
  await reply.getByText('Files changed in this turn').click();
  const files = reply.getByRole('list', { name: 'Files changed in this turn' });
  await expect(files.getByRole('listitem', { name: 'notes.md: changed' })).toBeVisible();
  await expect(files).toContainText('the old notes');
  await expect(files).toContainText('written by the fake agent');
});
