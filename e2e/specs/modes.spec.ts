/**
 * The person's permission mode wins, with claude-agent-acp 0.101, which starts a session in "Auto"
 * (its own classifier decides) unless asked otherwise: after the first message the Mode picker
 * shows "Manual", the transcript says Baton set it back, and the modes in which the agent decides
 * alone are marked as such in the picker and beside it when picked.
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

test('a new Claude conversation asks first: Manual, never a self-approving mode the person did not pick', async ({ page }) => {
  host = await startWebHost(tempDir('e2e-modes'), agentTestEnv(stub.url));
  await page.goto(host.url);
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Claude' });
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-modes-work'));
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('Hello, which mode are you in?');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('Stub reply');

  const mode = page.getByRole('group', { name: 'Session options' }).getByRole('combobox', { name: 'Mode', exact: true });
  await expect(mode).toHaveValue('default');
  await expect(mode.getByRole('option', { name: 'Manual', exact: true })).toHaveCount(1);
  await expect(mode.getByRole('option', { name: 'Auto (the agent decides without asking you)' })).toHaveCount(1);
  await expect(page.getByText(/started this session in Auto, where it decides without asking you\. Baton set it to Manual/)).toBeVisible();

  // Picked by the person, it is kept, and marked beside the picker.
  await mode.selectOption('auto');
  await expect(page.getByRole('note').filter({ hasText: 'In Auto, the agent decides without asking you.' })).toBeVisible();
});
