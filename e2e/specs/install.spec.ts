/**
 * Managed installs in a real browser: a missing agent is installed into Baton's own agents
 * folder with progress shown, chatted with, and removed. The package is a local tarball standing
 * in for the pinned npm package (BATON_AGENT_PACKAGES), so no registry is needed.
 */
import { expect, test } from '@playwright/test';
import { tempDir } from '../fixtures/agentEnv.js';
import { noAgentsEnv, packFakeAgent } from '../fixtures/fakeAgentPackage.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';

let host: WebHost | undefined;

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
});

test('a missing agent is installed with progress, used, and removed', async ({ page }) => {
  const tarball = packFakeAgent('codex-acp', '0.16.0');
  host = await startWebHost(tempDir('e2e-install'), { ...noAgentsEnv(), BATON_AGENT_PACKAGES: JSON.stringify({ codex: [tarball] }) });
  await page.goto(host.url);
  await chooseAgent(page, 'Codex');
  await expect(page.getByRole('note')).toContainText('Codex is not available');

  await page.getByRole('button', { name: /^Install Codex/ }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Codex is installed.' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('note')).toBeHidden();
  await expect(page.getByText('Installed by Baton: version 0.16.0.')).toBeVisible();

  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-work'));
  await page.getByRole('textbox', { name: 'Message' }).fill('hello from the page');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('article', { name: /^Codex/ })).toContainText('Fake reply: hello from the page');

  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Codex');
  await page.getByRole('button', { name: 'Remove…' }).click();
  await page.getByRole('button', { name: 'Remove Codex for good' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Codex is removed.' })).toBeVisible();
  await expect(page.getByRole('note')).toContainText('Codex is not available');
  await expect(page.getByRole('button', { name: /^Install Codex/ })).toBeEnabled();
});

test('a failed install shows why, with npm output', async ({ page }) => {
  host = await startWebHost(tempDir('e2e-install-fail'), {
    ...noAgentsEnv(),
    BATON_AGENT_PACKAGES: JSON.stringify({ codex: [`${tempDir('none')}/missing.tgz`] }),
  });
  await page.goto(host.url);
  await chooseAgent(page, 'Codex');
  await page.getByRole('button', { name: /^Install Codex/ }).click();
  const failure = page.getByRole('alert').filter({ hasText: 'Could not install Codex' });
  await expect(failure).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('log', { name: 'Install output' })).toContainText('missing.tgz');
});
