/**
 * This computer as a {@link Machine}: processes in groups of their own (`ProcessGroup`), commands
 * run to their end, executables found on a PATH, and folders watched with Node's own watcher (one
 * folder each, as inotify watches). The same class runs inside the machine server on a remote.
 */
import { execFile } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readBytesAtMost } from './boundedRead.js';
import { ConfinedTree } from './ConfinedTree.js';
import type { Env } from '../process/env.js';
import { findExecutable } from './findExecutable.js';
import {
  LOCAL_MACHINE_ID,
  type ExecOptions,
  type ExecResult,
  type FileKind,
  type FileOwner,
  type FileStat,
  type LaunchSpec,
  type Machine,
  type MachineScanOptions,
  type TreeWatch,
  type WatchFolder,
} from './Machine.js';
import { FolderWatch } from './FolderWatch.js';
import { ProcessGroup } from './ProcessGroup.js';
import { cloneFiles, type Cloned } from './cloneFiles.js';
import { populateFolder, type Populated } from './populateFolder.js';
import { restoreFolder, type Restore } from './restoreFolder.js';
import { walkFolder } from './walkFolder.js';
import { scanFolder, type CheckpointEntry, type LeftOut, type Scanned, type ScanScope } from './scanFolder.js';
import { unpackAgent } from './unpackArchive.js';

/** The longest a command run to its end may take, unless told. */
const EXEC_TIMEOUT_MS = 120_000;
/** The most output kept of a command run to its end, unless told. */
const EXEC_MAX_BYTES = 64 * 1024 * 1024;

/** Watches one folder with Node's watcher (inotify on Linux: events arrive in the loop's poll phase). */
export const watchFolderHere: WatchFolder = (folder, onEvent, onError) => {
  const watcher = watch(folder, { persistent: false }, (type, name) =>
    onEvent({ type: type === 'rename' ? 'rename' : 'change', name: name === null ? null : String(name) }),
  );
  watcher.on('error', (error) => onError(error));
  return watcher;
};

/** This computer. */
export class LocalMachine implements Machine {
  readonly platform = { os: process.platform, arch: process.arch };
  readonly watchFolder = watchFolderHere;

  constructor(
    /** The environment processes start with (agents' PATH found through the login shell, where asked). */
    readonly env: Env,
    readonly home: string = os.homedir(),
    readonly id: string = LOCAL_MACHINE_ID,
    readonly name: string = 'This computer',
    /** Baton's own folder here (the host's data folder; `~/.baton` for a machine server). */
    readonly dataDir: string = path.join(home, '.baton'),
  ) {}

  spawn(launch: LaunchSpec): ProcessGroup {
    return new ProcessGroup(launch);
  }

  exec(command: string, args: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      execFile(
        command,
        [...args],
        {
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          env: { ...(options.env ?? this.env) },
          maxBuffer: options.maxBytes ?? EXEC_MAX_BYTES,
          timeout: options.timeoutMs ?? EXEC_TIMEOUT_MS,
          encoding: 'utf8',
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          const code: unknown = error?.code;
          // Could not start at all (ENOENT, EACCES): a rejection. A non-zero exit, a timeout or too much output is an answer.
          if (error && typeof code === 'string' && code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
            reject(error);
            return;
          }
          const signal = error?.signal ?? null;
          resolve({
            stdout,
            stderr: stderr || (error && typeof code !== 'number' && signal === null ? error.message : ''),
            code: error ? (typeof code === 'number' ? code : null) : 0,
            signal,
          });
        },
      );
    });
  }

  which(command: string, path?: string): Promise<string | undefined> {
    return Promise.resolve(findExecutable(command, path === undefined ? this.env : { ...this.env, PATH: path }));
  }

  async readFile(path: string, maxBytes: number): Promise<{ data: Buffer; tooLarge: boolean }> {
    const read = await readBytesAtMost(path, maxBytes);
    switch (read.kind) {
      case 'bytes':
        return { data: read.data, tooLarge: false };
      case 'too-large':
        return { data: Buffer.alloc(0), tooLarge: true };
      case 'not-a-file':
      case 'changed':
        throw Object.assign(new Error(`${path} is not a regular file`), { code: 'EINVAL' });
    }
  }

  async writeConfined(root: string, relative: string, data: Buffer, mode?: number, owner?: FileOwner): Promise<void> {
    const tree = await ConfinedTree.open(root);
    await tree.writeFile(relative, data, mode ?? 0o666 & ~process.umask(), owner);
  }

  async stat(path: string): Promise<FileStat> {
    const found = await stat(path);
    return {
      kind: found.isDirectory() ? 'folder' : found.isFile() ? 'file' : 'other',
      size: found.size,
      mode: found.mode,
      uid: found.uid,
      gid: found.gid,
    };
  }

  realpath(path: string): Promise<string> {
    return realpath(path);
  }

  async list(path: string): Promise<Array<{ name: string; kind: FileKind }>> {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.map((entry) => ({
      name: entry.name,
      kind: entry.isSymbolicLink() ? 'link' : entry.isDirectory() ? 'folder' : entry.isFile() ? 'file' : 'other',
    }));
  }

  async mkdir(folder: string, mode?: number): Promise<void> {
    await mkdir(folder, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  }

  remove(target: string): Promise<void> {
    return rm(target, { recursive: true, force: true });
  }

  rename(from: string, to: string): Promise<void> {
    return rename(from, to);
  }

  async walk(folder: string): Promise<string[]> {
    return (await walkFolder(folder)).files.map((file) => file.path);
  }

  scan(folder: string, previous: ReadonlyMap<string, CheckpointEntry>, scope: ScanScope, options: MachineScanOptions): Promise<Scanned> {
    return scanFolder(folder, previous, scope, { ...options, isStored: options.isStored ?? (() => false) });
  }

  restore(folder: string, restores: readonly Restore[], content: (hash: string) => Buffer, recordedReal?: string): Promise<LeftOut[]> {
    return restoreFolder(folder, restores, content, recordedReal);
  }

  populate(folder: string, entries: readonly CheckpointEntry[], content: (hash: string) => Buffer): Promise<Populated> {
    return populateFolder(folder, entries, content);
  }

  cloneFiles(folder: string, from: string, entries: readonly CheckpointEntry[]): Promise<Cloned> {
    return cloneFiles(folder, from, entries);
  }

  watchTree(root: string, maxPaths: number): TreeWatch {
    return new FolderWatch(root, maxPaths, this.watchFolder);
  }

  unpackAgent(file: string, url: string, folder: string, cmd: string): Promise<string> {
    return unpackAgent(file, url, folder, cmd);
  }

  dispose(): Promise<void> {
    return Promise.resolve();
  }
}
