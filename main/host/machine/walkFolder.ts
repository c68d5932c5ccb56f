/**
 * The files a checkpoint of a working folder looks at: every file and symbolic link under it,
 * except `.git`, dependency folders (`node_modules` and the like) and what the folder's own
 * `.gitignore` and `.ignore` files (at any depth, each for its own folder) exclude. Links are not
 * followed. A folder that cannot be read is listed with why and skipped. Each folder is checked
 * just before it is read and again once its entries are looked at: it must still be the folder
 * its parent listed (same device and inode, not a link), so a folder swapped for a link mid-walk
 * is never read through (it is listed as failed).
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { readTextAtMostSync } from './boundedRead.js';

/** One file found. */
export type WalkedFile = {
  path: string;
  size: number;
  mode: number;
  mtimeMs: number;
  /** When the inode last changed (content, mode, links): a writer cannot set it back, as it can the mtime. */
  ctimeMs: number;
  ino: number;
  dev: number;
  link: boolean;
};

/** A file as `lstat` saw it, at `relative`. */
export function walkedFile(relative: string, stat: Stats): WalkedFile {
  return {
    path: relative,
    size: stat.size,
    mode: stat.mode & 0o7777,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    ino: stat.ino,
    dev: stat.dev,
    link: stat.isSymbolicLink(),
  };
}

/** A folder's identity as its parent's listing saw it. */
export type FolderId = { dev: number; ino: number };

/** Folders never looked into: version control and installed dependencies. */
export const SKIPPED_FOLDERS = new Set([
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
export const IGNORE_FILES = ['.gitignore', '.ignore'];
/** An ignore file larger than this is not read (it ignores nothing). */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** The rules of one folder's ignore files; `base` is that folder, relative to the walk's root. */
export type Rules = { base: string; rules: Ignore };

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
 * Walks `root`, or only its folder `under` (relative, with `/`; the ignore files of the folders
 * above it apply, and each of those must be a real folder, not a link); paths come back relative
 * to `root`, with `/`. Throws {@link TooManyFiles} past `maxFiles`, and the signal's reason once
 * `signal` is aborted. A folder `under` that is ignored, skipped or no longer a real folder gives nothing.
 */
export async function walkFolder(
  root: string,
  maxFiles = Number.POSITIVE_INFINITY,
  signal?: AbortSignal,
  under = '',
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
        found.push(walkedFile(child, stat));
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
  if (under === '') {
    await visit('', [], { dev: rootStat.dev, ino: rootStat.ino });
  } else {
    const start = rulesAbove(root, under);
    if (start) {
      await visit(under, start.rules, start.id);
    }
  }
  return { files, failed };
}

/** What is known of folders' rules, by folder (undefined: not a folder a checkpoint looks into); one per look at a tree. */
export type RulesCache = Map<string, Rules[] | undefined>;

/**
 * The rules that apply inside the folder `relative` (those of the folders above it; its own are
 * read by the walk), and its identity; undefined when it, or a folder above it, is not a real
 * folder now, or when it is skipped or ignored. With `cache`, each folder's ignore files are read once.
 */
export function rulesAbove(root: string, relative: string, cache: RulesCache = new Map()): { rules: Rules[]; id: FolderId } | undefined {
  const id = statFolder(relative === '' ? root : path.join(root, ...relative.split('/')));
  if (!id) {
    return undefined;
  }
  if (relative === '') {
    return { rules: [], id };
  }
  const slash = relative.lastIndexOf('/');
  const name = relative.slice(slash + 1);
  const rules = rulesWithin(root, slash === -1 ? '' : relative.slice(0, slash), cache);
  return rules && !SKIPPED_FOLDERS.has(name) && !ignored(rules, relative, true) ? { rules, id } : undefined;
}

/** The rules that apply to the entries of the folder `relative` (its own ignore files' too); undefined as for {@link rulesAbove}. */
export function rulesWithin(root: string, relative: string, cache: RulesCache = new Map()): Rules[] | undefined {
  if (cache.has(relative)) {
    return cache.get(relative);
  }
  const above = rulesAbove(root, relative, cache);
  const own = above ? ownRules(relative === '' ? root : path.join(root, ...relative.split('/')), relative, IGNORE_FILES) : undefined;
  const rules = above && own ? [...above.rules, own] : above?.rules;
  cache.set(relative, rules);
  return rules;
}

/** The identity of a real folder (not a link) at `absolute`, if it is one. */
export function statFolder(absolute: string): FolderId | undefined {
  try {
    const stat = lstatSync(absolute);
    return stat.isDirectory() && !stat.isSymbolicLink() ? { dev: stat.dev, ino: stat.ino } : undefined;
  } catch {
    return undefined;
  }
}

/** The rules of a folder's own ignore files (those among `names`), if it has any. */
export function ownRules(absolute: string, relative: string, names: readonly string[]): Rules | undefined {
  const present = IGNORE_FILES.filter((name) => names.includes(name));
  if (present.length === 0) {
    return undefined;
  }
  const rules = ignore();
  let found = false;
  for (const name of present) {
    try {
      // Never through a link, never a FIFO (a synchronous read of one would hold the host).
      const read = readTextAtMostSync(path.join(absolute, name), MAX_IGNORE_FILE_BYTES);
      if (read.kind === 'text') {
        rules.add(read.text);
        found = true;
      }
    } catch {
      // An unreadable (or absent) ignore file ignores nothing.
    }
  }
  return found ? { base: relative, rules } : undefined;
}

/** True when a rule of the file's folder or of one above it excludes it. */
export function ignored(rules: readonly Rules[], file: string, folder: boolean): boolean {
  return rules.some(({ base, rules: own }) => {
    const inside = base === '' ? file : file.slice(base.length + 1);
    return own.ignores(folder ? `${inside}/` : inside);
  });
}
