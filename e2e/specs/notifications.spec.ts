/**
 * Notifications (issue 46, "tell the person when an agent needs them"), through the browser's own
 * Notification API with permission granted: a conversation not in view that asks a question is
 * notified ("Fake is waiting for you"), and clicking the notification opens it at the question; a
 * turn that finishes while its conversation is in view and the window has focus is not; a turn
 * that fails while the person looks elsewhere is, unless that kind is turned off in Settings ›
 * Notifications.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { CHROMIUM_ARGS, FULL_CHROMIUM } from '../fixtures/chromium.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../fixtures/fakeAgentConfig.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';

// The browser's own notifications: the full Chromium, not its headless shell, which has none.
test.use({ launchOptions: { executablePath: FULL_CHROMIUM, args: CHROMIUM_ARGS } });

let host: WebHost | undefined;

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
});

/** Each notification the page made: its title and body (the real API still shows it). */
declare global {
  interface Window {
    notified: Array<{ title: string; body: string | undefined; made: Notification }>;
  }
}

async function say(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** A new conversation with the fake agent in a new folder; sends `text`, and leaves for a new draft once the agent has it. */
async function startAndLeave(page: Page, text: string): Promise<string> {
  const work = tempDir('e2e-notify-work');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  await say(page, text);
  await expect(page.getByRole('button', { name: 'Stop' })).toBeEnabled();
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  return work;
}

const notified = (page: Page): Promise<Array<{ title: string; body: string | undefined }>> =>
  page.evaluate(() => window.notified.map(({ title, body }) => ({ title, body })));

test('a question, a failure elsewhere are notified; a click opens the question; nothing while in view; a kind turned off stays quiet', async ({
  page,
  context,
}) => {
  const dataDir = tempDir('e2e-notify');
  registerFakeAgent(dataDir);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await context.grantPermissions(['notifications'], { origin: host.url });
  await page.addInitScript(() => {
    const Real = window.Notification;
    window.notified = [];
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        window.notified.push({ title, body: options?.body, made: this });
      }
    }
    window.Notification = Recorded;
  });
  await openStartingWith(page, host.url, FAKE_AGENT_ID);
  // The window first shows (the load event can come before React's first render); then the shortcut.
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();

  // Settings › Notifications: allowed here, every kind on.
  await page.keyboard.press('Control+,');
  const settings = page.getByRole('main', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Notifications' }).click();
  const panel = settings.getByRole('tabpanel', { name: 'Notifications' });
  await expect(panel.getByRole('status')).toHaveText('Notifications are allowed.');
  for (const kind of ['An agent is waiting for my answer', 'An agent has finished', 'A turn could not finish']) {
    await expect(panel.getByRole('checkbox', { name: kind })).toBeChecked();
  }
  await page.keyboard.press('Escape');

  // A question in a conversation not in view.
  const work = await startAndLeave(page, 'permission after go');
  writeFileSync(path.join(work, 'go'), '');
  await expect.poll(() => notified(page)).toEqual([{ title: 'Fake is waiting for you', body: 'permission after go' }]);
  await page.evaluate(() => window.notified[0]!.made.dispatchEvent(new Event('click')));
  const question = page.getByRole('group', { name: /^Permission:/ });
  await expect(question).toBeVisible();
  await expect(question.getByRole('button').first()).toBeFocused();

  // Answered in view, with the window's focus: its end is not notified.
  await page.keyboard.press('1');
  await expect(question).toContainText('You chose');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
  await page.waitForTimeout(500);
  expect(await notified(page)).toHaveLength(1);

  // A failure while the person is elsewhere.
  const failing = await startAndLeave(page, 'break down after go');
  writeFileSync(path.join(failing, 'go'), '');
  await expect.poll(async () => (await notified(page)).at(-1)).toEqual({ title: 'Fake could not finish', body: 'break down after go' });

  // Turned off, that kind stays quiet.
  await page.keyboard.press('Control+,');
  await settings.getByRole('tab', { name: 'Notifications' }).click();
  await panel.getByRole('checkbox', { name: 'A turn could not finish' }).uncheck();
  await page.keyboard.press('Escape');
  const quiet = await startAndLeave(page, 'break down after go, again');
  writeFileSync(path.join(quiet, 'go'), '');
  // The window's title counts both failed conversations once the second has failed: nothing more was notified.
  await expect(page).toHaveTitle('(2) Baton');
  await page.waitForTimeout(300);
  expect(await notified(page)).toHaveLength(2);
});
