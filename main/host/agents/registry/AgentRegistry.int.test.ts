/**
 * The ACP Registry as Baton's catalog, with real files and a real HTTP registry on 127.0.0.1: the
 * shipped snapshot lists every agent with no network (built-ins not twice); a refresh that finds
 * nothing new (304), a changed index, an address that cannot be reached, and an answer that is
 * not an index (the last good copy kept, the reason said); at most one refresh an hour; the
 * environment's address winning over the setting; icons kept only when they are SVG, and shipped
 * in the snapshot for no network.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../e2e/fixtures/agentEnv.js';
import { ensureBuilt } from '../../../../e2e/fixtures/ensureBuilt.js';
import { registryEntry, startRegistryServer, type RegistryServer } from '../../../../e2e/fixtures/registryServer.js';
import { agentMatches } from '../../../../app/agents/agentSearch.js';
import { AgentCatalog, builtinAdapters } from '../AgentCatalog.js';
import { AgentInstaller } from '../AgentInstaller.js';
import { AgentRegistry } from './AgentRegistry.js';
import { distinctNames } from './registryAdapters.js';

const snapshot = JSON.parse(readFileSync(fileURLToPath(new URL('./snapshot.json', import.meta.url)), 'utf8')) as {
  takenAt: string;
  index: { agents: Array<{ id: string; name: string }> };
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

const npx = (name: string, version = '1.0.0') => ({ npx: { package: `${name}@${version}`, args: ['--acp'] } });

// The snapshot test runs the built code: built first where it is out of date (the time allows for a build).
beforeAll(() => ensureBuilt(), 120_000);

describe('the ACP Registry as the catalog', () => {
  let server: RegistryServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const registry = (env: Record<string, string>, options: { setting?: string; now?: () => number } = {}) =>
    new AgentRegistry({ dataDir: tempDir('registry'), env, setting: () => options.setting, ...(options.now ? { now: options.now } : {}) });

  it('lists every agent of the shipped snapshot with no network, each built-in once, and finds GitHub Copilot CLI by "copilot"', async () => {
    const offline = registry({ BATON_REGISTRY_URL: 'off' });
    expect(offline.status()).toMatchObject({
      source: 'snapshot',
      takenAt: snapshot.takenAt,
      url: null,
      agents: snapshot.index.agents.length,
      skipped: [],
    });
    expect(await offline.refreshIfDue()).toMatchObject({ source: 'snapshot', checkedAt: null });
    const dataDir = tempDir('catalog');
    const { agents } = new AgentCatalog(dataDir, { PATH: '' }, new AgentInstaller(dataDir, { PATH: '' }, () => {}), offline).list();
    // Six built-ins, each the registry's entry for it too, then every other entry of the snapshot.
    expect(agents.length).toBe(snapshot.index.agents.length);
    expect(agents.slice(0, builtinAdapters.length).map((agent) => [agent.displayName, agent.tested, agent.registry?.id])).toEqual([
      ['Claude', true, 'claude-acp'],
      ['Codex', true, 'codex-acp'],
      ['Gemini', true, 'gemini'],
      ['Qwen', true, 'qwen-code'],
      ['OpenCode', true, 'opencode'],
      ['pi', true, 'pi-acp'],
    ]);
    const ids = new Set(agents.map((agent) => agent.registry?.id));
    expect(snapshot.index.agents.filter((entry) => !ids.has(entry.id))).toEqual([]);
    expect(agents.filter((agent) => agentMatches(agent, 'copilot')).map((agent) => agent.displayName)).toEqual([
      'GitHub Copilot',
      'GitHub Copilot CLI',
    ]);
    const cli = agents.find((agent) => agent.displayName === 'GitHub Copilot CLI');
    expect(cli).toMatchObject({
      source: 'registry',
      tested: false,
      available: false,
      managed: { pinned: '1.0.80', inUse: false },
      registry: { id: 'github-copilot-cli', distribution: 'npx' },
    });
    // A Python agent on a machine without uv says what it needs.
    expect(agents.find((agent) => agent.registry?.id === 'fast-agent')).toMatchObject({
      available: false,
      unavailableReason: expect.stringContaining('uv (uvx)'),
      installHint: expect.stringContaining('install uv'),
    });
  });

  it('refreshes with a conditional request: not modified, changed, unreachable, and not an index keep the last good copy', async () => {
    server = await startRegistryServer({ version: '1.0.0', agents: [registryEntry('alpha', 'Alpha', npx('alpha-agent'))], extensions: [] });
    const kept = registry({ BATON_REGISTRY_URL: server.indexUrl });
    expect(await kept.refresh()).toMatchObject({
      source: 'downloaded',
      agents: 1,
      problem: null,
      url: server.indexUrl,
      urlFrom: 'environment',
    });

    // Not modified: the request carries the ETag and gets 304; nothing changes.
    await kept.refresh();
    expect(server.requests.map((request) => request.status)).toEqual([200, 304]);
    expect(server.requests[1]?.headers['if-none-match']).toBeTruthy();
    expect(kept.index.agents.map((agent) => agent.id)).toEqual(['alpha']);

    // Changed: the new index is used.
    server.setIndex({
      version: '1.0.0',
      agents: [registryEntry('alpha', 'Alpha', npx('alpha-agent', '1.1.0')), registryEntry('bravo', 'Bravo', npx('bravo-agent'))],
      extensions: [],
    });
    expect(await kept.refresh()).toMatchObject({ agents: 2, problem: null });

    // Not an index: refused with the reason; the last good copy stays.
    server.setIndex('<html>maintenance</html>');
    const notJson = await kept.refresh();
    expect(notJson.problem).toMatch(/did not answer with an agent registry: it is not JSON/);
    expect(notJson.agents).toBe(2);
    server.setIndex({ version: '2.0.0', agents: [] });
    expect((await kept.refresh()).problem).toMatch(/Baton reads version 1 of the registry format/);

    // Unreachable: said, and the last good copy stays, after a restart too.
    await server.close();
    const unreachable = await kept.refresh();
    expect(unreachable.problem).toMatch(/could not be reached \(.+\); Baton keeps using the copy from/);
    expect(unreachable.agents).toBe(2);
    server = undefined;
  });

  it("asks at most once an hour, and the environment's address wins over the setting", async () => {
    server = await startRegistryServer({ version: '1.0.0', agents: [registryEntry('alpha', 'Alpha', npx('alpha-agent'))], extensions: [] });
    let now = Date.parse('2026-12-03T10:00:00Z');
    const hourly = registry({ BATON_REGISTRY_URL: '' }, { setting: server.indexUrl, now: () => now });
    expect(hourly.address()).toEqual({ url: server.indexUrl, from: 'setting' });
    await hourly.refreshIfDue();
    await hourly.refreshIfDue();
    now += 30 * 60_000;
    await hourly.refreshIfDue();
    expect(server.requests).toHaveLength(1);
    now += 31 * 60_000;
    await hourly.refreshIfDue();
    expect(server.requests).toHaveLength(2);
    const overridden = registry({ BATON_REGISTRY_URL: 'off' }, { setting: server.indexUrl });
    expect(overridden.address()).toEqual({ url: null, from: 'environment' });
  });

  it('keeps an entry that breaks the format out, with why, and the others in', async () => {
    server = await startRegistryServer({
      version: '1.0.0',
      agents: [
        registryEntry('alpha', 'Alpha', npx('alpha-agent')),
        { id: 'Bad Id', name: 'Bad' },
        registryEntry('nodist', 'No distribution', {}),
      ],
      extensions: [],
    });
    const status = await registry({ BATON_REGISTRY_URL: server.indexUrl }).refresh();
    expect(status.agents).toBe(1);
    expect(status.skipped.map((entry) => entry.id)).toEqual(['Bad Id', 'nodist']);
  });

  it('keeps icons that are SVG (relative to the index), shown as data URLs, and never markup of another kind', async () => {
    server = await startRegistryServer({
      version: '1.0.0',
      agents: [
        registryEntry('alpha', 'Alpha', npx('alpha-agent'), { icon: './icons/alpha.svg' }),
        registryEntry('bravo', 'Bravo', npx('bravo-agent'), { icon: '/icons/bravo.svg' }),
      ],
      extensions: [],
    });
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path fill="currentColor" d="M0 0h16v16H0z"/></svg>';
    server.put('/icons/alpha.svg', svg, 'image/svg+xml');
    server.put('/icons/bravo.svg', '<html><script>alert(1)</script></html>', 'image/svg+xml');
    const withIcons = registry({ BATON_REGISTRY_URL: server.indexUrl });
    await withIcons.refresh();
    expect(withIcons.icon('alpha')).toBe(`data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`);
    expect(withIcons.icon('bravo')).toBeUndefined();
  });

  it("takes a snapshot with each entry's icon (from its own folder in a checkout), and shows it with no network, SVG only", () => {
    // The snapshot script runs the built parser (as maintainers run it after `npm run build`; built above).
    const checkout = tempDir('registry-checkout');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path fill="currentColor" d="M0 0h8v8H0z"/></svg>';
    mkdirSync(path.join(checkout, 'alpha'));
    mkdirSync(path.join(checkout, 'bravo'));
    writeFileSync(path.join(checkout, 'alpha', 'icon.svg'), svg);
    writeFileSync(path.join(checkout, 'bravo', 'icon.svg'), '<html><script>alert(1)</script></html>');
    writeFileSync(
      path.join(checkout, 'registry.json'),
      JSON.stringify({
        version: '1.0.0',
        agents: [
          registryEntry('alpha', 'Alpha', npx('alpha-agent'), { icon: './icon.svg' }),
          registryEntry('bravo', 'Bravo', npx('bravo-agent'), { icon: './icon.svg' }),
          registryEntry('charlie', 'Charlie', npx('charlie-agent')),
        ],
        extensions: [],
      }),
    );
    const snapshotFile = path.join(tempDir('snapshot'), 'snapshot.json');
    const taken = spawnSync(process.execPath, [path.join(root, 'scripts', 'registry-snapshot.mjs'), path.join(checkout, 'registry.json')], {
      encoding: 'utf8',
      env: { ...process.env, BATON_SNAPSHOT_FILE: snapshotFile },
    });
    expect(taken.status, taken.stderr).toBe(0);
    expect(taken.stdout).toContain('3 agents, 1 icons');
    expect(taken.stdout).toContain('No icon shipped for bravo');
    const offline = new AgentRegistry({
      dataDir: tempDir('registry'),
      env: { BATON_REGISTRY_URL: 'off' },
      setting: () => undefined,
      snapshotFile,
    });
    expect(offline.status()).toMatchObject({ source: 'snapshot', agents: 3 });
    expect(offline.icon('alpha')).toBe(`data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`);
    expect(offline.icon('bravo')).toBeUndefined();
    expect(offline.icon('charlie')).toBeUndefined();
  });

  it('tells entries that share a name apart by what their ids add', () => {
    const names = distinctNames([
      { id: 'github-copilot', name: 'GitHub Copilot' },
      { id: 'github-copilot-cli', name: 'GitHub Copilot' },
      { id: 'kilo', name: 'Kilo' },
    ]);
    expect([...names.values()]).toEqual(['GitHub Copilot', 'GitHub Copilot CLI', 'Kilo']);
  });
});
