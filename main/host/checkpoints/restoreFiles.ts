/**
 * Putting files of a working folder back as a checkpoint holds them: writes (through a temporary
 * file beside the target, renamed over it, with the checkpoint's mode), symbolic links, and
 * removals (with the folders a removal left empty). Each file succeeds or fails on its own; a
 * failure is returned with why, never thrown, so the rest is still put back.
 */
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, rename, rm, rmdir, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CheckpointEntry, LeftOut } from './CheckpointStore.js';

/** One file to put back: as `entry` holds it, or removed (`entry` undefined). */
export type Restore = { path: string; entry: CheckpointEntry | undefined };

/** Files written at once. */
const WRITE_CONCURRENCY = 16;

/**
 * Puts each file back; returns the ones that could not be, with why. Removals go first, one at a
 * time (each prunes the folders it emptied, so a file can take a folder's place), then the writes,
 * several at once.
 */
export async function restoreFiles(folder: string, restores: readonly Restore[], content: (hash: string) => Buffer): Promise<LeftOut[]> {
  const failed: LeftOut[] = [];
  const attempt = async (restore: Restore, work: (target: string) => Promise<void>): Promise<void> => {
    try {
      await work(inside(folder, restore.path));
    } catch (error) {
      failed.push({ path: restore.path, reason: reasonOf(error) });
    }
  };
  for (const restore of restores.filter((candidate) => !candidate.entry)) {
    await attempt(restore, async (target) => {
      await unlink(target).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') {
          throw error;
        }
      });
      await pruneEmptyFolders(folder, path.dirname(target));
    });
  }
  const writes = restores.filter((candidate): candidate is Restore & { entry: CheckpointEntry } => candidate.entry !== undefined);
  for (let start = 0; start < writes.length; start += WRITE_CONCURRENCY) {
    await Promise.all(writes.slice(start, start + WRITE_CONCURRENCY).map((restore) => attempt(restore, (target) => writeEntry(target, restore.entry, content(restore.entry.hash)))));
  }
  return failed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Writes one file (or link) as the checkpoint holds it. */
async function writeEntry(target: string, entry: CheckpointEntry, data: Buffer): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  if (entry.link) {
    await rm(target, { force: true });
    await symlink(data.toString('utf8'), target);
    return;
  }
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.baton-${randomUUID().slice(0, 8)}`);
  try {
    await writeFile(temporary, data, { mode: entry.mode & 0o7777 });
    await chmod(temporary, entry.mode & 0o7777);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The absolute path of a checkpoint's relative path, refused if it would leave the folder. */
function inside(folder: string, relative: string): string {
  const target = path.resolve(folder, ...relative.split('/'));
  if (target !== folder && !target.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep)) {
    throw new Error(`${relative} is outside ${folder}`);
  }
  return target;
}

/** Removes `from` and its parents while they are empty, up to (not including) the folder. */
async function pruneEmptyFolders(folder: string, from: string): Promise<void> {
  let current = from;
  while (current !== folder && current.startsWith(folder + path.sep)) {
    try {
      if ((await readdir(current)).length > 0) {
        return;
      }
      await rmdir(current);
    } catch {
      return;
    }
    current = path.dirname(current);
  }
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
