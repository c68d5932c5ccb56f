/**
 * File access for agents on real files: inside the session's folder only, symlinks and `..`
 * included. The same on this computer, through the machine server (the loopback machine) and
 * over ssh (a real sshd), where the folder is on another machine.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { handTo, testMachines } from '../machine/testMachines.kit.test.js';
import type { Machine } from '../machine/Machine.js';
import { definedEnv } from '../process/env.js';
import { SessionFiles } from './SessionFiles.js';

const env = definedEnv(process.env);

const kinds = testMachines(env);

describe('bounded reads', () => {
  it('refuse a file larger than the read limit by what they read, not by what stat says', async () => {
    const { readTextAtMost, readTextAtMostSync } = await import('../machine/boundedRead.js');
    const dir = tempDir('bounded');
    const file = path.join(dir, 'ten.txt');
    writeFileSync(file, '0123456789');
    expect(readTextAtMostSync(file, 10)).toEqual({ kind: 'text', text: '0123456789' });
    expect(readTextAtMostSync(file, 9)).toEqual({ kind: 'too-large' });
    expect(await readTextAtMost(file, 10)).toEqual({ kind: 'text', text: '0123456789' });
    expect(await readTextAtMost(file, 9)).toEqual({ kind: 'too-large' });
    // A file whose stat size says nothing of its content (0 here, as for a file still growing):
    // a check on the size followed by a whole read would take it all in.
    if (existsSync('/proc/self/maps')) {
      expect(statSync('/proc/self/maps').size).toBe(0);
      expect(readTextAtMostSync('/proc/self/maps', 16)).toEqual({ kind: 'too-large' });
      expect(await readTextAtMost('/proc/self/maps', 16)).toEqual({ kind: 'too-large' });
    }
    expect(readTextAtMostSync(dir, 16)).toEqual({ kind: 'not-a-file' });
    symlinkSync(file, path.join(dir, 'link'));
    expect(() => readTextAtMostSync(path.join(dir, 'link'), 16)).toThrow();
  });
});

describe.each(kinds)('SessionFiles on $name', ({ make, unavailable }) => {
  if (unavailable) {
    it.skip(unavailable, () => undefined);
    return;
  }
  let machine: Machine;
  beforeAll(async () => {
    machine = (await make()) ?? new LocalMachine(env);
  }, 120_000);
  afterAll(async () => {
    await machine.dispose();
  });

  function setup() {
    const root = tempDir('files-root');
    const outside = tempDir('files-outside');
    writeFileSync(path.join(root, 'notes.txt'), 'one\ntwo\nthree\nfour');
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-to-secret'));
    symlinkSync(outside, path.join(root, 'link-to-outside'));
    // The folders are the machine's account's (over ssh, an ordinary one): only confinement keeps a write out.
    handTo(machine, root, outside);
    return { root, outside, files: new SessionFiles(machine, [root]) };
  }

  it('keeps the mode of the file it replaces (a 0600 .env, an executable script), and a new file gets the usual create mode', async () => {
    const { root, files } = setup();
    const env = path.join(root, '.env');
    const script = path.join(root, 'run.sh');
    writeFileSync(env, 'TOKEN=1\n');
    chmodSync(env, 0o600);
    writeFileSync(script, '#!/bin/sh\n');
    chmodSync(script, 0o755);
    handTo(machine, root);
    await files.write(env, 'TOKEN=2\n');
    await files.write(script, '#!/bin/sh\necho hi\n');
    expect(readFileSync(env, 'utf8')).toBe('TOKEN=2\n');
    expect((statSync(env).mode & 0o7777).toString(8)).toBe('600');
    expect((statSync(script).mode & 0o7777).toString(8)).toBe('755');
    const created = path.join(root, 'fresh.txt');
    await files.write(created, 'new');
    expect((statSync(created).mode & 0o7777).toString(8)).toBe((0o666 & ~process.umask()).toString(8));
  });

  it('reads files inside the folder, whole or by lines', async () => {
    const { root, files } = setup();
    expect(await files.read(path.join(root, 'notes.txt'))).toBe('one\ntwo\nthree\nfour');
    expect(await files.read(path.join(root, 'notes.txt'), 2, 2)).toBe('two\nthree');
  });

  it('refuses relative paths, .. and symlinks that lead outside, and says why', async () => {
    const { root, outside, files } = setup();
    await expect(files.read('notes.txt')).rejects.toMatchObject({ kind: 'invalid', message: expect.stringContaining('absolute') });
    await expect(files.read(path.join(root, '..', path.basename(outside), 'secret.txt'))).rejects.toMatchObject({ kind: 'outside' });
    await expect(files.read(path.join(root, 'link-to-secret'))).rejects.toMatchObject({ kind: 'outside' });
    await expect(files.read(path.join(root, 'link-to-outside', 'secret.txt'))).rejects.toMatchObject({ kind: 'outside' });
    await expect(files.read(path.join(root, 'missing.txt'))).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('writes inside (creating folders) and never through a way out', async () => {
    const { root, outside, files } = setup();
    await files.write(path.join(root, 'src', 'deep', 'new.ts'), 'export {};\n');
    expect(readFileSync(path.join(root, 'src', 'deep', 'new.ts'), 'utf8')).toBe('export {};\n');
    await files.write(path.join(root, 'notes.txt'), 'replaced');
    expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('replaced');
    await expect(files.write(path.join(root, 'link-to-secret'), 'pwned')).rejects.toMatchObject({ kind: 'outside' });
    await expect(files.write(path.join(root, 'link-to-outside', 'new.txt'), 'pwned')).rejects.toMatchObject({ kind: 'outside' });
    await expect(files.write(path.join(root, '..', 'escape.txt'), 'pwned')).rejects.toMatchObject({ kind: 'outside' });
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
    // No temporary files are left behind.
    expect(readdirSync(root).filter((name) => name.includes('.baton-'))).toEqual([]);
  });

  it('refuses to read a folder', async () => {
    const { root, files } = setup();
    mkdirSync(path.join(root, 'dir'));
    handTo(machine, root);
    await expect(files.read(path.join(root, 'dir'))).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('refuses to read a FIFO, without waiting for a writer', async () => {
    const { root, files } = setup();
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    handTo(machine, root);
    await expect(files.read(path.join(root, 'pipe'))).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('for an agent that cannot tell "no such file" from a failed read, a missing file inside the folder reads as empty; outside it is still refused', async () => {
    const { root, outside } = setup();
    const files = new SessionFiles(machine, [root], true);
    expect(await files.read(path.join(root, 'new', 'b.txt'))).toBe('');
    await expect(files.read(path.join(outside, 'missing.txt'))).rejects.toMatchObject({ kind: 'outside' });
    await expect(files.read(path.join(root, 'link-to-outside', 'missing.txt'))).rejects.toMatchObject({ kind: 'outside' });
    // Every other agent is told there is no such file.
    await expect(new SessionFiles(machine, [root]).read(path.join(root, 'b.txt'))).rejects.toMatchObject({ kind: 'not-found' });
  });
});
