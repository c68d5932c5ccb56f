/**
 * What changed in a working folder since its last checkpoint, learnt from the operating system:
 * every folder a checkpoint looks into is watched (Node's own watcher, inotify on Linux), and each
 * path reported is kept until the next checkpoint takes them. Nothing is written to the folder.
 *
 * The paths are trusted only while nothing was lost: a path with no name, a watcher that failed
 * (the system's limit of watched folders, say), a change to an ignore file (what is watched would
 * change) or more changed paths than are kept (an overflow) each make the next checkpoint walk the
 * whole folder, and watching starts afresh. So does a folder not watched since its last checkpoint
 * (the host restarted between two turns, or watching began after that checkpoint started).
 *
 * Events a write made before a checkpoint started must be in before it looks: Node reads the
 * watcher in its poll phase and the kernel queues an event with the write itself, so two turns of
 * the event loop are enough (measured: 0.15 ms). Watchers that batch events on a timer of their
 * own (`@parcel/watcher` waits 50 ms and has no way to flush) cannot give a checkpoint that; see
 * `bench/README.md`. Only Linux delivers events this way: elsewhere nothing is watched and every
 * checkpoint walks.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { FolderWatcher, Known, Taken, TreeWatch, WatchFolder } from './Machine.js';
import { IGNORE_FILES, ignored, ownRules, rulesAbove, SKIPPED_FOLDERS, type Rules } from './walkFolder.js';

/** Default of the most changed paths kept between two checkpoints; past it, the next one walks. */
export const DEFAULT_MAX_CHANGED_PATHS = 10_000;

/** True where the system's events arrive in time for a checkpoint (see the top of this file). */
export const WATCHING_WORKS = process.platform === 'linux';

/** One watched folder, with the rules its entries are judged by. */
type Watched = { watcher: FolderWatcher; ino: number; rules: Rules[] };

/** Waits two turns of the event loop: events the kernel queued before the call have been handled. */
async function drainEvents(): Promise<void> {
  for (let turn = 0; turn < 2; turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The watch of one working folder, on the machine it is on. */
export class FolderWatch implements TreeWatch {
  private readonly watched = new Map<string, Watched>();
  private changed = new Set<string>();
  /** Why the paths since the last checkpoint cannot be trusted (the next one walks). */
  private lost: string | undefined;
  /** The checkpoint the changed paths are counted from. */
  private since: string | undefined;
  /** Folders still being added (a new folder's watchers). */
  private readonly adding = new Set<Promise<void>>();
  /** Counts the checkpoints taken: a token from before a restart of the watch is no longer good. */
  private epoch = 0;
  private ready = false;
  private closed = false;

  constructor(
    readonly root: string,
    private readonly maxPaths: number,
    /** How one folder is watched (Node's watcher, where the folder is). */
    private readonly watchFolder: WatchFolder,
  ) {}

  /** Starts watching; resolves once every folder is watched (a failure is kept as lost, never thrown). */
  async start(): Promise<void> {
    await this.watchTree('');
    this.ready = true;
  }

  /**
   * For a checkpoint about to look at the folder: what changed since the last one, and a token for
   * {@link based}. The changes are taken: those reported from now on count from the new checkpoint.
   * After a loss, watching starts afresh first.
   */
  async take(): Promise<Taken> {
    await this.settle();
    const known = this.known();
    const lost = this.lost !== undefined;
    this.changed = new Set();
    this.since = undefined;
    this.lost = undefined;
    this.epoch += 1;
    const token = this.epoch;
    if (lost) {
      this.closeWatchers();
      await this.watchTree('');
    }
    return { known, token };
  }

  /** What changed since the last checkpoint, left for the next one to take (a rewind's look). */
  async peek(): Promise<Known> {
    await this.settle();
    const known = this.known();
    return 'since' in known ? { since: known.since, paths: new Set(known.paths) } : known;
  }

  /** The checkpoint taken with `token` holds the folder: changes reported since count from it. */
  based(token: number, checkpointId: string): void {
    if (token === this.epoch && this.ready && !this.closed) {
      this.since = checkpointId;
    }
  }

  /** Stops watching. */
  close(): void {
    this.closed = true;
    this.closeWatchers();
  }

  private known(): Known {
    if (!this.ready) {
      return { unknown: 'the folder was not watched yet' };
    }
    if (this.lost !== undefined) {
      return { unknown: this.lost };
    }
    if (this.since === undefined) {
      return { unknown: 'the folder was not watched since its last checkpoint' };
    }
    return { since: this.since, paths: this.changed };
  }

  /** Handles the events already queued, and waits for new folders' watchers. */
  private async settle(): Promise<void> {
    await drainEvents();
    while (this.adding.size > 0) {
      await Promise.all([...this.adding]);
      await drainEvents();
    }
  }

  private lose(reason: string): void {
    this.lost ??= reason;
    this.changed.clear();
  }

  private onEvent(folder: string, type: string, name: string | null): void {
    if (this.closed || this.lost !== undefined) {
      return;
    }
    if (name === null) {
      this.lose(`the system did not say what changed in ${folder || '.'}`);
      return;
    }
    const child = folder === '' ? name : `${folder}/${name}`;
    if (IGNORE_FILES.includes(name)) {
      this.lose(`${child} changed, so what is ignored may have changed`);
      return;
    }
    const rules = this.watched.get(folder)?.rules ?? [];
    if (SKIPPED_FOLDERS.has(name) || (ignored(rules, child, false) && ignored(rules, child, true))) {
      return;
    }
    this.changed.add(child);
    if (this.changed.size > this.maxPaths) {
      this.lose(`more than ${this.maxPaths} paths changed since the last checkpoint (an overflow)`);
      return;
    }
    if (type === 'rename') {
      this.renamed(child);
    }
  }

  /** A path came or went: a folder gone (or replaced) takes its watchers with it; a new folder is watched. */
  private renamed(child: string): void {
    let stat;
    try {
      stat = lstatSync(path.join(this.root, ...child.split('/')));
    } catch {
      stat = undefined;
    }
    const realFolder = stat?.isDirectory() === true && !stat.isSymbolicLink();
    const known = this.watched.get(child);
    if (known && (!realFolder || known.ino !== stat?.ino)) {
      for (const [folder, watched] of this.watched) {
        if (folder === child || folder.startsWith(`${child}/`)) {
          watched.watcher.close();
          this.watched.delete(folder);
        }
      }
    }
    if (realFolder && !this.watched.has(child)) {
      const adding = this.watchTree(child).finally(() => this.adding.delete(adding));
      this.adding.add(adding);
    }
  }

  /** Watches the folder `relative` and every folder under it a checkpoint looks into. */
  private async watchTree(relative: string): Promise<void> {
    if (!WATCHING_WORKS) {
      this.lose(`folders are not watched on ${process.platform}`);
      return;
    }
    const start = rulesAbove(this.root, relative);
    if (!start) {
      return;
    }
    const visit = async (folder: string, inherited: Rules[], ino: number): Promise<void> => {
      if (this.closed || this.lost !== undefined || this.watched.has(folder)) {
        return;
      }
      const absolute = folder === '' ? this.root : path.join(this.root, ...folder.split('/'));
      let entries;
      let watcher: FolderWatcher | undefined;
      try {
        // Watched before it is listed: a folder made meanwhile is reported, not missed.
        watcher = this.watchFolder(
          absolute,
          ({ type, name }) => this.onEvent(folder, type, name),
          (error) => this.lose(`watching ${folder || '.'} failed: ${error.message}`),
        );
        entries = readdirSync(absolute, { withFileTypes: true });
        const own = ownRules(
          absolute,
          folder,
          entries.map((entry) => entry.name),
        );
        this.watched.set(folder, { watcher, ino, rules: own ? [...inherited, own] : inherited });
      } catch (error) {
        watcher?.close();
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOSPC') {
          this.lose('the system limit of watched folders was reached (fs.inotify.max_user_watches)');
        } else if (code !== 'ENOENT' && code !== 'ENOTDIR') {
          this.lose(`could not watch ${folder || '.'}: ${code ?? String(error)}`);
        }
        return;
      }
      const rules = this.watched.get(folder)!.rules;
      for (const entry of entries) {
        const child = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (!entry.isDirectory() || SKIPPED_FOLDERS.has(entry.name) || ignored(rules, child, true)) {
          continue;
        }
        let stat;
        try {
          stat = lstatSync(path.join(absolute, entry.name));
        } catch {
          continue;
        }
        if (stat.isDirectory()) {
          await new Promise((resolve) => setImmediate(resolve));
          await visit(child, rules, stat.ino);
        }
      }
    };
    await visit(relative, start.rules, start.id.ino);
  }

  private closeWatchers(): void {
    for (const watched of this.watched.values()) {
      watched.watcher.close();
    }
    this.watched.clear();
  }
}
