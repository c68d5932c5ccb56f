/**
 * What a checkpoint of a working folder holds, found in one of two ways: by walking the whole
 * folder, or, when a watcher says which paths changed since the folder's last checkpoint, by
 * looking only at those (a changed folder is walked; a path gone takes everything under it with
 * it). Either way a file whose size, mtime, inode and ctime match the last checkpoint is not read
 * again, and one read is hashed; contents not stored yet are compressed for the store. Links are
 * never followed, and a file is read only while it is still the one that was looked at.
 *
 * A watch hears only writes made through a name inside the folder: a write through a hard link
 * elsewhere, or through a memory map, makes no event. So a look at the reported paths also
 * `lstat`s every other file of the last checkpoint (no reads) and looks again at any whose size,
 * mtime, inode or ctime moved; the ctime moves with every write and cannot be set back.
 */
import { createHash } from 'node:crypto';
import { lstat, readlink } from 'node:fs/promises';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { readBytesAtMost, readBytesAtMostSync } from './boundedRead.js';
import {
  ignored,
  rulesWithin,
  SKIPPED_FOLDERS,
  statFolder,
  type FolderId,
  TooManyFiles,
  walkedFile,
  walkFolder,
  type RulesCache,
  type WalkedFile,
} from './walkFolder.js';

/** Orders entries (or anything with a path) by path, as checkpoints list them. */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** One file of a checkpoint. */
export type CheckpointEntry = {
  /** Path relative to the folder, with `/`. */
  path: string;
  /** sha256 of the content (of the link's target, for a symbolic link). */
  hash: string;
  size: number;
  mode: number;
  mtimeMs: number;
  /** The inode's change time when it was read (absent in checkpoints of older builds). */
  ctimeMs?: number;
  ino: number;
  /** A symbolic link, kept as its target. */
  link?: true;
};

/** A file a checkpoint does not hold, and why. */
export type LeftOut = { path: string; reason: string };

/** Content read for the first time, compressed for the store. */
export type NewContent = { hash: string; size: number; data: Buffer };

/** What a scan found. */
export type Scanned = {
  /** Every file, by path, sorted. */
  entries: CheckpointEntry[];
  stored: NewContent[];
  tooLarge: LeftOut[];
  failed: LeftOut[];
  /** Files read and hashed, and files taken from the last checkpoint unread. */
  read: number;
  reused: number;
};

/** True when two entries say the same of a file (so a scan that finds it again sends nothing new). */
export function sameEntry(a: CheckpointEntry | undefined, b: CheckpointEntry): boolean {
  return (
    a !== undefined &&
    a.path === b.path &&
    a.hash === b.hash &&
    a.size === b.size &&
    a.mode === b.mode &&
    a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs &&
    a.ino === b.ino &&
    a.link === b.link
  );
}

/** True when two manifests hold the same entries. */
export function sameManifest(a: ReadonlyMap<string, CheckpointEntry>, b: ReadonlyMap<string, CheckpointEntry>): boolean {
  if (a.size !== b.size) {
    return false;
  }
  for (const entry of b.values()) {
    if (!sameEntry(a.get(entry.path), entry)) {
      return false;
    }
  }
  return true;
}

/**
 * How a scan finds the files: the whole folder, or only the paths that changed since `previous`
 * (with what that checkpoint left out: still left out unless looked at again). `unswept`: the
 * other files are kept as `previous` holds them without an `lstat` each, for a checkpoint just
 * after one that swept them, of paths Baton itself wrote (Keep); a write through a hard link in
 * between is found by the next checkpoint's sweep.
 */
export type ScanScope =
  { walk: true } | { paths: ReadonlySet<string>; tooLarge: readonly LeftOut[]; failed: readonly LeftOut[]; unswept?: true };

/** Options of a scan. */
export type ScanOptions = {
  maxFileBytes: number;
  maxFiles: number;
  signal?: AbortSignal | undefined;
  /** Compress the contents not stored yet (a checkpoint), or only hash (a look). */
  keep: boolean;
  /** True when content of this hash is stored already. */
  isStored: (hash: string) => boolean;
};

/** Files read at once. */
const READ_CONCURRENCY = 16;
/** Files up to this size are read synchronously (the scan yields between batches). */
const SYNC_READ_BYTES = 256 * 1024;

/** Finds the folder's files as they are now; `previous` is the folder's last checkpoint. */
export async function scanFolder(
  folder: string,
  previous: ReadonlyMap<string, CheckpointEntry>,
  scope: ScanScope,
  options: ScanOptions,
): Promise<Scanned> {
  const { maxFileBytes } = options;
  const found = 'walk' in scope ? await walkAll(folder, options) : await lookAt(folder, previous, scope, options);
  const entries: CheckpointEntry[] = found.kept;
  const tooLarge: LeftOut[] = [...found.tooLarge];
  const failed: LeftOut[] = [...found.failed];
  const toRead: WalkedFile[] = [];
  let reused = 0;
  for (const file of found.files) {
    const known = previous.get(file.path);
    if (!file.link && file.size > maxFileBytes) {
      tooLarge.push({ path: file.path, reason: `${file.size} bytes, over the limit of ${maxFileBytes}` });
    } else if (known && unchanged(known, file)) {
      // Its content is stored: the last checkpoint, which holds it, keeps it from being removed.
      entries.push({ ...known, mode: file.mode, ctimeMs: file.ctimeMs });
      reused += 1;
    } else {
      toRead.push(file);
    }
  }
  const stored: NewContent[] = [];
  const storing = new Set<string>();
  for (let start = 0; start < toRead.length; start += READ_CONCURRENCY) {
    options.signal?.throwIfAborted();
    const batch = toRead.slice(start, start + READ_CONCURRENCY);
    const results = await Promise.all(batch.map((file) => readEntry(folder, file, maxFileBytes)));
    await new Promise((resolve) => setImmediate(resolve));
    for (const [index, result] of results.entries()) {
      const file = batch[index]!;
      if ('tooLarge' in result) {
        tooLarge.push({ path: file.path, reason: `over the limit of ${maxFileBytes} bytes` });
        continue;
      }
      if ('reason' in result) {
        failed.push({ path: file.path, reason: result.reason });
        continue;
      }
      const hash = createHash('sha256').update(result.content).digest('hex');
      entries.push({
        path: file.path,
        hash,
        size: result.content.length,
        mode: file.mode,
        mtimeMs: file.mtimeMs,
        ctimeMs: file.ctimeMs,
        ino: file.ino,
        ...(file.link ? { link: true as const } : {}),
      });
      if (options.keep && !storing.has(hash) && !options.isStored(hash)) {
        storing.add(hash);
        stored.push({ hash, size: result.content.length, data: deflateRawSync(result.content, { level: 1 }) });
      }
    }
  }
  entries.sort(byPath);
  return { entries, stored, tooLarge: tooLarge.sort(byPath), failed: failed.sort(byPath), read: toRead.length, reused };
}

/** True when the file as looked at now is the one `known` recorded: same kind, size, mtime and inode, and ctime where recorded. */
function unchanged(known: CheckpointEntry, file: WalkedFile): boolean {
  return (
    known.size === file.size &&
    known.mtimeMs === file.mtimeMs &&
    known.ino === file.ino &&
    (known.ctimeMs === undefined || known.ctimeMs === file.ctimeMs) &&
    Boolean(known.link) === file.link
  );
}

/** Files to look at, entries kept from the last checkpoint as they are, and what could not be looked at. */
type Found = { files: WalkedFile[]; kept: CheckpointEntry[]; tooLarge: LeftOut[]; failed: LeftOut[] };

async function walkAll(folder: string, options: ScanOptions): Promise<Found> {
  const walked = await walkFolder(folder, options.maxFiles, options.signal);
  return { files: walked.files, kept: [], tooLarge: [], failed: walked.failed };
}

/**
 * The last checkpoint's entries, with each changed path looked at again: gone (with everything
 * under it), a folder (walked), or a file or link (compared, read if it differs). A path that is
 * skipped or ignored, or below a folder that is no longer a real folder, is as good as gone.
 */
async function lookAt(
  folder: string,
  previous: ReadonlyMap<string, CheckpointEntry>,
  scope: Exclude<ScanScope, { walk: true }>,
  options: ScanOptions,
): Promise<Found> {
  // A changed path below another changed folder is looked at with that folder.
  const sorted = [...scope.paths].sort();
  const roots: string[] = [];
  for (const changed of sorted) {
    const last = roots.at(-1);
    if (last === undefined || !changed.startsWith(`${last}/`)) {
      roots.push(changed);
    }
  }
  const gone = new Set(roots);
  const untouched = (file: string): boolean => {
    for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1)) {
      if (gone.has(file.slice(0, slash))) {
        return false;
      }
    }
    return !gone.has(file);
  };
  const files: WalkedFile[] = [];
  // No event says a file was written through a hard link (or a memory map): each one kept is looked at, not read.
  const kept: CheckpointEntry[] = [];
  const folders = new Map<string, FolderId | undefined>();
  /** The identity of `relative` when it and every folder above it are real folders (never a link), looked at once per scan. */
  const realFolder = (relative: string): FolderId | undefined => {
    if (!folders.has(relative)) {
      const slash = relative.lastIndexOf('/');
      const above = relative === '' || realFolder(slash === -1 ? '' : relative.slice(0, slash)) !== undefined;
      folders.set(relative, above ? statFolder(relative === '' ? folder : path.join(folder, ...relative.split('/'))) : undefined);
    }
    return folders.get(relative);
  };
  /** What the sweep found, by the folder it is in (each folder looked at again once, after its files). */
  const found: Array<{ parent: string; entry: CheckpointEntry; now: WalkedFile }> = [];
  for (const entry of previous.values()) {
    if (!untouched(entry.path)) {
      continue;
    }
    if (scope.unswept) {
      kept.push(entry);
      continue;
    }
    const slash = entry.path.lastIndexOf('/');
    const parent = slash === -1 ? '' : entry.path.slice(0, slash);
    let stat;
    try {
      // Only through real folders: a folder swapped for a link leads nowhere a checkpoint reads.
      // Gone unheard (its folder moved away): gone from this checkpoint too. One `lstat` for each
      // of thousands of files: the path joined as it is (`/` is a separator on every system) and
      // no error made for a file that is gone.
      stat = realFolder(parent) ? lstatSync(path.join(folder, entry.path), { throwIfNoEntry: false }) : undefined;
    } catch {
      stat = undefined;
    }
    if (stat && (stat.isFile() || stat.isSymbolicLink())) {
      found.push({ parent, entry, now: walkedFile(entry.path, stat) });
    }
  }
  // A folder swapped while its files were looked at: nothing found in it counts.
  const stillThere = new Map<string, boolean>();
  for (const { parent, entry, now } of found) {
    if (!stillThere.has(parent)) {
      const before = realFolder(parent);
      const after = statFolder(parent === '' ? folder : path.join(folder, ...parent.split('/')));
      stillThere.set(parent, before !== undefined && after !== undefined && after.dev === before.dev && after.ino === before.ino);
    }
    if (!stillThere.get(parent)) {
      continue;
    }
    if (unchanged(entry, now)) {
      // One recorded by an older build gets its ctime now.
      kept.push(entry.ctimeMs === undefined ? { ...entry, ctimeMs: now.ctimeMs } : entry);
    } else {
      files.push(now);
    }
  }
  const rulesByFolder: RulesCache = new Map();
  const tooLarge = scope.tooLarge.filter((left) => untouched(left.path));
  const failed = scope.failed.filter((left) => untouched(left.path));
  for (const changed of roots) {
    options.signal?.throwIfAborted();
    const parent = changed.includes('/') ? changed.slice(0, changed.lastIndexOf('/')) : '';
    const name = changed.slice(parent.length === 0 ? 0 : parent.length + 1);
    // Changed paths share folders: each folder's rules are read once.
    const rules = rulesWithin(folder, parent, rulesByFolder);
    if (!rules || SKIPPED_FOLDERS.has(name)) {
      continue;
    }
    let stat;
    try {
      stat = lstatSync(path.join(folder, ...changed.split('/')));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        failed.push({ path: changed, reason: code ?? String(error) });
      }
      continue;
    }
    if (stat.isDirectory()) {
      const walked = await walkFolder(folder, options.maxFiles, options.signal, changed);
      files.push(...walked.files);
      failed.push(...walked.failed);
    } else if ((stat.isFile() || stat.isSymbolicLink()) && !ignored(rules, changed, false)) {
      files.push(walkedFile(changed, stat));
    }
    if (kept.length + files.length > options.maxFiles) {
      throw new TooManyFiles(`the folder holds more than ${options.maxFiles} files`);
    }
  }
  return { files, kept, tooLarge, failed };
}

/**
 * A file's content (a link's target), or why it cannot be read. The file must still be the one
 * the walk saw (same device and inode): one swapped meanwhile, or reached through a folder swapped
 * for a link, is not read. At most the size limit is read; a FIFO or device is never opened for long.
 */
async function readEntry(
  folder: string,
  file: WalkedFile,
  maxFileBytes: number,
): Promise<{ content: Buffer } | { reason: string } | { tooLarge: true }> {
  const absolute = path.join(folder, ...file.path.split('/'));
  try {
    if (file.link) {
      const now = await lstat(absolute);
      if (!now.isSymbolicLink() || now.dev !== file.dev || now.ino !== file.ino) {
        return { reason: CHANGED };
      }
      return { content: Buffer.from(await readlink(absolute), 'utf8') };
    }
    // A small file is read with the synchronous calls (a few microseconds, against tens through Node's thread pool).
    const read =
      file.size <= SYNC_READ_BYTES
        ? readBytesAtMostSync(absolute, maxFileBytes, file)
        : await readBytesAtMost(absolute, maxFileBytes, file);
    switch (read.kind) {
      case 'bytes':
        // As the open file is now: a write after this is seen by the next checkpoint.
        file.mtimeMs = read.stat.mtimeMs;
        file.ctimeMs = read.stat.ctimeMs;
        file.ino = read.stat.ino;
        return { content: read.data };
      case 'too-large':
        return { tooLarge: true };
      case 'not-a-file':
        return { reason: 'not a regular file any more (replaced meanwhile); not read' };
      case 'changed':
        return { reason: CHANGED };
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { reason: code === 'ELOOP' ? CHANGED : (code ?? String(error)) };
  }
}

/** Why a file was not read: it is not the file the walk saw. */
const CHANGED = 'changed while Baton read it (replaced, or its folder replaced by a link); not read';
