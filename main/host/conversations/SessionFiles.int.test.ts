/** File access for agents on real files: inside the session's folder only, symlinks and `..` included. */
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { SessionFiles } from './SessionFiles.js';

function setup() {
  const root = tempDir('files-root');
  const outside = tempDir('files-outside');
  writeFileSync(path.join(root, 'notes.txt'), 'one\ntwo\nthree\nfour');
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-to-secret'));
  symlinkSync(outside, path.join(root, 'link-to-outside'));
  return { root, outside, files: new SessionFiles([root]) };
}

describe('SessionFiles', () => {
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
    await expect(files.read(path.join(root, 'dir'))).rejects.toMatchObject({ kind: 'invalid' });
  });
});
