/**
 * Checkpoints of working folders: content-addressed snapshots kept in Baton's data folder
 * (`checkpoints.sqlite`), never inside the working folder, so folders that are not git
 * repositories work and a person's own `.git` is never written to (it is not even read).
 *
 * A checkpoint is a manifest (each file's path, content hash, size, mode, and the mtime and inode
 * it had) plus the contents, stored once per hash (deflated). A manifest is stored as its change
 * from the folder's previous checkpoint, with a full one every {@link FULL_EVERY}; reading one
 * gives the full list. Taking one is incremental: while the folder is watched ({@link watch}, for
 * as long as a conversation's session in it is live) only the paths reported since the last
 * checkpoint are looked at; otherwise (not watched, a watcher's loss, and every
 * {@link VERIFY_EVERY} checkpoints, to verify the watcher) the whole folder is walked, each case
 * counted in the log. Either way a file whose size, mtime and inode match is not read again, and
 * content already stored is not stored again. `.gitignore` and `.ignore` files are honoured,
 * dependency folders (`node_modules` and the like) skipped, and files over the size limit are
 * listed, not kept. A file that cannot be read is listed with why; it never fails the checkpoint.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { createPrivateFile } from '../store/privateDataDir.js';
import { FolderChanges, type ChangeOptions, type CheckpointCounts } from './FolderChanges.js';
import {
  applyDelta,
  decodeManifest,
  deltaOf,
  diffManifests,
  encodeManifest,
  namedEntries,
  type FileChange,
  type StoredManifest,
} from './manifests.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { pathsOf, type Machine, type MachineScanOptions } from '../machine/Machine.js';
import type { Restore } from '../machine/restoreFolder.js';
import { byPath, type CheckpointEntry, type LeftOut, type Scanned, type ScanScope } from '../machine/scanFolder.js';
import { definedEnv } from '../process/env.js';

export type { CheckpointEntry, LeftOut } from '../machine/scanFolder.js';
export type { Restore } from '../machine/restoreFolder.js';
export { diffManifests, type FileChange } from './manifests.js';
export { VERIFY_EVERY, type CheckpointCounts } from './FolderChanges.js';

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
  /** Why the whole folder was walked, when it was (not only the paths a watcher reported). */
  walked?: string;
};

/** Options for {@link CheckpointStore.take}. */
export type TakeOptions = {
  /** Files larger than this are not kept (listed in `tooLarge`). Default 10 MiB. */
  maxFileBytes?: number;
  /** A folder with more files than this gets no checkpoint (it throws). Default 50,000. */
  maxFiles?: number;
  /** Stops the checkpoint (it throws the signal's reason): a time limit. */
  signal?: AbortSignal;
  /** The machine the folder is on (default: the store's). */
  machine?: Machine;
  /**
   * Paths Baton itself just wrote, right after a checkpoint that swept the folder (Keep): looked at
   * with what the watch reported, and the other files not swept again (see `ScanScope`'s `unswept`).
   * A folder the watch cannot account for is walked as ever.
   */
  written?: readonly string[];
};

/** Options of the store: those of its watches, and the machine its folders are on (default: this computer). */
export type StoreOptions = ChangeOptions & { machine?: Machine };

/**
 * Where a checkpoint was taken: the folder as given, its real path then (null for checkpoints of
 * older builds), and the machine it is on (null: the store's own, this computer).
 */
export type CheckpointFolder = { folder: string; real: string | null; machine: string | null };

const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_FILES = 50_000;
/** Stored this much, a checkpoint folds the write-ahead log into the database. */
const WAL_FOLD_BYTES = 8 * 1024 * 1024;
/** One manifest in this many is stored in full; the others as their change from the previous one. */
export const FULL_EVERY = 32;
/** Manifests read back and kept for the next reader. */
const CACHED_MANIFESTS = 8;

/** A folder's last checkpoint this run: the next one starts from it. */
type Latest = { id: string; depth: number; entries: ReadonlyMap<string, CheckpointEntry>; tooLarge: LeftOut[]; failed: LeftOut[] };

/** A stored checkpoint row's manifest. */
type ManifestRow = { manifest: Buffer; base_id: string | null };

/** The store of checkpoints in one data folder. */
export class CheckpointStore {
  private readonly db: Database.Database;
  private readonly insertBlob: Database.Statement;
  private readonly hasBlob: Database.Statement;
  private readonly readRow: Database.Statement;
  private readonly readBlob: Database.Statement;
  /** The last checkpoint taken of each folder this run, kept so the next one need not read it back. */
  private readonly latest = new Map<string, Latest>();
  /** Manifests read back lately, by checkpoint (most recent last). */
  private readonly cache = new Map<string, ReadonlyMap<string, CheckpointEntry>>();
  /** The watches of folders, and which paths each checkpoint looks at. */
  private readonly folders: FolderChanges;
  /** Per folder, the checkpoint being taken (the next waits for it). */
  private readonly queues = new Map<string, Promise<unknown>>();

  /** The machine the folders are on: it scans them, and only what the store lacks comes back. */
  private readonly machine: Machine;

  private constructor(file: string, options: StoreOptions) {
    this.machine = options.machine ?? new LocalMachine(definedEnv(process.env));
    this.folders = new FolderChanges(options);
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
    // Added later, so older rows have none: the folder's real path when the checkpoint was taken,
    // and the checkpoint whose manifest this one's is a change from (null: stored in full).
    const columns = this.db.prepare('PRAGMA table_info(checkpoints)').all() as Array<{ name: string }>;
    if (!columns.some((column) => column.name === 'real_folder')) {
      this.db.exec('ALTER TABLE checkpoints ADD COLUMN real_folder TEXT');
    }
    if (!columns.some((column) => column.name === 'base_id')) {
      this.db.exec('ALTER TABLE checkpoints ADD COLUMN base_id TEXT');
      this.db.exec('ALTER TABLE checkpoints ADD COLUMN depth INTEGER NOT NULL DEFAULT 0');
    }
    // A folder is a place on a machine: null for the store's own (every row of older builds).
    if (!columns.some((column) => column.name === 'machine')) {
      this.db.exec('ALTER TABLE checkpoints ADD COLUMN machine TEXT');
    }
    this.insertBlob = this.db.prepare('INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?, ?, ?)');
    this.hasBlob = this.db.prepare('SELECT 1 FROM blobs WHERE hash = ?');
    this.readRow = this.db.prepare('SELECT manifest, base_id FROM checkpoints WHERE checkpoint_id = ?');
    this.readBlob = this.db.prepare('SELECT data FROM blobs WHERE hash = ?');
  }

  /** Opens (or creates) the store in `<dataDir>/checkpoints.sqlite` (owner-only, as the data folder's files are). */
  static open(dataDir: string, options: StoreOptions = {}): CheckpointStore {
    const file = path.join(dataDir, 'checkpoints.sqlite');
    createPrivateFile(file);
    return new CheckpointStore(file, options);
  }

  /**
   * Watches `folder` until the returned function is called (by every caller that asked): its
   * checkpoints then look only at what changed. Nothing happens where watching is off.
   */
  watch(folder: string, machine?: Machine): () => void {
    const on = this.on(machine);
    // Kept by the folder's machine, which lists and judges its folders by its own file system.
    return this.folders.watch(this.placeKey(folder, on), { path: folder, machine: on });
  }

  /** The machine a folder given with `machine` is on. */
  private on(machine: Machine | undefined): Machine {
    return machine ?? this.machine;
  }

  /** The machine column of a folder on `machine`: null for the store's own. */
  private machineColumn(machine: Machine): string | null {
    return machine.id === this.machine.id ? null : machine.id;
  }

  /** What tells a place apart in this run's maps: the folder, after its machine's id when that is not the store's. */
  private placeKey(folder: string, machine: Machine): string {
    const column = this.machineColumn(machine);
    return column === null ? folder : `${column}\t${folder}`;
  }

  /** Takes a checkpoint of `folder` (an absolute path); checkpoints of one folder are taken one at a time. */
  take(folder: string, options: TakeOptions = {}): Promise<Checkpoint> {
    return this.queued(folder, options.machine, () => this.takeNow(folder, options));
  }

  /**
   * Records `entries` as a checkpoint of `folder` without reading it: a copy just made from stored
   * contents, each entry the copy's own stat (taken on the file as it was made) with the hash of
   * what was written (`Machine.populate`, `Machine.cloneFiles`). The copy's next checkpoint then
   * reads only what differs from it. Refused when a content is not stored.
   */
  adopt(folder: string, entries: readonly CheckpointEntry[], machine?: Machine): Promise<string> {
    return this.queued(folder, machine, async () => {
      const on = this.on(machine);
      const missing = entries.find((entry) => this.hasBlob.get(entry.hash) === undefined);
      if (missing) {
        throw new Error(`the content of ${missing.path} is not stored`);
      }
      const sorted = [...entries].sort(byPath);
      const real = await on.realpath(folder);
      return this.insert(folder, on, real, { entries: sorted, stored: [], tooLarge: [], failed: [] }, undefined).id;
    });
  }

  /** Runs `work` once the folder's checkpoints before it are done (checkpoints of one folder are taken one at a time). */
  private queued<T>(folder: string, machine: Machine | undefined, work: () => Promise<T>): Promise<T> {
    const key = this.placeKey(folder, this.on(machine));
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.queues.set(key, next);
    void next
      .catch(() => undefined)
      .then(() => {
        if (this.queues.get(key) === next) {
          this.queues.delete(key);
        }
      });
    return next;
  }

  private async takeNow(folder: string, options: TakeOptions): Promise<Checkpoint> {
    const machine = this.on(options.machine);
    const key = this.placeKey(folder, machine);
    const real = await machine.realpath(folder);
    const last = this.lastOf(folder, machine);
    const plan = await this.folders.plan(key, last);
    const scope: ScanScope =
      options.written && !('walk' in plan.scope)
        ? { ...plan.scope, paths: new Set([...plan.scope.paths, ...options.written]), unswept: true }
        : plan.scope;
    const scanned = await machine.scan(folder, last?.entries ?? new Map(), scope, this.scanOptions(options, true));
    options.signal?.throwIfAborted();
    const { id: checkpointId, bytes } = this.insert(folder, machine, real, scanned, last);
    plan.taken(checkpointId, last?.entries, scanned.entries);
    return {
      checkpointId,
      folder,
      files: scanned.entries.length,
      bytes,
      tooLarge: scanned.tooLarge,
      failed: scanned.failed,
      read: scanned.read,
      reused: scanned.reused,
      ...(plan.walked === undefined ? {} : { walked: plan.walked }),
    };
  }

  /** Stores a checkpoint of `folder` (as a change from `last` while the chain is short) and makes it the folder's last. */
  private insert(
    folder: string,
    machine: Machine,
    real: string,
    scanned: Pick<Scanned, 'entries' | 'stored' | 'tooLarge' | 'failed'>,
    last: Latest | undefined,
  ): { id: string; bytes: number } {
    const key = this.placeKey(folder, machine);
    const checkpointId = randomUUID();
    const bytes = scanned.entries.reduce((sum, entry) => sum + entry.size, 0);
    const delta = last && last.depth + 1 < FULL_EVERY;
    const stored: StoredManifest = delta ? deltaOf(last.entries, scanned.entries) : { full: scanned.entries };
    this.db.transaction(() => {
      for (const blob of scanned.stored) {
        this.insertBlob.run(blob.hash, blob.size, blob.data);
      }
      this.db
        .prepare(
          `INSERT INTO checkpoints (checkpoint_id, folder, created_at, files, bytes, manifest, real_folder, base_id, depth, machine)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          checkpointId,
          folder,
          new Date().toISOString(),
          scanned.entries.length,
          bytes,
          encodeManifest(stored),
          real,
          delta ? last.id : null,
          delta ? last.depth + 1 : 0,
          this.machineColumn(machine),
        );
    })();
    // A checkpoint that stored much leaves a large write-ahead log: fold it into the database now,
    // so that the next (small, incremental) checkpoint does not pay for it.
    if (scanned.stored.reduce((sum, blob) => sum + blob.data.length, 0) > WAL_FOLD_BYTES) {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    const entries = new Map(scanned.entries.map((entry) => [entry.path, entry]));
    this.latest.set(key, {
      id: checkpointId,
      depth: delta ? last.depth + 1 : 0,
      entries,
      tooLarge: scanned.tooLarge,
      failed: scanned.failed,
    });
    this.remember(checkpointId, entries);
    return { id: checkpointId, bytes };
  }

  /**
   * At most `maxBytes` of one file of the folder as it is now, read on the folder's machine (never
   * a FIFO, never through a final link); null when it cannot be read.
   */
  async readNow(
    folder: string,
    relative: string,
    maxBytes: number,
    machine?: Machine,
  ): Promise<Awaited<ReturnType<Machine['readFile']>> | null> {
    const on = this.on(machine);
    try {
      return await on.readFile(pathsOf(on).join(folder, ...relative.split('/')), maxBytes);
    } catch {
      return null;
    }
  }

  /** The folder's files as they are now (what a checkpoint would hold), without storing anything. */
  async look(folder: string, options: TakeOptions = {}): Promise<Map<string, CheckpointEntry>> {
    const machine = this.on(options.machine);
    const key = this.placeKey(folder, machine);
    const last = this.lastOf(folder, machine);
    const scope = await this.folders.lookScope(key, this.latest.get(key));
    const scanned = await machine.scan(folder, last?.entries ?? new Map(), scope, this.scanOptions(options, false));
    return new Map(scanned.entries.map((entry) => [entry.path, entry]));
  }

  /** How many checkpoints walked and how many looked only at a watcher's paths, this run. */
  counts(): CheckpointCounts {
    return this.folders.counts();
  }

  /** A checkpoint's files, by path. Do not change the map: it may be shared with the next reader. */
  manifest(checkpointId: string): ReadonlyMap<string, CheckpointEntry> {
    const cached = this.cache.get(checkpointId);
    if (cached) {
      return cached;
    }
    // The chain of changes back to a full manifest (or one read lately).
    const chain: StoredManifest[] = [];
    let base: ReadonlyMap<string, CheckpointEntry> | undefined;
    let id: string | null = checkpointId;
    while (id !== null) {
      const known = id === checkpointId ? undefined : this.cache.get(id);
      if (known) {
        base = known;
        break;
      }
      const row = this.readRow.get(id) as ManifestRow | undefined;
      if (!row) {
        throw new Error(
          id === checkpointId ? `No checkpoint ${checkpointId}.` : `Checkpoint ${checkpointId} is based on ${id}, which is gone.`,
        );
      }
      chain.push(decodeManifest(row.manifest, row.base_id !== null));
      id = row.base_id;
    }
    const manifest = new Map(base ?? []);
    for (const stored of chain.reverse()) {
      if ('full' in stored) {
        manifest.clear();
        for (const entry of stored.full) {
          manifest.set(entry.path, entry);
        }
      } else {
        applyDelta(manifest, stored);
      }
    }
    this.remember(checkpointId, manifest);
    return manifest;
  }

  /** Where a checkpoint was taken. */
  folderOf(checkpointId: string): CheckpointFolder {
    const row = this.db
      .prepare('SELECT folder, real_folder AS real, machine FROM checkpoints WHERE checkpoint_id = ?')
      .get(checkpointId) as CheckpointFolder | undefined;
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
  /**
   * Puts files of `folder` back as this store's checkpoints hold them, on the machine the folder is
   * on (see `Machine.restore`); returns what could not be put back, with why.
   */
  restore(folder: string, restores: readonly Restore[], recordedReal?: string, machine?: Machine): Promise<LeftOut[]> {
    return this.on(machine).restore(folder, restores, (hash) => this.content(hash), recordedReal);
  }

  content(hash: string): Buffer {
    const row = this.readBlob.get(hash) as { data: Buffer } | undefined;
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

  /**
   * Removes checkpoints, and the contents no checkpoint left uses. A checkpoint kept whose
   * manifest is a change from one removed is first stored in full.
   */
  remove(checkpointIds: readonly string[]): void {
    if (checkpointIds.length === 0) {
      return;
    }
    const removed = new Set(checkpointIds);
    const dependents = (
      this.db.prepare('SELECT checkpoint_id AS id, base_id AS base FROM checkpoints WHERE base_id IS NOT NULL').all() as Array<{
        id: string;
        base: string;
      }>
    ).filter((row) => removed.has(row.base) && !removed.has(row.id));
    const rewritten = dependents.map((row) => ({ id: row.id, full: [...this.manifest(row.id).values()] }));
    // The last checkpoint of a folder may be among them: read it back from the database next time.
    this.latest.clear();
    this.cache.clear();
    this.db.transaction(() => {
      const full = this.db.prepare('UPDATE checkpoints SET manifest = ?, base_id = NULL, depth = 0 WHERE checkpoint_id = ?');
      for (const row of rewritten) {
        full.run(encodeManifest({ full: row.full }), row.id);
      }
      const drop = this.db.prepare('DELETE FROM checkpoints WHERE checkpoint_id = ?');
      for (const id of checkpointIds) {
        drop.run(id);
      }
      // A change names every entry it sets; the entries it keeps are named by the manifest it is based on.
      const used = new Set<string>();
      for (const row of this.db.prepare('SELECT manifest, base_id FROM checkpoints').iterate() as Iterable<ManifestRow>) {
        for (const entry of namedEntries(decodeManifest(row.manifest, row.base_id !== null))) {
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

  /** Stops watching and closes the store. */
  close(): void {
    this.folders.close();
    this.db.close();
  }

  private scanOptions(options: TakeOptions, keep: boolean): MachineScanOptions {
    return {
      maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      maxFiles: options.maxFiles ?? DEFAULT_MAX_FILES,
      signal: options.signal,
      keep,
      isStored: (hash) => this.hasBlob.get(hash) !== undefined,
    };
  }

  /** Keeps a manifest read (or made) for the next reader. */
  private remember(checkpointId: string, manifest: ReadonlyMap<string, CheckpointEntry>): void {
    this.cache.delete(checkpointId);
    this.cache.set(checkpointId, manifest);
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= CACHED_MANIFESTS) {
        break;
      }
      this.cache.delete(oldest);
    }
  }

  /** The folder's last checkpoint (undefined when it has none). */
  private lastOf(folder: string, machine: Machine): Latest | undefined {
    const kept = this.latest.get(this.placeKey(folder, machine));
    if (kept) {
      return kept;
    }
    const row = this.db
      .prepare(
        'SELECT checkpoint_id AS id, depth FROM checkpoints WHERE folder = ? AND machine IS ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
      )
      .get(folder, this.machineColumn(machine)) as { id: string; depth: number } | undefined;
    return row ? { id: row.id, depth: row.depth, entries: this.manifest(row.id), tooLarge: [], failed: [] } : undefined;
  }
}
