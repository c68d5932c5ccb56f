/**
 * "Ask several agents" in the page, with real agents against the model stub. Each agent changes
 * shared.txt its own way with its own shell tool (Claude's Bash, Codex's exec_command, Qwen's
 * run_shell_command), after the person allows it in the attempt's region:
 * - in a plain folder, Claude, Codex and Qwen each change the file in their own copy while the
 *   person's stays untouched; "Compare" shows the three diffs; "Ask Claude to compare" reaches
 *   Claude's model with every attempt's diff; "Keep this one" on Codex's leaves the folder with
 *   exactly Codex's change and the next message goes to Codex with the history; "Continue this
 *   attempt" on Claude's opens a branch whose folder holds Claude's change;
 * - in a git repository, the same with worktrees, and `.git`'s refs, index and worktree list are as
 *   before once one is kept.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { askSeveralAgents, attemptRegion, openKeepDialog } from '../fixtures/askSeveral.js';
import { tempDir } from '../fixtures/agentEnv.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';
import { startModelStub, type ModelStub, type NormalizedRequest } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';

let stub: ModelStub | undefined;
let host: WebHost | undefined;

// Three attempts side by side need three columns of 360 px; narrower, they are tabs (look.spec).
test.use({ viewport: { width: 1600, height: 900 } });

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
  await stub?.close();
  stub = undefined;
});

/** Which agent sent a request: each speaks its own vendor's API to the stub. */
const AGENT_BY_DIALECT: Record<NormalizedRequest['dialect'], string> = {
  anthropic: 'claude',
  'openai-responses': 'codex',
  'openai-chat': 'qwen',
  gemini: 'gemini',
};

/** The model's script: each agent writes its own name into shared.txt with its shell tool; asked to compare, it says so. */
function script(request: NormalizedRequest) {
  if (request.jsonSchema !== undefined) {
    return undefined;
  }
  const agent = AGENT_BY_DIALECT[request.dialect];
  if (request.lastUserText.includes('What did we settle on?')) {
    return { chunks: [`Noted by ${agent}.`] };
  }
  if (request.lastUserText.includes('Compare their attempts')) {
    return { chunks: ['Compared the attempts.'] };
  }
  if (request.toolResult !== undefined) {
    return { chunks: [`Done by ${agent}.`] };
  }
  if (!request.lastUserText.includes('Sign shared.txt')) {
    return { chunks: [`Noted by ${agent}.`] };
  }
  const command = `printf 'by ${agent}\\n' > shared.txt`;
  switch (agent) {
    case 'claude':
      return { kind: 'tool' as const, name: 'Bash', arguments: { command, description: 'Sign shared.txt' } };
    case 'codex':
      return {
        kind: 'tool' as const,
        name: 'exec_command',
        arguments: { cmd: command, sandbox_permissions: 'require_escalated', justification: 'Sign shared.txt' },
      };
    default:
      return { kind: 'tool' as const, name: 'run_shell_command', arguments: { command, description: 'Sign shared.txt' } };
  }
}

/** Opens a host, picks Claude in `work`, and asks Claude, Codex and Qwen (or those named) to sign shared.txt. */
async function askSeveral(page: Page, work: string, agents: readonly string[]): Promise<string> {
  stub = await startModelStub({ reply: script });
  const dataDir = tempDir('e2e-attempts-data');
  host = await startWebHost(dataDir, allAgentsHome(stub.url));
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  // Each attempt asks before running its command, in its own region: allowed once there.
  await askSeveralAgents(page, 'Sign shared.txt with your name, please.', agents, (agent) => `Done by ${agent.toLowerCase()}.`);
  for (const agent of agents) {
    await expect(attempt(page, agent)).toContainText('done');
  }
  return dataDir;
}

const attempt = attemptRegion;

/** Each attempt's copy of the working folder, by agent id (under `<data>/attempts/<id>/<agent>`). */
function copies(dataDir: string): Record<string, string> {
  const top = path.join(dataDir, 'attempts');
  return Object.fromEntries(
    readdirSync(top).flatMap((id) =>
      readdirSync(path.join(top, id))
        .filter((name) => name !== 'owner.json')
        .map((name) => [name, path.join(top, id, name)]),
    ),
  );
}

const listing = (folder: string): string[] =>
  readdirSync(folder)
    .filter((name) => name !== '.git')
    .sort();

for (const kind of ['plain folder', 'git repository'] as const) {
  test(`Claude, Codex and Qwen each change the file in their own copy; Compare, Ask Claude to compare, keep Codex, continue Claude (${kind})`, async ({
    page,
  }) => {
    test.setTimeout(420_000);
    const work = tempDir(`e2e-attempts-${kind === 'git repository' ? 'git' : 'plain'}`);
    writeFileSync(path.join(work, 'shared.txt'), 'original\n');
    writeFileSync(path.join(work, 'notes.md'), 'the person keeps notes here\n');
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], { cwd: work, encoding: 'utf8' });
    const gitState = (): string[] => [git('for-each-ref'), git('worktree', 'list', '--porcelain'), git('ls-files', '-s')];
    let gitBefore: string[] = [];
    if (kind === 'git repository') {
      git('init', '-q', '-b', 'main');
      git('add', 'shared.txt', 'notes.md');
      git('commit', '-q', '-m', 'start');
      // Not committed: each worktree carries it too.
      writeFileSync(path.join(work, 'draft.md'), 'not committed yet\n');
      gitBefore = gitState();
    }
    const dataDir = await askSeveral(page, work, ['Claude', 'Codex', 'Qwen']);

    // Each change landed in its own copy; the person's folder is untouched until Keep.
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('original\n');
    const made = copies(dataDir);
    expect(Object.keys(made).sort()).toEqual(['claude', 'codex', 'qwen']);
    for (const [agent, folder] of Object.entries(made)) {
      expect(readFileSync(path.join(folder, 'shared.txt'), 'utf8')).toBe(`by ${agent}\n`);
      expect(readFileSync(path.join(folder, 'notes.md'), 'utf8')).toBe('the person keeps notes here\n');
    }
    if (kind === 'git repository') {
      await expect(attempt(page, 'Codex')).toContainText(/Worktree on baton\/.+\/codex/);
      expect(git('worktree', 'list')).toContain(made.codex!);
      expect(readFileSync(path.join(made.claude!, 'draft.md'), 'utf8')).toBe('not committed yet\n');
    }
    for (const agent of ['Claude', 'Codex', 'Qwen']) {
      await expect(attempt(page, agent).getByLabel('1 file changed, 1 line added, 1 removed', { exact: true })).toBeVisible();
    }

    // The process table names each attempt's process.
    await page.getByRole('button', { name: 'Settings' }).click();
    const table = page.getByRole('table', { name: 'Agent processes' });
    for (const agent of ['Claude', 'Codex', 'Qwen']) {
      await expect(table.getByRole('row').filter({ hasText: `attempt by ${agent}` })).toHaveCount(1);
    }
    await page.getByRole('button', { name: 'Close settings' }).click();

    // Compare shows the three diffs.
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const compare = page.getByRole('dialog', { name: 'Compare attempts' });
    for (const agent of ['Claude', 'Codex', 'Qwen']) {
      const figure = compare.getByRole('region', { name: `Changes by ${agent}` }).getByRole('figure', { name: 'Changes to shared.txt' });
      await expect(figure).toContainText(`by ${agent.toLowerCase()}`);
      await expect(figure).toContainText('original');
    }
    await compare.getByRole('combobox', { name: 'Show' }).click();
    await page.getByRole('option', { name: 'Claude against Codex' }).click();
    await expect(compare.getByRole('figure', { name: 'Changes to shared.txt' })).toContainText('by codex');
    await compare.getByRole('button', { name: 'Close' }).click();

    // Ask Claude to compare: its model request holds every attempt's diff.
    await page.getByRole('combobox', { name: 'Agent to compare' }).click();
    await page.getByRole('option', { name: 'Claude', exact: true }).click();
    await page.getByRole('button', { name: 'Ask Claude to compare' }).click();
    const transcript = page.getByRole('region', { name: 'Transcript' });
    await expect(transcript.getByRole('article', { name: 'Claude' }).filter({ hasText: 'Compared the attempts.' })).toBeVisible({
      timeout: 90_000,
    });
    const asked = stub!.modelRequests().find((request) => request.lastUserText.includes('Compare their attempts'));
    expect(asked?.dialect).toBe('anthropic');
    for (const agent of ['claude', 'codex', 'qwen']) {
      expect(asked?.lastUserText).toContain(`+by ${agent}`);
    }

    // Keep Codex's: exactly its change in the folder, and the next message goes to Codex with the history.
    // Claude's comparison is a turn of this conversation: Keep waits for it to end (else the dialog says
    // "A reply is still being written"), as a person sees the reply finish first.
    await expect(page.getByRole('timer', { name: /is working$/ })).toHaveCount(0, { timeout: 60_000 });
    // The person changed shared.txt meanwhile: it is left alone unless ticked; here it is ticked.
    writeFileSync(path.join(work, 'shared.txt'), "the person's own edit\n");
    const keep = await openKeepDialog(page, 'Codex');
    const yours = keep.getByRole('list', { name: 'Files you changed since' });
    await expect(yours.getByRole('listitem', { name: 'shared.txt: modified' })).toBeVisible();
    await expect(keep.getByRole('list', { name: 'Files that will change' }).getByRole('listitem')).toHaveCount(0);
    await yours.getByRole('checkbox', { name: "Overwrite shared.txt with Codex's" }).check();
    await keep.getByRole('button', { name: 'Keep' }).click();
    // The dialog closes once the change is applied; the copies go right after.
    await expect(keep).toBeHidden();
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by codex\n');
    expect(listing(work)).toEqual(kind === 'git repository' ? ['draft.md', 'notes.md', 'shared.txt'] : ['notes.md', 'shared.txt']);
    expect(readFileSync(path.join(work, 'notes.md'), 'utf8')).toBe('the person keeps notes here\n');
    await expect(page.getByRole('note').filter({ hasText: "You kept Codex's attempt" })).toBeVisible();
    if (kind === 'git repository') {
      // Apart from the working files kept, .git is as it was: no Baton branch, no worktree.
      await expect.poll(gitState, { timeout: 30_000 }).toEqual(gitBefore);
    }
    const before = stub!.modelRequests().length;
    await page.getByRole('textbox', { name: 'Message' }).fill('What did we settle on?');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(transcript.getByRole('article', { name: 'Codex' }).last()).toContainText('Noted by codex.', { timeout: 90_000 });
    const next = stub!
      .modelRequests()
      .slice(before)
      .find((request) => request.dialect === 'openai-responses' && request.lastUserText.includes('What did we settle on?'));
    expect(next?.userRaw).toContain('Sign shared.txt with your name');

    // Continue Claude's: a branch whose folder holds Claude's change (in a repository, a worktree on a baton/ branch).
    await page.getByText('Other attempts').click();
    await attempt(page, 'Claude').getByRole('button', { name: 'Continue this attempt' }).click();
    await expect(page.getByRole('main')).toHaveAttribute('aria-label', /\(Claude's attempt\)$/);
    const branchFolder = copies(dataDir).claude!;
    expect(readFileSync(path.join(branchFolder, 'shared.txt'), 'utf8')).toBe('by claude\n');
    expect(Object.keys(copies(dataDir))).toEqual(['claude']);
    if (kind === 'git repository') {
      expect(git('worktree', 'list')).toContain(branchFolder);
    }
  });
}
