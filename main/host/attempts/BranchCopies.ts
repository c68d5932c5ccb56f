/**
 * "Branch from here" in its own copy of the working folder, so that two branches never edit the
 * same files: made like an attempt's copy (`folderCopies.ts`), on the machine the folder is on, in
 * `<that machine's Baton folder>/branches/<branch id>`:
 * a git worktree on a new branch `baton/<branch id>/branch` where the folder is in a repository,
 * else a copy. It starts from the files as they were before the message (its checkpoint) when the
 * person asks for that, else from the folder as it is now; the person's folder is not touched
 * either way. The copy is said in the branch's `conversation.branched` and goes with the branch
 * when it is erased; one left by a host that died before the branch was recorded is removed at
 * the next start (an owner file, written before the copy, names its repository and branch).
 */
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
import type { EventStore } from '../store/EventStore.js';
import { pathsOf } from '../machine/Machine.js';
import {
  copyPlaceOf,
  freeBranch,
  gitHostOn,
  gitHostReady,
  makeCopy,
  makeWorktree,
  readOwnerFile,
  removeCopy,
  under,
  type CopyMachines,
  type GitHost,
} from './folderCopies.js';

/** What a branch's copy is, as recorded (and in its owner file). */
const copySchema = z.object({
  folder: z.string(),
  repository: z.string().optional(),
  branch: z.string().optional(),
  machine: z.string().optional(),
});
type BranchCopy = z.infer<typeof copySchema>;

export type BranchCopiesDeps = CopyMachines & {
  store: EventStore;
  checkpoints: CheckpointStore;
  rewinds: Pick<Rewinds, 'branch'>;
  /** This computer's data folder (the owner files). */
  dataDir: string;
  log: (message: string) => void;
};

/** Branches that work in a copy of their own. */
export class BranchCopies {
  constructor(private readonly deps: BranchCopiesDeps) {}

  /** The owner files' folder (this computer's). */
  private get top(): string {
    return path.join(this.deps.dataDir, 'branches');
  }

  /** The copies' folder on the machine. */
  private topOn(on: GitHost): string {
    return pathsOf(on.machine).join(on.machine.dataDir, 'branches');
  }

  /**
   * Branches `conversationId` before `turnId`'s message into a copy of its folder (from the files
   * before that message when `fromBefore`, else as they are now). Nothing is left behind when it fails.
   */
  async branch(conversationId: string, turnId: string, fromBefore: boolean): Promise<Awaited<ReturnType<Rewinds['branch']>>> {
    const { store, checkpoints } = this.deps;
    const summary = store.getSummary(conversationId);
    const on = gitHostOn(summary.machine, this.deps);
    const manifest = await this.startingFiles(summary, turnId, fromBefore, on);
    const branchId = newId();
    const { place, plainBecause } = await copyPlaceOf(summary.cwd, on);
    const root = pathsOf(on.machine).join(this.topOn(on), branchId);
    const branch = place ? await freeBranch(place.root, `baton/${branchPart(branchId)}/branch`, on) : undefined;
    const copy: BranchCopy = {
      folder: root,
      machine: summary.machine,
      ...(place && branch ? { repository: place.root, branch } : {}),
    };
    // Named before it is made (this computer's owner file): a copy left by a host that died here is found and removed at the next start.
    const here = this.deps.machine;
    await here.mkdir(this.top, 0o700);
    await here.writeConfined(this.top, `${branchId}.json`, Buffer.from(JSON.stringify(copy)), 0o600);
    try {
      const content = (hash: string): Buffer => checkpoints.content(hash);
      let left: LeftOut[];
      if (place && branch) {
        left = await makeWorktree(place, root, branch, manifest, content, on);
      } else {
        // Cloned from the conversation's folder where they can be (the files still as the checkpoint read them).
        const plain = await makeCopy(root, manifest, content, on, summary.cwd);
        this.deps.log(`branch copy ${root}: ${plain.way}`);
        left = plain.failed;
      }
      if (left.length > 0) {
        throw new InvalidRequestError(`The copy could not be made: ${left.map((file) => `${file.path} (${file.reason})`).join(', ')}.`);
      }
      const cwd = under(on, root, place?.subdir ?? '');
      const note = plainBecause ? `This branch works in a plain copy of the folder, not a git worktree: ${plainBecause}.` : undefined;
      const made = await this.deps.rewinds.branch(conversationId, turnId, {
        restoreFiles: false,
        ownCopy: { branchId, cwd, copy, ...(note ? { note } : {}) },
      });
      await here.remove(this.ownerFile(branchId));
      return made;
    } catch (error) {
      await removeCopy(copy, on).catch((problem: unknown) => this.deps.log(`could not remove the branch copy ${root}: ${String(problem)}`));
      await here.remove(this.ownerFile(branchId));
      throw error;
    }
  }

  /** Before a branch is erased: its copy (worktree and branch too) goes with it. */
  async beforePurge(conversationId: string): Promise<void> {
    const copy = this.copyOf(conversationId);
    if (copy) {
      // A copy on a machine that cannot be reached now is left there (said in the log), the branch erased all the same.
      try {
        await removeCopy(copy, gitHostOn(copy.machine, this.deps));
      } catch (error) {
        this.deps.log(`could not remove the branch copy ${copy.folder}: ${String(error)}`);
      }
    }
  }

  /** At start-up: copies whose branch was never recorded (the host died while making them) are removed. Returns them. */
  async recover(): Promise<string[]> {
    const here = this.deps.machine;
    const names = (await here.list(this.top).catch(() => [])).map((entry) => entry.name);
    const removed: string[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) {
        continue;
      }
      const branchId = name.slice(0, -'.json'.length);
      const parsed = copySchema.safeParse(await readOwnerFile(here, path.join(this.top, name)));
      const on = gitHostReady(parsed.data?.machine, this.deps);
      if (!on) {
        // On a machine not connected now: the owner file stays, for a start that finds it open.
        continue;
      }
      const copy = parsed.data;
      if (copy && pathsOf(on.machine).dirname(copy.folder) === this.topOn(on) && !this.recorded(branchId)) {
        await removeCopy(copy, on).catch((error: unknown) => this.deps.log(`could not remove ${copy.folder}: ${String(error)}`));
        removed.push(copy.folder);
      }
      await here.remove(path.join(this.top, name));
    }
    return removed;
  }

  /** The files the copy starts with: before the message (its checkpoint), or the folder now. */
  private async startingFiles(
    summary: ConversationSummary,
    turnId: string,
    fromBefore: boolean,
    on: GitHost,
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
    const now = await checkpoints.take(summary.cwd, { maxFileBytes: maxFileBytesSetting(store), machine: on.machine });
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
