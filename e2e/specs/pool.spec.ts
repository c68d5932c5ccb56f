/**
 * One agent process, many conversations, in the page with the real agents: five Claude and two
 * Codex conversations reply at the same time; the process table in Settings › Agents shows one
 * process per agent and launch, carrying their sessions; each conversation is stopped on its own
 * while the others go on replying.
 */
import { expect, test, type Page } from '@playwright/test';
import { tempDir } from '../fixtures/agentEnv.js';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';

let stub: ModelStub;
let host: WebHost | undefined;

test.beforeEach(async () => {
  stub = await startModelStub();
});

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
  await stub.close();
});

/** The conversation's entry in the list (its title is its first message's first line). */
const entry = (page: Page, title: string) =>
  page.getByRole('list', { name: 'Conversations' }).getByRole('button', { name: new RegExp(`^${title}\\b`) });

test('five Claude and two Codex conversations reply at once on one process per agent, and each stops on its own', async ({ page }) => {
  test.setTimeout(420_000);
  host = await startWebHost(tempDir('e2e-pool'), allAgentsHome(stub.url));
  await page.goto(host.url);
  const work = tempDir('e2e-pool-work');
  const conversations = [
    ...['1', '2', '3', '4', '5'].map((n) => ({ agent: 'Claude', title: `Pool Claude ${n}` })),
    ...['1', '2'].map((n) => ({ agent: 'Codex', title: `Pool Codex ${n}` })),
  ];

  for (const [index, { agent, title }] of conversations.entries()) {
    if (index > 0) {
      await page.getByRole('button', { name: 'New conversation' }).click();
    }
    await chooseAgent(page, agent);
    await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
    const message = page.getByRole('textbox', { name: 'Message' });
    // Long enough to be still streaming while the others start (100 ms a word).
    await message.fill(`${title}\nSLOW_STREAM 150`);
    await message.press('Enter');
    // Answered: its reply streams in this conversation.
    await expect(page.getByRole('article', { name: new RegExp(`^${agent}`) }).filter({ hasText: 'slow0' })).toContainText('slow2', {
      timeout: 90_000,
    });
  }
  // All seven reply at the same time.
  for (const { title } of conversations) {
    await expect(entry(page, title).locator('.running-dot')).toHaveCount(1);
  }

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const table = page.getByRole('table', { name: 'Agent processes' });
  await expect(table.getByRole('row', { name: /^Claude/ })).toHaveCount(1);
  await expect(table.getByRole('row', { name: /^Codex/ })).toHaveCount(1);
  await expect(
    table
      .getByRole('row', { name: /^Claude/ })
      .getByRole('cell')
      .nth(2),
  ).toHaveText('5');
  await expect(
    table
      .getByRole('row', { name: /^Codex/ })
      .getByRole('cell')
      .nth(2),
  ).toHaveText('2');
  await page.keyboard.press('Escape');

  // Each stops on its own: the others keep replying until their turn comes.
  for (const [index, { agent, title }] of conversations.entries()) {
    // The list reorders as the streaming conversations move up: a click can meet the row that just
    // took this one's place, so it is made again until the pane shows this conversation.
    await expect(async () => {
      await entry(page, title).click();
      await expect(page.getByRole('main', { name: title })).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByRole('timer', { name: `${agent} is working` })).toBeVisible();
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(page.getByRole('timer', { name: `${agent} is working` })).toHaveCount(0, { timeout: 15_000 });
    await expect(entry(page, title).locator('.running-dot')).toHaveCount(0);
    for (const other of conversations.slice(index + 1)) {
      await expect(entry(page, other.title).locator('.running-dot')).toHaveCount(1);
    }
  }
  // The processes stay for the conversations' next messages.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(table.getByRole('row', { name: /^Claude/ })).toHaveCount(1);
  await expect(table.getByRole('row', { name: /^Codex/ })).toHaveCount(1);

  // Stop in the table ends that process now; the other keeps running, and a conversation of the stopped one starts it again.
  await table
    .getByRole('row', { name: /^Codex/ })
    .getByRole('button', { name: /^Stop Codex's process/ })
    .click();
  await expect(page.getByRole('status').filter({ hasText: "Stopped Codex's process" })).toBeVisible();
  await expect(table.getByRole('row', { name: /^Codex/ })).toHaveCount(0);
  await expect(table.getByRole('row', { name: /^Claude/ })).toHaveCount(1);
  await page.keyboard.press('Escape');
  await entry(page, 'Pool Codex 1').click();
  await page.getByRole('textbox', { name: 'Message' }).fill('after the stop');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Codex/ }).last()).toContainText('after the stop', { timeout: 60_000 });
});
