/**
 * Which paths a checkpoint of a folder looks at: those a watch of the folder reported since its
 * last checkpoint, or every file (a walk) when that cannot be trusted. Holds the watches (one per
 * folder, for as long as someone asks: a live session), decides each checkpoint's scope, counts the
 * walks with why in the log, and every {@link VERIFY_EVERY} checkpoints walks to verify the watcher,
 * logging what it missed.
 */
import type { Machine, Taken, TreeWatch } from '../machine/Machine.js';
import { DEFAULT_MAX_CHANGED_PATHS, WATCHING_WORKS } from '../machine/FolderWatch.js';
import { diffManifests } from './manifests.js';
import type { CheckpointEntry, LeftOut, ScanScope } from '../machine/scanFolder.js';

/** Options of the watches. */
export type ChangeOptions = {
  /** Where the walks (and a watcher's misses) are counted. */
  log?: (message: string) => void;
  /** Watch folders at all (a benchmark's baseline turns it off). Default: where the system's events arrive in time. */
  watch?: boolean;
  /** The most changed paths a watch keeps between two checkpoints (past it: an overflow, and a walk). */
  maxChangedPaths?: number;
  /** Every this many checkpoints of a folder taken from a watcher's paths, one walks instead, to verify it. */
  verifyEvery?: number;
};

/** How often checkpoints are taken by walking and by a watcher's paths, and why they walked. */
export type CheckpointCounts = { watched: number; walked: number; reasons: Record<string, number>; missed: number };

/** Default of {@link ChangeOptions.verifyEvery}. */
export const VERIFY_EVERY = 50;

/** The folder's last checkpoint, as far as the scope of the next one needs it. */
export type LastCheckpoint = { id: string; tooLarge: LeftOut[]; failed: LeftOut[] };

/** How one checkpoint finds its files, and what is done once it is taken. */
export type CheckpointPlan = {
  scope: ScanScope;
  /** Why the whole folder is walked, when it is. */
  walked?: string;
  /** The checkpoint is taken: the watch counts from it (and a verifying walk's findings are held against what was reported). */
  taken(checkpointId: string, before: ReadonlyMap<string, CheckpointEntry> | undefined, after: readonly CheckpointEntry[]): void;
};

/** The watches of working folders, and the scope of each checkpoint. */
export class FolderChanges {
  private readonly watches = new Map<string, { watch: TreeWatch; users: number }>();
  /** Per folder, checkpoints taken from a watcher's paths since the last walk. */
  private readonly sinceWalk = new Map<string, number>();
  private readonly tally: CheckpointCounts = { watched: 0, walked: 0, reasons: {}, missed: 0 };
  private readonly log: (message: string) => void;
  private readonly watching: boolean;

  constructor(private readonly options: ChangeOptions = {}) {
    this.log = options.log ?? (() => undefined);
    this.watching = options.watch ?? WATCHING_WORKS;
  }

  /**
   * Watches `folder` until the returned function is called (by every caller that asked): its
   * checkpoints then look only at what changed. Nothing happens where watching is off. `folder`
   * names the place in this object's maps; `place` is where it is: its path, and the machine it is
   * on (which keeps the watch).
   */
  watch(folder: string, place: { path: string; machine: Machine }): () => void {
    if (!this.watching) {
      return () => undefined;
    }
    let held = this.watches.get(folder);
    if (!held) {
      const watch = place.machine.watchTree(place.path, this.options.maxChangedPaths ?? DEFAULT_MAX_CHANGED_PATHS);
      held = { watch, users: 0 };
      this.watches.set(folder, held);
      watch.start().catch((error: unknown) => this.log(`could not watch ${folder}: ${String(error)}`));
    }
    const entry = held;
    entry.users += 1;
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      entry.users -= 1;
      if (entry.users === 0 && this.watches.get(folder) === entry) {
        this.watches.delete(folder);
        entry.watch.close();
      }
    };
  }

  /** For a checkpoint of `folder` about to look: its scope (the changes reported are taken), counted, a walk logged with why. */
  async plan(folder: string, last: LastCheckpoint | undefined): Promise<CheckpointPlan> {
    const watch = this.watches.get(folder)?.watch;
    const taken = await watch?.take();
    const decided = this.scopeFor(folder, taken, last);
    return {
      ...decided,
      taken: (checkpointId, before, after) => {
        if (decided.verifying && taken && 'since' in taken.known && before) {
          this.countMisses(folder, before, after, taken.known.paths);
        }
        if (taken) {
          watch?.based(taken.token, checkpointId);
        }
      },
    };
  }

  /** For a look at the folder (a rewind's): the paths changed since `last`, left for the next checkpoint; a walk when unknown. */
  async lookScope(folder: string, last: LastCheckpoint | undefined): Promise<ScanScope> {
    const known = await this.watches.get(folder)?.watch.peek();
    return known && 'since' in known && last?.id === known.since
      ? { paths: known.paths, tooLarge: last.tooLarge, failed: last.failed }
      : { walk: true };
  }

  /** How many checkpoints walked and how many looked only at a watcher's paths, this run. */
  counts(): CheckpointCounts {
    return { ...this.tally, reasons: { ...this.tally.reasons } };
  }

  /** Stops every watch. */
  close(): void {
    for (const held of this.watches.values()) {
      held.watch.close();
    }
    this.watches.clear();
  }

  private scopeFor(
    folder: string,
    taken: Taken | undefined,
    last: LastCheckpoint | undefined,
  ): { scope: ScanScope; walked?: string; verifying?: boolean } {
    let reason: string;
    let verifying = false;
    if (!last) {
      reason = 'the folder has no checkpoint yet';
    } else if (!taken) {
      reason = this.watching ? 'the folder is not watched (no live session in it)' : 'folders are not watched on this system';
    } else if ('unknown' in taken.known) {
      reason = taken.known.unknown;
    } else if (taken.known.since !== last.id) {
      reason = 'the watcher counted from another checkpoint';
    } else if ((this.sinceWalk.get(folder) ?? 0) + 1 >= (this.options.verifyEvery ?? VERIFY_EVERY)) {
      reason = 'verifying the watcher';
      verifying = true;
    } else {
      this.sinceWalk.set(folder, (this.sinceWalk.get(folder) ?? 0) + 1);
      this.tally.watched += 1;
      return { scope: { paths: taken.known.paths, tooLarge: last.tooLarge, failed: last.failed } };
    }
    this.sinceWalk.set(folder, 0);
    this.tally.walked += 1;
    this.tally.reasons[reason] = (this.tally.reasons[reason] ?? 0) + 1;
    const { watched, walked } = this.tally;
    this.log(`the checkpoint of ${folder} walks the whole folder: ${reason} (${walked} of ${walked + watched} walked so far)`);
    return { scope: { walk: true }, walked: reason, verifying };
  }

  /** Logs the changes a verifying walk found that the watcher did not report. */
  private countMisses(
    folder: string,
    before: ReadonlyMap<string, CheckpointEntry>,
    after: readonly CheckpointEntry[],
    reported: ReadonlySet<string>,
  ): void {
    const covered = (file: string): boolean => {
      for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1)) {
        if (reported.has(file.slice(0, slash))) {
          return true;
        }
      }
      return reported.has(file);
    };
    const missed = diffManifests(before, new Map(after.map((entry) => [entry.path, entry])))
      .map((change) => change.path)
      .filter((file) => !covered(file));
    if (missed.length > 0) {
      this.tally.missed += missed.length;
      this.log(`the watcher of ${folder} missed ${missed.length} changed files (${missed.slice(0, 5).join(', ')}); the walk found them`);
    }
  }
}
