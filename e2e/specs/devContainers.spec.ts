/**
 * A folder's dev container, in the page, with the dev container CLI Baton ships and a real podman
 * (the test image; podman set up by its own `CONTAINERS_CONF` and `CONTAINERS_STORAGE_CONF`):
 * - a new conversation's working folder holding `.devcontainer/devcontainer.json` offers button
 *   "Open in its dev container"; one without offers nothing;
 * - pressing it runs `devcontainer up --docker-path podman`: the conversation is then on the dev
 *   container (an option of combobox "Machine", named after the folder) in the folder as the CLI
 *   mounts it (`/workspaces/<name>`);
 * - a conversation there runs its agent in the container, and its shell writes into the folder here;
 * - a folder whose container cannot be made shows the CLI's words and its output as log "Dev container log".
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import path from 'node:path';
import { tempDir } from '../fixtures/agentEnv.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';
import { containerUnavailable, devContainerFolder, podmanSettingsEnv, testImage } from '../fixtures/container.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../fixtures/fakeAgentConfig.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';

const unavailable = containerUnavailable();
const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));

test.describe('dev containers', () => {
  test.skip(unavailable !== undefined, unavailable ?? '');
  let host: WebHost | undefined;
  const podman = (...args: string[]): string =>
    execFileSync('podman', args, { encoding: 'utf8', env: { ...process.env, ...podmanSettingsEnv() } }).trim();
  test.afterEach(async () => {
    await host?.kill();
    for (const name of podman('ps', '-a', '--filter', 'label=baton.devcontainer', '--format', '{{.Names}}').split('\n').filter(Boolean)) {
      podman('rm', '-f', '-t', '0', name);
    }
  });

  test('"Open in its dev container" brings it up, and a conversation runs in it', async ({ page }) => {
    test.setTimeout(300_000);
    const image = await testImage();
    const folder = devContainerFolder('webapp', image);
    const broken = devContainerFolder('broken', 'localhost/Baton-No-Such-Image');
    const dataDir = tempDir('e2e-devcontainer-data');
    registerFakeAgent(dataDir);
    host = await startWebHost(dataDir, { ...env, ...podmanSettingsEnv() });
    await openStartingWith(page, host.url, FAKE_AGENT_ID);
    await chooseAgent(page, 'Fake');
    const working = page.getByRole('textbox', { name: 'Working folder' });
    const open = page.getByRole('button', { name: 'Open in its dev container' });

    await working.fill(tempDir('e2e-devcontainer-plain'));
    await page.waitForTimeout(300);
    await expect(open).toHaveCount(0);

    await working.fill(broken);
    await open.click();
    await expect(page.getByRole('alert').filter({ hasText: `devcontainer up failed for ${broken}` })).toBeVisible({ timeout: 120_000 });
    await expect(page.getByRole('log', { name: 'Dev container log' })).not.toBeEmpty();

    await working.fill(folder);
    await open.click();
    await expect(page.getByRole('combobox', { name: 'Machine' })).toHaveValue(`dev:${folder}`, { timeout: 120_000 });
    await expect(page.getByRole('combobox', { name: 'Machine' }).locator('option:checked')).toHaveText('webapp (dev container)');
    await expect(working).toHaveValue('/workspaces/webapp');

    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('hello from the page');
    await composer.press('Enter');
    await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Fake reply: hello from the page', { timeout: 60_000 });
    await composer.fill('sh[pwd > made.txt && cat kept.txt >> made.txt]');
    await composer.press('Enter');
    await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Files changed in this turn', { timeout: 60_000 });
    await expect(page.getByRole('status').filter({ hasText: 'On webapp (dev container): connected' })).toBeVisible();
    expect(readFileSync(path.join(folder, 'made.txt'), 'utf8')).toBe('/workspaces/webapp\nkept\n');
    const container = podman('ps', '--filter', `label=baton.devcontainer=${folder}`, '--format', '{{.Names}}');
    expect(podman('top', container, 'args')).toContain('fakeAgent.mjs');
  });
});
