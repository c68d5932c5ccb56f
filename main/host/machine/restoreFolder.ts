/**
 * Putting files of a working folder back as a checkpoint holds them: writes (through a temporary
 * file beside the target, renamed over it, with the checkpoint's mode), symbolic links, and
 * removals (with the folders a removal left empty). Every write and removal goes through
 * {@link ConfinedTree}: nothing is written through a link or into a folder swapped meanwhile, and
 * nothing is written beneath a path whose removal failed. Each file succeeds or fails on its own;
 * a failure is returned with why, never thrown, so the rest is still put back. It runs on the
 * machine the folder is on (`Machine.restore`), where the inodes are.
 */
import { ConfinedTree } from './ConfinedTree.js';
import { byPath, type CheckpointEntry, type LeftOut } from './scanFolder.js';

/** One file to put back: as `entry` holds it, or removed (`entry` undefined). */
export type Restore = { path: string; entry: CheckpointEntry | undefined };

/** Files written between two turns of the event loop. */
const WRITE_BATCH = 32;

/**
 * Puts each file back; returns the ones that could not be, with why. Removals go first, one at a
 * time (each prunes the folders it emptied, so a file can take a folder's place), then the writes,
 * several at once. With `recordedReal`, the folder must still be that real path.
 */
export async function restoreFolder(
  folder: string,
  restores: readonly Restore[],
  content: (hash: string) => Buffer,
  recordedReal?: string,
): Promise<LeftOut[]> {
  let tree: ConfinedTree;
  try {
    tree = await ConfinedTree.open(folder, recordedReal);
  } catch (error) {
    return restores.map((restore) => ({ path: restore.path, reason: reasonOf(error) }));
  }
  const failed: LeftOut[] = [];
  /** Paths whose removal failed: nothing is written beneath them (whatever is there now stays in the way). */
  const blocked: string[] = [];
  for (const restore of restores.filter((candidate) => !candidate.entry)) {
    try {
      await tree.remove(restore.path);
    } catch (error) {
      blocked.push(restore.path);
      failed.push({ path: restore.path, reason: reasonOf(error) });
    }
  }
  const writes = restores.filter((candidate): candidate is Restore & { entry: CheckpointEntry } => candidate.entry !== undefined);
  const write = async (restore: Restore & { entry: CheckpointEntry }): Promise<void> => {
    const under = blocked.find((prefix) => restore.path.startsWith(`${prefix}/`));
    if (under !== undefined) {
      failed.push({ path: restore.path, reason: `not written: ${under} could not be removed` });
      return;
    }
    try {
      const data = content(restore.entry.hash);
      await (restore.entry.link
        ? tree.writeLink(restore.path, data.toString('utf8'))
        : tree.writeFile(restore.path, data, restore.entry.mode));
    } catch (error) {
      failed.push({ path: restore.path, reason: reasonOf(error) });
    }
  };
  for (let start = 0; start < writes.length; start += WRITE_BATCH) {
    await Promise.all(writes.slice(start, start + WRITE_BATCH).map(write));
    // The writes are synchronous calls: the host answers between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return failed.sort(byPath);
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') {
    return 'the disk is full';
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return 'permission denied';
  }
  return code ?? (error instanceof Error ? error.message : String(error));
}
