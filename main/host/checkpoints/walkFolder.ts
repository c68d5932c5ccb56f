/**
 * The files a checkpoint of a working folder looks at: every file and symbolic link under it,
 * except `.git`, dependency folders (`node_modules` and the like) and what the folder's own
 * `.gitignore` and `.ignore` files (at any depth, each for its own folder) exclude. Links are not
 * followed. A folder that cannot be read is listed with why and skipped. Each folder is checked
 * just before it is read and again once its entries are looked at: it must still be the folder
 * its parent listed (same device and inode, not a link), so a folder swapped for a link mid-walk
 * is never read through (it is listed as failed).
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { readTextAtMostSync } from '../files/boundedRead.js';

/** One file found. */
export type WalkedFile = { path: string; size: number; mode: number; mtimeMs: number; ino: number; dev: number; link: boolean };

/** A folder's identity as its parent's listing saw it. */
type FolderId = { dev: number; ino: number };

/** Folders never looked into: version control and installed dependencies. */
const SKIPPED_FOLDERS = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'bower_components',
  '.venv',
  'venv',
  '__pycache__',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.gradle',
  '.next',
  '.nuxt',
]);
/** The ignore files honoured, in each folder. */
const IGNORE_FILES = ['.gitignore', '.ignore'];
/** An ignore file larger than this is not read (it ignores nothing). */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

type Rules = { base: string; rules: Ignore };

/** The folder holds more files than a checkpoint takes. */
export class TooManyFiles extends Error {}

/** Why a folder was not read: it is no longer the one its parent listed. */
const SWAPPED = 'changed while Baton looked at it (moved, or replaced by a link); not read';

/** True when the folder at `absolute` is a real folder with the identity `expected`. */
function stillFolder(absolute: string, expected: FolderId): boolean {
  try {
    const now = lstatSync(absolute);
    return now.isDirectory() && !now.isSymbolicLink() && now.dev === expected.dev && now.ino === expected.ino;
  } catch {
    return false;
  }
}

/**
 * Walks `root`; paths come back relative to it, with `/`. Throws {@link TooManyFiles} past
 * `maxFiles`, and the signal's reason once `signal` is aborted.
 */
export async function walkFolder(
  root: string,
  maxFiles = Number.POSITIVE_INFINITY,
  signal?: AbortSignal,
): Promise<{ files: WalkedFile[]; failed: Array<{ path: string; reason: string }> }> {
  const files: WalkedFile[] = [];
  const failed: Array<{ path: string; reason: string }> = [];
  const rootStat = lstatSync(root);
  if (!rootStat.isDirectory()) {
    throw new Error(`${root} is ${rootStat.isSymbolicLink() ? 'a link' : 'not a folder'}`);
  }
  // Each folder is read with the synchronous calls (a few microseconds a file, against tens for a
  // promise each); the walk yields between folders, so the host stays responsive.
  const visit = async (relative: string, inherited: readonly Rules[], expected: FolderId): Promise<void> => {
    const absolute = relative === '' ? root : path.join(root, ...relative.split('/'));
    const shown = relative === '' ? '.' : relative;
    if (!stillFolder(absolute, expected)) {
      failed.push({ path: shown, reason: SWAPPED });
      return;
    }
    let names: string[];
    try {
      names = readdirSync(absolute).sort();
    } catch (error) {
      failed.push({ path: shown, reason: (error as NodeJS.ErrnoException).code ?? String(error) });
      return;
    }
    const found: WalkedFile[] = [];
    const folders: Array<{ relative: string; id: FolderId }> = [];
    const own = ownRules(absolute, relative, names);
    const rules = own ? [...inherited, own] : inherited;
    for (const name of names) {
      const child = relative === '' ? name : `${relative}/${name}`;
      let stat;
      try {
        stat = lstatSync(path.join(absolute, name));
      } catch (error) {
        failed.push({ path: child, reason: (error as NodeJS.ErrnoException).code ?? String(error) });
        continue;
      }
      if (stat.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(name) && !ignored(rules, child, true)) {
          folders.push({ relative: child, id: { dev: stat.dev, ino: stat.ino } });
        }
        // A `.git` file (a worktree's or a submodule's pointer to its repository) is git's, never the folder's content.
      } else if ((stat.isFile() || stat.isSymbolicLink()) && !SKIPPED_FOLDERS.has(name) && !ignored(rules, child, false)) {
        found.push({
          path: child,
          size: stat.size,
          mode: stat.mode & 0o7777,
          mtimeMs: stat.mtimeMs,
          ino: stat.ino,
          dev: stat.dev,
          link: stat.isSymbolicLink(),
        });
      }
    }
    // Looked at through the folder it was: what was listed (and its ignore files) came from inside.
    if (!stillFolder(absolute, expected)) {
      failed.push({ path: shown, reason: SWAPPED });
      return;
    }
    files.push(...found);
    if (files.length > maxFiles) {
      throw new TooManyFiles(`the folder holds more than ${maxFiles} files`);
    }
    for (const folder of folders) {
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      await visit(folder.relative, rules, folder.id);
    }
  };
  await visit('', [], { dev: rootStat.dev, ino: rootStat.ino });
  return { files, failed };
}

/** The rules of a folder's own ignore files, if it has any. */
function ownRules(absolute: string, relative: string, names: readonly string[]): Rules | undefined {
  const present = IGNORE_FILES.filter((name) => names.includes(name));
  if (present.length === 0) {
    return undefined;
  }
  const rules = ignore();
  for (const name of present) {
    try {
      // Never through a link, never a FIFO (a synchronous read of one would hold the host).
      const read = readTextAtMostSync(path.join(absolute, name), MAX_IGNORE_FILE_BYTES);
      if (read.kind === 'text') {
        rules.add(read.text);
      }
    } catch {
      // An unreadable ignore file ignores nothing.
    }
  }
  return { base: relative, rules };
}

/** True when a rule of the file's folder or of one above it excludes it. */
function ignored(rules: readonly Rules[], file: string, folder: boolean): boolean {
  return rules.some(({ base, rules: own }) => {
    const inside = base === '' ? file : file.slice(base.length + 1);
    return own.ignores(folder ? `${inside}/` : inside);
  });
}
