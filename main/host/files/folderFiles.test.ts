import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalMachine } from '../machine/LocalMachine.js';
import type { FileKind } from '../machine/Machine.js';
import { definedEnv } from '../process/env.js';
import { folderCompletions, folderFiles, type ListingMachine } from './folderFiles.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'baton-folder-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('folder files and folder completions, read through a machine', () => {
  it('finds the files matching a mention, names first, skipping dependencies, and hidden folders unless asked for with a dot', async () => {
    const work = path.join(root, 'work');
    for (const folder of ['src/parser', 'node_modules/notes', '.cache', 'docs']) {
      mkdirSync(path.join(work, folder), { recursive: true });
    }
    for (const file of ['src/parser/notes.ts', 'node_modules/notes/notes.js', '.cache/notes.md', 'docs/notes.md', 'docs/my-notes.md']) {
      writeFileSync(path.join(work, file), 'x');
    }
    const here = new LocalMachine(definedEnv(process.env));
    expect(await folderFiles(here, work, 'read')).toEqual({ files: [], truncated: false });
    expect((await folderFiles(here, work, 'notes')).files).toEqual(['docs/notes.md', 'src/parser/notes.ts', 'docs/my-notes.md']);
    expect((await folderFiles(here, work, '.cache/n')).files).toEqual(['.cache/notes.md']);
    await expect(folderFiles(here, path.join(root, 'gone'), 'x')).rejects.toThrow(
      `The working folder ${path.join(root, 'gone')} does not exist.`,
    );

    mkdirSync(path.join(root, 'home', 'projects', 'baton'), { recursive: true });
    mkdirSync(path.join(root, 'home', 'projects', '.hidden'));
    const home = { home: path.join(root, 'home'), platform: here.platform, list: (folder: string) => here.list(folder) };
    expect(await folderCompletions(home, '~/projects/b')).toEqual([path.join(root, 'home', 'projects', 'baton')]);
    expect(await folderCompletions(home, '~/projects/.')).toEqual([path.join(root, 'home', 'projects', '.hidden')]);
  });

  it("asks the folder's machine, never this computer's disk", async () => {
    // A machine whose /srv/work exists there only.
    const tree: Record<string, Array<{ name: string; kind: FileKind }>> = {
      '/srv/work': [
        { name: 'src', kind: 'folder' },
        { name: 'README.md', kind: 'file' },
      ],
      '/srv/work/src': [{ name: 'reader.ts', kind: 'file' }],
    };
    const there: ListingMachine & { home: string } = {
      home: '/srv',
      platform: { os: 'linux', arch: 'x64' },
      realpath: (file) => (tree[file] ? Promise.resolve(file) : Promise.reject(new Error('ENOENT'))),
      list: (folder) => {
        const entries = tree[folder.replace(/(.)\/$/, '$1')];
        return entries ? Promise.resolve(entries) : Promise.reject(new Error('ENOENT'));
      },
    };
    expect((await folderFiles(there, '/srv/work', 're')).files).toEqual(['README.md', 'src/reader.ts']);
    expect(await folderCompletions(there, '/srv/work/s')).toEqual(['/srv/work/src']);
    expect(await folderCompletions(there, '~/work/')).toEqual(['/srv/work/src']);
  });
});
