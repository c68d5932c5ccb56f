/**
 * Packaging, offline: electron-builder builds the Linux app folder with a stand-in Electron (no
 * binary can be had here) that carries a fuse wire in Electron's own format, so the fuses are
 * really flipped in it. The asar holds the built main process, preload and renderer, and no tests,
 * sources or fixtures; better-sqlite3's native module is unpacked beside it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../e2e/fixtures/agentEnv.js';
import { ensureBuilt } from '../../e2e/fixtures/ensureBuilt.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const asar = require('@electron/asar') as { listPackage(file: string, options?: unknown): string[] };
const fuses = require('@electron/fuses') as {
  getCurrentFuseWire(file: string): Promise<Record<number, number>>;
  FuseV1Options: Record<string, number>;
};
/** How a fuse wire spells a state: '0' off, '1' on. */
const state = { DISABLE: '0'.charCodeAt(0), ENABLE: '1'.charCodeAt(0) };

/** Electron's fuse sentinel, then wire version 1, eight fuses as a new Electron ships them. */
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const SHIPPED_WIRE = '10110001';

let appDir: string;
let result: ReturnType<typeof spawnSync>;

beforeAll(() => {
  ensureBuilt();
  const standIn = tempDir('electron-dist');
  const binary = path.join(standIn, 'electron');
  writeFileSync(
    binary,
    Buffer.concat([
      Buffer.from('#!/bin/sh\n# '),
      Buffer.from(SENTINEL),
      Buffer.from([1, SHIPPED_WIRE.length]),
      Buffer.from(SHIPPED_WIRE),
      Buffer.from('\necho stand-in\n'),
    ]),
  );
  chmodSync(binary, 0o755);
  writeFileSync(path.join(standIn, 'version'), '45.5.0');
  mkdirSync(path.join(standIn, 'resources'), { recursive: true });
  const output = tempDir('release');
  result = spawnSync(
    path.join(root, 'node_modules', '.bin', 'electron-builder'),
    ['--linux', 'dir', `-c.electronDist=${standIn}`, '-c.electronVersion=45.5.0', `-c.directories.output=${output}`, '-c.npmRebuild=false'],
    // The update feed is required by electron-builder.yml (packaging without it fails loudly).
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true', BATON_UPDATE_URL: 'https://updates.example.invalid/baton' },
      timeout: 240_000,
    },
  );
  appDir = path.join(output, 'linux-unpacked');
}, 300_000);

describe('packaging with electron-builder (offline, stand-in Electron)', () => {
  it('produces app.asar with the built app and nothing of the sources, tests or fixtures', () => {
    expect(result.status, `${String(result.stdout)}\n${String(result.stderr)}`).toBe(0);
    const files = asar.listPackage(path.join(appDir, 'resources', 'app.asar'), { isPack: false });
    for (const required of [
      '/dist/main/electron/index.js',
      '/dist/main/electron/preload.cjs',
      '/dist/main/host/Host.js',
      '/dist/main/host/toolbox/mcpBridge.js',
      '/dist/main/host/agents/agentLocks/claude/lock.json',
      '/dist/renderer/index.html',
      '/package.json',
    ]) {
      expect(files).toContain(required);
    }
    expect(files.some((file) => file.startsWith('/dist/renderer/assets/') && file.endsWith('.js'))).toBe(true);
    const own = files.filter((file) => !file.startsWith('/node_modules/'));
    expect(own.filter((file) => /\.(ts|tsx|cts|map)$/.test(file) || /\.test\./.test(file))).toEqual([]);
    expect(
      own.filter(
        (file) => /^\/(app|main|renderer|e2e|bench|scripts)\//.test(file) || file.startsWith('/dist/e2e') || file.startsWith('/dist/bench'),
      ),
    ).toEqual([]);
    // The web host's single-file bundle is for `npm run web`: the window runs the modules beside it.
    expect(files).toContain('/dist/main/web/staticFiles.js');
    expect(files).not.toContain('/dist/main/web/cli.js');
    // Tooling and test-only packages stay out.
    expect(files.some((file) => /^\/node_modules\/(vitest|@playwright|typescript|vite|electron-builder)\//.test(file))).toBe(false);
  });

  it("unpacks better-sqlite3's native module beside the asar", () => {
    expect(
      existsSync(
        path.join(appDir, 'resources', 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
      ),
    ).toBe(true);
  });

  it('flips the fuses: no running as Node, no NODE_OPTIONS or --inspect, cookies encrypted, the app only from its asar', async () => {
    const wire = await fuses.getCurrentFuseWire(path.join(appDir, 'baton'));
    const { FuseV1Options: option } = fuses;
    expect(wire[option.RunAsNode!]).toBe(state.DISABLE);
    expect(wire[option.EnableNodeOptionsEnvironmentVariable!]).toBe(state.DISABLE);
    expect(wire[option.EnableNodeCliInspectArguments!]).toBe(state.DISABLE);
    expect(wire[option.EnableCookieEncryption!]).toBe(state.ENABLE);
    expect(wire[option.EnableEmbeddedAsarIntegrityValidation!]).toBe(state.ENABLE);
    expect(wire[option.OnlyLoadAppFromAsar!]).toBe(state.ENABLE);
  });
});
