/**
 * The new user's tour, end to end in the page, with the six real agents against the model stub:
 * first launch, a first message with each agent, a toolbox server, instructions (Save says which
 * agents cannot take them), a switch to another agent, and the refusal that switch meets,
 * resolved from its own buttons. Later: Qwen installed from the picker, five agents in one
 * conversation with the list intact, a refused turn in another conversation marked in the list and
 * counted on the title, and a restart that reopens the conversation open last. Busy: two agents
 * asked at once, one attempt continued as a branch before another is kept (the branch keeps its
 * folder and branch, and answers there), and Stop while an agent is still opening its session.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { allAgentsHome, everythingServer } from '../fixtures/agentSetups.js';
import { askSeveralAgents, attemptRegion, openKeepDialog } from '../fixtures/askSeveral.js';
import { tempDir, testAgentsBin } from '../fixtures/agentEnv.js';
import { registerFakeAgents } from '../fixtures/fakeAgentConfig.js';
import { startModelStub, type ModelStub, type NormalizedRequest } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';

const AGENTS = ['Claude', 'Codex', 'Gemini', 'Qwen', 'OpenCode', 'pi'];
const MARKER = 'TOUR-MARKER-5521';
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

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

test('a new user: first launch, a first message with each agent, a toolbox server, instructions, a switch, and a refusal resolved from its buttons', async ({
  page,
}) => {
  test.setTimeout(480_000);
  // First launch: an empty data folder.
  host = await startWebHost(tempDir('e2e-tour'), allAgentsHome(stub.url));
  await page.goto(host.url);
  await expect(page.getByRole('combobox', { name: 'Agent' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  // No folder is taken for the person (not the home folder): the first conversation asks for one.
  await expect(page.getByRole('textbox', { name: 'Working folder' })).toHaveValue('');
  await expect(page.getByRole('status').filter({ hasText: /^Choose the folder .* will work in/ })).toBeVisible();

  // A first message with each agent, each in a conversation of its own.
  for (const name of AGENTS) {
    await page.getByRole('button', { name: 'New conversation' }).click();
    await chooseAgent(page, name);
    await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir(`e2e-tour-${name}`));
    await send(page, `Hello ${name}, first time here`);
    await expect(page.getByRole('article', { name: new RegExp(`^${name}`) }).last()).toContainText(`Hello ${name}, first time here`, {
      timeout: 90_000,
    });
  }
  await expect(page.getByRole('list', { name: 'Conversations' }).getByRole('listitem')).toHaveCount(AGENTS.length);

  // The toolbox: a real MCP server added for a new Claude conversation; its tools are listed from the server itself.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-tour-work'));
  await page.getByRole('button', { name: 'Toolbox', exact: true }).click();
  const toolbox = page.getByRole('dialog', { name: 'Toolbox' });
  await toolbox.getByRole('button', { name: 'Add server' }).click();
  await toolbox.getByRole('textbox', { name: 'Name', exact: true }).fill('everything');
  await toolbox.getByRole('textbox', { name: 'Command' }).fill(everythingServer.command);
  await toolbox.getByRole('textbox', { name: 'Arguments' }).fill(everythingServer.args.join('\n'));
  await toolbox.getByRole('button', { name: 'Save server' }).click();
  await expect(toolbox.getByRole('checkbox', { name: 'everything', exact: true })).toBeChecked();
  await toolbox.getByRole('button', { name: 'Close' }).click();
  await send(page, 'Hello Claude, with tools');
  await expect(page.getByRole('article', { name: /^Claude/ }).last()).toContainText('Hello Claude, with tools', { timeout: 90_000 });
  await page.getByRole('button', { name: 'Toolbox', exact: true }).click();
  await expect(toolbox.getByRole('list', { name: 'Tools this agent sees' })).toContainText(/everything: .*get-sum/, { timeout: 60_000 });
  await toolbox.getByRole('button', { name: 'Close' }).click();

  // Instructions: added to the prompt. Save says first which agents cannot take them, with their ways out.
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  const instructions = page.getByRole('dialog', { name: 'Instructions' });
  await instructions.getByRole('textbox', { name: 'Your instructions' }).fill(`Always mention ${MARKER}.`);
  await expect(instructions.getByRole('region', { name: 'Delivery preview' })).toContainText('Your instructions: system, added');
  await instructions.getByRole('button', { name: 'Save', exact: true }).click();
  const cannot = instructions.getByRole('list', { name: 'Agents that cannot take these instructions' });
  await expect(cannot.getByRole('listitem').filter({ hasText: /^Gemini:/ })).toContainText('Gemini cannot add to its own prompt', {
    timeout: 60_000,
  });
  await instructions.getByRole('button', { name: 'Save anyway' }).click();
  await expect(instructions).toBeHidden();
  await send(page, 'Hello Claude, with instructions');
  await expect(page.getByRole('article', { name: /^Claude/ }).last()).toContainText('Hello Claude, with instructions', { timeout: 90_000 });
  const toClaude = stub
    .modelRequests()
    .find((request) => request.userTexts.some((text) => text.includes('Hello Claude, with instructions')));
  expect(toClaude?.system).toContain(MARKER);
  expect(toClaude?.userRaw).not.toContain(MARKER);

  // A switch to Gemini: the refusal names why and carries its ways out; "Don't send my instructions
  // to Gemini" resolves it, and the message goes, handed off, with none of the instructions.
  await chooseAgent(page, 'Gemini');
  await expect(page.getByRole('status').filter({ hasText: 'Your next message goes to Gemini' })).toBeVisible();
  await send(page, 'Hello Gemini, take over');
  const refusal = page.getByRole('alert').filter({ hasText: 'Gemini cannot take instructions to add to its prompt' });
  await expect(refusal).toBeVisible({ timeout: 60_000 });
  const ways = refusal.getByRole('group', { name: 'Ways to send it' });
  await expect(ways.getByRole('button', { name: 'Open Instructions' })).toBeVisible();
  await ways.getByRole('button', { name: "Don't send my instructions to Gemini" }).click();
  await expect(page.getByRole('article', { name: /^Gemini/ })).toContainText('Hello Gemini, take over', { timeout: 90_000 });
  await expect(page.getByRole('group', { name: 'Switched from Claude to Gemini' })).toContainText('handed off');
  const toGemini = stub
    .modelRequests()
    .filter((request) => request.dialect === 'gemini' && request.userTexts.some((text) => text.includes('Hello Gemini, take over')));
  expect(toGemini.length).toBeGreaterThan(0);
  expect(JSON.stringify(toGemini)).not.toContain(MARKER);
  await page.screenshot({ path: 'e2e/artifacts/tour.png', fullPage: true });
});

/**
 * The environment of `allAgentsHome` with every test agent on PATH but Qwen, which the person
 * installs from the picker (npm reads the packages from the machine's npm cache, which the test
 * agents' own install filled, else from the registry).
 */
function allButQwen(stubUrl: string): Record<string, string> {
  const env = allAgentsHome(stubUrl);
  const bin = tempDir('tour-bin');
  for (const name of readdirSync(testAgentsBin)) {
    if (!name.startsWith('qwen')) {
      symlinkSync(path.join(testAgentsBin, name), path.join(bin, name));
    }
  }
  return {
    ...env,
    PATH: [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
    npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
  };
}

test('a new user, later: Qwen installed from the picker, five agents in one conversation with the list intact, a failure in another conversation marked there, a restart that reopens the last conversation', async ({
  page,
}) => {
  test.setTimeout(600_000);
  const dataDir = tempDir('e2e-tour-later');
  const env = allButQwen(stub.url);
  host = await startWebHost(dataDir, env, 15_000, { port: 'remembered' });
  await page.goto(host.url);

  // Qwen is offered, not installed: installed from the picker, with progress, and then used.
  await chooseAgent(page, 'Qwen');
  await page.getByRole('button', { name: /^Install Qwen/ }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Qwen is installed.' })).toBeVisible({ timeout: 300_000 });
  await page.screenshot({ path: 'e2e/artifacts/tour-installed.png' });

  // One conversation, five agents: Claude, then each hands it on.
  const five = ['Claude', 'Codex', 'Gemini', 'Qwen', 'OpenCode'];
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-tour-later-work'));
  for (const name of five) {
    if (name !== 'Claude') {
      await chooseAgent(page, name);
    }
    await send(page, `Hello ${name}, in turn`);
    await expect(page.getByRole('article', { name: new RegExp(`^${name}`) }).last()).toContainText(`Hello ${name}, in turn`, {
      timeout: 90_000,
    });
  }
  const list = page.getByRole('list', { name: 'Conversations' });
  const shared = list.getByRole('listitem').filter({ hasText: 'Hello Claude, in turn' });
  await expect(shared.getByLabel('Agents: OpenCode, Claude, Codex, Gemini, Qwen', { exact: true })).toHaveText('OpenCode +4');

  // Another conversation whose turn is refused (Gemini cannot add instructions to its prompt): marked in the list once another is open.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Gemini');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-tour-later-refused'));
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  const instructions = page.getByRole('dialog', { name: 'Instructions' });
  await instructions.getByRole('textbox', { name: 'Your instructions' }).fill('Always be brief.');
  await instructions.getByRole('button', { name: 'Save', exact: true }).click();
  await instructions.getByRole('button', { name: 'Save anyway' }).click();
  await expect(instructions).toBeHidden();
  await send(page, 'Hello Gemini, with my instructions');
  await expect(page.getByRole('alert').filter({ hasText: 'Gemini cannot' }).first()).toBeVisible({ timeout: 60_000 });
  await shared.getByRole('button').first().click();
  const refused = list.getByRole('listitem').filter({ hasText: 'Hello Gemini, with my instructions' });
  await expect(refused).toContainText('Last turn failed');
  await expect(page).toHaveTitle('(1) Baton');
  // The list holds: no row runs into the next, and the badge lies inside its row.
  const rows = await Promise.all([0, 1].map((index) => list.getByRole('listitem').nth(index).boundingBox()));
  expect(rows[0]!.y + rows[0]!.height).toBeLessThanOrEqual(rows[1]!.y + 1);
  const badge = await shared.getByLabel(/^Agents: /).boundingBox();
  const row = await shared.boundingBox();
  expect(badge!.x + badge!.width).toBeLessThanOrEqual(row!.x + row!.width);
  expect(badge!.y + badge!.height).toBeLessThanOrEqual(row!.y + row!.height);
  await page.screenshot({ path: 'e2e/artifacts/tour-list.png' });

  // A restart: the same address, and the conversation that was open last opens.
  const address = host.url;
  await host.kill();
  host = await startWebHost(dataDir, env, 15_000, { port: 'remembered' });
  expect(new URL(host.url).port).toBe(new URL(address).port);
  await page.goto(host.url);
  await expect(page.getByRole('article', { name: 'You' }).first()).toContainText('Hello Claude, in turn');
  await expect(page.getByRole('article', { name: /^OpenCode/ }).last()).toContainText('Hello OpenCode, in turn');
  await page.screenshot({ path: 'e2e/artifacts/tour-restart.png', fullPage: true });
});

/**
 * The model's script for the attempts of the tour: Claude and Codex each sign shared.txt with their
 * shell tool; "Write there." writes there.txt.
 */
function signing(request: NormalizedRequest) {
  if (request.jsonSchema !== undefined) {
    return undefined;
  }
  const agent = request.dialect === 'anthropic' ? 'claude' : 'codex';
  if (request.toolResult !== undefined) {
    return { chunks: [`Done by ${agent}.`] };
  }
  const command = request.lastUserText.includes('Write there.')
    ? `printf 'written there\\n' > there.txt`
    : request.lastUserText.includes('Sign shared.txt')
      ? `printf 'by ${agent}\\n' > shared.txt`
      : undefined;
  if (command === undefined) {
    return { chunks: [`Noted by ${agent}.`] };
  }
  return agent === 'claude'
    ? { kind: 'tool' as const, name: 'Bash', arguments: { command, description: 'Write the file' } }
    : {
        kind: 'tool' as const,
        name: 'exec_command',
        arguments: { cmd: command, sandbox_permissions: 'require_escalated', justification: 'Write the file' },
      };
}

test('a new user, busy: an attempt continued as a branch keeps its folder when another is kept, and answers there; Stop while an agent is still opening its session', async ({
  page,
}) => {
  test.setTimeout(420_000);
  await stub.close();
  stub = await startModelStub({ reply: signing });
  const work = tempDir('e2e-tour-attempts');
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], { cwd: work, encoding: 'utf8' });
  writeFileSync(path.join(work, 'shared.txt'), 'original\n');
  git('init', '-q', '-b', 'main');
  git('add', 'shared.txt');
  git('commit', '-q', '-m', 'start');
  const dataDir = tempDir('e2e-tour-attempts-data');
  // An agent that never opens its session, for the Stop at the end.
  registerFakeAgents(dataDir, [{ name: 'Stuck', options: { extraArgs: ['--hang-new'] } }]);
  host = await startWebHost(dataDir, allAgentsHome(stub.url));
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  await askSeveralAgents(
    page,
    'Sign shared.txt with your name, please.',
    ['Claude', 'Codex'],
    (agent) => `Done by ${agent.toLowerCase()}.`,
  );
  const attempt = (agent: string) => attemptRegion(page, agent);
  // The conversation is named by the message the agents were asked.
  const list = page.getByRole('list', { name: 'Conversations' });
  const asking = list.getByRole('button', { name: /^Sign shared\.txt with your name, please\./ }).filter({ hasNotText: 'attempt' });
  await expect(asking).toHaveCount(1);

  // Claude's attempt continued as a branch first, then Codex's kept.
  await attempt('Claude').getByRole('button', { name: 'Continue this attempt' }).click();
  await expect(page.getByRole('main')).toHaveAttribute('aria-label', /\(Claude's attempt\)$/);
  const branchFolder = git('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree ') && line.includes(`${path.sep}claude`))
    .map((line) => line.slice('worktree '.length))[0]!;
  expect(readFileSync(path.join(branchFolder, 'shared.txt'), 'utf8')).toBe('by claude\n');
  await asking.click();
  const keep = await openKeepDialog(page, 'Codex');
  await keep.getByRole('button', { name: 'Keep' }).click();
  await expect(keep).toBeHidden();
  expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by codex\n');
  // The continued branch's folder and branch survive; no other baton/ branch or worktree is left.
  // The copies go in the background, each worktree before its branch: both are waited for.
  await expect.poll(() => git('worktree', 'list', '--porcelain').match(/^worktree /gm)?.length, { timeout: 30_000 }).toBe(2);
  await expect.poll(() => git('branch', '--list', 'baton/*').trim().split('\n'), { timeout: 30_000 }).toHaveLength(1);
  expect(readFileSync(path.join(branchFolder, 'shared.txt'), 'utf8')).toBe('by claude\n');
  expect(git('worktree', 'list')).toContain(branchFolder);
  // Its next message is answered there: the file lands in its folder, not the person's.
  await list.getByRole('button', { name: /\(Claude's attempt\)/ }).click();
  await send(page, 'Write there.');
  await page
    .getByRole('group', { name: /^Permission: / })
    .getByRole('button', { name: /^(Yes|Yes, proceed|Allow)$/ })
    .click({ timeout: 90_000 });
  await expect
    .poll(() => readdirSync(branchFolder).includes('there.txt') && readFileSync(path.join(branchFolder, 'there.txt'), 'utf8'), {
      timeout: 90_000,
    })
    .toBe('written there\n');
  expect(readdirSync(work)).not.toContain('there.txt');

  // Stop while an agent is still opening its session: the turn ends at once and says so.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await chooseAgent(page, 'Stuck');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-tour-stuck'));
  await send(page, 'hello');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(
    page.getByRole('note').or(page.getByRole('status')).filter({ hasText: 'Stopped before Stuck had opened its session' }),
  ).toBeVisible({
    timeout: 15_000,
  });
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
});
