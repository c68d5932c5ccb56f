/**
 * A whole command line in a stdio server's Command is refused when the server is saved, with how
 * to split it (it used to be saved, and fail later with `spawn … ENOENT`); a program whose own
 * path has a space is kept.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { Host, definedEnv } from '../Host.js';

describe("a stdio server's command", () => {
  let host: Host | undefined;
  afterEach(async () => {
    await host?.dispose();
  });

  it('is refused as a whole command line, with how to split it; a program with a space in its path is kept', async () => {
    host = new Host({ dataDir: tempDir('command-line'), homeDir: tempDir('home'), env: definedEnv(process.env) });
    const refused = await host.handle('addServer', {
      server: { name: 'files', transport: 'stdio', command: 'node /srv/mcp/index.js --root /tmp' },
    });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.message).toBe(
      'Command takes the program only, not a whole command line: put "node" in Command and "/srv/mcp/index.js", "--root", "/tmp" in Arguments.',
    );
    const shell = await host.handle('addServer', { server: { name: 'piped', transport: 'stdio', command: 'node a.js | tee log' } });
    expect(!shell.ok && shell.error.message).toMatch(/cannot be started as it is: It uses the shell's "\|"/);

    const split = await host.handle('addServer', {
      server: { name: 'files', transport: 'stdio', command: 'node', args: ['/srv/mcp/index.js', '--root', '/tmp'] },
    });
    expect(split.ok).toBe(true);
    const folder = path.join(tempDir('spaced'), 'My Tools');
    mkdirSync(folder);
    const program = path.join(folder, 'server');
    writeFileSync(program, '#!/bin/sh\n');
    chmodSync(program, 0o755);
    expect((await host.handle('addServer', { server: { name: 'spaced', transport: 'stdio', command: program } })).ok).toBe(true);
  });
});
