/**
 * The copies of a working folder that attempts work in, never the person's folder itself.
 *
 * - In a git repository: a worktree in Baton's data folder on a new branch
 *   (`baton/<conversation>/<agent>`) at the current commit, then made like the working folder as
 *   the attempts started (its checkpoint): uncommitted changes, new files, deletions. Git runs with
 *   no hooks, no file-system monitor, no external diff or text conversion and no prompts; removing
 *   it removes the worktree, its entry and the branch Baton recorded for it (only ever one under
 *   `baton/`), so the person's `.git` is left as it was.
 * - A repository whose own config (`.git/config`, a worktree's config) names a command git would
 *   run (a filter driver, a textconv, an fsmonitor, an include…) is never given a worktree: git
 *   would run the repository's code. It gets a plain copy, and the person is told why
 *   ({@link copyPlaceOf}).
 * - Elsewhere: the checkpoint's files put into a folder in Baton's data folder: cloned from the
 *   working folder where its file system makes copy-on-write clones and the file is still the one
 *   the checkpoint read (`Machine.cloneFiles`), written from the checkpoint otherwise.
 *
 * Either way ignored files and dependency folders are not copied: the checkpoint's rules decide.
 * Everything happens on the machine the folder is on (git, folders, walks), and every write goes
 * through its `Machine.restore` (no link followed, nothing outside the copy).
 */
import { lastWords, LOCAL_MACHINE_ID, pathsOf, type ExecResult, type Machine } from '../machine/Machine.js';
import type { Machines } from '../machine/Machines.js';
import type { Env } from '../process/env.js';
import type { CheckpointEntry, LeftOut } from '../checkpoints/CheckpointStore.js';
import type { Restore } from '../machine/restoreFolder.js';

/** Where a working folder sits in a git repository. */
export type GitPlace = {
  /** The repository's top folder (its real path). */
  root: string;
  /** The commit checked out (HEAD). */
  commit: string;
  /** The working folder relative to `root`, with `/` ('' at the top). */
  subdir: string;
};

/** Git failed; its own words are in the message. */
export class GitError extends Error {}

/**
 * Options every git command here runs with: no hooks, no file-system monitor (a command the
 * repository's config may name), no untracked cache, no pager, never a prompt.
 */
const GIT_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.pager=cat',
  '-c',
  'advice.detachedHead=false',
];
/** A git command that takes longer than this is ended. */
const GIT_TIMEOUT_MS = 120_000;

/** Where git runs: the machine the folder is on, and the environment git runs with there (its PATH finds git). */
export type GitHost = { machine: Machine; env: Env };

/** This computer and the other machines, as copies need them. */
export type CopyMachines = {
  /** This computer. */
  machine: Machine;
  /** The other machines (absent: only this computer). */
  machines?: Pick<Machines, 'openOf' | 'ready'> | undefined;
};

/** Where git and a copy's files are for a folder on `machineId`: that machine, open, or refused with why (`Machines.openOf`). */
export function gitHostOn(machineId: string | undefined, { machine, machines }: CopyMachines): GitHost {
  const on = (machineId === undefined ? undefined : machines?.openOf(machineId)) ?? machine;
  return { machine: on, env: on.env };
}

/** The same when that machine is open now (this computer always is); undefined when it is not, and no connection is started. */
export function gitHostReady(machineId: string | undefined, { machine, machines }: CopyMachines): GitHost | undefined {
  const here = machineId === undefined || machineId === LOCAL_MACHINE_ID || machineId === machine.id;
  const open = here ? machine : machines?.ready(machineId);
  return open ? { machine: open, env: open.env } : undefined;
}

/** A small JSON file Baton wrote (an owner file), read through `machine`; undefined when it is not there or not JSON. */
export async function readOwnerFile(machine: Machine, file: string): Promise<unknown> {
  try {
    return JSON.parse((await machine.readFile(file, OWNER_FILE_MAX_BYTES)).data.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** An owner file is small: one larger is not one Baton wrote. */
const OWNER_FILE_MAX_BYTES = 1024 * 1024;

/** `relative` (with `/`) under `root`, on the machine. */
export function under(on: GitHost, root: string, relative: string): string {
  return relative === '' ? root : pathsOf(on.machine).join(root, ...relative.split('/'));
}

/** Runs git in `cwd`; resolves its output, rejects with its error output. */
export async function git(cwd: string, args: readonly string[], on: GitHost): Promise<string> {
  let result: ExecResult;
  try {
    result = await on.machine.exec('git', [...GIT_CONFIG, ...args], {
      cwd,
      env: { ...on.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
      maxBytes: 64 * 1024 * 1024,
      timeoutMs: GIT_TIMEOUT_MS,
    });
  } catch (error) {
    throw new GitError(`git ${args[0]} failed: ${(error as Error).message}`);
  }
  if (result.code !== 0) {
    throw new GitError(`git ${args[0]} failed: ${lastWords(result)}`);
  }
  return result.stdout;
}

/** Where `cwd` is in a git repository with at least one commit; undefined outside one (or without git). */
export async function gitPlaceOf(cwd: string, on: GitHost): Promise<GitPlace | undefined> {
  try {
    const top = (await git(cwd, ['rev-parse', '--show-toplevel'], on)).trim();
    const commit = (await git(cwd, ['rev-parse', '--verify', '-q', 'HEAD'], on)).trim();
    if (top === '' || commit === '') {
      return undefined;
    }
    const paths = pathsOf(on.machine);
    const root = await on.machine.realpath(top);
    const subdir = paths
      .relative(root, await on.machine.realpath(cwd))
      .split(paths.sep)
      .join('/');
    return subdir.startsWith('..') ? undefined : { root, commit, subdir };
  } catch {
    return undefined;
  }
}

/**
 * Config keys with which a repository makes git run a program of its choosing (or read more config
 * that could): git's names, lower-cased as `git config --name-only` gives them. `core.hooksPath`
 * and `core.pager` are not among them: every git command here sets both itself.
 */
const RUNS_A_COMMAND =
  /^(core\.(fsmonitor|sshcommand|gitproxy|editor|askpass|worktree|alternaterefscommand)|filter\..+\.(smudge|clean|process)|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|include\.path|includeif\..+\.path|sequence\.editor|gpg(\..+)?\.program|uploadpack\.packobjectshook|credential(\..+)?\.helper)$/;

/**
 * The keys of the repository's own config (not the person's global or system config) that would
 * make git run a command of the repository's choosing. Read with includes off: an include is one
 * of those keys itself.
 */
export async function repositoryCommands(root: string, on: GitHost): Promise<string[]> {
  const listed = await git(root, ['config', '--list', '--show-scope', '--name-only', '--no-includes'], on);
  const keys = new Set<string>();
  for (const line of listed.split('\n')) {
    const [scope, name] = line.split('\t');
    if ((scope === 'local' || scope === 'worktree') && name !== undefined) {
      // Git lower-cases the section and key, not a subsection: compare the whole name lower-cased.
      if (RUNS_A_COMMAND.test(name.toLowerCase())) {
        keys.add(name);
      }
    }
  }
  return [...keys].sort();
}

/** Where copies of a working folder are made from: its repository (for worktrees), or none (plain copies), with why not. */
export type CopyPlace = { place: GitPlace | undefined; plainBecause?: string };

/**
 * The repository copies of `cwd` are made from, unless the folder is in none (plain copies) or its
 * repository's config names commands git would run there: then plain copies too, with why.
 */
export async function copyPlaceOf(cwd: string, on: GitHost): Promise<CopyPlace> {
  const place = await gitPlaceOf(cwd, on);
  if (!place) {
    return { place: undefined };
  }
  let keys: string[];
  try {
    keys = await repositoryCommands(place.root, on);
  } catch (error) {
    return { place: undefined, plainBecause: `Baton could not read the repository's config (${(error as Error).message})` };
  }
  if (keys.length === 0) {
    return { place };
  }
  const shown = keys.slice(0, 4).join(', ') + (keys.length > 4 ? ` and ${keys.length - 4} more` : '');
  return {
    place: undefined,
    plainBecause: `the repository's own git config names commands git would run in a worktree (${shown}), so Baton made plain copies of the folder instead of git worktrees and ran none of them`,
  };
}

/** A branch name not taken yet in the repository: `wanted`, else `wanted-2`, `wanted-3`… */
export async function freeBranch(root: string, wanted: string, on: GitHost, taken: ReadonlySet<string> = new Set()): Promise<string> {
  for (let n = 1; ; n += 1) {
    const name = n === 1 ? wanted : `${wanted}-${n}`;
    if (taken.has(name)) {
      continue;
    }
    try {
      await git(root, ['show-ref', '--verify', '--quiet', `refs/heads/${name}`], on);
    } catch {
      return name;
    }
  }
}

/** Paths (relative to the working folder) that differ from the commit: changed, deleted, or new and not ignored. */
async function changedSinceCommit(place: GitPlace, on: GitHost): Promise<Set<string>> {
  const tracked = await git(place.root, ['diff', '--name-only', '--no-renames', '--no-ext-diff', '--no-textconv', '-z', 'HEAD'], on);
  const untracked = await git(place.root, ['ls-files', '--others', '--exclude-standard', '-z'], on);
  const prefix = place.subdir === '' ? '' : `${place.subdir}/`;
  const changed = new Set<string>();
  for (const file of [...tracked.split('\0'), ...untracked.split('\0')]) {
    if (file !== '' && file.startsWith(prefix)) {
      changed.add(file.slice(prefix.length));
    }
  }
  return changed;
}

/**
 * Starts a worktree of the repository at `worktree` on the new branch `branch` at the commit,
 * without its files yet (so an agent can be started in it meanwhile): see {@link fillWorktree}.
 * Returns the working folder's place in it (made).
 */
export async function startWorktree(place: GitPlace, worktree: string, branch: string, on: GitHost): Promise<string> {
  await on.machine.mkdir(pathsOf(on.machine).dirname(worktree), 0o700);
  await git(place.root, ['worktree', 'add', '--quiet', '--no-checkout', '-b', branch, worktree, place.commit], on);
  const folder = under(on, worktree, place.subdir);
  await on.machine.mkdir(folder);
  return folder;
}

/**
 * Checks out the worktree's files, then makes its working folder hold exactly what `base` (the
 * working folder's checkpoint) holds: what git reports changed, new or missing since the commit is
 * written from the checkpoint. Returns the files that could not be written.
 */
export async function fillWorktree(
  place: GitPlace,
  worktree: string,
  base: ReadonlyMap<string, CheckpointEntry>,
  content: (hash: string) => Buffer,
  on: GitHost,
): Promise<LeftOut[]> {
  await git(worktree, ['reset', '--hard', '--quiet'], on);
  const folder = under(on, worktree, place.subdir);
  const changed = await changedSinceCommit(place, on);
  const present = new Set(await on.machine.walk(folder));
  const restores: Restore[] = [];
  for (const [file, entry] of base) {
    if (!present.has(file) || changed.has(file)) {
      restores.push({ path: file, entry });
    }
  }
  for (const file of present) {
    if (!base.has(file)) {
      restores.push({ path: file, entry: undefined });
    }
  }
  return on.machine.restore(folder, restores, content);
}

/** Makes a worktree and its files at once (a copy made again, nobody working in it yet). */
export async function makeWorktree(
  place: GitPlace,
  worktree: string,
  branch: string,
  base: ReadonlyMap<string, CheckpointEntry>,
  content: (hash: string) => Buffer,
  on: GitHost,
): Promise<LeftOut[]> {
  await startWorktree(place, worktree, branch, on);
  return fillWorktree(place, worktree, base, content, on);
}

/**
 * A plain copy's files made: what could not be, the way they were made (in words for the log), and
 * each file made, as an entry of the copy (its own stat, the checkpoint's hash), for `CheckpointStore.adopt`.
 */
export type CopyFilled = { failed: LeftOut[]; way: string; made: CheckpointEntry[] };

/**
 * Makes `folder` (new, owner-only, in Baton's own folder on the machine, where nothing has run yet)
 * and puts every file of `base` into it (see {@link fillCopy}).
 */
export async function makeCopy(
  folder: string,
  base: ReadonlyMap<string, CheckpointEntry>,
  content: (hash: string) => Buffer,
  on: GitHost,
  from?: string,
): Promise<CopyFilled> {
  await on.machine.mkdir(folder, 0o700);
  return fillCopy(folder, base, content, on, from);
}

/**
 * Puts every file of `base` into `folder`, a new copy's folder where nothing has run yet: with
 * `from` (the folder `base` is a checkpoint of, on the same machine), each file still as the
 * checkpoint read it is cloned where the file system makes copy-on-write clones; every other file
 * is written from the checkpoint's content (created exclusively: never through a link).
 */
export async function fillCopy(
  folder: string,
  base: ReadonlyMap<string, CheckpointEntry>,
  content: (hash: string) => Buffer,
  on: GitHost,
  from?: string,
): Promise<CopyFilled> {
  const entries = [...base.values()];
  const clones = from === undefined ? undefined : await on.machine.cloneFiles(folder, from, entries);
  const cloned = new Set(clones?.cloned.map((entry) => entry.path));
  const written = await on.machine.populate(
    folder,
    cloned.size === 0 ? entries : entries.filter((entry) => !cloned.has(entry.path)),
    content,
  );
  const refused = clones?.unsupported === undefined ? '' : ` (no copy-on-write clones there: ${clones.unsupported})`;
  const way =
    cloned.size === 0
      ? `${entries.length} files written from the checkpoint${refused}`
      : cloned.size === entries.length
        ? `${entries.length} files cloned (copy-on-write)`
        : `${cloned.size} of ${entries.length} files cloned (copy-on-write), the rest written from the checkpoint${refused}`;
  return { failed: written.failed, way, made: [...(clones?.cloned ?? []), ...written.made] };
}

/** True for a branch name Baton makes (the only branches it ever deletes). */
export function isBatonBranch(branch: string): boolean {
  return branch.startsWith('baton/') && !branch.split('/').includes('..');
}

/**
 * Removes a worktree, its entry in the repository and its branch (the one Baton recorded, and only
 * one under `baton/`); a copy is removed as a folder. What could not be removed is said in the error.
 */
export async function removeCopy(
  copy: { folder: string; repository?: string | undefined; branch?: string | undefined },
  on: GitHost,
): Promise<void> {
  const problems: string[] = [];
  if (copy.repository) {
    await git(copy.repository, ['worktree', 'remove', '--force', '--force', copy.folder], on).catch(() => undefined);
    await on.machine.remove(copy.folder).catch((error: unknown) => problems.push(String(error)));
    await git(copy.repository, ['worktree', 'prune'], on).catch((error: unknown) => problems.push((error as Error).message));
    if (copy.branch !== undefined && !isBatonBranch(copy.branch)) {
      problems.push(`the branch ${copy.branch} is not one Baton made, so it was left`);
    } else if (copy.branch !== undefined) {
      await git(copy.repository, ['branch', '-D', '--quiet', copy.branch], on).catch((error: unknown) => {
        // Already gone is removed.
        if (!/not found/.test((error as Error).message)) {
          problems.push((error as Error).message);
        }
      });
    }
  } else {
    await on.machine.remove(copy.folder).catch((error: unknown) => problems.push(String(error)));
  }
  if (problems.length > 0) {
    throw new Error(problems.join('; '));
  }
}
