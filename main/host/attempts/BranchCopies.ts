/**
 * "Branch from here" in its own copy of the working folder, so that two branches never edit the
 * same files: made like an attempt's copy (`folderCopies.ts`) in `<data>/branches/<branch id>`:
 * a git worktree on a new branch `baton/<branch id>/branch` where the folder is in a repository,
 * else a copy. It starts from the files as they were before the message (its checkpoint) when the
 * person asks for that, else from the folder as it is now; the person's folder is not touched
 * either way. The copy is said in the branch's `conversation.branched` and goes with the branch
 * when it is erased; one left by a host that died before the branch was recorded is removed at
 * the next start (an owner file, written before the copy, names its repository and branch).
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { InvalidRequestError } from '../../../app/errors.js';
import { newId } from '../../../app/ids.js';
import { branchPart } from '../../../app/transcript/attempts.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { CheckpointEntry, CheckpointStore, LeftOut } from '../checkpoints/CheckpointStore.js';
import type { Rewinds } from '../checkpoints/Rewinds.js';
import { maxFileBytesSetting } from '../checkpoints/TurnCheckpoints.js';
import { checkpointsByTurn } from '../checkpoints/turnChanges.js';
import type { Machine } from '../machine/Machine.js';
import type { Env } from '../process/env.js';
import type { EventStore } from '../store/EventStore.js';
import { copyPlaceOf, freeBranch, makeCopy, makeWorktree, removeCopy, requireCopiesHere } from './folderCopies.js';

/** What a branch's copy is, as recorded (and in its owner file). */
const copySchema = z.object({
  folder: z.string(),
  repository: z.string().optional(),
  branch: z.string().optional(),
  machine: z.string().optional(),
});
type BranchCopy = z.infer<typeof copySchema>;

export type BranchCopiesDeps = {
  store: EventStore;
  checkpoints: CheckpointStore;
  rewinds: Pick<Rewinds, 'branch'>;
  dataDir: string;
  /** The environment git runs with. */
  env: Env;
  /** The machine the working folders and their copies are on. */
  machine: Machine;
  log: (message: string) => void;
};

/** Branches that work in a copy of their own. */
export class BranchCopies {
  constructor(private readonly deps: BranchCopiesDeps) {}

  private get top(): string {
    return path.join(this.deps.dataDir, 'branches');
  }

  /**
   * Branches `conversationId` before `turnId`'s message into a copy of its folder (from the files
   * before that message when `fromBefore`, else as they are now). Nothing is left behind when it fails.
   */
  async branch(conversationId: string, turnId: string, fromBefore: boolean): Promise<Awaited<ReturnType<Rewinds['branch']>>> {
    const { store, checkpoints } = this.deps;
    const summary = store.getSummary(conversationId);
    requireCopiesHere(summary, this.deps.machine, 'A branch in its own copy', 'Branch it in its own folder instead.');
    const manifest = await this.startingFiles(summary, turnId, fromBefore);
    const branchId = newId();
    const { place, plainBecause } = await copyPlaceOf(summary.cwd, this.deps);
    const root = path.join(this.top, branchId);
    const branch = place ? await freeBranch(place.root, `baton/${branchPart(branchId)}/branch`, this.deps) : undefined;
    const copy: BranchCopy = {
      folder: root,
      machine: this.deps.machine.id,
      ...(place && branch ? { repository: place.root, branch } : {}),
    };
    await mkdir(this.top, { recursive: true, mode: 0o700 });
    // Named before it is made: a copy left by a host that died here is found and removed at the next start.
    writeFileSync(this.ownerFile(branchId), JSON.stringify(copy), { mode: 0o600 });
    try {
      const content = (hash: string): Buffer => checkpoints.content(hash);
      const left: LeftOut[] =
        place && branch ? await makeWorktree(place, root, branch, manifest, content, this.deps) : await makeCopy(root, manifest, content);
      if (left.length > 0) {
        throw new InvalidRequestError(`The copy could not be made: ${left.map((file) => `${file.path} (${file.reason})`).join(', ')}.`);
      }
      const cwd = place && place.subdir !== '' ? path.join(root, ...place.subdir.split('/')) : root;
      const note = plainBecause ? `This branch works in a plain copy of the folder, not a git worktree: ${plainBecause}.` : undefined;
      const made = await this.deps.rewinds.branch(conversationId, turnId, {
        restoreFiles: false,
        ownCopy: { branchId, cwd, copy, ...(note ? { note } : {}) },
      });
      rmSync(this.ownerFile(branchId), { force: true });
      return made;
    } catch (error) {
      await removeCopy(copy, this.deps).catch((problem: unknown) =>
        this.deps.log(`could not remove the branch copy ${root}: ${String(problem)}`),
      );
      rmSync(this.ownerFile(branchId), { force: true });
      throw error;
    }
  }

  /** Before a branch is erased: its copy (worktree and branch too) goes with it. */
  async beforePurge(conversationId: string): Promise<void> {
    const copy = this.copyOf(conversationId);
    if (copy) {
      await removeCopy(copy, this.deps).catch((error: unknown) =>
        this.deps.log(`could not remove the branch copy ${copy.folder}: ${String(error)}`),
      );
    }
  }

  /** At start-up: copies whose branch was never recorded (the host died while making them) are removed. Returns them. */
  async recover(): Promise<string[]> {
    if (!existsSync(this.top)) {
      return [];
    }
    const removed: string[] = [];
    for (const name of readdirSync(this.top)) {
      if (!name.endsWith('.json')) {
        continue;
      }
      const branchId = name.slice(0, -'.json'.length);
      const parsed = copySchema.safeParse(readJson(path.join(this.top, name)));
      if (parsed.success && path.dirname(parsed.data.folder) === this.top && !this.recorded(branchId)) {
        await removeCopy(parsed.data, this.deps).catch((error: unknown) =>
          this.deps.log(`could not remove ${parsed.data.folder}: ${String(error)}`),
        );
        removed.push(parsed.data.folder);
      }
      rmSync(path.join(this.top, name), { force: true });
    }
    return removed;
  }

  /** The files the copy starts with: before the message (its checkpoint), or the folder now. */
  private async startingFiles(
    summary: ConversationSummary,
    turnId: string,
    fromBefore: boolean,
  ): Promise<ReadonlyMap<string, CheckpointEntry>> {
    const { checkpoints, store } = this.deps;
    if (fromBefore) {
      const before = checkpointsByTurn(store.readEvents(summary.conversationId).events).get(turnId)?.before?.checkpointId;
      if (!before) {
        throw new InvalidRequestError(
          'The copy cannot start from the files before that message: no checkpoint was taken before it. Start it from the folder as it is now.',
        );
      }
      return checkpoints.manifest(before);
    }
    const now = await checkpoints.take(summary.cwd, { maxFileBytes: maxFileBytesSetting(store) });
    return checkpoints.manifest(now.checkpointId);
  }

  /** The copy a branch works in, from its `conversation.branched`. */
  private copyOf(conversationId: string): BranchCopy | undefined {
    const branched = this.deps.store.readEvents(conversationId).events.find((event) => event.type === 'conversation.branched');
    return branched?.type === 'conversation.branched' ? branched.payload.copy : undefined;
  }

  private recorded(branchId: string): boolean {
    try {
      return this.copyOf(branchId) !== undefined;
    } catch {
      return false;
    }
  }

  private ownerFile(branchId: string): string {
    return path.join(this.top, `${branchId}.json`);
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
