/**
 * Steering with claude-agent-acp 0.101, which advertises `_meta.steering`: a follow-up queued while
 * a reply streams can be sent now, into the running turn, and the transcript keeps it there.
 */
import { expect, test } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';

let stub: ModelStub;
let host: WebHost | undefined;

test.beforeEach(async () => {
  stub = await startModelStub();
});

test.afterEach(async () => {
  await host?.kill();
  await stub.close();
});

test('"Send now" steers a running Claude turn: the follow-up reaches the model within that turn', async ({ page }) => {
  test.setTimeout(120_000);
  host = await startWebHost(tempDir('e2e-steer'), agentTestEnv(stub.url));
  await page.goto(host.url);
  await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Claude' });
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-steer-work'));
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('Count slowly please\nSLOW_STREAM 6');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('slow3');

  await message.fill('Also mention STEER-MARKER');
  await message.press('Enter');
  const queued = page.getByRole('status').filter({ hasText: 'Queued, sent when this reply ends' });
  await expect(queued).toBeVisible();
  await queued.getByRole('button', { name: 'Send now' }).click();
  await expect(queued).toBeHidden();
  // In the transcript, inside the running turn, marked as such; no second turn was started.
  const steered = page.getByRole('article', { name: 'You' }).filter({ hasText: 'Also mention STEER-MARKER' });
  await expect(steered).toContainText('sent into the running reply');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  // The model is sent the follow-up while the turn still runs (Claude reads it at its next step).
  await expect.poll(() => stub.modelRequests().some((request) => request.userTexts.some((text) => text.includes('STEER-MARKER'))), { timeout: 60_000 }).toBe(true);
});
