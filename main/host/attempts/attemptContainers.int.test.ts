/**
 * "Ask several agents" with each attempt in a container of its own, through the host API, against
 * a real podman (the test image debootstrapped from Debian; podman configured as a person would,
 * by `CONTAINERS_CONF` and `CONTAINERS_STORAGE_CONF`):
 * - two fake agents (real ACP processes) run in two containers Baton starts from the image, each
 *   with its copy mounted, labelled (`baton.attempt`, `baton.conversation`, `baton.copy`) and with
 *   no network; each agent's shell writes in its own copy, from inside its own container;
 * - continuing one as a branch keeps its container (the branch goes on in it); keeping the other
 *   applies its change and removes its container with its copy; erasing the branch removes the last;
 * - a container whose copy is gone (a crash between the two removals) is listed as left behind,
 *   and removed when the person asks;
 * - an engine that is not there is refused before anything starts, saying how to get one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainersInfo } from '../../../app/ipc/machineRequests.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { containerUnavailable, podmanSettingsEnv, testImage, testRunOptions } from '../../../e2e/fixtures/container.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { fakeAgentId, registerFakeAgents } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { noAgentsEnv } from '../../../e2e/fixtures/fakeAgentPackage.js';
import { Host } from '../Host.js';
import { callOn, sendAndSettle } from '../conversations/settledTurns.kit.test.js';

const unavailable = containerUnavailable();
const [A, B] = ['Fake A', 'Fake B'].map(fakeAgentId) as [string, string];
const TASK = 'Please sign it: sh[printf "by %s\\n" "$FAKE_SIGNATURE" > shared.txt]';

describe.skipIf(unavailable !== undefined)('attempts in containers', () => {
  let host: Host;
  let image: string;
  const env = { ...noAgentsEnv(), ...podmanSettingsEnv() };
  const podman = (...args: string[]): string =>
    execFileSync('podman', args, { encoding: 'utf8', env: { ...process.env, ...podmanSettingsEnv() } }).trim();
  const ours = (): string[] => podman('ps', '-a', '--filter', 'label=baton.attempt', '--format', '{{.Names}}').split('\n').filter(Boolean);

  beforeAll(async () => {
    ensureBuilt();
    image = await testImage();
    const dataDir = tempDir('attempt-containers-data');
    registerFakeAgents(
      dataDir,
      ['Fake A', 'Fake B'].map((name) => ({ name, options: { env: { FAKE_SIGNATURE: name.slice(-1) } } })),
    );
    host = new Host({
      dataDir,
      env,
      ssh: { configFile: path.join(dataDir, 'no-ssh-config'), knownHosts: [], bundle: builtFile('machine-server/server.mjs') },
    });
  }, 300_000);

  afterAll(async () => {
    await host?.dispose();
    for (const name of ours()) {
      podman('rm', '-f', '-t', '0', name);
    }
  });

  const call = <T>(method: string, params: unknown): Promise<T> => callOn(host)<T>(method, params);

  /** Asks Fake A and Fake B `text` in containers from the test image, in a new conversation in `work`; the attempts once settled. */
  const askInContainers = async (work: string, text: string) => {
    const { conversation } = await call<{ conversation: { conversationId: string } }>('newConversation', { agentId: A, cwd: work });
    const conversationId = conversation.conversationId;
    const { attemptsId } = await call<{ attemptsId: string }>('askAgents', {
      conversationId,
      text,
      agents: [{ agentId: A }, { agentId: B }],
      container: { image },
    });
    await host.attempts.idle();
    await host.turns.idle();
    host.committer.flush(conversationId);
    const item = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events).items.findLast(
      (entry) => entry.kind === 'attempts',
    );
    if (item?.kind !== 'attempts') {
      throw new Error('no attempts recorded');
    }
    return { conversationId, attemptsId, item };
  };

  it('refuses an engine that is not here, saying how to get one', async () => {
    const work = tempDir('attempt-containers-none');
    const { conversation } = await call<{ conversation: { conversationId: string } }>('newConversation', { agentId: A, cwd: work });
    await call('setContainerSettings', { engine: 'docker' });
    const asked = await host.handle('askAgents', {
      conversationId: conversation.conversationId,
      text: 'hello',
      agents: [{ agentId: A }, { agentId: B }],
      container: { image },
    });
    expect(asked.ok ? '' : asked.error.message).toMatch(
      /docker \(the container engine picked in Settings › Machines\) is not on this computer's PATH\. Install podman/,
    );
    const info = await call<ContainersInfo>('setContainerSettings', { engine: '', runOptions: testRunOptions() });
    expect(info.engine).toMatch(/^podman \(/);
    expect(info.problem).toBeNull();
  });

  it('runs two attempts in two containers, continues one and keeps the other: each container goes with its copy', async () => {
    const work = tempDir('attempt-containers-work');
    writeFileSync(path.join(work, 'shared.txt'), 'original\n');
    const { conversationId, attemptsId, item } = await askInContainers(work, TASK);
    expect(item.container).toEqual({ image, network: false });
    expect(item.attempts.map((attempt) => [attempt.state, attempt.reason])).toEqual([
      ['prepared', undefined],
      ['prepared', undefined],
    ]);
    for (const attempt of item.attempts) {
      expect(attempt.machine).toBe(`box:${attempt.attemptId}`);
      // Its own shell wrote in its own copy, from inside its container.
      expect(readFileSync(path.join(attempt.folder, 'shared.txt'), 'utf8')).toBe(`by ${attempt.agentName.slice(-1)}\n`);
      const name = `baton-attempt-${attempt.attemptId}`;
      // Its agent runs in its container (in that container's own process ids).
      expect(host.pool.table().some((entry) => entry.key.startsWith(`${attempt.machine}\t`))).toBe(true);
      expect(podman('top', name, 'args')).toContain('fakeAgent.mjs');
      expect(JSON.parse(podman('inspect', '--format', '{{json .Config.Labels}}', name))).toMatchObject({
        'baton.attempt': attempt.attemptId,
        'baton.conversation': attempt.conversationId,
        'baton.copy': attempt.folder,
      });
      expect(podman('inspect', '--format', '{{.HostConfig.NetworkMode}}', name)).toBe('none');
      expect(podman('exec', name, 'cat', path.join(attempt.folder, 'shared.txt'))).toBe(`by ${attempt.agentName.slice(-1)}`);
    }
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('original\n');
    const listed = await call<ContainersInfo>('listContainers', {});
    expect(listed.containers.map((container) => [container.name, container.running, container.leftBehind]).sort()).toEqual(
      item.attempts.map((attempt) => [`baton-attempt-${attempt.attemptId}`, true, false]).sort(),
    );

    // B's attempt continued as a branch: its copy is the branch's, and so is its container.
    const continued = item.attempts.find((attempt) => attempt.agentId === B)!;
    await call('continueAttempt', { conversationId, attemptsId, attemptId: continued.attemptId });
    const kept = item.attempts.find((attempt) => attempt.agentId === A)!;
    await call('keepAttempt', { conversationId, attemptsId, attemptId: kept.attemptId });
    await host.attempts.idle();
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by A\n');
    expect(ours()).toEqual([`baton-attempt-${continued.attemptId}`]);
    // The branch goes on in its container.
    await sendAndSettle(host, continued.conversationId, 'sh[echo more >> shared.txt]');
    expect(readFileSync(path.join(continued.folder, 'shared.txt'), 'utf8')).toBe('by B\nmore\n');
    // Erased, it takes its copy and its container with it.
    await call('deleteConversation', { conversationId: continued.conversationId });
    await call('purgeConversation', { conversationId: continued.conversationId });
    expect(existsSync(continued.folder)).toBe(false);
    expect(ours()).toEqual([]);
    expect((await call<ContainersInfo>('listContainers', {})).containers).toEqual([]);
  }, 240_000);

  it('in a git repository: each worktree in its container, its git working there, the repository read-only to it', async () => {
    const work = tempDir('attempt-containers-repo');
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd: work, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(work, 'shared.txt'), 'original\n');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    const hooks = readdirSync(path.join(work, '.git', 'hooks')).sort();
    // Each agent's git reads its worktree in its container; a write into the repository's own folder is refused there.
    const task =
      'Sign: sh[printf "by %s\\n" "$FAKE_SIGNATURE" > shared.txt && git status --porcelain -- shared.txt > status.txt && (touch "$(git rev-parse --git-common-dir)/hooks/post-commit" 2> /dev/null && echo wrote > hook.txt || echo refused > hook.txt)]';
    const { conversationId, attemptsId, item } = await askInContainers(work, task);
    expect(item.attempts.map((attempt) => [attempt.kind, attempt.state, attempt.reason])).toEqual([
      ['worktree', 'prepared', undefined],
      ['worktree', 'prepared', undefined],
    ]);
    for (const attempt of item.attempts) {
      expect(readFileSync(path.join(attempt.folder, 'status.txt'), 'utf8')).toBe(' M shared.txt\n');
      expect(readFileSync(path.join(attempt.folder, 'hook.txt'), 'utf8')).toBe('refused\n');
    }
    expect(readdirSync(path.join(work, '.git', 'hooks')).sort()).toEqual(hooks);
    const kept = item.attempts.find((attempt) => attempt.agentId === B)!;
    await call('keepAttempt', { conversationId, attemptsId, attemptId: kept.attemptId });
    await host.attempts.idle();
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by B\n');
    expect(ours()).toEqual([]);
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
  }, 240_000);

  it('lists a container whose copy is gone as left behind, and removes it when asked', async () => {
    const gone = path.join(tempDir('attempt-containers-gone'), 'copy');
    podman(
      'run',
      '-d',
      '--name',
      'baton-attempt-left',
      '--network=none',
      '--label',
      'baton.attempt=left',
      '--label',
      'baton.conversation=c',
      '--label',
      `baton.copy=${gone}`,
      ...(process.env.BATON_TEST_RUN ? ['--label', `baton.test-run=${process.env.BATON_TEST_RUN}`] : []),
      '--entrypoint',
      'sleep',
      image,
      'infinity',
    );
    const listed = await call<ContainersInfo>('listContainers', {});
    expect(listed.containers).toEqual([
      { name: 'baton-attempt-left', attemptId: 'left', conversationId: 'c', copy: gone, running: true, leftBehind: true },
    ]);
    const after = await call<ContainersInfo>('removeContainer', { name: 'baton-attempt-left' });
    expect(after.containers).toEqual([]);
    expect(ours()).toEqual([]);
  }, 120_000);
});
