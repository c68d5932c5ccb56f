/**
 * Keep: the attempt's changes (its copy now against the copy as made) are applied to the working
 * folder; a file the person changed since the attempts started is left alone unless ticked. Its
 * turns join the asking conversation, which goes on with that agent; the copies are removed in the
 * background. The preview shows the same plan without writing anything.
 */
import { InvalidRequestError, TurnInProgressError } from '../../../app/errors.js';
import type { Result } from '../../../app/ipc/index.js';
import type { AttemptView } from '../../../app/transcript/index.js';
import { diffManifests, type Checkpoint, type FileChange, type LeftOut } from '../checkpoints/CheckpointStore.js';
import { fileTexts } from './attemptComparison.js';
import type { AttemptChoiceOf } from './AttemptSets.js';
import { scanOn, type AttemptsContext } from './attemptsContext.js';
import { removeCopies } from './closeAttempts.js';
import type { GitHost } from './folderCopies.js';
import { keptTurns } from './keptTurns.js';

/** What keeping an attempt would apply, and which of those files the person changed since. */
type KeepPlan = {
  attempt: AttemptView;
  changes: FileChange[];
  changedByYou: Set<string>;
  cannot: LeftOut[];
  /** Keeping: the working folder as it was just before (the kept turns' "before"). */
  folderNow?: Checkpoint;
  on: GitHost;
};

/** Each file the attempt changed, whether the person changed it since (then left alone unless ticked), both texts. */
export async function previewKeep(ctx: AttemptsContext, choice: AttemptChoiceOf): Promise<Result<'previewKeep'>> {
  const plan = await planKeep(ctx, choice, false);
  return {
    files: plan.changes.map((change) => ({
      path: change.path,
      change: change.change,
      changedByYou: plan.changedByYou.has(change.path),
      ...fileTexts(ctx.deps.checkpoints, change),
    })),
    cannot: plan.cannot,
  };
}

/** Applies the attempt's changes (a file the person changed only when in `overwrite`), commits its turns, removes the copies. */
export async function keepAttempt(
  ctx: AttemptsContext,
  choice: AttemptChoiceOf,
  overwrite: readonly string[],
): Promise<Result<'keepAttempt'>> {
  const plan = await planKeep(ctx, choice, true);
  const { checkpoints, committer } = ctx.deps;
  const { place, set } = choice;
  const { cwd, conversationId } = place;
  const chosen = plan.changes.filter((change) => !plan.changedByYou.has(change.path) || overwrite.includes(change.path));
  const left = plan.changes.filter((change) => !chosen.includes(change)).map((change) => change.path);
  // The folder before and after: the kept turns' checkpoints (a rewind to before them puts back what Keep wrote).
  const before = plan.folderNow!;
  const notWritten = await checkpoints.restore(
    cwd,
    chosen.map((change) => ({ path: change.path, entry: change.after })),
    checkpoints.folderOf(before.checkpointId).real ?? undefined,
    plan.on.machine,
  );
  const failedPaths = new Set(notWritten.map((file) => file.path));
  const applied = chosen.filter((change) => !failedPaths.has(change.path)).map((change) => ({ path: change.path, change: change.change }));
  // Just after the swept checkpoint before: only what Keep wrote (and what the watch heard) is looked at.
  const after = await checkpoints.take(cwd, { ...scanOn(ctx.deps, plan.on), written: chosen.map((change) => change.path) });
  const failed = [...plan.cannot, ...notWritten];
  // The attempt's own turns join the conversation as they were, its copy's checkpoints replaced by the working folder's.
  const own = keptTurns(ctx.sets.ownEvents(plan.attempt.conversationId), before, after);
  const { attemptsId } = set;
  const { attemptId } = plan.attempt;
  committer.commit(conversationId, [{ type: 'attempt.kept', payload: { attemptsId, attemptId, applied, left, failed } }, ...own]);
  // The copies go in the background (attempts.removed says when, and what could not be removed):
  // the person's folder is ready now.
  const removing = removeCopies(ctx, conversationId, attemptsId)
    .catch((error: unknown) => ctx.deps.log(`could not remove the copies of ${attemptsId}: ${String(error)}`))
    .finally(() => ctx.removing.delete(removing));
  ctx.removing.add(removing);
  return { applied, left, failed };
}

async function planKeep(ctx: AttemptsContext, { place, set, attempt }: AttemptChoiceOf, keeping: boolean): Promise<KeepPlan> {
  const { deps } = ctx;
  if (set.kept) {
    throw new InvalidRequestError('One of these attempts was kept already.');
  }
  if (set.removed) {
    throw new InvalidRequestError('These attempts were set aside: their copies are gone. Continue one as a branch instead.');
  }
  if (attempt.state !== 'prepared' || !attempt.checkpointId) {
    throw new InvalidRequestError(`${attempt.agentName}'s attempt did not start, so there is nothing to keep.`);
  }
  deps.importReview.requireConfirmed(place.conversationId);
  if (deps.turns.activeTurnId(attempt.conversationId) !== undefined) {
    throw new InvalidRequestError(
      `${attempt.agentName} is still working on its attempt: stop it, or wait for it to finish, before keeping it.`,
    );
  }
  if (deps.turns.activeTurnId(place.conversationId) !== undefined) {
    throw new TurnInProgressError(place.conversationId);
  }
  const { checkpoints } = deps;
  const on = ctx.sets.copies.on(place.machine);
  const scan = scanOn(deps, on);
  await deps.turnCheckpoints?.idle(attempt.conversationId);
  const now = await checkpoints.take(attempt.folder, scan);
  const start = checkpoints.manifest(attempt.checkpointId);
  const changes = diffManifests(start, checkpoints.manifest(now.checkpointId));
  // Keeping: the working folder as it is now is kept as a checkpoint (the kept turns' "before"); a preview only looks.
  const folderNow = keeping ? await checkpoints.take(place.cwd, scan) : undefined;
  const yours = folderNow ? checkpoints.manifest(folderNow.checkpointId) : await checkpoints.look(place.cwd, scan);
  const changedByYou = new Set(
    changes.filter((change) => yours.get(change.path)?.hash !== start.get(change.path)?.hash).map((change) => change.path),
  );
  const cannot = [...now.tooLarge, ...now.failed].map((file) => ({ path: file.path, reason: `not kept: ${file.reason}` }));
  return { attempt, changes, changedByYou, cannot, on, ...(folderNow ? { folderNow } : {}) };
}
