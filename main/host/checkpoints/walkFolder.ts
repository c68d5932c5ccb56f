/**
 * The files a checkpoint of a working folder looks at: every file and symbolic link under it,
 * except `.git`, dependency folders (`node_modules` and the like) and what the folder's own
 * `.gitignore` and `.ignore` files (at any depth, each for its own folder) exclude. Links are not
 * followed. A folder that cannot be read is listed with why and skipped.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** One file found. */
export type WalkedFile = { path: string; size: number; mode: number; mtimeMs: number; ino: number; link: boolean };

/** Folders never looked into: version control and installed dependencies. */
const SKIPPED_FOLDERS = new Set(['.git', '.hg', '.svn', 'node_modules', 'bower_components', '.venv', 'venv', '__pycache__', '.tox', '.mypy_cache', '.pytest_cache', '.gradle', '.next', '.nuxt']);
/** The ignore files honoured, in each folder. */
const IGNORE_FILES = ['.gitignore', '.ignore'];

type Rules = { base: string; rules: Ignore };

/** The folder holds more files than a checkpoint takes. */
export class TooManyFiles extends Error {}

/** Walks `root`; paths come back relative to it, with `/`. Throws {@link TooManyFiles} past `maxFiles`. */
export async function walkFolder(root: string, maxFiles = Number.POSITIVE_INFINITY): Promise<{ files: WalkedFile[]; failed: Array<{ path: string; reason: string }> }> {
  const files: WalkedFile[] = [];
  const failed: Array<{ path: string; reason: string }> = [];
  // Each folder is read with the synchronous calls (a few microseconds a file, against tens for a
  // promise each); the walk yields between folders, so the host stays responsive.
  const visit = async (relative: string, inherited: readonly Rules[]): Promise<void> => {
    const absolute = relative === '' ? root : path.join(root, ...relative.split('/'));
    let names: string[];
    try {
      names = readdirSync(absolute).sort();
    } catch (error) {
      failed.push({ path: relative === '' ? '.' : relative, reason: (error as NodeJS.ErrnoException).code ?? String(error) });
      return;
    }
    const own = ownRules(absolute, relative, names);
    const rules = own ? [...inherited, own] : inherited;
    const folders: string[] = [];
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
          folders.push(child);
        }
      } else if ((stat.isFile() || stat.isSymbolicLink()) && !ignored(rules, child, false)) {
        files.push({ path: child, size: stat.size, mode: stat.mode & 0o7777, mtimeMs: stat.mtimeMs, ino: stat.ino, link: stat.isSymbolicLink() });
      }
    }
    if (files.length > maxFiles) {
      throw new TooManyFiles(`the folder holds more than ${maxFiles} files`);
    }
    for (const folder of folders) {
      await new Promise((resolve) => setImmediate(resolve));
      await visit(folder, rules);
    }
  };
  await visit('', []);
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
      rules.add(readFileSync(path.join(absolute, name), 'utf8'));
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
