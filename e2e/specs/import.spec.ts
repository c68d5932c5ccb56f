/**
 * Importing a session started outside Baton, in a real browser: a Claude session made through
 * another data folder is listed from Claude's card, imported with its messages, and shown as
 * imported afterwards.
 */
import { expect, test } from '@playwright/test';
import { tempDir } from '../fixtures/agentEnv.js';
import { agentHome } from '../fixtures/agentSetups.js';
import { connectHostClient } from '../fixtures/hostClient.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';

let stub: ModelStub;
const hosts: WebHost[] = [];

test.beforeEach(async () => {
  stub = await startModelStub({ reply: () => ({ chunks: ['Plums ', 'are noted.'], delayMs: 5 }) });
});

test.afterEach(async () => {
  for (const host of hosts.splice(0)) {
    await host.kill();
  }
  await stub.close();
});

test("a Claude session started elsewhere is imported from Claude's card, once", async ({ page }) => {
  const env = agentHome('claude', stub.url);
  const work = tempDir('e2e-import-work');

  // Elsewhere: another data folder, driven over its API.
  const outside = await startWebHost(tempDir('e2e-outside'), env);
  const client = await connectHostClient(outside.url);
  const { conversation } = await client.call<{ conversation: { conversationId: string } }>('newConversation', {
    agentId: 'claude',
    cwd: work,
  });
  await client.call('sendMessage', { conversationId: conversation.conversationId, text: 'Please remember plums' });
  await expect.poll(() => client.pushed.some((event) => event.type === 'turn.ended'), { timeout: 60_000 }).toBe(true);
  client.close();
  await outside.kill();

  const host = await startWebHost(tempDir('e2e-importing'), env);
  hosts.push(host);
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  await page.getByRole('region', { name: 'Agent capabilities' }).getByRole('button', { name: 'Import its sessions…' }).click();
  const sessions = page.getByRole('region', { name: "Claude's own sessions" });
  const row = sessions.getByRole('listitem');
  await expect(row).toHaveCount(1);
  await row.getByRole('button', { name: 'Import' }).click();

  await expect(page.getByRole('article', { name: /^You/ })).toContainText('Please remember plums');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('Plums are noted.');
  await expect(page.getByRole('list', { name: 'Conversations' }).getByRole('listitem')).toHaveCount(1);

  // Listed again, it shows where it went instead of importing twice.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  await page.getByRole('region', { name: 'Agent capabilities' }).getByRole('button', { name: 'Import its sessions…' }).click();
  await expect(sessions.getByRole('listitem').getByRole('button', { name: 'Open (imported)' })).toBeVisible();
});
