/**
 * The conversation list as conversations pile up (issue 36, items 2 and 3): a conversation five
 * agents served shows one badge, "Fake E +4", its row as tall as its content and not running into
 * the next; a conversation whose last turn failed is marked in the list while another is open,
 * and counted on the window's title, until its next message. A restart (item 8) keeps the port
 * when it is free and opens the conversation that was open last.
 */
import { expect, test, type Page } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';
import { fakeAgentId, registerFakeAgents } from '../fixtures/fakeAgentConfig.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { fakeAgentsDraft } from '../fixtures/fakeAgentsDraft.js';

let host: WebHost | undefined;

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
});

const AGENTS = ['Fake A', 'Fake B', 'Fake C', 'Fake D', 'Fake E'];

async function say(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

test('five agents in one conversation: one badge "Fake E +4", rows that hold their content; a failed last turn is marked in the list and counted on the title', async ({
  page,
}) => {
  host = await fakeAgentsDraft(page, 'e2e-sidebar', AGENTS);
  for (const agent of AGENTS) {
    if (agent !== 'Fake A') {
      await chooseAgent(page, agent);
    }
    await say(page, `hello ${agent}`);
    await expect(page.getByRole('article', { name: agent })).toContainText(`Fake reply: hello ${agent}`);
  }
  // Turns that changed no file say nothing about files.
  await expect(page.getByText('Files changed in this turn')).toHaveCount(0);
  const list = page.getByRole('list', { name: 'Conversations' });
  const first = list.getByRole('listitem').first();
  await expect(first.getByLabel('Agents: Fake E, Fake A, Fake B, Fake C, Fake D', { exact: true })).toHaveText('Fake E +4');

  // A second conversation whose turn fails.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Fake A');
  await say(page, 'break down');
  await expect(page.getByRole('alert').filter({ hasText: 'Fake A' }).first()).toBeVisible();
  await expect(list.getByRole('listitem')).toHaveCount(2);

  // With the first one open again, the failed one is marked in the list, and counted on the title.
  await list.getByRole('listitem').filter({ hasText: 'hello Fake A' }).getByRole('button').click();
  const failed = list.getByRole('listitem').filter({ hasText: 'break down' });
  await expect(failed).toContainText('Last turn failed');
  await expect(page).toHaveTitle('(1) Baton');
  // Rows hold their content: no row runs into the next, and each badge lies inside its row.
  const boxes = await Promise.all([0, 1].map((index) => list.getByRole('listitem').nth(index).boundingBox()));
  expect(boxes[0]!.y + boxes[0]!.height).toBeLessThanOrEqual(boxes[1]!.y + 1);
  const badge = await list
    .getByRole('listitem')
    .filter({ hasText: 'hello Fake A' })
    .getByLabel(/^Agents: /)
    .boundingBox();
  const row = await list.getByRole('listitem').filter({ hasText: 'hello Fake A' }).boundingBox();
  expect(badge!.y + badge!.height).toBeLessThanOrEqual(row!.y + row!.height);
  expect(badge!.x + badge!.width).toBeLessThanOrEqual(row!.x + row!.width);

  // Its next message clears the mark and the count.
  await failed.getByRole('button').click();
  await say(page, 'all good now');
  await expect(page.getByRole('article', { name: 'Fake A' }).last()).toContainText('Fake reply: all good now');
  await expect(list.getByRole('listitem').filter({ hasText: 'all good now' })).not.toContainText('Last turn failed');
  await expect(page).toHaveTitle('Baton');
});

test('a restart keeps the port when it is free and opens the conversation that was open last', async ({ page }) => {
  const dataDir = tempDir('e2e-sidebar-restart');
  registerFakeAgents(dataDir, [{ name: 'Fake A' }]);
  const env = agentTestEnv('http://127.0.0.1:9');
  host = await startWebHost(dataDir, env, 15_000, { port: 'remembered' });
  const firstPort = new URL(host.url).port;
  await openStartingWith(page, host.url, fakeAgentId('Fake A'));
  await chooseAgent(page, 'Fake A');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-sidebar-restart-work'));
  await say(page, 'remember me');
  await expect(page.getByRole('article', { name: 'Fake A' })).toContainText('Fake reply: remember me');
  await host.kill();

  host = await startWebHost(dataDir, env, 15_000, { port: 'remembered' });
  expect(new URL(host.url).port).toBe(firstPort);
  // The printed address names no conversation: the one open last opens.
  await page.goto(host.url);
  await expect(page.getByRole('article', { name: 'You' })).toContainText('remember me');
  await expect(page.getByRole('main')).toHaveAttribute('aria-label', 'remember me');
});
