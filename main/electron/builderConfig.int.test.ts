/** electron-builder.yml passes electron-builder's own configuration validation, and the targets are the promised ones. */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

type Configuration = Record<string, unknown> & {
  linux?: { target?: unknown[] };
  mac?: { target?: unknown[] };
  win?: { target?: unknown[] };
};
// app-builder-lib has no exports map; these are the functions `electron-builder build` calls.
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: Configuration | null): Promise<Configuration>;
  validateConfiguration(config: Configuration, debugLogger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

describe('electron-builder.yml', () => {
  it('passes electron-builder validation with Linux, macOS and Windows targets', async () => {
    const config = await getConfig(root, path.join(root, 'electron-builder.yml'), null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
  });

  it('the same validation rejects a broken configuration', async () => {
    const config = await getConfig(root, path.join(root, 'electron-builder.yml'), null);
    await expect(
      validateConfiguration(
        { ...config, linux: { ...config.linux, category: 42 }, notAnOption: true } as Configuration,
        new DebugLogger(false),
      ),
    ).rejects.toThrow(/notAnOption|category/);
  });

  it('declares the update feed and the signing that updates are checked against, from the packaging environment', async () => {
    const config = (await getConfig(root, path.join(root, 'electron-builder.yml'), null)) as Configuration & {
      publish?: unknown;
      forceCodeSigning?: boolean;
      win?: { signtoolOptions?: { publisherName?: string } };
    };
    expect(config.publish).toEqual({ provider: 'generic', url: '${env.BATON_UPDATE_URL}' });
    expect(config.forceCodeSigning).toBe(true);
    expect(config.win?.signtoolOptions?.publisherName).toBe('${env.BATON_WIN_PUBLISHER}');
  });

  it('refuses to package, naming each missing setting, while the feed or signing is unset', () => {
    const env = { PATH: process.env.PATH ?? '' };
    const linux = spawnSync(process.execPath, [path.join(root, 'scripts', 'package.mjs'), '--linux'], { cwd: root, env, encoding: 'utf8' });
    expect(linux.status).toBe(1);
    expect(linux.stderr).toContain('BATON_UPDATE_URL');
    const win = spawnSync(process.execPath, [path.join(root, 'scripts', 'package.mjs'), '--win'], {
      cwd: root,
      env: { ...env, BATON_UPDATE_URL: 'http://plain.example/feed' },
      encoding: 'utf8',
    });
    expect(win.status).toBe(1);
    expect(win.stderr).toContain('BATON_UPDATE_URL');
    expect(win.stderr).toContain('BATON_WIN_PUBLISHER');
    expect(win.stderr).toContain('WIN_CSC_LINK');
  });
});
