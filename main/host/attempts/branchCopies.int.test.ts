/**
 * "Branch from here" in its own copy, through the host with the fake agent (a real ACP process):
 * - in a plain folder: the copy starts from the files before the message (or as they are now),
 *   the branch's next turn changes the copy and not the person's folder, and erasing the branch
 *   removes its copy;
 * - in a git repository: a worktree on `baton/<branch>/branch` holding the uncommitted changes;
 *   erasing the branch removes the worktree and its branch;
 * - a copy left by a host that died before the branch was recorded is removed at the next start.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { noAgentsEnv } from '../../../e2e/fixtures/fakeAgentPackage.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host } from '../Host.js';

let host: Host | undefined;
afterEach(async () => {
  await host?.dispose();
  host = undefined;
});

function start(dataDir: string): Host {
  registerFakeAgent(dataDir);
  host = new Host({ dataDir, env: noAgentsEnv() });
  return host;
}

const gitIn = (folder: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd: folder, encoding: 'utf8' });

/** A conversation whose one turn changed shared.txt ("original" before it). */
async function oneTurn(work: string): Promise<{ conversationId: string; turnId: string }> {
  const { conversationId } = host!.conversations.create(FAKE_AGENT_ID, work);
  const { turnId } = await host!.turns.send(conversationId, 'Change it: sh[printf "by the agent\\n" > shared.txt]');
  await host!.turns.idle();
  await host!.turnCheckpoints.idle();
  expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by the agent\n');
  return { conversationId, turnId };
}

describe('a branch in its own copy of the folder', () => {
  it("in a plain folder: made from the files before the message, worked in apart from the person's folder, removed with the branch", async () => {
    const dataDir = tempDir('branch-copy-data');
    start(dataDir);
    const work = tempDir('branch-copy-work');
    writeFileSync(path.join(work, 'shared.txt'), 'original\n');
    const { conversationId, turnId } = await oneTurn(work);

    const made = await host!.handle('branchConversation', { conversationId, turnId, restoreFiles: true, ownCopy: true });
    expect(made.ok, JSON.stringify(made)).toBe(true);
    const branch = (made.ok ? made.result : undefined) as { conversation: { conversationId: string; cwd: string } };
    const copy = branch.conversation.cwd;
    expect(path.dirname(copy)).toBe(path.join(dataDir, 'branches'));
    // The copy holds the files before the message; the person's folder is as it was.
    expect(readFileSync(path.join(copy, 'shared.txt'), 'utf8')).toBe('original\n');
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by the agent\n');

    // The branch's turns work in the copy.
    await host!.turns.send(branch.conversation.conversationId, 'Again: sh[printf "in the branch\\n" > shared.txt]');
    await host!.turns.idle();
    expect(readFileSync(path.join(copy, 'shared.txt'), 'utf8')).toBe('in the branch\n');
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by the agent\n');

    await host!.history.delete(branch.conversation.conversationId);
    await host!.history.purge(branch.conversation.conversationId);
    expect(existsSync(copy)).toBe(false);
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by the agent\n');
  }, 60_000);

  it('in a git repository: a worktree on its own branch with the uncommitted changes, gone with the branch; .git as it was', async () => {
    start(tempDir('branch-copy-git-data'));
    const work = tempDir('branch-copy-git');
    gitIn(work, 'init', '--quiet', '-b', 'main');
    writeFileSync(path.join(work, 'shared.txt'), 'original\n');
    gitIn(work, 'add', '-A');
    gitIn(work, 'commit', '--quiet', '-m', 'first');
    const { conversationId, turnId } = await oneTurn(work);
    writeFileSync(path.join(work, 'mine.txt'), 'a new file of mine\n');

    // From the folder as it is now: the agent's uncommitted change and the new file.
    const made = await host!.handle('branchConversation', { conversationId, turnId, restoreFiles: false, ownCopy: true });
    expect(made.ok, JSON.stringify(made)).toBe(true);
    const branch = (made.ok ? made.result : undefined) as { conversation: { conversationId: string; cwd: string } };
    const copy = branch.conversation.cwd;
    expect(readFileSync(path.join(copy, 'shared.txt'), 'utf8')).toBe('by the agent\n');
    expect(readFileSync(path.join(copy, 'mine.txt'), 'utf8')).toBe('a new file of mine\n');
    const branchName = gitIn(copy, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
    expect(branchName).toMatch(/^baton\/[^/]+\/branch$/);
    expect(gitIn(work, 'branch', '--list', branchName).trim()).not.toBe('');
    // The person's branch and index are untouched.
    expect(gitIn(work, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');

    await host!.history.delete(branch.conversation.conversationId);
    await host!.history.purge(branch.conversation.conversationId);
    expect(existsSync(copy)).toBe(false);
    expect(gitIn(work, 'branch', '--list', branchName).trim()).toBe('');
    expect(gitIn(work, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  }, 60_000);

  it('a copy left by a host that died before the branch was recorded is removed at the next start', async () => {
    const dataDir = tempDir('branch-copy-left-data');
    const left = path.join(dataDir, 'branches', 'never-recorded');
    mkdirSync(left, { recursive: true });
    writeFileSync(path.join(left, 'shared.txt'), 'half made\n');
    writeFileSync(path.join(dataDir, 'branches', 'never-recorded.json'), JSON.stringify({ folder: left }));
    start(dataDir);
    // The start looks for them on its own: the copy first, then the file that named it.
    const named = path.join(dataDir, 'branches', 'never-recorded.json');
    await until(() => (existsSync(left) || existsSync(named) ? undefined : true), 10_000);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(named)).toBe(false);
  });
});
