/**
 * A conversation in a container, in the page, against a real podman container (an image
 * debootstrapped from Debian, no network; e2e/fixtures/container.ts):
 * - Settings › Machines, button "Add container": dialog "Add container" with textboxes "Name" and
 *   "Command" and button "Add"; a command that asks for a terminal (-t) is refused, saying why;
 * - the container is an option of combobox "Machine", named by its name; the agent's reply comes
 *   from inside it (under its conmon), its shell writes a file in the folder there, and a rewind
 *   removes it;
 * - Claude (from npm) in the container against the model stub (its port relayed into the container,
 *   which has no network): its shell command writes a file after a permission question; the
 *   `podman exec` client carrying the channel is killed while a slow reply streams, and every word
 *   arrives once; a rewind removes the file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { tempDir, testAgentsBin } from '../fixtures/agentEnv.js';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';
import { containerUnavailable, startContainer, type TestContainer } from '../fixtures/container.js';
import { registerFakeAgent } from '../fixtures/fakeAgentConfig.js';
import { startModelStub } from '../fixtures/modelStub.js';
import { processesWith } from '../fixtures/processTree.js';
import { claudeStubSettings, firstClaudeTurnThere, rewindRemoving, writeMadeScript } from '../fixtures/remoteClaude.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';

const unavailable = containerUnavailable();
const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));

async function say(page: Page, text: string): Promise<void> {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(text);
  await composer.press('Enter');
}

test.describe('a conversation in a container', () => {
  test.skip(unavailable !== undefined, unavailable ?? '');
  let container: TestContainer | undefined;
  let host: WebHost | undefined;
  test.afterEach(async () => {
    await host?.kill();
    await container?.stop();
  });

  test('"Add container" in Settings › Machines; the agent runs in it, its shell writes there, and a rewind removes it', async ({
    page,
  }) => {
    test.setTimeout(300_000);
    container = await startContainer('e2e');
    const work = tempDir('e2e-container-work');
    writeFileSync(path.join(work, 'kept.txt'), 'kept\n');
    const dataDir = tempDir('e2e-container-data');
    registerFakeAgent(dataDir);
    host = await startWebHost(dataDir, env);
    await page.goto(host.url);

    await page.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('main', { name: 'Settings' });
    await settings.getByRole('tab', { name: 'Machines' }).click();
    const machines = settings.getByRole('tabpanel', { name: 'Machines' });
    await machines.getByRole('button', { name: 'Add container' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add container' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('baton-dev');
    await dialog.getByRole('textbox', { name: 'Command' }).fill(container.command.replace(' -i ', ' -it '));
    await dialog.getByRole('button', { name: 'Add' }).click();
    await expect(dialog.getByRole('alert')).toContainText('asks for a terminal (-t)');
    await dialog.getByRole('textbox', { name: 'Command' }).fill(container.command);
    await dialog.getByRole('button', { name: 'Add' }).click();
    await expect(dialog).toBeHidden();
    await expect(machines.getByRole('listitem').filter({ hasText: 'baton-dev' })).toContainText('reached by podman');

    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('combobox', { name: 'Machine' }).selectOption({ label: 'baton-dev' });
    await chooseAgent(page, 'Fake');
    await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
    await say(page, 'hello from the page');
    await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Fake reply: hello from the page');
    await expect(page.getByRole('status').filter({ hasText: 'On baton-dev: connected' })).toBeVisible();
    // The agent runs in the container, under its conmon, not under Baton's host.
    const agents = processesWith('fakeAgent.mjs').filter((found) => found.ancestors.some((process) => process.name === 'conmon'));
    expect(agents.length).toBeGreaterThan(0);
    expect(agents.every((found) => !found.ancestors.some((process) => process.pid === host!.child.pid))).toBe(true);

    await say(page, 'sh[echo from the container > made.txt]');
    await expect(page.getByRole('article', { name: /^Fake/ }).last()).toContainText('Files changed in this turn');
    await expect.poll(() => existsSync(path.join(work, 'made.txt'))).toBe(true);
    expect(readFileSync(path.join(work, 'made.txt'), 'utf8')).toBe('from the container\n');

    await rewindRemoving(page, 'made.txt');
    expect(existsSync(path.join(work, 'made.txt'))).toBe(false);
    expect(readFileSync(path.join(work, 'kept.txt'), 'utf8')).toBe('kept\n');
  });

  test('Claude in the container against the model stub: a shell command after a question, a killed podman exec client, a rewind', async ({
    page,
  }) => {
    test.setTimeout(300_000);
    const work = tempDir('e2e-container-claude-work');
    writeFileSync(path.join(work, 'kept.txt'), 'kept\n');
    const stub = await startModelStub({ reply: writeMadeScript(work) });
    try {
      // Claude's adapter from the test agents, after the container's own Node on its PATH; pointed at the stub, whose port is relayed in.
      container = await startContainer('e2e-claude', {
        ...claudeStubSettings(stub.url),
        PATH: `/usr/local/bin:/usr/bin:/bin:${testAgentsBin}`,
      });
      await container.forwardPort(Number(new URL(stub.url).port));
      const dataDir = tempDir('e2e-container-claude-data');
      // Claude is in the container only: not on this computer's PATH (the page offers it for the container all the same).
      const here = allAgentsHome(stub.url);
      host = await startWebHost(dataDir, {
        ...here,
        PATH: here
          .PATH!.split(path.delimiter)
          .filter((entry) => entry !== testAgentsBin)
          .join(path.delimiter),
      });
      await page.goto(host.url);
      await addContainer(page, 'baton-dev', container.command);

      await page.getByRole('button', { name: 'New conversation' }).click();
      await page.getByRole('combobox', { name: 'Machine' }).selectOption({ label: 'baton-dev' });
      const agents = await firstClaudeTurnThere(page, work, 'conmon');
      const claude = page.getByRole('article', { name: 'Claude' });

      await say(page, 'TURN-MAKE please write made.txt');
      const question = page.getByRole('group', { name: /^Permission: / }).last();
      await question.getByRole('button', { name: 'Yes', exact: true }).click({ timeout: 60_000 });
      await expect(claude.last()).toContainText('Done.');
      expect(readFileSync(path.join(work, 'made.txt'), 'utf8')).toBe('made there\n');

      // The podman exec client carrying the channel is killed while a slow reply streams: nothing is lost or repeated.
      await say(page, '[slow] please');
      await expect(claude.last()).toContainText('word9 ');
      const channels = processesWith('--attach').filter((found) => found.ancestors.some((process) => process.pid === host!.child.pid));
      const carrier = channels.find((found) => commandLine(found.pid).startsWith('podman '));
      expect(carrier).toBeDefined();
      process.kill(carrier!.pid, 'SIGKILL');
      await expect(claude.last()).toContainText('word199 ', { timeout: 60_000 });
      await expect(page.getByRole('status').filter({ hasText: 'On baton-dev: connected' })).toBeVisible();
      // As laid out (innerText): the reply's last word is apart from what follows it in the article.
      const words = (await claude.last().innerText()).match(/word\d+(?=\s)/g) ?? [];
      expect(words).toEqual(Array.from({ length: 200 }, (_, index) => `word${index}`));
      expect(processesWith('claude-agent-acp').map((found) => found.pid)).toEqual(expect.arrayContaining(agents.map((found) => found.pid)));

      await rewindRemoving(page, 'made.txt');
      expect(existsSync(path.join(work, 'made.txt'))).toBe(false);
      expect(readFileSync(path.join(work, 'kept.txt'), 'utf8')).toBe('kept\n');
    } finally {
      await stub.close();
    }
  });
});

function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
}

/** Settings › Machines › "Add container", then back. */
async function addContainer(page: Page, name: string, command: string): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('main', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Machines' }).click();
  await settings.getByRole('tabpanel', { name: 'Machines' }).getByRole('button', { name: 'Add container' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add container' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
  await dialog.getByRole('textbox', { name: 'Command' }).fill(command);
  await dialog.getByRole('button', { name: 'Add' }).click();
  await expect(dialog).toBeHidden();
}
