/**
 * Checkpoints from a watcher's paths (real folders, Node's own watcher, a real SQLite file): each
 * one matches what a walk of the whole folder finds, an overflow or a changed ignore file falls
 * back to the walk (counted), and manifests stored as changes read back whole, also after the one
 * they were based on is removed.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import type { Machine } from '../machine/Machine.js';
import { describeOnMachines, machinesSharingFiles, tempDirOn } from '../machine/testMachines.kit.test.js';
import { definedEnv } from '../process/env.js';
import { CheckpointStore, FULL_EVERY } from './CheckpointStore.js';
import { WATCHING_WORKS } from '../machine/FolderWatch.js';

const env = definedEnv(process.env);

/** Writes files (path → content) under `root`. */
function write(root: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
}

/** A folder of a few files in a few folders, with ignored ones (handed to `machine`'s account). */
function seeded(machine?: Machine): string {
  const folder = tempDirOn(machine, 'watched');
  write(folder, {
    '.gitignore': 'build/\n*.log\n',
    'a.txt': 'alpha',
    'src/b.ts': 'b',
    'src/deep/c.ts': 'c',
    'docs/d.md': 'd',
    'build/out.js': 'ignored',
  });
  return folder;
}

/** Paths and hashes of a manifest, for comparing two. */
function listing(manifest: ReadonlyMap<string, { hash: string }>): Array<[string, string]> {
  return [...manifest.entries()].map(([file, entry]) => [file, entry.hash] as [string, string]).sort();
}

/** The stores a test opened, closed after it. */
const stores: CheckpointStore[] = [];
function open(options: Parameters<typeof CheckpointStore.open>[1] = {}, dataDir = tempDir('data')): CheckpointStore {
  const store = CheckpointStore.open(dataDir, options);
  stores.push(store);
  return store;
}
afterEach(() => {
  for (const store of stores.splice(0)) {
    store.close();
  }
});

describe.skipIf(!WATCHING_WORKS)('checkpoints from a watcher', () => {
  it('a change made while nothing watched (a restart) is in the next checkpoint', async () => {
    const folder = seeded();
    const dataDir = tempDir('data-restart');
    const before = CheckpointStore.open(dataDir);
    stores.push(before);
    before.watch(folder);
    await before.take(folder);
    const kept = await before.take(folder);
    before.close();
    stores.splice(stores.indexOf(before), 1);
    write(folder, { 'a.txt': 'changed while Baton was closed' });

    const after = CheckpointStore.open(dataDir);
    stores.push(after);
    after.watch(folder);
    const next = await after.take(folder);
    expect(next.walked).toMatch(/not watched/);
    expect(after.changes(kept.checkpointId, next.checkpointId)).toEqual([expect.objectContaining({ path: 'a.txt', change: 'modified' })]);
  });

  it('a verifying walk every so often finds what the watcher did not report, and says so in the log', async () => {
    const folder = seeded();
    const log: string[] = [];
    const store = open({ log: (message) => log.push(message), verifyEvery: 2 });
    store.watch(folder);
    await store.take(folder);
    await store.take(folder);
    write(folder, { 'a.txt': 'reported', 'src/b.ts': 'dropped' });
    // The system drops events when its queue overflows, and Node does not say so: one is dropped here.
    await store.look(folder);
    type Inside = { folders: { watches: Map<string, { watch: { changed: Set<string> } }> } };
    const watch = (store as unknown as Inside).folders.watches.get(folder)!.watch;
    expect(watch.changed.delete('src/b.ts')).toBe(true);
    const verified = await store.take(folder);
    expect(verified.walked).toBe('verifying the watcher');
    expect(store.counts().missed).toBe(1);
    expect(log).toContainEqual(expect.stringMatching(/missed 1 changed files \(src\/b\.ts\); the walk found them/));
    expect(store.content(store.manifest(verified.checkpointId).get('src/b.ts')!.hash).toString()).toBe('dropped');
  });

  it('stores manifests as changes, reads each back whole, also once the one it was based on is removed', async () => {
    const folder = seeded();
    const dataDir = tempDir('data-deltas');
    const store = open({}, dataDir);
    const walker = open({ watch: false });
    store.watch(folder);
    const ids: string[] = [];
    const truths: Array<Array<[string, string]>> = [];
    for (let round = 0; round < FULL_EVERY + 3; round += 1) {
      write(folder, { [`src/round${round % 5}.ts`]: `round ${round}` });
      if (round === 7) {
        rmSync(path.join(folder, 'src', 'round1.ts'));
      }
      ids.push((await store.take(folder)).checkpointId);
      truths.push(listing(await walker.look(folder)));
    }
    // Read back from the database (another store on the same file keeps nothing in memory).
    const reader = open({ watch: false }, dataDir);
    for (const [index, id] of ids.entries()) {
      expect(listing(reader.manifest(id)), `checkpoint ${index}`).toEqual(truths[index]);
    }
    // Removing the ones others are based on leaves those readable, with their contents.
    store.remove(ids.slice(0, 10));
    const afterRemoval = open({ watch: false }, dataDir);
    for (const [index, id] of ids.entries()) {
      if (index < 10) {
        expect(() => afterRemoval.manifest(id)).toThrow(/No checkpoint/);
        continue;
      }
      expect(listing(afterRemoval.manifest(id)), `checkpoint ${index}`).toEqual(truths[index]);
      for (const [file, hash] of truths[index]!) {
        expect(() => afterRemoval.content(hash), file).not.toThrow();
      }
    }
  });
});

/**
 * The watch is kept by the folder's machine: this computer, the machine server behind the protocol
 * (the loopback machine), and that server over a real ssh as an ordinary account. Each lists and
 * judges the folder by its own file system, so a folder on another machine is watched there too.
 */
/** Where the system's events do not arrive in time nothing is watched: said as the skip's reason. */
const watchedMachines = machinesSharingFiles(env).map((machine) =>
  WATCHING_WORKS ? machine : { ...machine, unavailable: `folders are not watched on ${process.platform}` },
);

describeOnMachines(watchedMachines, 'checkpoints from a watcher', (machineOf) => {
  it('looks only at the paths changed, and finds what a walk of the whole folder finds', async () => {
    const machine = machineOf();
    const folder = seeded(machine);
    const log: string[] = [];
    const store = open({ log: (message) => log.push(message), machine });
    const walker = open({ watch: false, machine });
    const stop = store.watch(folder);
    // Watching starts in the background: the first checkpoint walks.
    const first = await store.take(folder);
    expect(first.walked).toBeDefined();
    const second = await store.take(folder);
    expect(second.walked).toBeUndefined();
    expect(second).toMatchObject({ read: 0, files: first.files });

    write(folder, { 'a.txt': 'alpha, changed', 'new/deeper/e.ts': 'e', 'src/deep/f.ts': 'f', 'debug.log': 'ignored', 'build/x.js': 'x' });
    rmSync(path.join(folder, 'docs'), { recursive: true });
    renameSync(path.join(folder, 'src', 'deep'), path.join(folder, 'src', 'moved'));
    symlinkSync('a.txt', path.join(folder, 'link'));
    const third = await store.take(folder);
    expect(third.walked).toBeUndefined();
    // Read: a.txt, the new folder's file, the moved folder's two, the link.
    expect(third.read).toBe(5);
    const truth = await walker.take(folder);
    expect(listing(store.manifest(third.checkpointId))).toEqual(listing(walker.manifest(truth.checkpointId)));
    expect([...store.manifest(third.checkpointId).keys()]).toEqual(
      expect.arrayContaining(['new/deeper/e.ts', 'src/moved/c.ts', 'src/moved/f.ts', 'link']),
    );

    // A change inside a folder made since, and one in the moved folder, are reported too.
    write(folder, { 'new/deeper/g.ts': 'g', 'src/moved/c.ts': 'c, changed' });
    const fourth = await store.take(folder);
    expect(fourth).toMatchObject({ read: 2 });
    expect(fourth.walked).toBeUndefined();
    expect(listing(store.manifest(fourth.checkpointId))).toEqual(listing(await walker.look(folder)));
    // A rewind's look sees the same, from the same paths.
    write(folder, { 'a.txt': 'alpha, once more' });
    expect(listing(await store.look(folder))).toEqual(listing(await walker.look(folder)));
    expect(store.counts()).toMatchObject({ watched: 3, walked: 1, missed: 0 });
    expect(log).toEqual([expect.stringContaining('walks the whole folder: the folder has no checkpoint yet (1 of 1 walked so far)')]);

    // Once the session ends, nothing is watched: the next checkpoint walks, and says why.
    stop();
    const unwatched = await store.take(folder);
    expect(unwatched.walked).toBe('the folder is not watched (no live session in it)');
    expect(listing(store.manifest(unwatched.checkpointId))).toEqual(listing(await walker.look(folder)));
  });

  it('an overflow, or a changed ignore file, falls back to the walk; the walk after it is counted in the log', async () => {
    const machine = machineOf();
    const folder = seeded(machine);
    const log: string[] = [];
    const store = open({ log: (message) => log.push(message), maxChangedPaths: 3, machine });
    const walker = open({ watch: false, machine });
    store.watch(folder);
    await store.take(folder);
    await store.take(folder);
    write(folder, { 'one.txt': '1', 'two.txt': '2', 'three.txt': '3', 'src/four.ts': '4', 'src/deep/five.ts': '5' });
    const overflowed = await store.take(folder);
    expect(overflowed.walked).toMatch(/more than 3 paths changed since the last checkpoint \(an overflow\)/);
    expect(listing(store.manifest(overflowed.checkpointId))).toEqual(listing(await walker.look(folder)));
    // Watching started afresh: the next one looks only at what changed.
    write(folder, { 'one.txt': 'one' });
    const after = await store.take(folder);
    expect(after).toMatchObject({ read: 1 });
    expect(after.walked).toBeUndefined();

    // A new ignore rule changes what a checkpoint holds: walked, and the newly ignored file is gone.
    write(folder, { '.gitignore': 'build/\n*.log\none.txt\n' });
    const reruled = await store.take(folder);
    expect(reruled.walked).toMatch(/\.gitignore changed, so what is ignored may have changed/);
    expect(store.manifest(reruled.checkpointId).has('one.txt')).toBe(false);
    expect(listing(store.manifest(reruled.checkpointId))).toEqual(listing(await walker.look(folder)));
    expect(store.counts().reasons).toMatchObject({
      'more than 3 paths changed since the last checkpoint (an overflow)': 1,
      '.gitignore changed, so what is ignored may have changed': 1,
    });
    expect(log.some((line) => line.includes('an overflow') && line.includes('walked so far'))).toBe(true);
  });
});
