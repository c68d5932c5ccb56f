/**
 * Managed installs with real npm: an agent package (a local tarball standing in for the pinned
 * npm package, so the test needs no registry) is installed into Baton's agents folder with
 * progress, chatted with, updated, and removed; a failing install leaves the working copy alone.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { noAgentsEnv, packFakeAgent } from '../../../e2e/fixtures/fakeAgentPackage.js';
import { fakeAgentScript } from '../../../e2e/fixtures/fakeAgentConfig.js';
import type { AgentInfo } from '../../../app/agents/agentInfo.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { Host } from '../Host.js';

const packFakeClaude = (version: string): string => packFakeAgent('claude-agent-acp', version);
const env = noAgentsEnv();

function claude(agents: AgentInfo[]): AgentInfo | undefined {
  return agents.find((agent) => agent.agentId === 'claude');
}

describe('managed installs', () => {
  let host: Host | undefined;

  afterEach(async () => {
    await host?.dispose();
    host = undefined;
  });

  it('installs into the agents folder with progress, is used, updates in place, and is removed', async () => {
    const dataDir = tempDir('managed');
    const packages: Record<string, string[]> = { claude: [packFakeClaude('1.2.3')] };
    host = new Host({ dataDir, env, agentPackages: packages });
    const pushed: PushEvent[] = [];
    host.subscribe((event) => pushed.push(event));

    const before = await host.handle('listAgents', {});
    expect(before.ok && claude((before.result as { agents: AgentInfo[] }).agents)).toMatchObject({
      available: false,
      managed: { inUse: false },
    });

    const installed = await host.handle('installAgent', { agentId: 'claude' });
    expect(installed.ok, JSON.stringify(installed)).toBe(true);
    const info = installed.ok ? claude((installed.result as { agents: AgentInfo[] }).agents) : undefined;
    expect(info).toMatchObject({ available: true, version: '1.2.3', managed: { installed: '1.2.3', inUse: true } });
    expect(info?.path?.startsWith(path.join(dataDir, 'agents', 'claude'))).toBe(true);
    const progress = pushed.flatMap((event) => (event.name === 'agentInstallProgress' ? [event.payload.text] : []));
    expect(progress[0]).toMatch(/^Installing Claude: npm install /);
    expect(progress.at(-1)).toBe('Claude 1.2.3 is installed.');

    // The managed copy is what runs.
    const { conversationId } = host.conversations.create('claude', tempDir('work'));
    await host.turns.send(conversationId, 'hello managed');
    await host.turns.idle();
    const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    expect(state.items.find((item) => item.kind === 'agent')).toMatchObject({ text: 'Fake reply: hello managed' });
    await host.turns.release(conversationId);

    // An update that fails keeps the working copy.
    packages.claude = [path.join(tempDir('nothing'), 'missing.tgz')];
    const failed = await host.handle('installAgent', { agentId: 'claude' });
    expect(failed).toMatchObject({
      ok: false,
      error: {
        code: 'AgentInstallFailed',
        message: expect.stringMatching(/^Could not update Claude: npm failed: ENOENT: no such file or directory, open '.*missing\.tgz'\.$/),
      },
    });
    expect((failed.ok ? {} : failed.error.details) ?? {}).toHaveProperty('stderrTail');
    const afterFailure = await host.handle('listAgents', {});
    expect(afterFailure.ok && claude((afterFailure.result as { agents: AgentInfo[] }).agents)).toMatchObject({
      available: true,
      managed: { installed: '1.2.3' },
    });
    expect(existsSync(path.join(dataDir, 'agents', 'claude.staging'))).toBe(false);

    // A good update replaces it.
    packages.claude = [packFakeClaude('1.3.0')];
    const updated = await host.handle('installAgent', { agentId: 'claude' });
    expect(updated.ok && claude((updated.result as { agents: AgentInfo[] }).agents)).toMatchObject({
      version: '1.3.0',
      managed: { installed: '1.3.0' },
    });

    const removed = await host.handle('removeAgent', { agentId: 'claude' });
    expect(removed.ok && claude((removed.result as { agents: AgentInfo[] }).agents)).toMatchObject({ available: false });
    expect(existsSync(path.join(dataDir, 'agents', 'claude'))).toBe(false);
    expect(await host.handle('removeAgent', { agentId: 'claude' })).toMatchObject({
      ok: false,
      error: { code: 'InvalidRequest', message: expect.stringContaining('was not installed by Baton') },
    });
  }, 120_000);

  it("runs npm with only what it needs: a package's install script never sees the agents' keys", async () => {
    const dataDir = tempDir('managed-env');
    host = new Host({
      dataDir,
      env: { ...env, OPENAI_API_KEY: 'sk-never-for-npm', CUSTOM_SETTING: 'kept-from-npm', npm_config_fund: 'false' },
      agentPackages: { claude: [packFakeAgent('claude-agent-acp', '1.0.0', { recordEnv: true })] },
    });
    const installed = await host.handle('installAgent', { agentId: 'claude' });
    expect(installed.ok, JSON.stringify(installed)).toBe(true);
    const seen = JSON.parse(
      readFileSync(path.join(dataDir, 'agents', 'claude', 'node_modules', 'fake-claude-agent-acp', 'install-env.json'), 'utf8'),
    ) as string[];
    expect(seen).toEqual(expect.arrayContaining(['PATH', 'HOME', 'npm_config_fund']));
    expect(seen).not.toContain('OPENAI_API_KEY');
    expect(seen).not.toContain('CUSTOM_SETTING');
  }, 120_000);

  it('an agent the person installed comes first and is never removed by Baton', async () => {
    const own = tempDir('own-bin');
    mkdirSync(own, { recursive: true });
    writeFileSync(path.join(own, 'claude-agent-acp'), '#!/bin/sh\n', { mode: 0o755 });
    host = new Host({
      dataDir: tempDir('managed-own'),
      env: { ...env, PATH: `${own}:${env.PATH}` },
      agentPackages: { claude: [packFakeClaude('1.2.3')] },
    });
    const listed = await host.handle('listAgents', {});
    expect(listed.ok && claude((listed.result as { agents: AgentInfo[] }).agents)).toMatchObject({
      available: true,
      path: path.join(own, 'claude-agent-acp'),
      managed: { inUse: false },
    });
    expect(await host.handle('removeAgent', { agentId: 'claude' })).toMatchObject({ ok: false, error: { code: 'InvalidRequest' } });
    expect(existsSync(path.join(own, 'claude-agent-acp'))).toBe(true);
  }, 60_000);

  it('an agent on PATH older than Baton supports yields to Baton\'s own copy once "Update" installed it', async () => {
    const own = tempDir('old-codex');
    mkdirSync(own, { recursive: true });
    writeFileSync(path.join(own, 'package.json'), JSON.stringify({ name: '@zed-industries/codex-acp', version: '0.16.0' }));
    writeFileSync(path.join(own, 'codex-acp'), '#!/bin/sh\n', { mode: 0o755 });
    const dataDir = tempDir('managed-outdated');
    host = new Host({
      dataDir,
      env: { ...env, PATH: `${own}:${env.PATH}` },
      agentPackages: { codex: [packFakeAgent('codex-acp', '2.6.0')] },
    });
    const codex = (agents: AgentInfo[]): AgentInfo | undefined => agents.find((agent) => agent.agentId === 'codex');
    const before = await host.handle('listAgents', {});
    expect(before.ok && codex((before.result as { agents: AgentInfo[] }).agents)).toMatchObject({
      path: path.join(own, 'codex-acp'),
      version: '0.16.0',
      managed: { inUse: false },
    });
    const updated = await host.handle('installAgent', { agentId: 'codex' });
    const info = updated.ok ? codex((updated.result as { agents: AgentInfo[] }).agents) : undefined;
    expect(info, JSON.stringify(updated)).toMatchObject({ version: '2.6.0', managed: { installed: '2.6.0', inUse: true } });
    expect(info?.path?.startsWith(path.join(dataDir, 'agents', 'codex'))).toBe(true);
    // The person's own copy is left as it was.
    expect(existsSync(path.join(own, 'codex-acp'))).toBe(true);
  }, 120_000);

  it('an agent on PATH older than Baton supports never runs without the instructions it would be given: the turn is refused, with Update as the way out', async () => {
    const own = tempDir('old-codex-runs');
    writeFileSync(path.join(own, 'package.json'), JSON.stringify({ name: '@zed-industries/codex-acp', version: '0.16.0' }));
    writeFileSync(path.join(own, 'codex-acp'), `#!/bin/sh\nexec "${process.execPath}" "${fakeAgentScript}" "$@"\n`, { mode: 0o755 });
    host = new Host({ dataDir: tempDir('too-old'), env: { ...env, PATH: `${own}:${env.PATH}` } });
    const stateOf = (conversationId: string) => reduceAll(emptyTranscript(conversationId), host!.store.readEvents(conversationId).events);
    // Without instructions it runs as it is.
    const plain = host.conversations.create('codex', tempDir('too-old-work'));
    await host.turns.send(plain.conversationId, 'hello old codex');
    await host.turns.idle();
    expect(stateOf(plain.conversationId).items.findLast((item) => item.kind === 'agent')).toMatchObject({
      text: 'Fake reply: hello old codex',
    });
    await host.turns.release(plain.conversationId);
    // With the person's instructions it is refused before anything is sent, naming the versions.
    host.instructions.setPerson({ text: 'Always answer in French.', intent: 'replace' });
    const withInstructions = host.conversations.create('codex', tempDir('too-old-work'));
    await host.turns.send(withInstructions.conversationId, 'hello with instructions');
    await host.turns.idle();
    const state = stateOf(withInstructions.conversationId);
    expect(state.items.some((item) => item.kind === 'agent')).toBe(false);
    expect(Object.values(state.turns)[0]).toMatchObject({ status: 'failed' });
    expect(state.items.findLast((item) => item.kind === 'notice')).toMatchObject({
      error: { code: 'AgentTooOld', details: { agentId: 'codex', version: '0.16.0', oldestSupported: '2.6.0' } },
      text: expect.stringContaining('Codex 0.16.0 cannot take your instructions'),
    });
  }, 60_000);

  it('a registry npm cannot reach is named plainly, with the setting for a mirror', async () => {
    host = new Host({
      dataDir: tempDir('managed-offline'),
      env: { ...env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' },
      agentPackages: { codex: ['baton-test-no-such-package@1.0.0'] },
    });
    const failed = await host.handle('installAgent', { agentId: 'codex' });
    expect(failed).toMatchObject({
      ok: false,
      error: {
        code: 'AgentInstallFailed',
        message: expect.stringContaining('npm cannot reach the npm registry (http://127.0.0.1:9/: ECONNREFUSED)'),
      },
    });
    expect(failed.ok ? '' : failed.error.message).toContain('npm_config_registry');
  }, 60_000);

  it('an install that hangs (a registry that never answers) can be cancelled: npm is ended and nothing changes', async () => {
    // A registry that takes the connection and never answers: npm waits (and would retry for minutes).
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const dataDir = tempDir('managed-cancel');
    host = new Host({
      dataDir,
      env: { ...env, npm_config_registry: `http://127.0.0.1:${port}/` },
      agentPackages: { codex: ['baton-test-no-such-package@1.0.0'] },
    });
    const started = new Promise<void>((resolve) =>
      host!.subscribe((event: PushEvent) => event.name === 'agentInstallProgress' && resolve()),
    );
    const installing = host.handle('installAgent', { agentId: 'codex' });
    await started;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cancelled = await host.handle('cancelAgentInstall', { agentId: 'codex' });
    expect(cancelled).toEqual({ ok: true, result: { cancelled: true } });
    const failed = await installing;
    expect(failed).toMatchObject({
      ok: false,
      error: { code: 'AgentInstallFailed', message: expect.stringContaining('you cancelled it. Nothing was changed.') },
    });
    expect(existsSync(path.join(dataDir, 'agents', 'codex'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'agents', 'codex.staging'))).toBe(false);
    // Nothing to cancel any more.
    expect(await host.handle('cancelAgentInstall', { agentId: 'codex' })).toEqual({ ok: true, result: { cancelled: false } });
    sockets.forEach((socket) => socket.destroy());
    silent.close();
  }, 60_000);

  it('without npm, installing says so', async () => {
    host = new Host({ dataDir: tempDir('managed-no-npm'), env: { PATH: tempDir('empty-path') } });
    expect(await host.handle('installAgent', { agentId: 'codex' })).toMatchObject({
      ok: false,
      error: { code: 'AgentInstallFailed', message: expect.stringContaining('npm was not found') },
    });
  });

  it('agents Baton has no package for cannot be installed', async () => {
    const dataDir = tempDir('managed-custom');
    writeFileSync(path.join(dataDir, 'agents.json'), JSON.stringify({ agents: [{ name: 'Mine', command: 'my-agent' }] }));
    host = new Host({ dataDir, env });
    expect(await host.handle('installAgent', { agentId: 'custom:mine' })).toMatchObject({ ok: false, error: { code: 'UnsupportedInput' } });
  });
});

describe('the lockfiles Baton ships', () => {
  it('exist for every built-in agent, made for exactly the packages it pins', async () => {
    const { builtinAdapters } = await import('./AgentCatalog.js');
    const { agentLock } = await import('./agentLocks.js');
    for (const adapter of builtinAdapters) {
      const lock = agentLock(adapter.agentId, adapter.npmPackages ?? []);
      expect({ agentId: adapter.agentId, locked: lock !== undefined }).toEqual({ agentId: adapter.agentId, locked: true });
      const tree = JSON.parse(lock!.lock) as { packages: Record<string, { version?: string; integrity?: string }> };
      for (const spec of adapter.npmPackages ?? []) {
        const at = spec.lastIndexOf('@');
        expect(tree.packages[`node_modules/${spec.slice(0, at)}`]).toMatchObject({
          version: spec.slice(at + 1),
          integrity: expect.stringMatching(/^sha512-/),
        });
      }
    }
  });

  it('install the pinned packages following the lock; other packages resolve afresh', async () => {
    const { execFileSync } = await import('node:child_process');
    const { readFileSync } = await import('node:fs');
    const { AgentInstaller } = await import('./AgentInstaller.js');
    const { lockManifest } = await import('./agentLocks.js');
    const { claudeAdapter } = await import('../adapters/claude.js');
    const tarball = packFakeClaude('2.0.0');
    const packages = [`fake-claude-agent-acp@file:${tarball}`];
    const locksDir = tempDir('locks');
    const lockFolder = path.join(locksDir, 'claude');
    mkdirSync(lockFolder, { recursive: true });
    const made = tempDir('lock-made');
    writeFileSync(path.join(made, 'package.json'), JSON.stringify(lockManifest('claude', packages), null, 2));
    execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: made, env });
    writeFileSync(path.join(lockFolder, 'manifest.json'), readFileSync(path.join(made, 'package.json')));
    writeFileSync(path.join(lockFolder, 'lock.json'), readFileSync(path.join(made, 'package-lock.json')));
    const progress: string[] = [];
    const dataDir = tempDir('locked-install');
    const installer = new AgentInstaller(dataDir, env, (event) => progress.push(event.text), { claude: packages }, locksDir);
    await installer.install(claudeAdapter);
    expect(progress[0]).toContain('npm install (the lock Baton ships for');
    expect(installer.installedVersion(claudeAdapter)).toBe('2.0.0');

    // The installed copy is the locked tree: every package at the version and integrity Baton shipped
    // (npm rewrites only where a local tarball lies relative to the folder).
    type Lock = { packages: Record<string, { version?: string; integrity?: string }> };
    const tree = (lock: Lock) =>
      Object.fromEntries(Object.entries(lock.packages).map(([name, entry]) => [name, [entry.version, entry.integrity]]));
    const installedLock = JSON.parse(readFileSync(path.join(dataDir, 'agents', 'claude', 'package-lock.json'), 'utf8')) as Lock;
    const shipped = JSON.parse(readFileSync(path.join(lockFolder, 'lock.json'), 'utf8')) as Lock;
    expect(tree(installedLock)).toEqual(tree(shipped));
    expect(Object.keys(installedLock.packages)).toContain('node_modules/fake-claude-agent-acp');
    // Without a lock for the packages asked for, it says it resolves them afresh.
    const unlocked = new AgentInstaller(
      tempDir('unlocked-install'),
      env,
      (event) => progress.push(event.text),
      { claude: [tarball] },
      locksDir,
    );
    await unlocked.install(claudeAdapter);
    expect(progress.find((text) => text.startsWith('Installing Claude: npm install '))).toBeDefined();
  });
});
