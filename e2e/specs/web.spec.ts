/**
 * The walking skeleton in a real browser: new conversation → Claude → send → the stub's reply →
 * the host is SIGKILLed and restarted → the conversation and both messages are still there.
 */
import { expect, test } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';
import { expectNoAxeFindingsInBothThemes } from '../fixtures/axe.js';

let stub: ModelStub;
let hosts: WebHost[] = [];

// axe-core is injected as an inline script, which the page's own policy rightly refuses.
test.use({ bypassCSP: true });

test.beforeEach(async () => {
  stub = await startModelStub({ reply: () => ({ chunks: ['**Ahoy** ', 'from the ', 'model stub.'], delayMs: 30 }) });
  hosts = [];
});

test.afterEach(async () => {
  for (const host of hosts) {
    await host.kill();
  }
  await stub.close();
});

test('a message reaches Claude, the reply streams in, and both survive a killed host', async ({ page }) => {
  const dataDir = tempDir('e2e-data');
  const workDir = tempDir('e2e-work');
  const env = agentTestEnv(stub.url);
  const first = await startWebHost(dataDir, env);
  hosts.push(first);

  await page.goto(first.url);
  // The token was exchanged for a cookie and is gone from the address bar.
  expect(page.url()).not.toContain('token=');
  const list = page.getByRole('list', { name: 'Conversations' });
  await expect(list.getByRole('listitem')).toHaveCount(0);

  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(workDir);
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('Hello Claude, are you there?');
  await message.press('Enter');

  await expect(page.getByRole('article', { name: /^You/ })).toContainText('Hello Claude, are you there?');
  const reply = page.getByRole('article', { name: /^Claude/ });
  await expect(reply).toContainText('Ahoy from the model stub.');
  await expect(reply.locator('strong')).toHaveText('Ahoy');
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
  await expect(message).toHaveValue('');
  await expect(list.getByRole('listitem')).toHaveCount(1);
  expect(stub.modelRequests().some((request) => request.lastUserText.includes('Hello Claude, are you there?'))).toBe(true);

  await first.kill('SIGKILL');
  const second = await startWebHost(dataDir, env);
  hosts.push(second);
  await page.goto(second.url);

  await expect(list.getByRole('listitem')).toHaveCount(1);
  await list.getByRole('listitem').first().getByRole('button').click();
  await expect(page.getByRole('article', { name: /^You/ })).toContainText('Hello Claude, are you there?');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('Ahoy from the model stub.');
});

test('a window whose cookie went stale stops reconnecting, says how to get back in, and never locks the person out', async ({ page }) => {
  const dataDir = tempDir('e2e-data');
  const env = agentTestEnv(stub.url);
  const first = await startWebHost(dataDir, env);
  hosts.push(first);
  const port = Number(new URL(first.url).port);
  await page.goto(first.url);
  await expect(page.getByRole('button', { name: 'New conversation' })).toBeVisible();

  // Baton restarts on the same port with a new token: the window's cookie no longer lets it in.
  await first.kill();
  const second = await startWebHost(dataDir, env, 15_000, { port });
  hosts.push(second);
  await expect(page.getByRole('alert').filter({ hasText: 'no longer signed in to Baton' })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('alert')).toContainText('Open the address Baton printed when it started');

  // The page stopped trying: after a while the printed address still lets the person in.
  await page.waitForTimeout(4_000);
  const answer = await page.request.get(second.url, { maxRedirects: 0 });
  expect(answer.status()).toBe(303);
  await page.goto(second.url);
  await expect(page.getByRole('button', { name: 'New conversation' })).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'no longer signed in' })).toHaveCount(0);
});

test('Shift+Enter makes a new line; Stop cancels a running reply', async ({ page }) => {
  await stub.close();
  stub = await startModelStub({ reply: () => ({ chunks: Array.from({ length: 200 }, (_, index) => `word${index} `), delayMs: 100 }) });
  const host = await startWebHost(tempDir('e2e-data'), agentTestEnv(stub.url));
  hosts.push(host);

  await page.goto(host.url);
  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-work'));
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('first line');
  await message.press('Shift+Enter');
  await message.pressSequentially('second line');
  await expect(message).toHaveValue('first line\nsecond line');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('word3');
  const stop = page.getByRole('button', { name: 'Stop' });
  await expect(stop).toBeEnabled();
  await stop.click();
  await expect(page.getByText('Stopped.')).toBeVisible();
  await expect(stop).toBeDisabled();
  await expect(page.getByRole('article', { name: /^Claude/ })).not.toContainText('word199');
});

test('agents that are missing or crash are explained in the page, not in a console', async ({ page }) => {
  const dataDir = tempDir('e2e-data');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    `${dataDir}/agents.json`,
    JSON.stringify({
      agents: [
        { name: 'Ghost', command: `${dataDir}/no-such-agent` },
        {
          name: 'Crashy',
          command: process.execPath,
          args: ['-e', "process.stderr.write('crashy: no model configured\\n'); process.exit(3)"],
        },
      ],
    }),
  );
  const host = await startWebHost(dataDir, agentTestEnv(stub.url));
  hosts.push(host);

  await page.goto(host.url);
  const agent = page.getByRole('combobox', { name: 'Agent', exact: true });
  await agent.click();
  await agent.fill('Ghost');
  await expect(page.getByRole('option', { name: 'Ghost', exact: true })).toBeDisabled();
  await agent.press('Escape');
  await chooseAgent(page, 'Crashy');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-work'));
  await page.getByRole('textbox', { name: 'Message' }).fill('hello?');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const failure = page.getByRole('alert').filter({ hasText: 'Crashy failed to start' });
  await expect(failure).toBeVisible();
  await failure.getByText('Agent output').click();
  await expect(failure).toContainText('crashy: no model configured');
  // The turn is over: the person can write again.
  await page.getByRole('textbox', { name: 'Message' }).fill('again');
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeEnabled();
});

test('an agent that needs a log-in offers its methods; logging in lets the message through', async ({ page }) => {
  const { FAKE_AGENT_ID, registerFakeAgent } = await import('../fixtures/fakeAgentConfig.js');
  const dataDir = tempDir('e2e-auth');
  registerFakeAgent(dataDir, { requireAuth: true });
  const host = await startWebHost(dataDir, agentTestEnv(stub.url));
  hosts.push(host);
  await openStartingWith(page, host.url, FAKE_AGENT_ID);
  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-work'));
  await page.getByRole('textbox', { name: 'Message' }).fill('hello?');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const failure = page.getByRole('alert').filter({ hasText: 'needs you to log in' });
  await expect(failure).toBeVisible();
  await expect(failure.getByRole('button', { name: 'Log in with Token' })).toBeVisible();
  // The terminal method: the agent's own log-in screen in a real terminal, typed into by the person.
  await failure.getByRole('button', { name: 'Log in with Terminal login (in a terminal)' }).click();
  const dialog = page.getByRole('dialog', { name: 'Log in to Fake' });
  await expect(dialog.locator('.xterm-rows')).toContainText('Paste your token:');
  await expect(dialog.locator('.xterm-rows')).toContainText('Fake agent log-in (100x28)');
  await page.keyboard.type('secret');
  await page.keyboard.press('Enter');
  await expect(dialog.locator('.xterm-rows')).toContainText('Logged in as tester.');
  await expect(dialog.getByRole('status')).toHaveText('Logged in. Close this and send your message again.');
  await expectNoAxeFindingsInBothThemes(page, 'the log-in terminal');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Logged in to Fake' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill('now?');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('article', { name: /^Fake/ })).toContainText('Fake reply: now?');
});
