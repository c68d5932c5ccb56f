/** Finding agents the way a desktop app must: the login shell's environment, version-manager shims, package versions. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testAgentsBin, tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { agentEnvironment, shimFolders } from './agentEnvironment.js';
import { packageVersion } from './packageVersion.js';

function fakeShell(body: string): string {
  const file = path.join(tempDir('shell'), 'fake-login-shell');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('agent environment', () => {
  it('adds what the login shell knows (PATH entries, variables) without overriding the process', async () => {
    // A login shell that prints a banner first (shell noise), then runs the command it was given.
    const shell = fakeShell(
      'echo "Welcome to your shell"; export PATH="/opt/from-login:$PATH"; export NVM_DIR=/home/me/.nvm; export SHARED=login; eval "$2"',
    );
    const env = await agentEnvironment(
      { PATH: '/usr/bin', SHELL: shell, SHARED: 'process' },
      { askLoginShell: true, home: tempDir('home') },
    );
    expect(env.PATH!.split(':').slice(0, 2)).toEqual(['/usr/bin', '/opt/from-login']);
    expect(env.NVM_DIR).toBe('/home/me/.nvm');
    expect(env.SHARED).toBe('process');
  });

  it('carries on with the process environment when the login shell fails or hangs', async () => {
    const broken = await agentEnvironment({ PATH: '/usr/bin', SHELL: fakeShell('exit 3') }, { askLoginShell: true, home: tempDir('home') });
    expect(broken.PATH!.split(':')[0]).toBe('/usr/bin');
    const hanging = await agentEnvironment(
      { PATH: '/usr/bin', SHELL: fakeShell('sleep 10') },
      { askLoginShell: true, timeoutMs: 300, home: tempDir('home') },
    );
    expect(hanging.PATH!.split(':')[0]).toBe('/usr/bin');
  });

  it('adds the shim folders of version managers that exist, newest nvm Node first', async () => {
    const home = tempDir('home');
    for (const dir of [
      '.volta/bin',
      '.asdf/shims',
      '.nvm/versions/node/v20.11.0/bin',
      '.nvm/versions/node/v22.3.0/bin',
      '.nvm/versions/node/v9.0.0/bin',
    ]) {
      mkdirSync(path.join(home, dir), { recursive: true });
    }
    const shims = shimFolders(home).filter((folder) => folder.startsWith(home));
    expect(shims).toEqual([
      path.join(home, '.volta/bin'),
      path.join(home, '.asdf/shims'),
      path.join(home, '.nvm/versions/node/v22.3.0/bin'),
      path.join(home, '.nvm/versions/node/v20.11.0/bin'),
      path.join(home, '.nvm/versions/node/v9.0.0/bin'),
    ]);
    const env = await agentEnvironment({ PATH: '/usr/bin' }, { askLoginShell: false, home });
    expect(env.PATH!.split(':')).toEqual(expect.arrayContaining([path.join(home, '.volta/bin'), path.join(home, '.asdf/shims')]));
  });

  it("reads an npm-installed agent's version through its bin link", () => {
    expect(packageVersion(path.join(testAgentsBin, 'claude-agent-acp'))).toBe('0.101.0');
    expect(packageVersion(path.join(tempDir('none'), 'missing'))).toBeUndefined();
  });
});
