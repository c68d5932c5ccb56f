/**
 * The ground floor of the host: a `Machine` is one computer on which processes run, files are
 * read and written, git runs and folders are watched. Nothing above this folder starts a process
 * or watches a folder itself (the layer rule in `scripts/eslint/layers.mjs` keeps it so): it asks
 * the machine the folder is on. {@link LocalMachine} is this computer; a remote machine runs the
 * same `LocalMachine` inside a small server (`MachineServer`) behind a typed protocol
 * (`protocol.ts`), so the guards (confined writes, link and inode checks) run where the inodes are.
 */
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Env } from '../process/env.js';
import type { Cloned } from './cloneFiles.js';
import type { Populated } from './populateFolder.js';
import type { Restore } from './restoreFolder.js';
import type { CheckpointEntry, LeftOut, Scanned, ScanScope } from './scanFolder.js';

/** The id of this computer (an event or a folder with no machine means it). */
export const LOCAL_MACHINE_ID = 'local';

/** How to start a child. */
export type LaunchSpec = {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** Windows: pass the arguments as they are (a cmd.exe line built by windowsShimLaunch). */
  verbatimArguments?: boolean;
};

/** How a child ended. */
export type ExitInfo = { code: number | null; signal: NodeJS.Signals | null };

/** A process started on a machine, in a process group of its own (ending it ends all it started). */
export interface MachineProcess {
  /** Its id on its machine (undefined until it runs, and for one that could not start). */
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once it runs; rejects with the start's error (its `code`: ENOENT, EACCES). */
  spawned(): Promise<void>;
  /** Resolves when it has ended. */
  readonly exited: Promise<ExitInfo>;
  /** How it ended, once it has. */
  readonly exit: ExitInfo | undefined;
  /** The last lines of its error output. */
  lastErrorLines(lines: number): string;
  /** Hangs up the sessions of its direct children (what closing a terminal window does). */
  hangUpChildren(): Promise<void>;
  /** Ends the whole group: SIGTERM, a grace period for every member, then SIGKILL. */
  dispose(): Promise<void>;
}

/** What a command run to its end printed, and how it ended. */
export type ExecResult = { stdout: string; stderr: string; code: number | null; signal: string | null };

/** Options of {@link Machine.exec}. */
export type ExecOptions = {
  cwd?: string;
  /** The whole environment (not added to the machine's). Default: the machine's. */
  env?: Env;
  /** Ended past this (default 120 s). */
  timeoutMs?: number;
  /** The most output kept of each stream (default 64 MiB). */
  maxBytes?: number;
};

/** One change a folder watch heard: a name in the watched folder (null when the system gave none). */
export type WatchEvent = { type: 'rename' | 'change'; name: string | null };

/** A watch of one folder (not its subfolders); `close` ends it. */
export interface FolderWatcher {
  close(): void;
}

/** Watches one folder: `onEvent` hears each change, `onError` a watch that ended (`code`: ENOSPC…). */
export type WatchFolder = (
  folder: string,
  onEvent: (event: WatchEvent) => void,
  onError: (error: NodeJS.ErrnoException) => void,
) => FolderWatcher;

/** What a tree watch knows of its folder: the paths changed since checkpoint `since`, or why it cannot say. */
export type Known = { since: string; paths: ReadonlySet<string> } | { unknown: string };

/** The changes a checkpoint takes, and the token that ties the checkpoint it makes to the watch. */
export type Taken = { known: Known; token: number };

/**
 * The watch of a working folder and every folder under it a checkpoint looks into (see
 * `FolderWatch`), kept on the folder's machine: there the events of a write are in before a
 * checkpoint's look, and folders are listed and judged by that machine's own file system.
 */
export interface TreeWatch {
  /** Starts watching; resolves once every folder is watched (a failure is kept as lost, never thrown). */
  start(): Promise<void>;
  /** For a checkpoint about to look: what changed since the last one (taken: later changes count from the new one). */
  take(): Promise<Taken>;
  /** What changed since the last checkpoint, left for the next one (a rewind's look). */
  peek(): Promise<Known>;
  /** The checkpoint taken with `token` holds the folder: changes reported since count from it. */
  based(token: number, checkpointId: string): void;
  /** Stops watching. */
  close(): void;
}

/** What a folder entry is. */
export type FileKind = 'file' | 'folder' | 'link' | 'other';

/** What {@link Machine.stat} says of a path (links followed). */
export type FileStat = { kind: Exclude<FileKind, 'link'>; size: number; mode: number; uid: number; gid: number };

/** The owner a confined write gives a file (where the writer may give one away). */
export type FileOwner = { uid: number; gid: number };

/** How a machine scans a folder for a checkpoint. */
export type MachineScanOptions = {
  maxFileBytes: number;
  maxFiles: number;
  keep: boolean;
  signal?: AbortSignal | undefined;
  /** True when the host's store holds a content already (it is then not kept again); a remote machine's answer is filtered by it. */
  isStored?: (hash: string) => boolean;
};

/** One computer. */
export interface Machine {
  /** `local` for this computer; a remote machine's own id. */
  readonly id: string;
  /** What a person calls it: "This computer", an SSH alias, `user@host`. */
  readonly name: string;
  /** Its system and processor, as Node names them (`linux`, `x64`). */
  readonly platform: { os: NodeJS.Platform; arch: string };
  /** Its home folder. */
  readonly home: string;
  /** The environment processes start with there. */
  readonly env: Env;
  /** Baton's own folder there (this computer: the data folder; another: `~/.baton`): the copies of attempts and branches live under it. */
  readonly dataDir: string;
  /** Starts a process in a group of its own. */
  spawn(launch: LaunchSpec): MachineProcess;
  /** Runs a command to its end (never rejects for a non-zero exit: see `code`); rejects when it cannot start. */
  exec(command: string, args: readonly string[], options?: ExecOptions): Promise<ExecResult>;
  /** The absolute path of `command` found on `PATH` (the machine's unless given), or undefined. */
  which(command: string, path?: string): Promise<string | undefined>;
  /** Watches one folder of the machine. */
  readonly watchFolder: WatchFolder;
  /** Watches a working folder for its checkpoints (at most `maxPaths` changed paths kept between two; past it, unknown). */
  watchTree(root: string, maxPaths: number): TreeWatch;
  /** At most `maxBytes` of a regular file (never a FIFO or a device, never through a final link). */
  readFile(path: string, maxBytes: number): Promise<{ data: Buffer; tooLarge: boolean }>;
  /**
   * Writes `relative` under `root` through the confined writer: no link followed, nothing outside
   * `root`. Without `mode`, the file gets what a plain create would give there (the machine's umask).
   */
  writeConfined(root: string, relative: string, data: Buffer, mode?: number, owner?: FileOwner): Promise<void>;
  /** What a path is (links followed); rejects with the system's code (ENOENT) when there is nothing. */
  stat(path: string): Promise<FileStat>;
  /** The real path (links resolved). */
  realpath(path: string): Promise<string>;
  /** A folder's entries, links not followed. */
  list(path: string): Promise<Array<{ name: string; kind: FileKind }>>;
  /** Makes a folder and the folders above it that are missing (those made get `mode`, default 0o777 less the umask). */
  mkdir(path: string, mode?: number): Promise<void>;
  /** Removes a file or a whole folder (links not followed); nothing there is no error. */
  remove(path: string): Promise<void>;
  /** Renames a file or folder (on one file system: an install swapped into place). */
  rename(from: string, to: string): Promise<void>;
  /**
   * The files a checkpoint of `folder` looks at (see `walkFolder`: ignored files, `.git` and
   * dependency folders left out), relative with `/`, without reading any.
   */
  walk(folder: string): Promise<string[]>;
  /**
   * A checkpoint's look at a folder of the machine (see `scanFolder`): only files that differ from
   * `previous` are read, and only their contents come back (when `keep`).
   */
  scan(folder: string, previous: ReadonlyMap<string, CheckpointEntry>, scope: ScanScope, options: MachineScanOptions): Promise<Scanned>;
  /**
   * Puts files of a folder back as a checkpoint holds them (see `restoreFolder`): removals, then
   * writes of `content(hash)`, each through the confined writer; with `recordedReal`, the folder
   * must still be that real path. Returns what could not be put back, with why.
   */
  restore(folder: string, restores: readonly Restore[], content: (hash: string) => Buffer, recordedReal?: string): Promise<LeftOut[]>;
  /**
   * Writes every entry into `folder`, a folder just made that nothing has run in (see
   * `populateFolder`: each file created exclusively, never through a link). Returns what could not
   * be written, and the files made, as entries of the new folder (for `CheckpointStore.adopt`).
   */
  populate(folder: string, entries: readonly CheckpointEntry[], content: (hash: string) => Buffer): Promise<Populated>;
  /**
   * Copy-on-write clones, into `folder` (just made, that nothing has run in), of the files of
   * `entries` (a checkpoint of `from`, a folder of the same machine) that are still as the
   * checkpoint read them (see `cloneFiles`); what is not cloned is for `populate` to write.
   */
  cloneFiles(folder: string, from: string, entries: readonly CheckpointEntry[]): Promise<Cloned>;
  /**
   * Unpacks an agent's archive, `file` on the machine (downloaded from `url`, which names its
   * kind), into `folder` and makes its program `cmd` runnable (see `unpackArchive`: the whole
   * archive refused when an entry would land outside, links made last, never a mode changed
   * outside). Returns the program's path relative to `folder`.
   */
  unpackAgent(file: string, url: string, folder: string, cmd: string): Promise<string>;
  /** Ends what the machine holds (a remote connection; nothing for this computer). */
  dispose(): Promise<void>;
}

/** A command's own last words when it failed: its last line of error output, else how it ended. */
export function lastWords(result: ExecResult): string {
  return (
    result.stderr.trim().split('\n').filter(Boolean).at(-1) ??
    `exit ${result.code ?? 'unknown'}${result.signal ? ` (${result.signal})` : ''}`
  );
}

/** True when something is at `target` on the machine (links followed). */
export function existsOn(machine: Pick<Machine, 'stat'>, target: string): Promise<boolean> {
  return machine.stat(target).then(
    () => true,
    () => false,
  );
}

/** The paths of a machine: POSIX, unless it runs Windows. */
export function pathsOf(machine: Pick<Machine, 'platform'>): path.PlatformPath {
  return machine.platform.os === 'win32' ? path.win32 : path.posix;
}
