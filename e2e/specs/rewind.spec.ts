/**
 * Rewind and branch in the page, with real agents against the model stub:
 * - Claude creates a.txt (its Write tool), then b.txt, then removes a.txt (its Bash tool). "Rewind
 *   to here" on the second message shows a.txt recreated and b.txt removed; after "Rewind" the
 *   folder is exactly as after the first turn, and the next message reaches a model request that
 *   holds the first turn's marker and neither later one (Claude goes on in a fork of its own
 *   session cut there, with no handoff). "Undo rewind" brings back b.txt, the
 *   absent a.txt and the three turns. Once in a plain folder, once in a git repository whose
 *   `.git` stays byte-identical.
 * - "Branch from here" with Qwen continues from the first turn's point while the original keeps
 *   its three turns, the same after a restart.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../fixtures/fakeAgentConfig.js';
import { startModelStub, type ModelStub, type NormalizedRequest } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { chooseAgent, openStartingWith } from '../fixtures/chooseAgent.js';

let stub: ModelStub | undefined;
let host: WebHost | undefined;

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
  await stub?.close();
  stub = undefined;
});

/** The model's script: each turn's marker picks what the agent does in the folder. */
function fileScript(work: string) {
  return (request: NormalizedRequest) => {
    if (request.jsonSchema !== undefined) {
      return undefined;
    }
    if (request.toolResult !== undefined) {
      return { chunks: ['Done.'] };
    }
    const text = request.lastUserText;
    if (/TURN-(FOUR|BRANCH)/.test(text)) {
      return { chunks: ['Noted.'] };
    }
    if (text.includes('TURN-ONE')) {
      return { kind: 'tool' as const, name: 'Write', arguments: { file_path: path.join(work, 'a.txt'), content: 'alpha\n' } };
    }
    if (text.includes('TURN-TWO')) {
      return { kind: 'tool' as const, name: 'Write', arguments: { file_path: path.join(work, 'b.txt'), content: 'beta\n' } };
    }
    if (text.includes('TURN-THREE')) {
      return {
        kind: 'tool' as const,
        name: 'Bash',
        arguments: { command: `rm -f ${path.join(work, 'a.txt')}`, description: 'Remove a.txt' },
      };
    }
    return undefined;
  };
}

async function say(page: Page, text: string): Promise<void> {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(text);
  await composer.press('Enter');
}

/** Sends a message whose turn asks one permission (allowed once), and waits for the reply. */
async function turnWithTool(page: Page, text: string, replies: number): Promise<void> {
  await say(page, text);
  const question = page.getByRole('group', { name: /^Permission: / }).last();
  // Allowed once ("Yes"; claude-agent-acp 0.101's name for it).
  await question.getByRole('button', { name: 'Yes', exact: true }).click({ timeout: 60_000 });
  await expect(page.getByRole('article', { name: 'Claude' })).toHaveCount(replies);
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Done.');
}

const listing = (folder: string): string[] =>
  readdirSync(folder)
    .filter((name) => name !== '.git')
    .sort();

/** A digest of every byte (and every name and mode) under a folder. */
function treeDigest(folder: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      const stat = statSync(file);
      hash.update(`${path.relative(folder, file)}:${stat.mode}\n`);
      if (stat.isDirectory()) {
        walk(file);
      } else {
        hash.update(readFileSync(file));
      }
    }
  };
  walk(folder);
  return hash.digest('hex');
}

/** The three Claude turns in a new conversation in `work`. */
async function threeClaudeTurns(page: Page, work: string): Promise<string> {
  stub = await startModelStub({ reply: fileScript(work) });
  const dataDir = tempDir('e2e-rewind-data');
  host = await startWebHost(dataDir, allAgentsHome(stub.url));
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  await turnWithTool(page, 'TURN-ONE please create a.txt', 1);
  expect(listing(work)).toEqual(['a.txt', 'notes.md']);
  await turnWithTool(page, 'TURN-TWO please create b.txt', 2);
  await turnWithTool(page, 'TURN-THREE please remove a.txt', 3);
  expect(listing(work)).toEqual(['b.txt', 'notes.md']);
  return dataDir;
}

for (const kind of ['plain folder', 'git repository'] as const) {
  test(`Claude: rewind to the second message puts the files back, Claude goes on from turn one alone, and undoes (${kind})`, async ({
    page,
  }) => {
    test.setTimeout(300_000);
    const work = tempDir(`e2e-rewind-${kind === 'git repository' ? 'git' : 'plain'}`);
    writeFileSync(path.join(work, 'notes.md'), 'the person keeps notes here\n');
    let gitBefore = '';
    if (kind === 'git repository') {
      const git = (...args: string[]): void =>
        void execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], {
          cwd: work,
          stdio: 'ignore',
        });
      git('init', '-q');
      git('add', 'notes.md');
      git('commit', '-q', '-m', 'notes');
      gitBefore = treeDigest(path.join(work, '.git'));
    }
    await threeClaudeTurns(page, work);

    const second = page.getByRole('article', { name: 'You' }).nth(1);
    await second.getByRole('button', { name: 'Rewind to here' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rewind' });
    const files = dialog.getByRole('list', { name: 'Files that will change' });
    await expect(files.getByRole('listitem', { name: 'a.txt: recreated' })).toBeVisible();
    await expect(files.getByRole('listitem', { name: 'b.txt: removed' })).toBeVisible();
    await expect(files.getByRole('listitem')).toHaveCount(2);
    await expect(dialog.getByRole('list', { name: 'Messages that will be set aside' }).getByRole('listitem')).toHaveCount(2);
    await dialog.getByRole('button', { name: 'Rewind' }).click();
    await expect(dialog).toBeHidden();

    // The folder is exactly as after turn 1; the message is back in the box; the marker says when.
    expect(listing(work)).toEqual(['a.txt', 'notes.md']);
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('alpha\n');
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('TURN-TWO please create b.txt');
    const marker = page.getByRole('region', { name: 'Rewind' });
    await expect(marker).toContainText(/Rewound to \d{1,2}:\d{2}/);
    await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);

    // The next message: Claude goes on in a copy of its own session cut after turn 1 (a fork at
    // its message there), so its model sees turn 1 as its own history, and nothing is handed off.
    const before = stub!.modelRequests().length;
    await say(page, 'TURN-FOUR what do you know so far?');
    await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Noted.');
    const sent = stub!
      .modelRequests()
      .slice(before)
      .find((request) => request.userTexts.some((text) => text.includes('TURN-FOUR')));
    expect(sent).toBeDefined();
    const seen = JSON.stringify(sent);
    expect(seen).toContain('TURN-ONE');
    expect(seen).not.toContain('TURN-TWO');
    expect(seen).not.toContain('TURN-THREE');
    expect(sent!.userTexts.some((text) => text.includes('TURN-ONE please create a.txt'))).toBe(true);
    await expect(page.getByRole('group', { name: 'Claude was caught up' })).toHaveCount(0);
    // The reply is in; the turn ends once Claude says so (an undo while it runs is refused).
    await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();

    // Undo: b.txt back, a.txt gone again, the three turns back (the fourth stays).
    await marker.getByRole('button', { name: 'Undo rewind' }).click();
    await expect(page.getByRole('article', { name: 'You' })).toHaveCount(4);
    expect(listing(work)).toEqual(['b.txt', 'notes.md']);
    expect(readFileSync(path.join(work, 'b.txt'), 'utf8')).toBe('beta\n');
    if (kind === 'git repository') {
      expect(treeDigest(path.join(work, '.git'))).toBe(gitBefore);
    }
  });
}

test('"Branch from here" with Qwen continues from turn one\'s point; the original keeps its three turns, after a restart too', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const work = tempDir('e2e-branch');
  writeFileSync(path.join(work, 'notes.md'), 'the person keeps notes here\n');
  const dataDir = await threeClaudeTurns(page, work);
  const original = await page.getByRole('main').getAttribute('aria-label');

  await page.getByRole('article', { name: 'You' }).nth(1).getByRole('button', { name: 'Branch from here' }).click();
  const dialog = page.getByRole('dialog', { name: 'Branch from here' });
  await expect(dialog.getByRole('combobox', { name: 'Agent', exact: true })).toBeFocused();
  await chooseAgent(dialog, 'Qwen');
  await expect(dialog).toContainText('The files stay as they are now.');
  await dialog.getByRole('checkbox', { name: 'Restore the files of that point in this folder' }).check();
  await dialog.getByRole('button', { name: 'Branch' }).click();
  await expect(dialog).toBeHidden();

  // The branch: titled and listed as such, turn 1 only, the folder as after turn 1, Qwen next.
  await expect(page.getByRole('main')).toHaveAttribute('aria-label', `${original} (branch)`);
  await expect(page.getByRole('list', { name: 'Conversations' })).toContainText(`Branched from ${original}`);
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('TURN-TWO please create b.txt');
  expect(listing(work)).toEqual(['a.txt', 'notes.md']);
  await expect(page.getByRole('status').filter({ hasText: 'Your next message goes to Qwen' })).toBeVisible();
  const before = stub!.modelRequests().length;
  await say(page, 'TURN-BRANCH carry on from here');
  await expect(page.getByRole('article', { name: 'Qwen' })).toContainText('Noted.');
  const sent = stub!
    .modelRequests()
    .slice(before)
    .find((request) => request.userTexts.some((text) => text.includes('TURN-BRANCH')));
  const seen = JSON.stringify(sent);
  expect(seen).toContain('TURN-ONE');
  expect(seen).not.toContain('TURN-THREE');

  // After a restart: the original keeps its three turns, the branch its own two.
  await host!.kill();
  host = await startWebHost(dataDir, allAgentsHome(stub!.url));
  await page.goto(host.url);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.getByRole('button', { name: new RegExp(`^${original} \\(branch\\)`) }).click();
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(2);
  await expect(page.getByRole('article', { name: 'Qwen' })).toContainText('Noted.');
  await list
    .getByRole('button', { name: new RegExp(`^${original}(?! \\(branch\\))`) })
    .first()
    .click();
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(3);
  await expect(page.getByRole('article', { name: 'Claude' })).toHaveCount(3);
});

test('a file over the checkpoint limit (set in Settings) is shown on the turn card, and the rewind says it cannot put it back', async ({
  page,
}) => {
  const work = tempDir('e2e-rewind-limit');
  writeFileSync(path.join(work, 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 1));
  const dataDir = tempDir('e2e-rewind-limit-data');
  registerFakeAgent(dataDir);
  host = await startWebHost(dataDir, agentTestEnv('http://127.0.0.1:9'));
  await openStartingWith(page, host.url, FAKE_AGENT_ID);
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('main', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Data folder' }).click();
  const size = settings.getByRole('spinbutton', { name: 'Largest file kept (MB)' });
  await expect(size).toHaveValue('10');
  await size.fill('1');
  await size.blur();
  await expect(settings.getByRole('checkbox', { name: /Take a checkpoint of the working folder/ })).toBeChecked();
  await settings.getByRole('button', { name: 'Close settings' }).click();

  await chooseAgent(page, 'Fake');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  await say(page, `write:${path.join(work, 'big.bin')}`);
  const reply = page.getByRole('article', { name: /^Fake/ });
  await expect(reply).toContainText('Wrote it.');
  await expect(reply.getByText('Files changed in this turn')).toContainText('1 not kept');
  await reply.getByText('Files changed in this turn').click();
  await expect(reply).toContainText(/Not kept in the checkpoints: big\.bin \(2097152 bytes, over the limit of 1048576\)/);

  await page.getByRole('article', { name: 'You' }).getByRole('button', { name: 'Rewind to here' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rewind' });
  await expect(dialog).toContainText(/These cannot be put back: big\.bin/);
  await dialog.getByRole('button', { name: 'Rewind' }).click();
  await expect(page.getByRole('status').filter({ hasText: /Rewound, but 1 file could not be put back: big\.bin/ })).toBeVisible();
  expect(readFileSync(path.join(work, 'big.bin'), 'utf8')).toBe('written by the fake agent');
});
