/**
 * Continue: an attempt becomes a branch of its own ("<title> (<agent>'s attempt)") in its copy of
 * the folder; a copy already removed is made again at the same place from the attempt's last
 * checkpoint (a worktree on a new branch where it was one). The branch Baton made for the copy is
 * recorded with the continue, so erasing the branch deletes that one only.
 */
import { InvalidRequestError } from '../../../app/errors.js';
import { branchPart } from '../../../app/transcript/attempts.js';
import type { AttemptView } from '../../../app/transcript/index.js';
import { titleFromMessage, type ConversationSummary } from '../../../app/transcript/summary.js';
import type { CheckpointEntry } from '../checkpoints/CheckpointStore.js';
import { LOCAL_MACHINE_ID } from '../machine/Machine.js';
import type { AttemptSet } from './AttemptSets.js';
import { exists, rootOf, type AttemptsContext } from './attemptsContext.js';
import { startBox } from './attemptBoxes.js';
import { copyPlaceOf, freeBranch, makeCopy, makeWorktree } from './folderCopies.js';

/** Continues `attempt` of `set`, asked in the conversation `parent`; returns the branch's summary. */
export async function continueAttempt(
  ctx: AttemptsContext,
  parent: ConversationSummary,
  set: AttemptSet,
  attempt: AttemptView,
): Promise<ConversationSummary> {
  const { store, committer } = ctx.deps;
  if (attempt.continuedAs) {
    return store.getSummary(attempt.continuedAs);
  }
  if (attempt.state !== 'prepared') {
    throw new InvalidRequestError(`${attempt.agentName}'s attempt did not start, so there is nothing to continue.`);
  }
  await Promise.all(ctx.removing);
  // The branch Baton made for the copy is recorded with the continue: erasing the branch deletes that one only.
  const branch = set.removed ? await remakeCopy(ctx, parent, set, attempt) : attempt.branch;
  if (set.removed && set.container && attempt.machine) {
    // Its container went with its copy: a new one, as the attempts had, with the copy made again.
    const root = rootOf(attempt, ctx.sets.copies.on(parent.machine));
    await startBox(ctx, { ...attempt, root }, attempt.kind === 'worktree' ? set.repository : undefined, set.container);
  }
  const firstTurn = ctx.sets.ownEvents(attempt.conversationId).find((event) => event.type === 'turn.started');
  const { attemptsId } = set;
  const summary = committer.commit(attempt.conversationId, [
    // Named after the conversation, or while it has no title yet, after the message the agents were asked.
    { type: 'conversation.renamed', payload: { title: `${parent.title || titleFromMessage(set.text)} (${attempt.agentName}'s attempt)` } },
    {
      type: 'conversation.branched',
      payload: {
        fromConversationId: parent.conversationId,
        fromTitle: parent.title,
        fromTurnId: firstTurn?.type === 'turn.started' ? firstTurn.payload.turnId : attemptsId,
      },
    },
  ]).summary;
  committer.commit(parent.conversationId, [
    {
      type: 'attempt.continued',
      payload: {
        attemptsId,
        attemptId: attempt.attemptId,
        conversationId: attempt.conversationId,
        ...(branch === undefined ? {} : { branch }),
      },
    },
  ]);
  // The branch's copy is its own now: it goes when the branch is erased, not with the attempts.
  await ctx.sets.copies.forget(attemptsId, attempt.attemptId);
  return summary;
}

/** Makes an attempt's copy again, at the same place, from its last checkpoint. Returns the branch made, if any. */
async function remakeCopy(
  ctx: AttemptsContext,
  parent: ConversationSummary,
  set: AttemptSet,
  attempt: AttemptView,
): Promise<string | undefined> {
  const { checkpoints } = ctx.deps;
  const final = ctx.sets.finalCheckpoint(attempt.conversationId) ?? attempt.checkpointId;
  if (!final) {
    throw new InvalidRequestError(`${attempt.agentName}'s copy was removed and no checkpoint of it was kept, so it cannot be made again.`);
  }
  const on = ctx.sets.copies.on(parent.machine);
  const worktree = attempt.kind === 'worktree' && set.repository !== undefined;
  const root = worktree ? rootOf(attempt, on) : attempt.folder;
  if (await exists(on, root)) {
    throw new InvalidRequestError(`${attempt.agentName}'s copy cannot be made again: ${root} is in use.`);
  }
  let manifest: ReadonlyMap<string, CheckpointEntry>;
  try {
    manifest = checkpoints.manifest(final);
  } catch {
    throw new InvalidRequestError(
      `${attempt.agentName}'s copy cannot be made again: its last checkpoint is not in this data folder (an imported conversation keeps only the text).`,
    );
  }
  const content = (hash: string): Buffer => checkpoints.content(hash);
  // A repository whose config came to name commands since is given a plain copy (copyPlaceOf).
  const place = worktree ? (await copyPlaceOf(parent.cwd, on)).place : undefined;
  const branch = place
    ? await freeBranch(place.root, attempt.branch ?? `baton/${branchPart(parent.conversationId)}/${branchPart(attempt.agentId)}`, on)
    : undefined;
  await ctx.sets.copies.write({
    conversationId: parent.conversationId,
    attemptsId: set.attemptsId,
    ...(parent.machine === LOCAL_MACHINE_ID ? {} : { machine: parent.machine }),
    ...(place ? { repository: place.root } : {}),
    copies: [{ attemptId: attempt.attemptId, root, ...(branch ? { branch } : {}) }],
  });
  const left =
    place && branch
      ? await makeWorktree(place, root, branch, manifest, content, on)
      : (await makeCopy(attempt.folder, manifest, content, on)).failed;
  if (left.length > 0) {
    throw new InvalidRequestError(
      `${attempt.agentName}'s copy could not be made again: ${left.map((file) => `${file.path} (${file.reason})`).join(', ')}`,
    );
  }
  return branch;
}
