/**
 * What attempts must never do to the person's data, through a real Host with fake agents (real
 * ACP processes) in real folders and git repositories:
 * - "Keep this one" never removes the copy of an attempt already continued as a branch (nor does
 *   the next start): the branch goes on answering in its folder, and no other `baton/` branch or
 *   worktree is left;
 * - erasing a continued attempt deletes only the branch Baton recorded, even when the agent
 *   replaced its copy's `.git` with a repository of its own on a branch named like the person's;
 * - a repository whose own config names commands (fsmonitor, a filter driver, a textconv) gets
 *   plain copies, is said to, and none of its commands runs through Ask, Keep, Continue, Branch
 *   or erase.
 * The first three run on this computer, through the loopback machine (the built machine server as a
 * local child) and over ssh (a real sshd): agents, git, watches and checkpoint scans then all cross
 * the protocol.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { fakeAgentId, registerFakeAgents } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { noAgentsEnv } from '../../../e2e/fixtures/fakeAgentPackage.js';
import { Host } from '../Host.js';
import { GIT_FOR_TESTS, handTo, testMachines } from '../machine/testMachines.kit.test.js';
import type { Machine } from '../machine/Machine.js';

const AGENTS = ['Fake A', 'Fake B'];
const [A, B] = AGENTS.map(fakeAgentId) as [string, string];
const TASK = 'Please sign it: sh[printf "by %s\\n" "$FAKE_SIGNATURE" > shared.txt && touch "$FAKE_SIGNATURE.txt"]';

let host: Host | undefined;
/** The machine the hosts run on: this computer (undefined), or the loopback machine. */
let machine: Machine | undefined;
afterEach(async () => {
  await host?.dispose();
  host = undefined;
});

/** The folders this test made, handed to the machine's account when a host starts (over ssh, an ordinary one). */
const made: string[] = [];
function folder(prefix: string): string {
  const dir = tempDir(prefix);
  made.push(dir);
  return dir;
}

function start(dataDir: string): Host {
  handTo(machine, ...made.splice(0), dataDir);
  registerFakeAgents(
    dataDir,
    AGENTS.map((name) => ({ name, options: { env: { FAKE_SIGNATURE: name.slice(-1) } } })),
  );
  host = new Host({ dataDir, env: noAgentsEnv(), ...(machine ? { machine } : {}) });
  return host;
}

function stateOf(conversationId: string): TranscriptState {
  host!.committer.flush(conversationId);
  return reduceAll(emptyTranscript(conversationId), host!.store.readEvents(conversationId).events);
}

async function settled(conversationId: string): Promise<Extract<TranscriptState['items'][number], { kind: 'attempts' }>> {
  await host!.attempts.idle();
  await host!.turns.idle();
  await host!.turnCheckpoints.idle();
  const item = stateOf(conversationId).items.findLast((entry) => entry.kind === 'attempts');
  if (item?.kind !== 'attempts') {
    throw new Error('no attempts recorded');
  }
  return item;
}

function seedFolder(): string {
  const work = folder('attempts-trust-work');
  writeFileSync(path.join(work, 'shared.txt'), 'original\n');
  writeFileSync(path.join(work, 'notes.txt'), 'my notes\n');
  return work;
}

const gitIn = (folder: string, ...args: string[]): string =>
  execFileSync('git', [...GIT_FOR_TESTS, '-c', 'core.hooksPath=/dev/null', ...args], {
    cwd: folder,
    encoding: 'utf8',
  });

function initRepository(work: string): void {
  gitIn(work, 'init', '-q', '-b', 'main');
  gitIn(work, 'add', '-A');
  gitIn(work, 'commit', '-q', '-m', 'start');
}

const batonRefs = (work: string): string[] =>
  gitIn(work, 'for-each-ref', '--format=%(refname)', 'refs/heads/baton/')
    .split('\n')
    .filter((line) => line !== '');

async function answered(conversationId: string, text: string): Promise<void> {
  await host!.turns.send(conversationId, text);
  await host!.turns.idle();
  expect(stateOf(conversationId).items.findLast((entry) => entry.kind === 'agent')).toMatchObject({ text: `Fake reply: ${text}` });
}

describe.each(testMachines(noAgentsEnv()))('attempts keep what the person has, on $name', ({ make, unavailable }) => {
  if (unavailable) {
    it.skip(unavailable, () => undefined);
    return;
  }
  beforeAll(async () => {
    machine = await make();
  }, 120_000);
  afterAll(async () => {
    await machine?.dispose();
    machine = undefined;
  });

  for (const kind of ['copy', 'worktree'] as const) {
    it(`Keep after Continue leaves the continued attempt's ${kind}, through a restart too`, async () => {
      const work = seedFolder();
      if (kind === 'worktree') {
        initRepository(work);
      }
      const dataDir = folder('attempts-trust-data');
      start(dataDir);
      const { conversationId } = host!.conversations.create(A, work);
      const { attemptsId } = await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: B }]);
      const item = await settled(conversationId);
      expect(item.attempts.map((attempt) => attempt.kind)).toEqual([kind, kind]);
      const continued = await host!.attempts.continueAttempt(conversationId, attemptsId, item.attempts[0]!.attemptId);
      await host!.attempts.keep(conversationId, attemptsId, item.attempts[1]!.attemptId, []);
      await host!.attempts.idle();

      // The continued attempt's folder is whole, and its next message is answered there.
      expect(readFileSync(path.join(continued.cwd, 'shared.txt'), 'utf8')).toBe('by A\n');
      expect(existsSync(path.join(continued.cwd, 'A.txt'))).toBe(true);
      expect(existsSync(item.attempts[1]!.folder)).toBe(false);
      expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by B\n');
      await answered(continued.conversationId, 'still with me?');
      if (kind === 'worktree') {
        // Only the continued attempt's branch and worktree are left.
        expect(batonRefs(work)).toEqual([`refs/heads/${item.attempts[0]!.branch}`]);
        expect(gitIn(work, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
      }

      // A restart looks for copies left by ended attempts: the continued one is not among them.
      await host!.dispose();
      start(dataDir);
      await host!.whenRecovered();
      expect(existsSync(path.join(continued.cwd, 'A.txt'))).toBe(true);
      await answered(continued.conversationId, 'and after a restart?');

      // Erasing the branch takes its copy (and its branch), and the ask's folder with it.
      await host!.history.delete(continued.conversationId);
      await host!.history.purge(continued.conversationId);
      expect(existsSync(continued.cwd)).toBe(false);
      expect(existsSync(path.join(dataDir, 'attempts', attemptsId))).toBe(false);
      if (kind === 'worktree') {
        expect(batonRefs(work)).toEqual([]);
        expect(gitIn(work, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      }
    }, 120_000);
  }

  it("erasing a continued attempt deletes only the branch Baton made, whatever the copy's .git says", async () => {
    const work = seedFolder();
    initRepository(work);
    // The person's own branch, with a commit of its own and its reflog.
    gitIn(work, 'checkout', '-q', '-b', 'release');
    writeFileSync(path.join(work, 'release.txt'), 'unpushed\n');
    gitIn(work, 'add', 'release.txt');
    gitIn(work, 'commit', '-q', '-m', 'unpushed work');
    gitIn(work, 'checkout', '-q', 'main');
    const release = gitIn(work, 'rev-parse', 'refs/heads/release');
    const reflog = readFileSync(path.join(work, '.git', 'logs', 'refs', 'heads', 'release'), 'utf8');

    start(folder('attempts-trust-data'));
    const { conversationId } = host!.conversations.create(A, work);
    const { attemptsId } = await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: B }]);
    const item = await settled(conversationId);
    const continued = await host!.attempts.continueAttempt(conversationId, attemptsId, item.attempts[0]!.attemptId);
    // The agent, confined to its copy, replaces the worktree's .git with a repository of its own on "release".
    rmSync(path.join(continued.cwd, '.git'), { recursive: true, force: true });
    gitIn(continued.cwd, 'init', '-q', '-b', 'release');
    handTo(machine, continued.cwd);

    await host!.history.delete(continued.conversationId);
    await host!.history.purge(continued.conversationId);
    expect(gitIn(work, 'rev-parse', 'refs/heads/release')).toBe(release);
    expect(readFileSync(path.join(work, '.git', 'logs', 'refs', 'heads', 'release'), 'utf8')).toBe(reflog);
    // Baton's own branch for that copy is the one deleted; the other attempt's is still open.
    expect(batonRefs(work)).toEqual([`refs/heads/${item.attempts[1]!.branch}`]);
    expect(existsSync(continued.cwd)).toBe(false);
  }, 120_000);

  it("runs none of a repository's own commands (fsmonitor, filters, textconv), in plain copies it says it made", async () => {
    const work = seedFolder();
    writeFileSync(path.join(work, '.gitattributes'), '*.txt filter=evil diff=evil\n');
    initRepository(work);
    // Where a command the repository names would write, if it ran (the machine's account may write there).
    const marker = path.join(folder('attempts-trust-marker'), 'ran.log');
    const script = path.join(path.dirname(marker), 'evil.sh');
    writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
    chmodSync(script, 0o755);
    gitIn(work, 'config', 'core.fsmonitor', script);
    gitIn(work, 'config', 'filter.evil.smudge', script);
    gitIn(work, 'config', 'filter.evil.clean', script);
    gitIn(work, 'config', 'diff.evil.textconv', script);
    writeFileSync(path.join(work, 'shared.txt'), 'original, edited\n');

    start(folder('attempts-trust-data'));
    const { conversationId } = host!.conversations.create(A, work);
    await answered(conversationId, 'first');
    const { attemptsId } = await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: B }]);
    const item = await settled(conversationId);
    expect(item.attempts.map((attempt) => [attempt.kind, attempt.branch])).toEqual([
      ['copy', undefined],
      ['copy', undefined],
    ]);
    const notice = stateOf(conversationId).items.find((entry) => entry.kind === 'notice');
    expect(notice).toMatchObject({ text: expect.stringContaining('plain copy of the folder') });
    expect(notice).toMatchObject({ text: expect.stringContaining('core.fsmonitor') });
    expect(readFileSync(path.join(item.attempts[0]!.folder, 'shared.txt'), 'utf8')).toBe('by A\n');

    await host!.attempts.compare(conversationId, attemptsId);
    const continued = await host!.attempts.continueAttempt(conversationId, attemptsId, item.attempts[0]!.attemptId);
    await host!.attempts.keep(conversationId, attemptsId, item.attempts[1]!.attemptId, []);
    await host!.attempts.idle();
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by B\n');

    const turnId = stateOf(conversationId).items.find((entry) => entry.kind === 'user')!;
    const branched = await host!.branchCopies.branch(conversationId, turnId.kind === 'user' ? turnId.turnId : '', false);
    expect(stateOf(branched.summary.conversationId).items.find((entry) => entry.kind === 'notice')).toMatchObject({
      text: expect.stringContaining('plain copy of the folder, not a git worktree'),
    });
    for (const erased of [continued.conversationId, branched.summary.conversationId, conversationId]) {
      await host!.history.delete(erased);
      await host!.history.purge(erased);
    }
    expect(existsSync(marker)).toBe(false);
    expect(batonRefs(work)).toEqual([]);
  }, 120_000);
});

describe('the copy a repository with no such config gets', () => {
  it('is a worktree, and a hooks path of its own (husky) does not change that', async () => {
    const work = seedFolder();
    initRepository(work);
    mkdirSync(path.join(work, '.husky'));
    gitIn(work, 'config', 'core.hooksPath', '.husky');
    start(folder('attempts-trust-data'));
    const { conversationId } = host!.conversations.create(A, work);
    await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: B }]);
    const item = await settled(conversationId);
    expect(item.attempts.map((attempt) => attempt.kind)).toEqual(['worktree', 'worktree']);
    expect(stateOf(conversationId).items.some((entry) => entry.kind === 'notice')).toBe(false);
  }, 60_000);
});
