/**
 * Every real agent (pinned in e2e/agents, pointed at the model stub) in the page: shown as
 * available with its capability card before it is picked, and a conversation with each.
 */
import { expect, test } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentHome, allAgentsHome } from '../fixtures/agentSetups.js';
import { tempDir } from '../fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';
import { pickValue } from '../fixtures/choices.js';

const AGENTS = ['Claude', 'Codex', 'Gemini', 'Qwen', 'OpenCode', 'pi'];

/** What each pinned agent's initialize says about sessions (measured), as its card shows it. */
const SESSIONS: Record<string, string> = {
  Claude: 'load yes · resume yes · list yes · fork yes · close yes',
  Codex: 'load yes · resume yes · list yes · fork yes · close yes',
  Gemini: 'load yes · resume no · list no · fork no · close no',
  Qwen: 'load yes · resume yes · list yes · fork no · close no',
  OpenCode: 'load yes · resume yes · list yes · fork yes · close yes',
  pi: 'load yes · resume no · list yes · fork no · close no',
};
let stub: ModelStub;
let host: WebHost;

test.beforeAll(async () => {
  stub = await startModelStub();
  host = await startWebHost(tempDir('agents-data'), allAgentsHome(stub.url));
});

test.afterAll(async () => {
  await host.kill();
  await stub.close();
});

for (const name of AGENTS) {
  test(`${name}: available, described by its card, and it answers`, async ({ page }) => {
    await page.goto(host.url);
    await chooseAgent(page, name);
    await expect(page.getByRole('combobox', { name: 'Agent', exact: true })).toHaveValue(name);
    const card = page.getByRole('region', { name: 'Agent capabilities' });
    await expect(card).toHaveAttribute('aria-busy', 'false', { timeout: 60_000 });
    // The version the agent reports, shown on its card.
    await expect(card.getByText(new RegExp(`^${name} \\d+\\.\\d+\\.\\d+$`))).toBeVisible();
    // A line of plain words; what it can do in full behind "More about <agent>", the protocol's terms behind "Protocol details".
    await expect(card.locator('.card-summary')).toContainText(/reopens sessions|no reopening/);
    await card.getByText(`More about ${name}`).click();
    const plain = card.getByRole('list', { name: `What ${name} can do` });
    await expect(plain).toContainText('Can reopen earlier sessions');
    await expect(plain).toContainText(/Takes text/);
    await expect(plain).not.toContainText('load yes');
    await card.getByText('Protocol details').click();
    await expect(card).toContainText(`Sessions${SESSIONS[name]}`);
    await expect(card).toContainText('Instructions');
    await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir(`agents-${name}`));
    await page.getByRole('textbox', { name: 'Message' }).fill(`Hello ${name}, this is Baton`);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('article', { name: new RegExp(`^${name}`) }).last()).toContainText(`Hello ${name}, this is Baton`, {
      timeout: 60_000,
    });
    await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  });
}

test('Claude says it uses the API key from its environment: its card says so, and offers no Log out it could not keep', async ({
  page,
}) => {
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  const card = page.getByRole('region', { name: 'Agent capabilities' });
  await expect(card).toHaveAttribute('aria-busy', 'false', { timeout: 60_000 });
  await expect(card).toContainText(
    'Claude uses the Anthropic API key from ANTHROPIC_API_KEY, set outside Baton: logging out cannot end it.',
  );
  await expect(card.getByRole('button', { name: 'Log out' })).toHaveCount(0);
});

test("the agent's own options appear as pickers, and a chosen model is used", async ({ page }) => {
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('agents-options'));
  await page.getByRole('textbox', { name: 'Message' }).fill('first, with the default model');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('first, with the default model');
  const options = page.getByRole('group', { name: 'Session options' });
  await expect(options.getByRole('combobox', { name: 'Mode', exact: true })).toBeVisible();
  await pickValue(page, options.getByRole('combobox', { name: 'Model', exact: true }), 'haiku');
  await page.getByRole('textbox', { name: 'Message' }).fill('second, with haiku');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ }).last()).toContainText('second, with haiku');
  expect(
    stub
      .modelRequests()
      .filter((request) => request.lastUserText.includes('second, with haiku'))
      .at(-1)?.model,
  ).toContain('haiku');

  // A new conversation with Claude: the pickers are there before the first message, with the last choice.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('agents-options-again'));
  const before = page.getByRole('group', { name: 'Session options' });
  await expect(before.getByRole('combobox', { name: 'Model', exact: true })).toHaveAttribute('data-value', 'haiku');
  await expect(before.getByRole('combobox', { name: 'Mode', exact: true })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill('first of the new one');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ }).last()).toContainText('first of the new one');
  expect(
    stub
      .modelRequests()
      .filter((request) => request.lastUserText.includes('first of the new one'))
      .at(-1)?.model,
  ).toContain('haiku');
  await expect(page.getByRole('group', { name: 'Session options' }).getByRole('combobox', { name: 'Model', exact: true })).toHaveAttribute(
    'data-value',
    'haiku',
  );
});

test("the agent's slash commands are offered when a message starts with /", async ({ page }) => {
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('agents-commands'));
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('hello');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('hello');
  await message.fill('/');
  const commands = page.getByRole('listbox', { name: 'Commands' });
  await expect(commands.getByRole('option').first()).toBeVisible();
  const count = await commands.getByRole('option').count();
  const names = await commands.getByRole('option').locator('strong').allTextContents();
  // The arrow keys move through the suggestions; Tab completes the highlighted one.
  await expect(commands.getByRole('option').first()).toHaveAttribute('aria-selected', 'true');
  if (count > 1) {
    await message.press('ArrowDown');
    await expect(commands.getByRole('option').nth(1)).toHaveAttribute('aria-selected', 'true');
    await message.press('Tab');
    await expect(message).toHaveValue(`${names[1]} `);
    await message.fill('/');
  }
  const first = names[0] ?? '';
  await message.fill(first.slice(0, 3));
  expect(await commands.getByRole('option').count()).toBeLessThanOrEqual(count);
  await commands.getByRole('option').first().click();
  await expect(message).toHaveValue(new RegExp(`^/${first.slice(1, 3)}\\S* $`));
  await expect(commands).toHaveCount(0);
});

test('a long list of models (OpenCode with twenty) is a searchable combobox: typing part of a name picks it, and that model answers', async ({
  page,
}) => {
  // OpenCode offered twenty models by its provider (as a real account offers about 150).
  const env = agentHome('opencode', stub.url);
  const config = path.join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json');
  const opencode = JSON.parse(readFileSync(config, 'utf8')) as { provider: { stub: { models: Record<string, unknown> } } };
  for (let n = 1; n <= 20; n++) {
    opencode.provider.stub.models[`stub-model-${n}`] = { name: `Stub model ${n}`, tool_call: true };
  }
  writeFileSync(config, JSON.stringify(opencode));
  const own = await startWebHost(tempDir('agents-models-data'), env);
  try {
    await page.goto(own.url);
    await chooseAgent(page, 'OpenCode');
    await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('agents-models'));
    await page.getByRole('textbox', { name: 'Message' }).fill('first, with the default model');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('article', { name: /^OpenCode/ })).toContainText('first, with the default model', { timeout: 60_000 });
    const model = page.getByRole('group', { name: 'Session options' }).getByRole('combobox', { name: 'Model', exact: true });
    await model.click();
    await model.fill('model 17');
    const list = page.getByRole('listbox', { name: 'Model' });
    await expect(list.getByRole('option')).toHaveCount(1);
    await model.press('ArrowDown');
    await model.press('Enter');
    await expect(model).toHaveValue('Stub/Stub model 17');
    await page.getByRole('textbox', { name: 'Message' }).fill('second, with model 17');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('article', { name: /^OpenCode/ }).last()).toContainText('second, with model 17', { timeout: 60_000 });
    expect(
      stub
        .modelRequests()
        .filter((request) => request.lastUserText.includes('second, with model 17'))
        .at(-1)?.model,
    ).toBe('stub-model-17');
  } finally {
    await own.kill();
  }
});
