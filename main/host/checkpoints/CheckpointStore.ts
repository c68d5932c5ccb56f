/**
 * Checkpoints of working folders: content-addressed snapshots kept in Baton's data folder
 * (`checkpoints.sqlite`), never inside the working folder, so folders that are not git
 * repositories work and a person's own `.git` is never written to (it is not even read).
 *
 * A checkpoint is a manifest (each file's path, content hash, size, mode, and the mtime and inode
 * it had) plus the contents, stored once per hash (deflated). Taking one is incremental: a file
 * whose size, mtime and inode match the folder's last checkpoint is not read again, and content
 * already stored is not stored again. `.gitignore` and `.ignore` files are honoured, dependency
 * folders (`node_modules` and the like) skipped, and files over the size limit are listed, not
 * kept. A file that cannot be read is listed with why; it never fails the checkpoint.
 */
import { createHash, randomUUID } from 'node:crypto';
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { readBytesAtMost } from '../files/boundedRead.js';
import { createPrivateFile } from '../store/privateDataDir.js';
import { walkFolder, type WalkedFile } from './walkFolder.js';

/** One file of a checkpoint. */
export type CheckpointEntry = {
  /** Path relative to the folder, with `/`. */
  path: string;
  /** sha256 of the content (of the link's target, for a symbolic link). */
  hash: string;
  size: number;
  mode: number;
  mtimeMs: number;
  ino: number;
  /** A symbolic link, kept as its target. */
  link?: true;
};

/** A file a checkpoint does not hold, and why. */
export type LeftOut = { path: string; reason: string };

/** What taking a checkpoint made. */
export type Checkpoint = {
  checkpointId: string;
  folder: string;
  files: number;
  bytes: number;
  /** Files over the size limit. */
  tooLarge: LeftOut[];
  /** Files that could not be read. */
  failed: LeftOut[];
  /** Files read and hashed this time, and files taken from the last checkpoint unread. */
  read: number;
  reused: number;
};

/** How one file differs between two checkpoints. */
export type FileChange = { path: string; change: 'added' | 'modified' | 'removed'; before?: CheckpointEntry; after?: CheckpointEntry };

/** Options for {@link CheckpointStore.take}. */
export type TakeOptions = {
  /** Files larger than this are not kept (listed in `tooLarge`). Default 10 MiB. */
  maxFileBytes?: number;
  /** A folder with more files than this gets no checkpoint (it throws). Default 50,000. */
  maxFiles?: number;
  /** Stops the checkpoint (it throws the signal's reason): a time limit. */
  signal?: AbortSignal;
};

/** Where a checkpoint was taken: the folder as given, and its real path then (null for checkpoints of older builds). */
export type CheckpointFolder = { folder: string; real: string | null };

const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_FILES = 50_000;
/** Files read at once. */
const READ_CONCURRENCY = 16;
/** Stored this much, a checkpoint folds the write-ahead log into the database. */
const WAL_FOLD_BYTES = 8 * 1024 * 1024;

/** The store of checkpoints in one data folder. */
export class CheckpointStore {
  private readonly db: Database.Database;
  private readonly insertBlob: Database.Statement;
  private readonly hasBlob: Database.Statement;
  /** The last checkpoint taken of each folder this run, kept so the next one need not read it back. */
  private readonly latest = new Map<string, Map<string, CheckpointEntry>>();

  private constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS checkpoints (
        checkpoint_id TEXT PRIMARY KEY, folder TEXT NOT NULL, created_at TEXT NOT NULL,
        files INTEGER NOT NULL, bytes INTEGER NOT NULL, manifest BLOB NOT NULL
      );
      CREATE INDEX IF NOT EXISTS checkpoints_by_folder ON checkpoints (folder, created_at);
    `);
    // The folder's real path when the checkpoint was taken (added later: older rows have none).
    const columns = this.db.prepare('PRAGMA table_info(checkpoints)').all() as Array<{ name: string }>;
    if (!columns.some((column) => column.name === 'real_folder')) {
      this.db.exec('ALTER TABLE checkpoints ADD COLUMN real_folder TEXT');
    }
    this.insertBlob = this.db.prepare('INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?, ?, ?)');
    this.hasBlob = this.db.prepare('SELECT 1 FROM blobs WHERE hash = ?');
  }

  /** Opens (or creates) the store in `<dataDir>/checkpoints.sqlite` (owner-only, as the data folder's files are). */
  static open(dataDir: string): CheckpointStore {
    const file = path.join(dataDir, 'checkpoints.sqlite');
    createPrivateFile(file);
    return new CheckpointStore(file);
  }

  /** Takes a checkpoint of `folder` (an absolute path). */
  async take(folder: string, options: TakeOptions = {}): Promise<Checkpoint> {
    const real = await realpath(folder);
    const scanned = await this.scan(folder, options);
    options.signal?.throwIfAborted();
    const { entries, stored } = scanned;
    const checkpointId = randomUUID();
    const bytes = entries.reduce((sum, entry) => sum + entry.size, 0);
    const manifest = deflateRawSync(Buffer.from(JSON.stringify(entries)), { level: 1 });
    this.db.transaction(() => {
      for (const blob of stored) {
        this.insertBlob.run(blob.hash, blob.size, blob.data);
      }
      this.db
        .prepare(
          'INSERT INTO checkpoints (checkpoint_id, folder, created_at, files, bytes, manifest, real_folder) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(checkpointId, folder, new Date().toISOString(), entries.length, bytes, manifest, real);
    })();
    // A checkpoint that stored much leaves a large write-ahead log: fold it into the database now,
    // so that the next (small, incremental) checkpoint does not pay for it.
    if (stored.reduce((sum, blob) => sum + blob.data.length, 0) > WAL_FOLD_BYTES) {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    this.latest.set(folder, new Map(entries.map((entry) => [entry.path, entry])));
    return {
      checkpointId,
      folder,
      files: entries.length,
      bytes,
      tooLarge: scanned.tooLarge,
      failed: scanned.failed,
      read: scanned.read,
      reused: scanned.reused,
    };
  }

  /** The folder's files as they are now (what a checkpoint would hold), without storing anything. */
  async look(folder: string, options: TakeOptions = {}): Promise<Map<string, CheckpointEntry>> {
    const { entries } = await this.scan(folder, options, false);
    return new Map(entries.map((entry) => [entry.path, entry]));
  }

  /**
   * Walks and hashes the folder (reading only what changed since its last checkpoint); with `keep`, compresses the contents not stored yet.
   */
  private async scan(
    folder: string,
    options: TakeOptions,
    keep = true,
  ): Promise<{
    entries: CheckpointEntry[];
    stored: Array<{ hash: string; size: number; data: Buffer }>;
    tooLarge: LeftOut[];
    failed: LeftOut[];
    read: number;
    reused: number;
  }> {
    const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const previous = this.latestManifest(folder);
    const walked = await walkFolder(folder, options.maxFiles ?? DEFAULT_MAX_FILES, options.signal);
    const entries: CheckpointEntry[] = [];
    const tooLarge: LeftOut[] = [];
    const failed: LeftOut[] = walked.failed.map((entry) => ({ ...entry }));
    const toRead: WalkedFile[] = [];
    let reused = 0;
    for (const file of walked.files) {
      const known = previous.get(file.path);
      if (!file.link && file.size > maxFileBytes) {
        tooLarge.push({ path: file.path, reason: `${file.size} bytes, over the limit of ${maxFileBytes}` });
      } else if (
        known &&
        known.size === file.size &&
        known.mtimeMs === file.mtimeMs &&
        known.ino === file.ino &&
        Boolean(known.link) === file.link
      ) {
        // Its content is stored: the last checkpoint, which holds it, keeps it from being removed.
        entries.push({ ...known, mode: file.mode });
        reused += 1;
      } else {
        toRead.push(file);
      }
    }
    const stored: Array<{ hash: string; size: number; data: Buffer }> = [];
    for (let start = 0; start < toRead.length; start += READ_CONCURRENCY) {
      options.signal?.throwIfAborted();
      const batch = toRead.slice(start, start + READ_CONCURRENCY);
      const results = await Promise.all(batch.map((file) => readEntry(folder, file, maxFileBytes)));
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
          ino: file.ino,
          ...(file.link ? { link: true as const } : {}),
        });
        if (keep && !this.hasBlob.get(hash)) {
          stored.push({ hash, size: result.content.length, data: deflateRawSync(result.content, { level: 1 }) });
        }
      }
    }
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { entries, stored, tooLarge, failed, read: toRead.length, reused };
  }

  /** A checkpoint's files, by path. */
  manifest(checkpointId: string): Map<string, CheckpointEntry> {
    const row = this.db.prepare('SELECT manifest FROM checkpoints WHERE checkpoint_id = ?').get(checkpointId) as
      { manifest: Buffer } | undefined;
    if (!row) {
      throw new Error(`No checkpoint ${checkpointId}.`);
    }
    return toMap(row.manifest);
  }

  /** Where a checkpoint was taken. */
  folderOf(checkpointId: string): CheckpointFolder {
    const row = this.db.prepare('SELECT folder, real_folder AS real FROM checkpoints WHERE checkpoint_id = ?').get(checkpointId) as
      CheckpointFolder | undefined;
    if (!row) {
      throw new Error(`No checkpoint ${checkpointId}.`);
    }
    return row;
  }

  /** What changed from one checkpoint to another, by path. */
  changes(fromId: string, toId: string): FileChange[] {
    return diffManifests(this.manifest(fromId), this.manifest(toId));
  }

  /** The content stored for a hash. */
  content(hash: string): Buffer {
    const row = this.db.prepare('SELECT data FROM blobs WHERE hash = ?').get(hash) as { data: Buffer } | undefined;
    if (!row) {
      throw new Error(`No content ${hash}.`);
    }
    return inflateRawSync(row.data);
  }

  /** Bytes the store takes on disk (its file, WAL included). */
  size(): number {
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    return pages * pageSize;
  }

  /** Removes checkpoints, and the contents no checkpoint left uses. */
  remove(checkpointIds: readonly string[]): void {
    if (checkpointIds.length === 0) {
      return;
    }
    // The last checkpoint of a folder may be among them: read it back from the database next time.
    this.latest.clear();
    this.db.transaction(() => {
      const drop = this.db.prepare('DELETE FROM checkpoints WHERE checkpoint_id = ?');
      for (const id of checkpointIds) {
        drop.run(id);
      }
      const used = new Set<string>();
      for (const row of this.db.prepare('SELECT manifest FROM checkpoints').iterate() as Iterable<{ manifest: Buffer }>) {
        for (const entry of toMap(row.manifest).values()) {
          used.add(entry.hash);
        }
      }
      const forget = this.db.prepare('DELETE FROM blobs WHERE hash = ?');
      for (const row of this.db.prepare('SELECT hash FROM blobs').all() as Array<{ hash: string }>) {
        if (!used.has(row.hash)) {
          forget.run(row.hash);
        }
      }
    })();
  }

  /** Closes the store. */
  close(): void {
    this.db.close();
  }

  /** The folder's last checkpoint's files (empty when it has none). */
  private latestManifest(folder: string): Map<string, CheckpointEntry> {
    const kept = this.latest.get(folder);
    if (kept) {
      return kept;
    }
    const row = this.db
      .prepare('SELECT manifest FROM checkpoints WHERE folder = ? ORDER BY created_at DESC, rowid DESC LIMIT 1')
      .get(folder) as { manifest: Buffer } | undefined;
    return row ? toMap(row.manifest) : new Map();
  }
}

/** How the files of `after` differ from those of `before`, by path. */
export function diffManifests(before: ReadonlyMap<string, CheckpointEntry>, after: ReadonlyMap<string, CheckpointEntry>): FileChange[] {
  const changes: FileChange[] = [];
  for (const [file, entry] of after) {
    const was = before.get(file);
    if (!was) {
      changes.push({ path: file, change: 'added', after: entry });
    } else if (was.hash !== entry.hash || Boolean(was.link) !== Boolean(entry.link)) {
      changes.push({ path: file, change: 'modified', before: was, after: entry });
    }
  }
  for (const [file, entry] of before) {
    if (!after.has(file)) {
      changes.push({ path: file, change: 'removed', before: entry });
    }
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function toMap(manifest: Buffer): Map<string, CheckpointEntry> {
  const entries = JSON.parse(inflateRawSync(manifest).toString('utf8')) as CheckpointEntry[];
  return new Map(entries.map((entry) => [entry.path, entry]));
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
    const read = await readBytesAtMost(absolute, maxFileBytes, file);
    switch (read.kind) {
      case 'bytes':
        // As the open file is now: a write after this is seen by the next checkpoint.
        file.mtimeMs = read.stat.mtimeMs;
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
