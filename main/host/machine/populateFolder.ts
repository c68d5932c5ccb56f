/**
 * Writing a checkpoint's files into a folder just made, that nothing has run in yet (a new copy of
 * a working folder): its folders first, then each file created exclusively (`wx`: never opened if
 * a name is there, so never written through a link) with the checkpoint's mode, links made as
 * links. Faster than a restore (no temporary file and rename per file), and safe only there. Each
 * file succeeds or fails on its own; a failure is returned with why.
 *
 * Each file made comes back as a checkpoint entry of the new folder: the hash of what was written
 * and the file's own stat, taken on the same open file right after the write, so that the copy's
 * first checkpoint need not read it again (`CheckpointStore.adopt`).
 */
import { lstat, mkdir, open, symlink } from 'node:fs/promises';
import path from 'node:path';
import { byPath, type CheckpointEntry, type LeftOut } from './scanFolder.js';

/** Files written at once. */
const WRITE_BATCH = 32;

/** What {@link populateFolder} did: the files that could not be written, and those made (as entries of the new folder). */
export type Populated = { failed: LeftOut[]; made: CheckpointEntry[] };

/** Whether `relative` (with `/`) names a path inside a folder: not absolute, no empty, `.` or `..` part. */
export function isInside(relative: string): boolean {
  return !path.isAbsolute(relative) && relative.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/** `entry` as the file made for it is: the same content (its hash), the new file's stat. */
export function madeEntry(
  entry: CheckpointEntry,
  stat: { size: number; mode: number; mtimeMs: number; ctimeMs: number; ino: number },
): CheckpointEntry {
  return {
    path: entry.path,
    hash: entry.hash,
    size: stat.size,
    mode: stat.mode & 0o7777,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    ino: stat.ino,
    ...(entry.link ? { link: true as const } : {}),
  };
}

/** Writes every entry into `folder` (made already); returns the files that could not be written, and those made. */
export async function populateFolder(
  folder: string,
  entries: readonly CheckpointEntry[],
  content: (hash: string) => Buffer,
): Promise<Populated> {
  const failed: LeftOut[] = [];
  const made: CheckpointEntry[] = [];
  const inside = entries.filter((entry) => {
    const ok = isInside(entry.path);
    if (!ok) {
      failed.push({ path: entry.path, reason: 'not a path inside the folder' });
    }
    return ok;
  });
  const folders = [...new Set(inside.map((entry) => path.posix.dirname(entry.path)).filter((dir) => dir !== '.'))].sort();
  for (const dir of folders) {
    await mkdir(path.join(folder, ...dir.split('/')), { recursive: true });
  }
  const write = async (entry: CheckpointEntry): Promise<void> => {
    const target = path.join(folder, ...entry.path.split('/'));
    try {
      const data = content(entry.hash);
      if (entry.link) {
        await symlink(data.toString('utf8'), target);
        made.push(madeEntry(entry, await lstat(target)));
        return;
      }
      const file = await open(target, 'wx', entry.mode & 0o7777);
      try {
        await file.writeFile(data);
        const stat = await file.stat();
        // A size other than what was written is not the checkpoint's file: left to be read like any other.
        if (stat.size === data.length) {
          made.push(madeEntry(entry, stat));
        }
      } finally {
        await file.close();
      }
    } catch (error) {
      failed.push({ path: entry.path, reason: (error as NodeJS.ErrnoException).code ?? String(error) });
    }
  };
  for (let start = 0; start < inside.length; start += WRITE_BATCH) {
    await Promise.all(inside.slice(start, start + WRITE_BATCH).map(write));
  }
  return { failed: failed.sort(byPath), made };
}
