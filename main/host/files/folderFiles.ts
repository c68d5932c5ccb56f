/**
 * Files of a working folder whose path matches what the person typed after @ (for mentions): a
 * bounded breadth-first walk on the folder's machine that skips version control, dependencies and
 * build output, so a huge folder answers as fast as a small one. And folder completions on a
 * machine, for the folder fields.
 */
import { pathsOf, type Machine } from '../machine/Machine.js';
import { InvalidRequestError } from '../../../app/errors.js';

const SKIPPED = new Set(['.git', 'node_modules', 'dist', 'build', 'out', '.next', 'target', '.venv', '__pycache__']);
/** At most this many directory entries are looked at per query. */
const MAX_VISITED = 20_000;

/** What a folder's files and folders are read through: the working folder's machine. */
export type ListingMachine = Pick<Machine, 'realpath' | 'list' | 'platform'>;

/**
 * Up to `limit` paths (relative, with /) of the working folder `cwd` on `machine` matching
 * `query`, best first: a name that starts with it, then a path that contains it.
 */
export async function folderFiles(
  machine: ListingMachine,
  cwd: string,
  query: string,
  limit = 20,
): Promise<{ files: string[]; truncated: boolean }> {
  const paths = pathsOf(machine);
  let root: string;
  try {
    root = await machine.realpath(cwd);
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
    const entries = await machine.list(relative ? paths.join(root, ...relative.split('/')) : root).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      visited += 1;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.kind === 'folder') {
        if (!SKIPPED.has(entry.name) && !(entry.name.startsWith('.') && !needle.startsWith('.'))) {
          queue.push(child);
        }
      } else if (entry.kind === 'file') {
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

/** The folder names that complete `prefix` (hidden ones only when it starts with a dot), sorted, at most `limit`. */
function completionsOf(folders: readonly string[], prefix: string, limit: number): string[] {
  const lower = prefix.toLowerCase();
  return folders
    .filter((name) => name.toLowerCase().startsWith(lower) && (!name.startsWith('.') || prefix.startsWith('.')))
    .sort((a, b) => a.localeCompare(b))
    .slice(0, limit);
}

/**
 * Folders completing what the person typed in a folder field, on `machine`: the folders in the
 * typed path's parent whose name starts with its last part (all of them after a trailing
 * separator), hidden ones only when asked for with a dot. `~` stands for the machine's home. A
 * path that does not exist gives nothing.
 */
export async function folderCompletions(
  machine: Pick<Machine, 'home' | 'list' | 'platform'>,
  typed: string,
  limit = 20,
): Promise<string[]> {
  const paths = pathsOf(machine);
  const fromHome = typed === '~' || typed.startsWith('~/') || typed.startsWith(`~${paths.sep}`);
  if (!fromHome && !paths.isAbsolute(typed)) {
    return [];
  }
  const expanded = fromHome ? `${machine.home}${typed.slice(1)}` : typed;
  const endsWithSeparator = expanded.endsWith('/') || expanded.endsWith(paths.sep);
  const parent = endsWithSeparator ? expanded : paths.dirname(expanded);
  const prefix = endsWithSeparator ? '' : paths.basename(expanded);
  const entries = await machine.list(parent).catch(() => []);
  return completionsOf(
    entries.filter((entry) => entry.kind === 'folder').map((entry) => entry.name),
    prefix,
    limit,
  ).map((name) => paths.join(parent, name));
}
