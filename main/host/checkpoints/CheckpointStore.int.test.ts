/** Checkpoints of real folders (a plain one and a git repository) in a real SQLite file. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { CheckpointStore } from './CheckpointStore.js';

/** Writes files (path → content) under `root`. */
function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
}

/** A digest of every byte and name under a folder (to prove it was not written to). */
function treeDigest(root: string): string {
  const hash = createHash('sha256');
  const visit = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const file = path.join(folder, name);
      const stat = statSync(file);
      hash.update(`${path.relative(root, file)}\0${stat.mode}\0${stat.mtimeMs}\0`);
      if (stat.isDirectory()) {
        visit(file);
      } else {
        hash.update(readFileSync(file));
      }
    }
  };
  visit(root);
  return hash.digest('hex');
}

describe('checkpoints', () => {
  let store: CheckpointStore | undefined;

  afterEach(() => {
    store?.close();
    store = undefined;
  });

  it("keep a plain folder's files, honour .gitignore and .ignore, skip dependency folders and list files over the limit", async () => {
    const folder = tempDir('plain');
    write(folder, {
      'a.txt': 'alpha',
      'src/b.ts': 'export const b = 1;\n',
      '.gitignore': 'build/\n*.log\n',
      'src/.ignore': 'generated.ts\n',
      'src/generated.ts': 'ignored',
      'build/out.js': 'ignored',
      'debug.log': 'ignored',
      'node_modules/x/index.js': 'ignored',
      'big.bin': Buffer.alloc(2000, 1),
    });
    symlinkSync('a.txt', path.join(folder, 'link-to-a'));
    store = CheckpointStore.open(tempDir('data'));
    const checkpoint = await store.take(folder, { maxFileBytes: 1000 });
    const manifest = store.manifest(checkpoint.checkpointId);
    expect([...manifest.keys()]).toEqual(['.gitignore', 'a.txt', 'link-to-a', 'src/.ignore', 'src/b.ts']);
    expect(checkpoint.tooLarge).toEqual([{ path: 'big.bin', reason: '2000 bytes, over the limit of 1000' }]);
    expect(checkpoint.failed).toEqual([]);
    expect(store.content(manifest.get('a.txt')!.hash).toString()).toBe('alpha');
    expect(manifest.get('link-to-a')).toMatchObject({ link: true });
    expect(store.content(manifest.get('link-to-a')!.hash).toString()).toBe('a.txt');
  });

  it('are incremental: unchanged files are not read again, and what changed is listed', async () => {
    const folder = tempDir('incremental');
    write(folder, Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`f${index}.txt`, `file ${index}`])));
    store = CheckpointStore.open(tempDir('data'));
    const first = await store.take(folder);
    expect({ read: first.read, reused: first.reused, files: first.files }).toEqual({ read: 50, reused: 0, files: 50 });
    const second = await store.take(folder);
    expect({ read: second.read, reused: second.reused }).toEqual({ read: 0, reused: 50 });

    write(folder, { 'f1.txt': 'changed', 'new.txt': 'new' });
    rmSync(path.join(folder, 'f2.txt'));
    // Same size and content, new mtime: read again, found unchanged by its hash.
    utimesSync(path.join(folder, 'f3.txt'), new Date(), new Date(Date.now() + 5_000));
    const third = await store.take(folder);
    expect({ read: third.read, reused: third.reused }).toEqual({ read: 3, reused: 47 });
    expect(store.changes(second.checkpointId, third.checkpointId).map(({ path: file, change }) => [file, change])).toEqual([
      ['f1.txt', 'modified'],
      ['f2.txt', 'removed'],
      ['new.txt', 'added'],
    ]);
  });

  it("never write to a git repository's .git (refs, index and objects stay byte-identical)", async () => {
    const folder = tempDir('repo');
    write(folder, { 'README.md': '# repo\n', 'src/main.c': 'int main(void) { return 0; }\n' });
    const git = (...args: string[]): string =>
      execFileSync('git', args, {
        cwd: folder,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@example.com',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@example.com',
        },
      });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'first');
    write(folder, { 'src/main.c': 'int main(void) { return 1; }\n' });
    const before = treeDigest(path.join(folder, '.git'));
    store = CheckpointStore.open(tempDir('data'));
    const checkpoint = await store.take(folder);
    await store.take(folder);
    expect(treeDigest(path.join(folder, '.git'))).toBe(before);
    expect([...store.manifest(checkpoint.checkpointId).keys()]).toEqual(['README.md', 'src/main.c']);
    expect(git('status', '--porcelain')).toBe(' M src/main.c\n');
  });

  it('store a content once, and removing checkpoints frees what no other uses', async () => {
    const folder = tempDir('shared');
    write(folder, { 'a.txt': 'same', 'b.txt': 'same' });
    store = CheckpointStore.open(tempDir('data'));
    const first = await store.take(folder);
    write(folder, { 'a.txt': 'other' });
    const second = await store.take(folder);
    const hashOf = (id: string, file: string): string => store!.manifest(id).get(file)!.hash;
    expect(hashOf(first.checkpointId, 'a.txt')).toBe(hashOf(first.checkpointId, 'b.txt'));
    store.remove([second.checkpointId]);
    expect(() => store!.content(hashOf(first.checkpointId, 'a.txt'))).not.toThrow();
    expect(() => store!.manifest(second.checkpointId)).toThrow();
    store.remove([first.checkpointId]);
    expect(() => store!.content(createHash('sha256').update('same').digest('hex'))).toThrow();
  });
});
