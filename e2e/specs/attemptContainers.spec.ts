/**
 * "Ask several agents" with each attempt in a container of its own, in the page, with real agents
 * (Claude and Qwen from npm) against the model stub and a real podman (the test image; podman set
 * up by its own `CONTAINERS_CONF` and `CONTAINERS_STORAGE_CONF`, as a person's would be):
 * - Settings › Machines › "Containers": the engine found, and "Run options" saved (the agents'
 *   home and settings, the test agents read-only, the folder of a socket that relays the stub's
 *   port into each container, which has no network);
 * - dialog "Ask several agents": "Run each in its own container", textbox "Image", "Allow network"
 *   left unticked (`--network=none`);
 * - each agent signs shared.txt with its own shell tool after the person allows it, inside its own
 *   container (two containers, labelled, its copy mounted), the person's folder untouched;
 * - "Keep this one" on Claude's applies its change; both containers are removed with the copies,
 *   and Settings › Machines says Baton has no container running.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { tempDir, testAgentsBin } from '../fixtures/agentEnv.js';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { askSeveralAgents, attemptRegion, openKeepDialog } from '../fixtures/askSeveral.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';
import { containerUnavailable, podmanSettingsEnv, relayIntoAttemptContainers, testImage, testRunOptions } from '../fixtures/container.js';
import { startModelStub, type NormalizedRequest } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';

const unavailable = containerUnavailable();

/** Each agent writes its own name into shared.txt (a path in its copy) with its shell tool. */
function script(request: NormalizedRequest) {
  if (request.jsonSchema !== undefined) {
    return undefined;
  }
  const agent = request.dialect === 'anthropic' ? 'claude' : 'qwen';
  if (request.toolResult !== undefined) {
    return { chunks: [`Done by ${agent}.`] };
  }
  if (!request.lastUserText.includes('Sign shared.txt')) {
    return { chunks: [`Noted by ${agent}.`] };
  }
  const command = `printf 'by ${agent}\\n' > shared.txt`;
  return agent === 'claude'
    ? { kind: 'tool' as const, name: 'Bash', arguments: { command, description: 'Sign shared.txt' } }
    : { kind: 'tool' as const, name: 'run_shell_command', arguments: { command, description: 'Sign shared.txt' } };
}

/** A word of the run options, quoted as the field reads it. */
const quoted = (word: string): string => `'${word.replace(/'/g, `'"'"'`)}'`;

test.describe('attempts in containers', () => {
  test.skip(unavailable !== undefined, unavailable ?? '');
  let host: WebHost | undefined;
  let relay: { runOptions: string; stop(): void } | undefined;
  const podman = (...args: string[]): string =>
    execFileSync('podman', args, { encoding: 'utf8', env: { ...process.env, ...podmanSettingsEnv() } }).trim();
  const ours = (): string[] => podman('ps', '-a', '--filter', 'label=baton.attempt', '--format', '{{.Names}}').split('\n').filter(Boolean);
  test.afterEach(async () => {
    relay?.stop();
    await host?.kill();
    for (const name of ours()) {
      podman('rm', '-f', '-t', '0', name);
    }
  });

  test('Claude and Qwen each in a container of its own; keeping Claude applies its change and both containers go', async ({ page }) => {
    test.setTimeout(420_000);
    const image = await testImage();
    const work = tempDir('e2e-attempt-containers');
    writeFileSync(path.join(work, 'shared.txt'), 'original\n');
    const stub = await startModelStub({ reply: script });
    try {
      const agentsEnv = allAgentsHome(stub.url);
      const dataDir = tempDir('e2e-attempt-containers-data');
      host = await startWebHost(dataDir, { ...agentsEnv, ...podmanSettingsEnv() });
      // What the agents need there, as a person adds their log-ins: their home (settings, keys) and the agents. The
      // containers have no network: the stub's port on 127.0.0.1 is relayed into each through a mounted socket.
      relay = await relayIntoAttemptContainers(Number(new URL(stub.url).port));
      const added = Object.entries(agentsEnv).filter(([key, value]) => key !== 'PATH' && process.env[key] !== value);
      const runOptions = testRunOptions(
        relay.runOptions,
        `-v ${quoted(`${agentsEnv.HOME}:${agentsEnv.HOME}`)}`,
        ...added.map(([key, value]) => `--env ${quoted(`${key}=${value}`)}`),
        `--env ${quoted(`PATH=${testAgentsBin}:/usr/local/bin:/usr/bin:/bin`)}`,
      );
      await page.goto(host.url);
      await page.getByRole('button', { name: 'Settings' }).click();
      const settings = page.getByRole('main', { name: 'Settings' });
      await settings.getByRole('tab', { name: 'Machines' }).click();
      const machines = settings.getByRole('tabpanel', { name: 'Machines' });
      await expect(machines.getByRole('status').filter({ hasText: 'Engine: podman (' })).toBeVisible();
      await machines.getByRole('textbox', { name: 'Run options' }).fill(runOptions);
      await machines.getByRole('button', { name: 'Save run options' }).click();
      await expect(machines.getByRole('button', { name: 'Save run options' })).toBeDisabled();
      await expect(machines.getByText('Baton has no container running.')).toBeVisible();

      await page.getByRole('button', { name: 'New conversation' }).click();
      await chooseAgent(page, 'Claude');
      await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
      await askSeveralAgents(
        page,
        'Sign shared.txt with your name, please.',
        ['Claude', 'Qwen'],
        (agent) => `Done by ${agent.toLowerCase()}.`,
        async (dialog) => {
          await dialog.getByRole('checkbox', { name: 'Run each in its own container' }).check();
          await expect(dialog.getByRole('button', { name: 'Ask' })).toBeDisabled();
          await dialog.getByRole('textbox', { name: 'Image' }).fill(image);
          await expect(dialog.getByRole('checkbox', { name: 'Allow network' })).not.toBeChecked();
        },
      );
      await expect(attemptRegion(page, 'Claude')).toContainText(`in a container from ${image} with no network`);

      // Two containers, one per attempt, each running its agent with its copy mounted; the person's folder untouched.
      const names = ours();
      expect(names).toHaveLength(2);
      const running = names.map((name) => podman('top', name, 'args')).join('\n');
      expect(running).toContain('claude-agent-acp');
      expect(running).toContain('qwen');
      const top = path.join(dataDir, 'attempts');
      const [attemptsId] = readdirSync(top);
      for (const agent of ['claude', 'qwen']) {
        const copy = path.join(top, attemptsId!, agent);
        expect(readFileSync(path.join(copy, 'shared.txt'), 'utf8')).toBe(`by ${agent}\n`);
        const labels = names.map(
          (name) => JSON.parse(podman('inspect', '--format', '{{json .Config.Labels}}', name)) as Record<string, string>,
        );
        expect(labels.map((each) => each['baton.copy'])).toContain(copy);
      }
      expect(names.map((name) => podman('inspect', '--format', '{{.HostConfig.NetworkMode}}', name))).toEqual(['none', 'none']);
      expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('original\n');

      const keep = await openKeepDialog(page, 'Claude');
      await keep.getByRole('button', { name: 'Keep' }).click();
      await expect(keep).toBeHidden();
      expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by claude\n');
      await expect.poll(ours, { timeout: 60_000 }).toEqual([]);

      await page.getByRole('button', { name: 'Settings' }).click();
      await settings.getByRole('tab', { name: 'Machines' }).click();
      await expect(machines.getByText('Baton has no container running.')).toBeVisible();
    } finally {
      await stub.close();
    }
  });
});
