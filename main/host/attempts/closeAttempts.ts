/**
 * Where attempts' copies go: set aside (or after a Keep) every copy but a continued one is removed,
 * each attempt's last state kept as a checkpoint first; erasing a conversation erases its
 * attempts and their copies, and erasing a branch continued from an attempt takes its copy; at
 * start-up the copies nothing accounts for are removed.
 */
import type { Result } from '../../../app/ipc/index.js';
import type { AttemptView } from '../../../app/transcript/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { exists, rootOf, scanOn, stopWatching, type AttemptsContext } from './attemptsContext.js';
import { copyMachineOf, removeBox } from './attemptBoxes.js';
import { removeCopy, type GitHost } from './folderCopies.js';
import { checkpointTaken } from './keptTurns.js';

/**
 * Stops the attempts still running, keeps each one's last checkpoint, removes the copies (not those
 * continued) and records it. `record: false`: nothing is recorded or kept (the conversation is
 * being erased, or its attempts never started); `prepared: false`: called by the preparation
 * itself, which is not waited for.
 */
export async function removeCopies(
  ctx: AttemptsContext,
  conversationId: string,
  attemptsId: string,
  { record = true, prepared = true }: { record?: boolean; prepared?: boolean } = {},
): Promise<Result<'setAttemptsAside'>> {
  const { deps, sets } = ctx;
  if (prepared) {
    await ctx.preparing.get(attemptsId);
  }
  const owner = await sets.copies.read(attemptsId);
  const on = sets.copies.on(owner?.machine);
  const set = sets.lookup(conversationId, attemptsId);
  const failed: Array<{ attemptId: string; reason: string }> = [];
  for (const attempt of set?.attempts ?? []) {
    if (attempt.continuedAs || !sets.exists(attempt.conversationId)) {
      continue;
    }
    await deps.turns.release(attempt.conversationId);
    await deps.turnCheckpoints?.idle(attempt.conversationId);
    if (record && attempt.state === 'prepared' && (await exists(on, attempt.folder))) {
      // Its last state is kept, so it can still be continued as a branch.
      await keepFinal(ctx, attempt, on).catch((error: unknown) =>
        deps.log(`could not keep the last state of ${attempt.folder}: ${String(error)}`),
      );
    }
  }
  stopWatching(ctx, attemptsId);
  for (const copy of owner?.copies ?? []) {
    await sets.copies
      .remove(owner!, copy, on)
      .catch((error: unknown) => failed.push({ attemptId: copy.attemptId, reason: (error as Error).message }));
  }
  // Their containers (attempts in containers) go with them.
  await removeBox(ctx, ...(set?.attempts ?? []).filter((attempt) => owner?.copies.some((copy) => copy.attemptId === attempt.attemptId)));
  if (failed.length === 0) {
    await sets.copies.removeDirectory(attemptsId, on);
  }
  if (record && set) {
    deps.committer.commit(conversationId, [{ type: 'attempts.removed', payload: { attemptsId, failed } }]);
  }
  return { failed };
}

/** Records the attempt's copy as it is now in its own conversation (the checkpoint a later Continue makes its copy from). */
async function keepFinal(ctx: AttemptsContext, attempt: AttemptView, on: GitHost): Promise<void> {
  const { checkpoints, committer } = ctx.deps;
  const final = await checkpoints.take(attempt.folder, scanOn(ctx.deps, on));
  const lastTurn = ctx.sets.ownEvents(attempt.conversationId).findLast((event) => event.type === 'turn.started');
  if (lastTurn?.type === 'turn.started') {
    committer.commit(attempt.conversationId, [checkpointTaken(lastTurn.payload.turnId, 'after', final)]);
  }
}

/**
 * Before a conversation is erased: its attempts' conversations are erased with it (through
 * `erase`) and their copies removed; a branch continued from an attempt takes its copy with it.
 */
export async function beforePurge(
  ctx: AttemptsContext,
  summary: ConversationSummary,
  erase: (conversationId: string) => Promise<void>,
): Promise<void> {
  const { deps, sets } = ctx;
  if (summary.branchedFrom && summary.attemptOf) {
    // A continued attempt: its copy goes with it.
    await removeContinuedCopy(ctx, summary);
    return;
  }
  for (const set of sets.of(summary.conversationId)) {
    await ctx.preparing.get(set.attemptsId);
    if (!set.removed) {
      // Copies on a machine that cannot be reached now stay listed (removed at a start that finds it open).
      await removeCopies(ctx, summary.conversationId, set.attemptsId, { record: false }).catch((error: unknown) =>
        deps.log(`could not remove the copies of ${set.attemptsId}: ${String(error)}`),
      );
    }
    for (const attempt of set.attempts) {
      if (!attempt.continuedAs && sets.exists(attempt.conversationId)) {
        await erase(attempt.conversationId);
      }
    }
  }
}

/** Removes the copy of a branch continued from an attempt (it is being erased). */
async function removeContinuedCopy(ctx: AttemptsContext, summary: ConversationSummary): Promise<void> {
  const attemptOf = summary.attemptOf!;
  const set = ctx.sets.lookup(attemptOf.conversationId, attemptOf.attemptsId);
  const attempt = set?.attempts.find((candidate) => candidate.attemptId === attemptOf.attemptId);
  const worktree = attempt?.kind === 'worktree' && set?.repository !== undefined;
  const on = ctx.sets.copies.on(copyMachineOf(summary.machine));
  const root = attempt && worktree ? rootOf(attempt, on) : summary.cwd;
  // Only the branch Baton recorded when it made the copy: whatever the copy's own .git says now is the agent's to write.
  await removeCopy(
    { folder: root, repository: worktree ? set.repository : undefined, branch: worktree ? attempt.branch : undefined },
    on,
  ).catch((error: unknown) => ctx.deps.log(`could not remove ${root}: ${String(error)}`));
  if (attempt) {
    await removeBox(ctx, attempt);
  }
  await ctx.sets.copies.removeDirectory(attemptOf.attemptsId, on);
}

/**
 * At start-up: copies whose attempts are gone, were removed, or never got recorded are removed;
 * attempts whose copy was still being made are marked failed. Copies of open attempts stay,
 * listed with them. Returns what was removed (for the log).
 */
export async function recoverCopies(ctx: AttemptsContext): Promise<string[]> {
  const { deps, sets } = ctx;
  const { copies } = sets;
  const removed: string[] = [];
  for (const name of await copies.listed()) {
    const owner = await copies.read(name);
    if (!owner) {
      removed.push(await copies.removeUnlisted(name));
      continue;
    }
    const set = sets.lookup(owner.conversationId, owner.attemptsId);
    const ended = !set || set.removed !== undefined;
    const unfinished = ended ? [] : set.attempts.filter((attempt) => attempt.state === 'preparing');
    // Copies on another machine are removed when a start finds it open; its attempts are marked all the same.
    const on = copies.ready(owner.machine);
    const gone = ended ? owner.copies : owner.copies.filter((copy) => unfinished.some((attempt) => attempt.attemptId === copy.attemptId));
    if (on) {
      for (const copy of gone) {
        await copies.remove(owner, copy, on).catch((error: unknown) => deps.log(`could not remove ${copy.root}: ${String(error)}`));
        removed.push(copy.root);
        if (!ended) {
          await copies.forget(owner.attemptsId, copy.attemptId);
        }
      }
      if (ended) {
        await copies.removeDirectory(owner.attemptsId, on);
      }
    } else if (gone.length > 0) {
      deps.log(`${gone.length} copies of ${owner.attemptsId} are on ${owner.machine}, which is not connected: they stay listed`);
    }
    if (unfinished.length > 0) {
      deps.committer.commit(
        owner.conversationId,
        unfinished.map((attempt) => ({
          type: 'attempt.failed' as const,
          payload: {
            attemptsId: owner.attemptsId,
            attemptId: attempt.attemptId,
            reason: 'Baton stopped before its copy of the folder was ready.',
          },
        })),
      );
    }
  }
  return removed;
}

/** The copies left on their machines (those open now), by attempts id (tests, and the check that nothing is unaccounted for). */
export async function copiesOnDisk(ctx: AttemptsContext): Promise<Array<{ attemptsId: string; conversationId: string; roots: string[] }>> {
  const { copies } = ctx.sets;
  const found = [];
  for (const name of await copies.listed()) {
    const owner = await copies.read(name);
    const on = owner ? copies.ready(owner.machine) : undefined;
    if (owner && on) {
      const roots = [];
      for (const copy of owner.copies) {
        if (await exists(on, copy.root)) {
          roots.push(copy.root);
        }
      }
      found.push({ attemptsId: owner.attemptsId, conversationId: owner.conversationId, roots });
    }
  }
  return found;
}
