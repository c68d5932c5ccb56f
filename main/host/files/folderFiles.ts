/**
 * Files of a working folder whose path matches what the person typed after @ (for mentions): a
 * bounded breadth-first walk that skips version control, dependencies and build output, so a
 * huge folder answers as fast as a small one.
 */
import type { Machine } from '../machine/Machine.js';
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { InvalidRequestError } from '../../../app/errors.js';

const SKIPPED = new Set(['.git', 'node_modules', 'dist', 'build', 'out', '.next', 'target', '.venv', '__pycache__']);
/** At most this many directory entries are looked at per query. */
const MAX_VISITED = 20_000;

/** Up to `limit` paths (relative, with /) matching `query`, best first: a name that starts with it, then a path that contains it. */
export function folderFiles(cwd: string, query: string, limit = 20): { files: string[]; truncated: boolean } {
  let root: string;
  try {
    root = realpathSync(cwd);
  } catch {
    throw new InvalidRequestError(`The working folder ${cwd} does not exist.`);
  }
  const needle = query.toLowerCase();
  const starts: string[] = [];
  const contains: string[] = [];
  const queue: string[] = [''];
  let visited = 0;
  while (queue.length > 0 && visited < MAX_VISITED && starts.length < limit) {
    const relative = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      visited += 1;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name) && !(entry.name.startsWith('.') && !needle.startsWith('.'))) {
          queue.push(child);
        }
      } else if (entry.isFile()) {
        if (entry.name.toLowerCase().startsWith(needle)) {
          starts.push(child);
        } else if (child.toLowerCase().includes(needle)) {
          contains.push(child);
        }
      }
    }
  }
  const files = [...starts, ...contains].slice(0, limit);
  return { files, truncated: visited >= MAX_VISITED };
}

/**
 * Folders completing what the person typed in a folder field: the folders in the typed path's
 * parent whose name starts with its last part (all of them after a trailing separator), hidden
 * ones only when asked for with a dot. `~` stands for the home folder. A path that does not
 * exist gives nothing.
 */
export function folderCompletions(typed: string, homeDir: string, limit = 20): string[] {
  const fromHome = typed === '~' || typed.startsWith('~/') || typed.startsWith(`~${path.sep}`);
  if (!fromHome && !path.isAbsolute(typed)) {
    return [];
  }
  const expanded = fromHome ? `${homeDir}${typed.slice(1)}` : typed;
  const endsWithSeparator = /[\\/]$/.test(expanded);
  const parent = endsWithSeparator ? expanded : path.dirname(expanded);
  const prefix = endsWithSeparator ? '' : path.basename(expanded);
  let entries;
  try {
    entries = readdirSync(parent, { withFileTypes: true });
  } catch {
    return [];
  }
  return completionsOf(
    entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
    prefix,
    limit,
  ).map((name) => path.join(parent, name));
}

/** The folder names that complete `prefix` (hidden ones only when it starts with a dot), sorted, at most `limit`. */
function completionsOf(folders: readonly string[], prefix: string, limit: number): string[] {
  const lower = prefix.toLowerCase();
  return folders
    .filter((name) => name.toLowerCase().startsWith(lower) && (!name.startsWith('.') || prefix.startsWith('.')))
    .sort((a, b) => a.localeCompare(b))
    .slice(0, limit);
}

/** {@link folderCompletions} on another machine (a POSIX one, reached over SSH), its home for `~`. */
export async function folderCompletionsOn(machine: Pick<Machine, 'home' | 'list'>, typed: string, limit = 20): Promise<string[]> {
  const fromHome = typed === '~' || typed.startsWith('~/');
  if (!fromHome && !typed.startsWith('/')) {
    return [];
  }
  const expanded = fromHome ? `${machine.home}${typed.slice(1)}` : typed;
  const endsWithSeparator = expanded.endsWith('/');
  const parent = endsWithSeparator ? expanded : path.posix.dirname(expanded);
  const prefix = endsWithSeparator ? '' : path.posix.basename(expanded);
  const entries = await machine.list(parent).catch(() => []);
  return completionsOf(
    entries.filter((entry) => entry.kind === 'folder').map((entry) => entry.name),
    prefix,
    limit,
  ).map((name) => path.posix.join(parent, name));
}
