/**
 * Copy-on-write clones of a working folder's files into a new copy of it (an attempt's or a
 * branch's), where the file system makes them (Btrfs, XFS with reflinks, APFS; `copyFile` with
 * `COPYFILE_FICLONE_FORCE`): a clone shares the file's blocks, so it costs the same however large
 * the file is (measured on XFS, 46–64 µs a file from 4 KiB to 1 MiB, where writing it from the
 * checkpoint's stored content took 0.1 ms at 4 KiB and 7.8 ms at 1 MiB).
 *
 * A copy must hold the checkpoint, not whatever the folder holds now. So a file is cloned only
 * while it is the one the checkpoint read: opened without following a link, its inode, size,
 * mtime and ctime (which every write moves, and nothing sets back) the checkpoint's, before the
 * clone and after it. On Linux the clone is made from the opened file itself (`/proc/self/fd`),
 * whatever its path leads to meanwhile; elsewhere from the path, and the clone is then read and
 * its hash compared with the checkpoint's. Anything not cloned is left to be written from the
 * checkpoint's content, as on a file system without clones: the first clone it refuses (ENOTSUP,
 * EXDEV and the like) ends the cloning.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { isInside, madeEntry } from './populateFolder.js';
import type { CheckpointEntry } from './scanFolder.js';

/** What {@link cloneFiles} did. */
export type Cloned = {
  /** The files cloned, each now the checkpoint's file: as entries of the new folder (the clone's own stat). */
  cloned: CheckpointEntry[];
  /** Why no more were cloned: the file system's refusal (absent: each file was tried). */
  unsupported?: string;
};

/** Errors that say the file system (or the pair of folders) makes no clones. */
const NO_CLONES = new Set(['ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EINVAL', 'ENOSYS', 'ENOTTY', 'EPERM']);
/** Files cloned before the loop lets other work run. */
const SLICE = 64;

/** Whether `stat` is still the file `entry` recorded (one of an older build, without a ctime, never is). */
function isRecorded(entry: CheckpointEntry, stat: Stats): boolean {
  return (
    stat.isFile() &&
    entry.ctimeMs !== undefined &&
    stat.ino === entry.ino &&
    stat.size === entry.size &&
    stat.mtimeMs === entry.mtimeMs &&
    stat.ctimeMs === entry.ctimeMs
  );
}

/**
 * Clones each file of `entries` (a checkpoint of `from`) that is still as recorded into `folder`
 * (made already, new, that nothing has run in), making its folders. Links and changed files are
 * left out, to be written from the checkpoint.
 */
export async function cloneFiles(
  folder: string,
  from: string,
  entries: readonly CheckpointEntry[],
  viaDescriptor: boolean = existsSync('/proc/self/fd'),
): Promise<Cloned> {
  const cloned: CheckpointEntry[] = [];
  const made = new Set<string>();
  let done = 0;
  for (const entry of entries) {
    if (entry.link || !isInside(entry.path)) {
      continue;
    }
    if (++done % SLICE === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const source = path.join(from, ...entry.path.split('/'));
    const target = path.join(folder, ...entry.path.split('/'));
    let fd: number;
    try {
      // Never through a link at its name, and never waiting on a pipe put there.
      fd = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      continue;
    }
    try {
      if (!isRecorded(entry, fstatSync(fd))) {
        continue;
      }
      const parent = path.dirname(target);
      if (!made.has(parent)) {
        mkdirSync(parent, { recursive: true });
        made.add(parent);
      }
      try {
        copyFileSync(viaDescriptor ? `/proc/self/fd/${fd}` : source, target, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE_FORCE);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? String(error);
        if (NO_CLONES.has(code)) {
          return { cloned, unsupported: code };
        }
        continue;
      }
      // Written to between the look and the clone, or (by path) something else cloned: written from the checkpoint instead.
      const kept =
        isRecorded(entry, fstatSync(fd)) &&
        (viaDescriptor || createHash('sha256').update(readFileSync(target)).digest('hex') === entry.hash);
      if (kept) {
        cloned.push(madeEntry(entry, lstatSync(target)));
      } else {
        unlinkSync(target);
      }
    } finally {
      closeSync(fd);
    }
  }
  return { cloned };
}
