/**
 * The background part of an ask: each attempt's copy is made, its conversation created (the asking
 * conversation's history in the copy's folder) and its agent sent the message; the agents start
 * while the files are written, each session opening once its folder is whole. Each attempt ends
 * prepared, or failed with why.
 */
import type { Envelope } from '../../../app/events/index.js';
import { ATTEMPTS_EVENT_TYPES } from '../../../app/transcript/attempts.js';
import type { AttemptView } from '../../../app/transcript/index.js';
import { titleFromMessage, type ConversationSummary } from '../../../app/transcript/summary.js';
import type { CheckpointStore, LeftOut } from '../checkpoints/CheckpointStore.js';
import { scanOn, watchWhileOpen, type AttemptsContext } from './attemptsContext.js';
import { removeCopies } from './closeAttempts.js';
import { removeBox, startBox, type ContainerChoice } from './attemptBoxes.js';
import { fillCopy, fillWorktree, removeCopy, startWorktree, type GitHost, type GitPlace } from './folderCopies.js';

/** Event types of the asking conversation an attempt's history leaves out: its sessions, its place in the list, its own attempts. */
const NOT_GIVEN = new Set<string>([
  'session.bound',
  'conversation.archived',
  'conversation.unarchived',
  'conversation.deleted',
  'conversation.restored',
  ...ATTEMPTS_EVENT_TYPES,
]);

/** One attempt with where its copy is (in a container: `machine` is the container's). */
export type Planned = AttemptView & { root: string };

/** What one ask prepares: where, what, and the options the person picked for each agent. */
export type Preparation = {
  summary: ConversationSummary;
  attemptsId: string;
  text: string;
  planned: Planned[];
  place: GitPlace | undefined;
  on: GitHost;
  options: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Each attempt in a container of its own. */
  container?: ContainerChoice | undefined;
};

/** Makes the copies, creates each attempt's conversation and sends it the message. */
export async function prepareAttempts(
  ctx: AttemptsContext,
  { summary, attemptsId, text, planned, place, on, options, container }: Preparation,
): Promise<void> {
  const { checkpoints, committer, log } = ctx.deps;
  const conversationId = summary.conversationId;
  const fail = (attempt: Planned, reason: string): void => {
    log(`attempt ${attempt.attemptId} (${attempt.agentName}) failed: ${reason}`);
    try {
      committer.commit(conversationId, [{ type: 'attempt.failed', payload: { attemptsId, attemptId: attempt.attemptId, reason } }]);
    } catch (error) {
      log(`could not record that: ${String(error)}`);
    }
  };
  let base: Awaited<ReturnType<CheckpointStore['take']>>;
  // Watched from before the attempts' base: a Keep's look at the folder needs only what changed since.
  watchWhileOpen(ctx, attemptsId, summary.cwd, on);
  try {
    base = await checkpoints.take(summary.cwd, scanOn(ctx.deps, on));
  } catch (error) {
    for (const attempt of planned) {
      fail(attempt, `the working folder could not be copied: ${(error as Error).message}`);
    }
    // Not waited for: this is the preparation the removal would wait for.
    await removeCopies(ctx, conversationId, attemptsId, { record: false, prepared: false });
    return;
  }
  const manifest = checkpoints.manifest(base.checkpointId);
  const content = (hash: string): Buffer => checkpoints.content(hash);
  const failed = async (attempt: Planned, error: unknown): Promise<void> => {
    fail(attempt, (error as Error).message);
    await removeCopy({ folder: attempt.root, repository: place?.root, branch: attempt.branch }, on).catch(() => undefined);
    if (container) {
      await removeBox(ctx, attempt);
    }
    await ctx.sets.copies.forget(attemptsId, attempt.attemptId);
  };
  const started: Array<{ attempt: Planned; fromSeq: number; filled: (left: LeftOut[] | Error) => void }> = [];
  const begin = async (attempt: Planned): Promise<void> => {
    try {
      if (container) {
        // Its container, its copy mounted, and Baton's server there: the agent starts in it.
        await startBox(ctx, attempt, place?.root, container);
      }
      const fromSeq = createConversation(ctx, summary, { attemptsId, text }, attempt, options.get(attempt.agentId) ?? {});
      let filled: (left: LeftOut[] | Error) => void = () => {};
      const ready = new Promise<void>((resolve, reject) => {
        filled = (left) => {
          if (left instanceof Error) {
            reject(left);
          } else if (left.length > 0) {
            reject(new Error(`${attempt.agentName}'s copy of the folder could not be made: ${notCopied(left)}`));
          } else {
            resolve();
          }
        };
      });
      ctx.deps.pendingFolders?.hold(attempt.conversationId, ready);
      started.push({ attempt, fromSeq, filled });
      await ctx.deps.turns.send(attempt.conversationId, text, attempt.agentId);
    } catch (error) {
      const at = started.findIndex((entry) => entry.attempt === attempt);
      if (at >= 0) {
        started[at]!.filled(error as Error);
        started.splice(at, 1);
      }
      await failed(attempt, error);
    }
  };
  // First each copy's folder (a worktree without its files yet), its conversation and its turn:
  // the agents start while the files are written; each session opens once its folder is whole.
  const begun: Array<Promise<void>> = [];
  for (const attempt of planned) {
    try {
      if (place) {
        // One worktree at a time: git takes the repository's locks for each.
        await startWorktree(place, attempt.root, attempt.branch!, on);
      } else {
        await on.machine.mkdir(attempt.root, 0o700);
      }
    } catch (error) {
      await failed(attempt, error);
      continue;
    }
    // Containers start side by side; without them this is at once.
    begun.push(begin(attempt));
  }
  await Promise.all(begun);
  const fill = async ({ attempt, fromSeq, filled }: (typeof started)[number]): Promise<void> => {
    try {
      let left: LeftOut[];
      if (place) {
        left = await fillWorktree(place, attempt.root, manifest, content, on);
      } else {
        // Cloned from the working folder where its file system makes clones (the files still as the base checkpoint read them).
        const copy = await fillCopy(attempt.root, manifest, content, on, summary.cwd);
        log(`attempt ${attempt.attemptId} (${attempt.agentName}): its copy's ${copy.way}`);
        left = copy.failed;
        if (left.length === 0 && !container) {
          // The copy's first checkpoint is what it was made as (asked before its turn's, which then reads nothing again).
          void checkpoints
            .adopt(attempt.folder, copy.made, on.machine)
            .catch((error: unknown) => log(`attempt ${attempt.attemptId}: its copy's checkpoint was not recorded: ${String(error)}`));
        }
      }
      filled(left);
      if (left.length > 0) {
        throw new Error(notCopied(left));
      }
      watchWhileOpen(ctx, attemptsId, attempt.folder, on);
      committer.commit(conversationId, [
        { type: 'attempt.prepared', payload: { attemptsId, attemptId: attempt.attemptId, checkpointId: base.checkpointId, fromSeq } },
      ]);
    } catch (error) {
      filled(error as Error);
      await ctx.deps.turns.release(attempt.conversationId).catch(() => undefined);
      await failed(attempt, error);
    }
  };
  // Each worktree checks out into its own folder and index: they are filled at once, like copies.
  await Promise.all(started.map(fill));
}

/** "N files could not be copied (the first three with why)". */
function notCopied(left: readonly LeftOut[]): string {
  return `${left.length} file${left.length === 1 ? '' : 's'} could not be copied (${left
    .slice(0, 3)
    .map((file) => `${file.path}: ${file.reason}`)
    .join('; ')})`;
}

/** The attempt's conversation: the asking one's history (in the copy's folder), then the attempt's own mark. */
function createConversation(
  ctx: AttemptsContext,
  summary: ConversationSummary,
  { attemptsId, text }: { attemptsId: string; text: string },
  attempt: Planned,
  chosen: Readonly<Record<string, string>>,
): number {
  const { store, committer } = ctx.deps;
  committer.flush(summary.conversationId);
  const history: Envelope[] = store
    .readEnvelopes(summary.conversationId)
    .filter((envelope) => !NOT_GIVEN.has(envelope.type))
    .map((envelope, index) => ({
      ...envelope,
      conversationId: attempt.conversationId,
      seq: index + 1,
      ...(envelope.type === 'conversation.created'
        ? { payload: { ...(envelope.payload as object), cwd: attempt.folder, ...(attempt.machine ? { machine: attempt.machine } : {}) } }
        : {}),
    }));
  store.importEnvelopes(attempt.conversationId, history);
  committer.commit(attempt.conversationId, [
    // Named after the conversation, or while it had no title yet, after the message the agents were asked.
    { type: 'conversation.renamed', payload: { title: `${summary.title || titleFromMessage(text)} — attempt by ${attempt.agentName}` } },
    {
      type: 'conversation.attempt',
      payload: {
        ofConversationId: summary.conversationId,
        attemptsId,
        attemptId: attempt.attemptId,
        fromSeq: history.length + 2,
        agentId: attempt.agentId,
        chosen: { ...chosen },
      },
    },
  ]);
  return history.length + 2;
}
