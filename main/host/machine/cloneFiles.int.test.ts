/**
 * A plain copy's files cloned (copy-on-write) where the file system makes clones (a real XFS with
 * reflinks, mounted from an image), on this computer and through the machine server: only files
 * still as the checkpoint read them are cloned, so the copy holds the checkpoint even where the
 * folder changed since (a file rewritten, a file swapped for a link out of the folder); the rest is
 * written from the checkpoint. On a file system without clones (ext4) every file is written, and
 * the copy says so. Either way the copy's first checkpoint is what it was made as
 * (`CheckpointStore.adopt`): its next checkpoint reads no file again, and one changed since, once.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statfsSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { mountReflinkFolder, reflinkUnavailable, type ReflinkFolder } from '../../../e2e/fixtures/reflinkFolder.js';
import { fillCopy, type CopyFilled } from '../attempts/folderCopies.js';
import { CheckpointStore } from '../checkpoints/CheckpointStore.js';
import { definedEnv } from '../process/env.js';
import { cloneFiles } from './cloneFiles.js';
import { LocalMachine } from './LocalMachine.js';
import type { Machine } from './Machine.js';
import type { CheckpointEntry } from './scanFolder.js';
import { loopbackTestMachine } from './testMachines.kit.test.js';

const env = definedEnv(process.env);
const BIG = 4 * 1024 * 1024;
/** ext4's magic number in `statfs`: a file system that makes no clones. */
const EXT4 = 0xef53;

/** A folder of six: a text file, a 4 MiB file in a subfolder, an empty file, a script, a link and a file to be changed. */
function seedFolder(folder: string): void {
  mkdirSync(path.join(folder, 'sub'), { recursive: true });
  writeFileSync(path.join(folder, 'a.txt'), 'a as checkpointed\n');
  writeFileSync(path.join(folder, 'sub', 'big.bin'), randomBytes(BIG));
  writeFileSync(path.join(folder, 'empty.txt'), '');
  writeFileSync(path.join(folder, 'run.sh'), '#!/bin/sh\necho run\n');
  chmodSync(path.join(folder, 'run.sh'), 0o755);
  symlinkSync('a.txt', path.join(folder, 'link'));
  writeFileSync(path.join(folder, 'changed.txt'), 'changed.txt as checkpointed\n');
}

/** The folder's checkpoint, as a checkpoint of it reads it: its entries and their contents. */
async function checkpointOf(
  machine: Machine,
  folder: string,
): Promise<{ base: Map<string, CheckpointEntry>; contents: Map<string, Buffer> }> {
  const scanned = await machine.scan(folder, new Map(), { walk: true }, { maxFileBytes: 16 * 1024 * 1024, maxFiles: 100, keep: true });
  return {
    base: new Map(scanned.entries.map((entry) => [entry.path, entry])),
    contents: new Map(scanned.stored.map((blob) => [blob.hash, inflateRawSync(blob.data)])),
  };
}

/** The copy holds the checkpoint's six files, as the checkpoint read them. */
function expectTheCheckpoint(copy: string, big: Buffer): void {
  expect(readFileSync(path.join(copy, 'a.txt'), 'utf8')).toBe('a as checkpointed\n');
  expect(lstatSync(path.join(copy, 'a.txt')).isFile()).toBe(true);
  expect(readFileSync(path.join(copy, 'sub', 'big.bin')).equals(big)).toBe(true);
  expect(readFileSync(path.join(copy, 'empty.txt'), 'utf8')).toBe('');
  expect(lstatSync(path.join(copy, 'run.sh')).mode & 0o777).toBe(0o755);
  expect(readlinkSync(path.join(copy, 'link'))).toBe('a.txt');
  expect(readFileSync(path.join(copy, 'changed.txt'), 'utf8')).toBe('changed.txt as checkpointed\n');
}

/** The copy recorded as made: its next checkpoint reads nothing, holds the checkpoint's contents, and reads a file changed since. */
async function expectAdoptedAsMade(
  machine: Machine,
  copy: string,
  base: ReadonlyMap<string, CheckpointEntry>,
  filled: CopyFilled,
): Promise<void> {
  const store = CheckpointStore.open(tempDir('adopt-data'));
  try {
    // The store holds the checkpoint's contents, as the host's holds its base's.
    const source = await store.take(path.join(path.dirname(copy), 'work'), { machine });
    expect(source.files).toBe(base.size);
    await store.adopt(copy, filled.made, machine);
    const first = await store.take(copy, { machine });
    expect(first.read).toBe(0);
    expect([...store.manifest(first.checkpointId).values()].map((entry) => [entry.path, entry.hash])).toEqual(
      [...base.values()].map((entry) => [entry.path, entry.hash]),
    );
    writeFileSync(path.join(copy, 'empty.txt'), 'written in the copy\n');
    const next = await store.take(copy, { machine });
    expect(next.read).toBe(1);
    // Nothing made is taken on trust where a content is not stored.
    await expect(CheckpointStore.open(tempDir('adopt-empty')).adopt(copy, filled.made, machine)).rejects.toThrow(/is not stored/);
  } finally {
    store.close();
  }
}

const noClones = reflinkUnavailable();
const kinds: Array<[string, () => Promise<Machine>]> = [
  ['this computer', () => Promise.resolve(new LocalMachine(env))],
  ['the machine server behind the protocol (LoopbackMachine)', () => loopbackTestMachine(env)],
];

describe.each(kinds)('copies cloned where the file system makes clones: %s', (name, make) => {
  let machine: Machine;
  let xfs: ReflinkFolder | undefined;
  beforeAll(async () => {
    machine = await make();
    xfs = noClones ? undefined : mountReflinkFolder(name === 'this computer' ? 'local' : 'loopback');
  }, 120_000);
  afterAll(async () => {
    await machine.dispose();
    xfs?.unmount();
  });

  it.skipIf(noClones !== undefined)(
    noClones ?? 'clones the files still as checkpointed, writes the rest, and the copy is the checkpoint',
    async () => {
      const source = path.join(xfs!.folder, 'work');
      seedFolder(source);
      const big = readFileSync(path.join(source, 'sub', 'big.bin'));
      const { base, contents } = await checkpointOf(machine, source);
      // After the checkpoint: one file rewritten, and one swapped for a link to a file outside the folder.
      writeFileSync(path.join(source, 'changed.txt'), 'changed.txt written since\n');
      const outside = path.join(xfs!.folder, 'outside.txt');
      writeFileSync(outside, 'outside the folder\n');
      rmSync(path.join(source, 'a.txt'));
      symlinkSync(outside, path.join(source, 'a.txt'));
      const copy = path.join(xfs!.folder, 'copy');
      await machine.mkdir(copy, 0o700);
      const usedBefore = statfsSync(xfs!.folder);
      const filled = await fillCopy(copy, base, (hash) => contents.get(hash)!, { machine, env }, source);
      const usedAfter = statfsSync(xfs!.folder);
      expect(filled.failed).toEqual([]);
      // big.bin, empty.txt and run.sh cloned; the link is made as a link, and a.txt and changed.txt written from the checkpoint.
      expect(filled.way).toBe('3 of 6 files cloned (copy-on-write), the rest written from the checkpoint');
      expectTheCheckpoint(copy, big);
      // The 4 MiB file shares its blocks: the copy took far less than its size.
      expect((usedBefore.bfree - usedAfter.bfree) * usedAfter.bsize).toBeLessThan(BIG / 4);
      expect(readFileSync(outside, 'utf8')).toBe('outside the folder\n');
      // Each file made (cloned or written) comes back as the copy's own: its stat as it is now, the checkpoint's hash.
      expect(filled.made.map((entry) => entry.path).sort()).toEqual([...base.keys()]);
      for (const made of filled.made) {
        const now = lstatSync(path.join(copy, made.path));
        expect([made.ino, made.size, made.mtimeMs, made.ctimeMs, made.hash]).toEqual([
          now.ino,
          now.size,
          now.mtimeMs,
          now.ctimeMs,
          base.get(made.path)!.hash,
        ]);
      }
    },
  );

  const onExt4 = statfsSync(os.tmpdir()).type === EXT4;
  it.skipIf(!onExt4)(
    onExt4
      ? 'writes every file from the checkpoint where the file system makes no clones, and says so'
      : `skipped: the temporary folder (${os.tmpdir()}) is not on ext4, which makes no clones`,
    async () => {
      const dir = tempDir('no-clones');
      const source = path.join(dir, 'work');
      seedFolder(source);
      const big = readFileSync(path.join(source, 'sub', 'big.bin'));
      const { base, contents } = await checkpointOf(machine, source);
      const copy = path.join(dir, 'copy');
      await machine.mkdir(copy, 0o700);
      const filled = await fillCopy(copy, base, (hash) => contents.get(hash)!, { machine, env }, source);
      expect(filled.failed).toEqual([]);
      expect(filled.way).toMatch(/^6 files written from the checkpoint \(no copy-on-write clones there: E[A-Z]+\)$/);
      expectTheCheckpoint(copy, big);
      await expectAdoptedAsMade(machine, copy, base, filled);
    },
  );
});

describe('clones made by path, where no descriptor can be named (other systems than Linux)', () => {
  let xfs: ReflinkFolder | undefined;
  beforeAll(() => {
    xfs = noClones ? undefined : mountReflinkFolder('by-path');
  });
  afterAll(() => xfs?.unmount());

  it.skipIf(noClones !== undefined)(noClones ?? 'keeps a clone only when its content hashes to the checkpoint', async () => {
    const source = path.join(xfs!.folder, 'work');
    seedFolder(source);
    const { base } = await checkpointOf(new LocalMachine(env), source);
    // A checkpoint that recorded other content under the same file (its hash) cannot be cloned from it.
    const wrong = new Map(base);
    wrong.set('run.sh', { ...base.get('run.sh')!, hash: '0'.repeat(64) });
    const copy = path.join(xfs!.folder, 'copy');
    mkdirSync(copy);
    const cloned = await cloneFiles(copy, source, [...wrong.values()], false);
    expect(cloned.unsupported).toBeUndefined();
    expect(cloned.cloned.map((entry) => entry.path)).toEqual(['a.txt', 'changed.txt', 'empty.txt', 'sub/big.bin']);
    expect(() => lstatSync(path.join(copy, 'run.sh'))).toThrow(/ENOENT/);
  });
});
