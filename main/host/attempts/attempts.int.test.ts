/**
 * "Ask several agents" through the host, with three fake agents (real ACP processes) that each
 * change the same file in their own way with their own shell:
 * - in a plain folder: each change lands in its own copy (ignored and dependency folders not
 *   copied), the person's folder untouched; Compare lists each attempt's diff; Keep applies
 *   exactly the kept attempt's change, its turn joins the conversation, the next message goes to
 *   its agent with the history, and the copies are gone; Continue makes a branch whose folder holds
 *   that attempt's change; a file the person changed meanwhile is left alone unless ticked;
 * - in a git repository: worktrees on `baton/<conversation>/<agent>` holding the uncommitted
 *   changes and new files, and afterwards `.git`'s refs, index and worktree list as before;
 * - erasing the conversation erases its attempts and their copies.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { fakeAgentId, registerFakeAgents } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { noAgentsEnv } from '../../../e2e/fixtures/fakeAgentPackage.js';
import { Host } from '../Host.js';

const AGENTS = ['Fake A', 'Fake B', 'Fake C'];
const [A, B, C] = AGENTS.map(fakeAgentId) as [string, string, string];
/** Each fake agent writes its own signature into shared.txt, and a file of its own. */
const TASK = 'Please sign it: sh[printf "by %s\\n" "$FAKE_SIGNATURE" > shared.txt && touch "$FAKE_SIGNATURE.txt"]';

let host: Host | undefined;
const dataDirs: string[] = [];
afterEach(async () => {
  await host?.dispose();
  host = undefined;
});

function start(dataDir: string): Host {
  dataDirs.push(dataDir);
  registerFakeAgents(
    dataDir,
    AGENTS.map((name) => ({ name, options: { env: { FAKE_SIGNATURE: name.slice(-1) } } })),
  );
  host = new Host({ dataDir, env: noAgentsEnv() });
  return host;
}

function stateOf(conversationId: string): TranscriptState {
  host!.committer.flush(conversationId);
  return reduceAll(emptyTranscript(conversationId), host!.store.readEvents(conversationId).events);
}

/** Waits until every attempt is prepared (or failed) and every turn is done. */
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

/** The working folder: a file the agents change, one they leave, an ignored one and a dependency folder. */
function seedFolder(): string {
  const work = tempDir('attempts-work');
  writeFileSync(path.join(work, 'shared.txt'), 'original\n');
  writeFileSync(path.join(work, 'notes.txt'), 'my notes\n');
  writeFileSync(path.join(work, '.gitignore'), 'build/\n');
  mkdirSync(path.join(work, 'build'));
  writeFileSync(path.join(work, 'build', 'out.js'), 'built\n');
  mkdirSync(path.join(work, 'node_modules', 'left-pad'), { recursive: true });
  writeFileSync(path.join(work, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;\n');
  return work;
}

const gitIn = (folder: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd: folder, encoding: 'utf8' });

describe('asking several agents', () => {
  it('runs each attempt in its own copy, compares them, keeps one and continues another as a branch', async () => {
    const work = seedFolder();
    start(tempDir('attempts-data'));
    const { conversationId } = host!.conversations.create(A, work);
    await host!.turns.send(conversationId, 'hello first');
    await host!.turns.idle();

    const { attemptsId } = await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: B }, { agentId: C }]);
    const item = await settled(conversationId);
    expect(item.attempts.map((attempt) => [attempt.agentName, attempt.state, attempt.kind])).toEqual([
      ['Fake A', 'prepared', 'copy'],
      ['Fake B', 'prepared', 'copy'],
      ['Fake C', 'prepared', 'copy'],
    ]);
    // Each change landed in its own copy; the person's folder is untouched.
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('original\n');
    expect(readdirSync(work).sort()).toEqual(['.gitignore', 'build', 'node_modules', 'notes.txt', 'shared.txt']);
    for (const [index, attempt] of item.attempts.entries()) {
      const letter = 'ABC'[index]!;
      // The copies are in Baton's data folder, never beside the person's.
      expect(attempt.folder.startsWith(path.join(dataDirs.at(-1)!, 'attempts'))).toBe(true);
      expect(readFileSync(path.join(attempt.folder, 'shared.txt'), 'utf8')).toBe(`by ${letter}\n`);
      expect(existsSync(path.join(attempt.folder, `${letter}.txt`))).toBe(true);
      // Ignored files and dependency folders are not copied.
      expect(existsSync(path.join(attempt.folder, 'node_modules'))).toBe(false);
      expect(existsSync(path.join(attempt.folder, 'build'))).toBe(false);
      expect(readFileSync(path.join(attempt.folder, 'notes.txt'), 'utf8')).toBe('my notes\n');
      // Each attempt is an ordinary conversation in its copy, hidden from the list, with the history handed to it.
      const own = stateOf(attempt.conversationId);
      expect(own.cwd).toBe(attempt.folder);
      expect(host!.store.getSummary(attempt.conversationId)).toMatchObject({
        lifecycle: 'attempt',
        attemptOf: { conversationId, attemptsId },
      });
      expect(own.items.findLast((entry) => entry.kind === 'agent')).toMatchObject({ text: 'Shell: 0' });
      expect(own.items.find((entry) => entry.kind === 'handoff')).toMatchObject({ prepared: { fidelity: 'handed-off' } });
    }
    expect(host!.store.listSummaries({ lifecycle: 'active' }).conversations.map((summary) => summary.conversationId)).toEqual([
      conversationId,
    ]);

    // Compare: each attempt's change against the folder as they started.
    const compared = await host!.attempts.compare(conversationId, attemptsId);
    expect(
      compared.attempts.map((attempt) => [
        attempt.agentName,
        attempt.files.map((file) => [file.path, file.change, file.before, file.after]),
      ]),
    ).toEqual([
      [
        'Fake A',
        [
          ['A.txt', 'added', null, ''],
          ['shared.txt', 'modified', 'original\n', 'by A\n'],
        ],
      ],
      [
        'Fake B',
        [
          ['B.txt', 'added', null, ''],
          ['shared.txt', 'modified', 'original\n', 'by B\n'],
        ],
      ],
      [
        'Fake C',
        [
          ['C.txt', 'added', null, ''],
          ['shared.txt', 'modified', 'original\n', 'by C\n'],
        ],
      ],
    ]);
    const message = await host!.attempts.comparisonMessage(conversationId, attemptsId);
    expect(message).toContain('## Attempt by Fake A');
    expect(message).toContain('+by A');
    expect(message).toContain('+by C');

    // Keep B: exactly B's change, its turn in the conversation, the copies gone.
    const kept = await host!.attempts.keep(conversationId, attemptsId, item.attempts[1]!.attemptId, []);
    expect(kept).toEqual({
      applied: [
        { path: 'B.txt', change: 'added' },
        { path: 'shared.txt', change: 'modified' },
      ],
      left: [],
      failed: [],
    });
    // The copies go in the background, once the folder is ready.
    await host!.attempts.idle();
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by B\n');
    expect(readdirSync(work).sort()).toEqual(['.gitignore', 'B.txt', 'build', 'node_modules', 'notes.txt', 'shared.txt']);
    for (const attempt of item.attempts) {
      expect(existsSync(attempt.folder)).toBe(false);
    }
    expect(await host!.attempts.copiesOnDisk()).toEqual([]);
    const after = stateOf(conversationId);
    expect(after.agentId).toBe(B);
    expect(after.items.findLast((entry) => entry.kind === 'agent')).toMatchObject({ agentName: 'Fake B', text: 'Shell: 0' });
    expect(after.items.find((entry) => entry.kind === 'attempts')).toMatchObject({ kept: { attemptId: item.attempts[1]!.attemptId } });

    // The next message goes to B, which is handed the conversation: the first message and the attempts' one.
    await host!.turns.send(conversationId, 'what now?');
    await host!.turns.idle();
    expect(stateOf(conversationId).items.findLast((entry) => entry.kind === 'agent')).toMatchObject({
      agentName: 'Fake B',
      text: 'Fake reply: what now?',
    });
    const handoff = stateOf(conversationId).items.findLast((entry) => entry.kind === 'handoff');
    expect(handoff).toMatchObject({ toAgentName: 'Fake B', prepared: { fidelity: 'handed-off' } });
    const given = handoff?.kind === 'handoff' ? (handoff.prepared?.text ?? '') : '';
    expect(given).toContain('hello first');
    expect(given).toContain('Please sign it');
    expect(given).toContain('Shell: 0');

    // Continue A (its copy is gone: made again from its last checkpoint) as a branch of its own.
    const branch = await host!.attempts.continueAttempt(conversationId, attemptsId, item.attempts[0]!.attemptId);
    expect(branch).toMatchObject({
      lifecycle: 'active',
      branchedFrom: { conversationId },
      title: expect.stringContaining("(Fake A's attempt)"),
    });
    expect(readFileSync(path.join(branch.cwd, 'shared.txt'), 'utf8')).toBe('by A\n');
    expect(existsSync(path.join(branch.cwd, 'A.txt'))).toBe(true);
    await host!.turns.send(branch.conversationId, 'still there?');
    await host!.turns.idle();
    expect(stateOf(branch.conversationId).items.findLast((entry) => entry.kind === 'agent')).toMatchObject({
      agentName: 'Fake A',
      text: 'Fake reply: still there?',
    });

    // Erasing the branch takes its copy; erasing the conversation takes its attempts.
    await host!.history.delete(branch.conversationId);
    await host!.history.purge(branch.conversationId);
    expect(existsSync(branch.cwd)).toBe(false);
    await host!.history.delete(conversationId);
    await host!.history.purge(conversationId);
    for (const attempt of item.attempts.filter((candidate) => candidate.attemptId !== item.attempts[0]!.attemptId)) {
      expect(() => host!.store.getSummary(attempt.conversationId)).toThrow();
    }
  }, 120_000);

  it('leaves a file the person changed since the attempts started unless it is ticked', async () => {
    const work = seedFolder();
    start(tempDir('attempts-data'));
    const { conversationId } = host!.conversations.create(A, work);
    const { attemptsId } = await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: B }]);
    const item = await settled(conversationId);
    writeFileSync(path.join(work, 'shared.txt'), 'mine now\n');
    const preview = await host!.attempts.previewKeep(conversationId, attemptsId, item.attempts[0]!.attemptId);
    expect(preview.files.map((file) => [file.path, file.changedByYou])).toEqual([
      ['A.txt', false],
      ['shared.txt', true],
    ]);
    const kept = await host!.attempts.keep(conversationId, attemptsId, item.attempts[0]!.attemptId, []);
    expect(kept.left).toEqual(['shared.txt']);
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('mine now\n');
    expect(existsSync(path.join(work, 'A.txt'))).toBe(true);
  }, 60_000);

  it('names a conversation whose first message went to several agents, its attempts and an attempt continued, after that message', async () => {
    start(tempDir('attempts-data'));
    const { conversationId } = host!.conversations.create(A, seedFolder());
    const { attemptsId } = await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: B }]);
    const item = await settled(conversationId);
    expect(host!.store.getSummary(conversationId).title).toMatch(/^Please sign it: .*…$/);
    expect(host!.store.getSummary(item.attempts[0]!.conversationId).title).toMatch(/^Please sign it: .*… — attempt by Fake A$/);
    const branch = await host!.attempts.continueAttempt(conversationId, attemptsId, item.attempts[1]!.attemptId);
    expect(branch.title).toMatch(/^Please sign it: .*… \(Fake B's attempt\)$/);
  }, 60_000);

  it('in a git repository, works in worktrees with the uncommitted changes, and leaves .git as it was', async () => {
    const work = seedFolder();
    gitIn(work, 'init', '-q', '-b', 'main');
    gitIn(work, 'add', '-A');
    gitIn(work, 'commit', '-q', '-m', 'start');
    // Uncommitted: a change, a new file, a deleted file.
    writeFileSync(path.join(work, 'shared.txt'), 'original, edited\n');
    writeFileSync(path.join(work, 'draft.txt'), 'not committed\n');
    gitIn(work, 'rm', '-q', 'notes.txt');
    const gitState = (): string[] => [
      gitIn(work, 'for-each-ref'),
      gitIn(work, 'worktree', 'list', '--porcelain'),
      gitIn(work, 'ls-files', '-s'),
      gitIn(work, 'stash', 'list'),
    ];
    const before = gitState();
    start(tempDir('attempts-data'));
    const { conversationId } = host!.conversations.create(A, work);
    const { attemptsId } = await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: C }]);
    const item = await settled(conversationId);
    expect(item.attempts.map((attempt) => [attempt.kind, attempt.branch])).toEqual([
      ['worktree', `baton/${conversationId}/custom-fake-a`],
      ['worktree', `baton/${conversationId}/custom-fake-c`],
    ]);
    expect(gitIn(work, 'worktree', 'list', '--porcelain')).toContain(item.attempts[0]!.folder);
    for (const [index, attempt] of item.attempts.entries()) {
      const letter = 'AC'[index]!;
      expect(readFileSync(path.join(attempt.folder, 'shared.txt'), 'utf8')).toBe(`by ${letter}\n`);
      expect(readFileSync(path.join(attempt.folder, 'draft.txt'), 'utf8')).toBe('not committed\n');
      expect(existsSync(path.join(attempt.folder, 'notes.txt'))).toBe(false);
    }
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('original, edited\n');
    const compared = await host!.attempts.compare(conversationId, attemptsId);
    expect(compared.attempts[1]!.files.find((file) => file.path === 'shared.txt')).toMatchObject({
      before: 'original, edited\n',
      after: 'by C\n',
    });

    await host!.attempts.keep(conversationId, attemptsId, item.attempts[1]!.attemptId, []);
    await host!.attempts.idle();
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by C\n');
    expect(readFileSync(path.join(work, 'C.txt'), 'utf8')).toBe('');
    // Apart from what was kept (the working files), .git is as before: no Baton branch, no worktree.
    expect(gitState()).toEqual(before);

    // Continued after the copies went: a worktree again, holding that attempt's change.
    const branch = await host!.attempts.continueAttempt(conversationId, attemptsId, item.attempts[0]!.attemptId);
    expect(readFileSync(path.join(branch.cwd, 'shared.txt'), 'utf8')).toBe('by A\n');
    expect(gitIn(branch.cwd, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(`baton/${conversationId}/custom-fake-a`);
    await host!.history.delete(branch.conversationId);
    await host!.history.purge(branch.conversationId);
    expect(gitState()).toEqual(before);
  }, 120_000);

  it('fails every attempt with why when the working folder cannot be read, and leaves no copy', async () => {
    const work = seedFolder();
    const dataDir = tempDir('attempts-unreadable-data');
    start(dataDir);
    const { conversationId } = host!.conversations.create(A, work);
    const { checkpoints } = host!;
    const take = checkpoints.take.bind(checkpoints);
    checkpoints.take = (folder, options) =>
      folder === work ? Promise.reject(new Error('the disk stopped answering')) : take(folder, options);
    await host!.attempts.ask(conversationId, TASK, [{ agentId: A }, { agentId: B }]);
    // The preparation ends (it waited for itself before: idle never came).
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still preparing after 15 s'), 15_000)));
    expect(await Promise.race([host!.attempts.idle().then(() => 'idle'), stuck])).toBe('idle');
    clearTimeout(timer);
    const item = await settled(conversationId);
    expect(item.attempts.map((attempt) => [attempt.state, attempt.reason])).toEqual([
      ['failed', 'the working folder could not be copied: the disk stopped answering'],
      ['failed', 'the working folder could not be copied: the disk stopped answering'],
    ]);
    expect(readdirSync(path.join(dataDir, 'attempts'))).toEqual([]);
  }, 60_000);

  it('refuses fewer than two agents, the same agent twice, and more than attempts.max', async () => {
    start(tempDir('attempts-data'));
    const { conversationId } = host!.conversations.create(A, seedFolder());
    await expect(host!.attempts.ask(conversationId, 'x', [{ agentId: A }])).rejects.toThrow('Pick two to 4 agents');
    await expect(host!.attempts.ask(conversationId, 'x', [{ agentId: A }, { agentId: A }])).rejects.toThrow('Pick each agent once.');
    host!.store.setSetting('attempts.max', 2);
    await expect(host!.attempts.ask(conversationId, 'x', [{ agentId: A }, { agentId: B }, { agentId: C }])).rejects.toThrow(
      'Pick two to 2 agents',
    );
    // In the trash (known to the attempts' model from the events alone), then restored.
    await host!.history.delete(conversationId);
    await expect(host!.attempts.ask(conversationId, 'x', [{ agentId: A }, { agentId: B }])).rejects.toThrow(
      'This conversation is in the trash; restore it to continue.',
    );
    host!.history.restore(conversationId);
    await expect(host!.attempts.ask(conversationId, 'x', [{ agentId: A }])).rejects.toThrow('Pick two to 2 agents');
    await expect(host!.attempts.ask('no-such-conversation', 'x', [{ agentId: A }, { agentId: B }])).rejects.toThrow(/no-such-conversation/);
  });

  it('carries the attempts through export and import, and search finds their text in the conversation that asked', async () => {
    start(tempDir('attempts-data'));
    const { conversationId } = host!.conversations.create(A, seedFolder());
    const { attemptsId } = await host!.attempts.ask(conversationId, 'tell me about zebrafish', [{ agentId: A }, { agentId: C }]);
    await settled(conversationId);
    // Search: an attempt's reply is found at the message that asked it, in the conversation that asked.
    const hits = host!.store.search({ text: 'zebrafish' });
    const asked = host!.store.readEvents(conversationId).events.find((event) => event.type === 'attempts.started')!;
    expect(hits.filter((hit) => hit.role === 'agent').map((hit) => [hit.conversationId, hit.seq])).toEqual([
      [conversationId, asked.seq],
      [conversationId, asked.seq],
    ]);
    const markdown = host!.history.export(conversationId, 'markdown').content;
    expect(markdown).toContain('## You, to several agents');
    expect(markdown).toContain('<summary>Attempt by Fake C</summary>');
    expect(markdown).toContain('Fake reply: tell me about zebrafish');
    const imported = host!.history.import(host!.history.export(conversationId, 'jsonl').content);
    const item = stateOf(imported.conversationId).items.find((entry) => entry.kind === 'attempts');
    expect(item).toMatchObject({ attemptsId, removed: { failed: [] } });
    const attempts = item?.kind === 'attempts' ? item.attempts : [];
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) {
      expect(attempt.conversationId).not.toBe(conversationId);
      expect(host!.store.getSummary(attempt.conversationId)).toMatchObject({
        lifecycle: 'attempt',
        attemptOf: { conversationId: imported.conversationId },
      });
      expect(stateOf(attempt.conversationId).items.findLast((entry) => entry.kind === 'agent')).toMatchObject({
        text: 'Fake reply: tell me about zebrafish',
      });
    }
    // Its copies are not here: it cannot be kept, and a follow-up to one attempt is refused.
    await expect(host!.attempts.keep(imported.conversationId, attemptsId, attempts[0]!.attemptId, [])).rejects.toThrow('set aside');
    expect(() => host!.attempts.requireOpenAttempt(attempts[0]!.conversationId, undefined)).toThrow('continue it as a branch');
  }, 60_000);
});
