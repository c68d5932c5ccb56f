/**
 * "Ask several agents": one message to two to four agents at once, each attempt in its own copy
 * of the working folder (see `folderCopies.ts`) and its own hidden conversation, made of the
 * asking conversation's history, so each agent gets the conversation so far the usual way (its
 * first turn is handed off) and its turns, permissions, terminals and checkpoints are those of an
 * ordinary conversation, confined to its copy. The asking conversation records the attempts
 * (`attempts.started` before any copy exists, then each one prepared or failed).
 *
 * - Keep: the attempt's changes (its copy now against the copy as made) are applied to the working
 *   folder; a file the person changed since the attempts started is left alone unless ticked. Its
 *   turns join the asking conversation, which goes on with that agent; the copies are removed.
 * - Continue: the attempt becomes a branch of its own, in its copy (made again from its last
 *   checkpoint when the copies were removed).
 * - The copies are made on the machine the working folder is on, under its own Baton folder, and
 *   listed (`AttemptCopies`) before they are made, so a copy left by a host that died is removed on
 *   the next start or stays listed with its attempts.
 */
import { z } from 'zod';
import { InvalidRequestError, NotFoundError, TurnInProgressError } from '../../../app/errors.js';
import type { Envelope, TranscriptEvent } from '../../../app/events/index.js';
import { newId } from '../../../app/ids.js';
import type { Result } from '../../../app/ipc/index.js';
import { branchPart, MAX_ATTEMPTS, openAttempts } from '../../../app/transcript/attempts.js';
import { emptyTranscript, reduceAll, type AttemptView, type TranscriptState } from '../../../app/transcript/index.js';
import { titleFromMessage, type ConversationSummary } from '../../../app/transcript/summary.js';
import {
  diffManifests,
  type Checkpoint,
  type CheckpointEntry,
  type CheckpointStore,
  type FileChange,
  type LeftOut,
} from '../checkpoints/CheckpointStore.js';
import { maxFileBytesSetting, type TurnCheckpoints } from '../checkpoints/TurnCheckpoints.js';
import type { Committer } from '../conversations/Committer.js';
import type { ImportReview } from '../conversations/ImportReview.js';
import type { PendingFolders } from '../conversations/PendingFolders.js';
import { LOCAL_MACHINE_ID, type Machine } from '../machine/Machine.js';
import type { Machines } from '../machine/Machines.js';
import type { EventStore } from '../store/EventStore.js';
import { AttemptCopies } from './AttemptCopies.js';
import { comparisonText, fileTexts } from './attemptComparison.js';
import { checkpointTaken, keptTurns } from './keptTurns.js';
import {
  copyPlaceOf,
  fillCopy,
  fillWorktree,
  freeBranch,
  makeCopy,
  makeWorktree,
  pathsOf,
  removeCopy,
  startWorktree,
  under,
  type GitHost,
  type GitPlace,
} from './folderCopies.js';

/** Event types of the asking conversation an attempt's history leaves out: its sessions, its place in the list, its own attempts. */
const NOT_GIVEN = new Set([
  'session.bound',
  'conversation.archived',
  'conversation.unarchived',
  'conversation.deleted',
  'conversation.restored',
  'attempts.started',
  'attempt.prepared',
  'attempt.failed',
  'attempt.kept',
  'attempt.continued',
  'attempts.removed',
]);
/** One agent asked, with the options the person picked for it. */
export type AttemptChoice = { agentId: string; options?: Readonly<Record<string, string>> };

/** What attempts are run with. */
export type AttemptsDeps = {
  store: EventStore;
  committer: Committer;
  checkpoints: CheckpointStore;
  turnCheckpoints: TurnCheckpoints | undefined;
  importReview: Pick<ImportReview, 'requireConfirmed'>;
  /** The agent's name, or NotFound. */
  agentName: (agentId: string) => string;
  /** Folders still being made: an attempt's agent starts meanwhile, its session waits for its copy. */
  pendingFolders?: PendingFolders;
  turns: {
    send(conversationId: string, text: string, agentId?: string): { turnId: string };
    cancel(conversationId: string): Promise<boolean>;
    activeTurnId(conversationId: string): string | undefined;
    release(conversationId: string): Promise<void>;
  };
  dataDir: string;
  /** This computer (git runs with its environment). */
  machine: Machine;
  /** The other machines a conversation may be on (absent: only this computer). */
  machines?: Pick<Machines, 'openOf' | 'ready'>;
  log: (message: string) => void;
};

/** One attempt with where its copy is. */
type Planned = AttemptView & { root: string };

/** The attempts of conversations. */
export class Attempts {
  /** Copies being made, by attempts id (waited for before they are removed). */
  private readonly preparing = new Map<string, Promise<void>>();
  /** Copies being removed after a Keep (waited for by `idle`). */
  private readonly removing = new Set<Promise<unknown>>();
  /** Where each ask's copies are. */
  private readonly copies: AttemptCopies;

  constructor(private readonly deps: AttemptsDeps) {
    this.copies = new AttemptCopies(deps);
  }

  /** The setting `attempts.max`: how many agents one message may ask (2–4). */
  get max(): number {
    return this.deps.store.getSetting('attempts.max', z.number().int().min(2).max(MAX_ATTEMPTS), MAX_ATTEMPTS);
  }

  /**
   * Asks each chosen agent the same message, each in its own copy of the working folder. Returns
   * once the attempts are recorded; the copies are made and the agents asked in the background
   * (each attempt prepared, or failed with why).
   */
  async ask(conversationId: string, text: string, choices: readonly AttemptChoice[]): Promise<{ attemptsId: string }> {
    const { store, committer, importReview, turns } = this.deps;
    const summary = store.getSummary(conversationId);
    this.requireAsking(summary);
    importReview.requireConfirmed(conversationId);
    if (turns.activeTurnId(conversationId) !== undefined) {
      throw new TurnInProgressError(conversationId);
    }
    if (text.trim() === '') {
      throw new InvalidRequestError('Write the message to ask the agents first.');
    }
    const agentIds = choices.map((choice) => choice.agentId);
    if (new Set(agentIds).size !== agentIds.length) {
      throw new InvalidRequestError('Pick each agent once.');
    }
    if (choices.length < 2 || choices.length > this.max) {
      throw new InvalidRequestError(`Pick two to ${this.max} agents (the setting attempts.max).`);
    }
    const open = openAttempts(this.read(conversationId));
    if (open.length > 0) {
      throw new InvalidRequestError('Keep one of the open attempts, or set them aside, before asking several agents again.');
    }
    const names = choices.map((choice) => this.deps.agentName(choice.agentId));
    await this.deps.turnCheckpoints?.idle(conversationId);
    const on = this.copies.on(summary.machine);
    const { place, plainBecause } = await copyPlaceOf(summary.cwd, on);
    const attemptsId = newId();
    const directory = this.copies.directoryOn(on, attemptsId);
    const taken = new Set<string>();
    const planned: Planned[] = [];
    for (const [index, choice] of choices.entries()) {
      const slug = branchPart(choice.agentId);
      const root = pathsOf(on.machine).join(directory, slug);
      const branch = place ? await freeBranch(place.root, `baton/${branchPart(conversationId)}/${slug}`, on, taken) : undefined;
      if (branch) {
        taken.add(branch);
      }
      planned.push({
        attemptId: newId(),
        agentId: choice.agentId,
        agentName: names[index]!,
        conversationId: newId(),
        folder: under(on, root, place?.subdir ?? ''),
        kind: place ? 'worktree' : 'copy',
        ...(branch ? { branch } : {}),
        state: 'preparing',
        root,
      });
    }
    // Listed before any copy exists: a host that dies from here on leaves nothing unaccounted for.
    await this.copies.write({
      conversationId,
      attemptsId,
      ...(summary.machine === LOCAL_MACHINE_ID ? {} : { machine: summary.machine }),
      ...(place ? { repository: place.root } : {}),
      copies: planned.map(({ attemptId, root, branch }) => ({ attemptId, root, ...(branch ? { branch } : {}) })),
    });
    committer.commit(conversationId, [
      {
        type: 'attempts.started',
        payload: {
          attemptsId,
          text,
          attempts: planned.map(({ attemptId, agentId, agentName, conversationId: attemptConversation, folder, kind, branch }) => ({
            attemptId,
            agentId,
            agentName,
            conversationId: attemptConversation,
            folder,
            machine: summary.machine,
            kind,
            ...(branch ? { branch } : {}),
          })),
          ...(place ? { repository: place.root } : {}),
        },
      },
      ...(plainBecause
        ? [
            {
              type: 'notice' as const,
              payload: { severity: 'info' as const, text: `Each attempt works in a plain copy of the folder: ${plainBecause}.` },
            },
          ]
        : []),
    ]);
    const options = new Map(choices.map((choice) => [choice.agentId, choice.options ?? {}]));
    const work = this.prepare(summary, attemptsId, text, planned, { place, on }, options).finally(() => this.preparing.delete(attemptsId));
    this.preparing.set(attemptsId, work);
    return { attemptsId };
  }

  /**
   * Refuses a message to an attempt's conversation once its attempts were kept or set aside (its
   * copy is gone or about to be), or one that would hand it to another agent: an attempt keeps its
   * agent. A continued attempt is an ordinary branch.
   */
  requireOpenAttempt(conversationId: string, agentId: string | undefined): void {
    const summary = this.deps.store.getSummary(conversationId);
    if (summary.lifecycle !== 'attempt' || !summary.attemptOf) {
      return;
    }
    const { item, attempt } = this.find(summary.attemptOf.conversationId, summary.attemptOf.attemptsId, summary.attemptOf.attemptId);
    if (item.kept || item.removed) {
      throw new InvalidRequestError(
        `${attempt.agentName}'s attempt is closed (${item.kept ? 'another was kept' : 'the attempts were set aside'}); continue it as a branch to go on with it.`,
      );
    }
    if (agentId !== undefined && agentId !== attempt.agentId) {
      throw new InvalidRequestError(`An attempt keeps its agent (${attempt.agentName}); continue it as a branch to hand it to another.`);
    }
  }

  /** Waits for copies still being made (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all(this.preparing.values());
    await Promise.all(this.removing);
  }

  /**
   * What keeping an attempt would do: each file it changed (against its copy as made), whether the
   * person changed it since the attempts started (then it is left alone unless ticked), both texts.
   */
  async previewKeep(conversationId: string, attemptsId: string, attemptId: string): Promise<Result<'previewKeep'>> {
    const plan = await this.planKeep(conversationId, attemptsId, attemptId);
    return {
      files: plan.changes.map((change) => ({
        path: change.path,
        change: change.change,
        changedByYou: plan.changedByYou.has(change.path),
        ...fileTexts(this.deps.checkpoints, change),
      })),
      cannot: plan.cannot,
    };
  }

  /**
   * Keeps one attempt: applies its changes to the working folder (a file the person changed since
   * the attempts started only when ticked in `overwrite`), adds its turns to the conversation (which
   * goes on with its agent), and removes every copy but those continued as branches.
   */
  async keep(conversationId: string, attemptsId: string, attemptId: string, overwrite: readonly string[]): Promise<Result<'keepAttempt'>> {
    const plan = await this.planKeep(conversationId, attemptsId, attemptId, true);
    const { checkpoints, committer, store } = this.deps;
    const cwd = plan.state.cwd;
    const { machine } = plan.on;
    const chosen = plan.changes.filter((change) => !plan.changedByYou.has(change.path) || overwrite.includes(change.path));
    const left = plan.changes.filter((change) => !chosen.includes(change)).map((change) => change.path);
    // The folder before and after: the kept turns' checkpoints (a rewind to before them puts back what Keep wrote).
    const before = plan.folderNow!;
    const notWritten = await checkpoints.restore(
      cwd,
      chosen.map((change) => ({ path: change.path, entry: change.after })),
      checkpoints.folderOf(before.checkpointId).real ?? undefined,
      machine,
    );
    const failedPaths = new Set(notWritten.map((file) => file.path));
    const applied = chosen
      .filter((change) => !failedPaths.has(change.path))
      .map((change) => ({ path: change.path, change: change.change }));
    const after = await checkpoints.take(cwd, { maxFileBytes: maxFileBytesSetting(store), machine });
    const failed = [...plan.cannot, ...notWritten];
    // The attempt's own turns join the conversation as they were, its copy's checkpoints replaced by the working folder's.
    const own = keptTurns(this.ownEvents(plan.attempt.conversationId), before, after);
    committer.commit(conversationId, [{ type: 'attempt.kept', payload: { attemptsId, attemptId, applied, left, failed } }, ...own]);
    // The copies go in the background (attempts.removed says when, and what could not be removed):
    // the person's folder is ready now.
    const removing = this.removeCopies(conversationId, attemptsId)
      .catch((error: unknown) => this.deps.log(`could not remove the copies of ${attemptsId}: ${String(error)}`))
      .finally(() => this.removing.delete(removing));
    this.removing.add(removing);
    return { applied, left, failed };
  }

  /**
   * Continues an attempt as a branch of its own ("<title> (<agent>'s attempt)"), in its copy of the
   * folder; a copy already removed is made again from the attempt's last checkpoint.
   */
  async continueAttempt(conversationId: string, attemptsId: string, attemptId: string): Promise<ConversationSummary> {
    const { store, committer } = this.deps;
    const { item, attempt } = this.find(conversationId, attemptsId, attemptId);
    if (attempt.continuedAs) {
      return store.getSummary(attempt.continuedAs);
    }
    if (attempt.state !== 'prepared') {
      throw new InvalidRequestError(`${attempt.agentName}'s attempt did not start, so there is nothing to continue.`);
    }
    await Promise.all(this.removing);
    // The branch Baton made for the copy is recorded with the continue: erasing the branch deletes that one only.
    const branch = item.removed ? await this.remakeCopy(conversationId, item, attempt) : attempt.branch;
    const parent = store.getSummary(conversationId);
    const firstTurn = this.ownEvents(attempt.conversationId).find((event) => event.type === 'turn.started');
    const summary = committer.commit(attempt.conversationId, [
      // Named after the conversation, or while it has no title yet, after the message the agents were asked.
      {
        type: 'conversation.renamed',
        payload: { title: `${parent.title || titleFromMessage(item.text)} (${attempt.agentName}'s attempt)` },
      },
      {
        type: 'conversation.branched',
        payload: {
          fromConversationId: conversationId,
          fromTitle: parent.title,
          fromTurnId: firstTurn?.type === 'turn.started' ? firstTurn.payload.turnId : attemptsId,
        },
      },
    ]).summary;
    committer.commit(conversationId, [
      {
        type: 'attempt.continued',
        payload: { attemptsId, attemptId, conversationId: attempt.conversationId, ...(branch === undefined ? {} : { branch }) },
      },
    ]);
    // The branch's copy is its own now: it goes when the branch is erased, not with the attempts.
    await this.copies.forget(attemptsId, attemptId);
    return summary;
  }

  /**
   * Each attempt's changes against the working folder as the attempts started, with both texts
   * (the page compares any two from them).
   */
  async compare(conversationId: string, attemptsId: string): Promise<Result<'compareAttempts'>> {
    const { item, state } = this.find(conversationId, attemptsId);
    const on = this.copies.on(state.machine);
    const attempts = [];
    for (const attempt of item.attempts) {
      if (attempt.state !== 'prepared' || !attempt.checkpointId) {
        attempts.push({
          attemptId: attempt.attemptId,
          agentName: attempt.agentName,
          files: [],
          unavailable: attempt.reason ?? 'Its copy is not ready yet.',
        });
        continue;
      }
      try {
        const changes = await this.changesOf(item, attempt, on);
        attempts.push({
          attemptId: attempt.attemptId,
          agentName: attempt.agentName,
          files: changes.map((change) => ({ path: change.path, change: change.change, ...fileTexts(this.deps.checkpoints, change) })),
          unavailable: null,
        });
      } catch (error) {
        attempts.push({ attemptId: attempt.attemptId, agentName: attempt.agentName, files: [], unavailable: (error as Error).message });
      }
    }
    return { attempts };
  }

  /** A message for an agent asked to compare the attempts: each attempt's reply and its changes as a diff. */
  async comparisonMessage(conversationId: string, attemptsId: string): Promise<string> {
    const { item } = this.find(conversationId, attemptsId);
    const { attempts } = await this.compare(conversationId, attemptsId);
    return comparisonText(item, attempts, (attemptConversationId) => this.replyOf(attemptConversationId));
  }

  /** Sets the attempts aside: stops those still running and removes their copies (not those continued as branches). */
  async setAside(conversationId: string, attemptsId: string): Promise<Result<'setAttemptsAside'>> {
    const { item } = this.find(conversationId, attemptsId);
    if (item.removed) {
      return { failed: [] };
    }
    return this.removeCopies(conversationId, attemptsId);
  }

  /**
   * Before a conversation is erased: its attempts' conversations are erased with it (through
   * `erase`) and their copies removed; a branch continued from an attempt takes its copy with it.
   */
  async beforePurge(conversationId: string, erase: (conversationId: string) => Promise<void>): Promise<void> {
    const summary = this.deps.store.getSummary(conversationId);
    if (summary.branchedFrom && summary.attemptOf) {
      // A continued attempt: its copy goes with it.
      await this.removeContinuedCopy(summary);
      return;
    }
    const state = this.read(conversationId);
    for (const item of state.items) {
      if (item.kind !== 'attempts') {
        continue;
      }
      await this.preparing.get(item.attemptsId);
      if (!item.removed) {
        // Copies on a machine that cannot be reached now stay listed (removed at a start that finds it open).
        await this.removeCopies(conversationId, item.attemptsId, { record: false }).catch((error: unknown) =>
          this.deps.log(`could not remove the copies of ${item.attemptsId}: ${String(error)}`),
        );
      }
      for (const attempt of item.attempts) {
        if (!attempt.continuedAs && this.exists(attempt.conversationId)) {
          await erase(attempt.conversationId);
        }
      }
    }
  }

  /**
   * At start-up: copies whose attempts are gone, were removed, or never got recorded are removed;
   * attempts whose copy was still being made are marked failed. Copies of open attempts stay,
   * listed with them. Returns what was removed (for the log).
   */
  async recover(): Promise<string[]> {
    const removed: string[] = [];
    for (const name of await this.copies.listed()) {
      const owner = await this.copies.read(name);
      if (!owner) {
        removed.push(await this.copies.removeUnlisted(name));
        continue;
      }
      const item = this.exists(owner.conversationId)
        ? this.read(owner.conversationId).items.find(
            (candidate) => candidate.kind === 'attempts' && candidate.attemptsId === owner.attemptsId,
          )
        : undefined;
      const ended = !item || item.kind !== 'attempts' || item.removed;
      const unfinished = ended ? [] : item.attempts.filter((attempt) => attempt.state === 'preparing');
      // Copies on another machine are removed when a start finds it open; its attempts are marked all the same.
      const on = this.copies.ready(owner.machine);
      const gone = ended ? owner.copies : owner.copies.filter((copy) => unfinished.some((attempt) => attempt.attemptId === copy.attemptId));
      if (on) {
        for (const copy of gone) {
          await this.copies
            .remove(owner, copy, on)
            .catch((error: unknown) => this.deps.log(`could not remove ${copy.root}: ${String(error)}`));
          removed.push(copy.root);
          if (!ended) {
            await this.copies.forget(owner.attemptsId, copy.attemptId);
          }
        }
        if (ended) {
          await this.copies.removeDirectory(owner.attemptsId, on);
        }
      } else if (gone.length > 0) {
        this.deps.log(`${gone.length} copies of ${owner.attemptsId} are on ${owner.machine}, which is not connected: they stay listed`);
      }
      if (unfinished.length > 0) {
        this.deps.committer.commit(
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
  async copiesOnDisk(): Promise<Array<{ attemptsId: string; conversationId: string; roots: string[] }>> {
    const found = [];
    for (const name of await this.copies.listed()) {
      const owner = await this.copies.read(name);
      const on = owner ? this.copies.ready(owner.machine) : undefined;
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

  /** Makes the copies, creates each attempt's conversation and sends it the message. */
  private async prepare(
    summary: ConversationSummary,
    attemptsId: string,
    text: string,
    planned: Planned[],
    { place, on }: { place: GitPlace | undefined; on: GitHost },
    options: ReadonlyMap<string, Readonly<Record<string, string>>>,
  ): Promise<void> {
    const { checkpoints, committer, store, log } = this.deps;
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
    try {
      base = await checkpoints.take(summary.cwd, { maxFileBytes: maxFileBytesSetting(store), machine: on.machine });
    } catch (error) {
      for (const attempt of planned) {
        fail(attempt, `the working folder could not be copied: ${(error as Error).message}`);
      }
      await this.removeCopies(conversationId, attemptsId, { record: false });
      return;
    }
    const manifest = checkpoints.manifest(base.checkpointId);
    const content = (hash: string): Buffer => checkpoints.content(hash);
    const failed = async (attempt: Planned, error: unknown): Promise<void> => {
      fail(attempt, (error as Error).message);
      await removeCopy({ folder: attempt.root, repository: place?.root, branch: attempt.branch }, on).catch(() => undefined);
      await this.copies.forget(attemptsId, attempt.attemptId);
    };
    // First each copy's folder (a worktree without its files yet), its conversation and its turn:
    // the agents start while the files are written; each session opens once its folder is whole.
    const started: Array<{ attempt: Planned; fromSeq: number; filled: (left: LeftOut[] | Error) => void }> = [];
    for (const attempt of planned) {
      try {
        if (place) {
          // One worktree at a time: git takes the repository's locks for each.
          await startWorktree(place, attempt.root, attempt.branch!, on);
        } else {
          await on.machine.mkdir(attempt.root, 0o700);
        }
        const fromSeq = this.createConversation(summary, attemptsId, attempt, options.get(attempt.agentId) ?? {});
        let filled: (left: LeftOut[] | Error) => void = () => {};
        const ready = new Promise<void>((resolve, reject) => {
          filled = (left) => {
            if (left instanceof Error) {
              reject(left);
            } else if (left.length > 0) {
              reject(
                new Error(
                  `${attempt.agentName}'s copy of the folder could not be made: ${left.length} file${left.length === 1 ? '' : 's'} could not be copied (${left
                    .slice(0, 3)
                    .map((file) => `${file.path}: ${file.reason}`)
                    .join('; ')})`,
                ),
              );
            } else {
              resolve();
            }
          };
        });
        this.deps.pendingFolders?.hold(attempt.conversationId, ready);
        started.push({ attempt, fromSeq, filled });
        this.deps.turns.send(attempt.conversationId, text, attempt.agentId);
      } catch (error) {
        const at = started.findIndex((entry) => entry.attempt === attempt);
        if (at >= 0) {
          started[at]!.filled(error as Error);
          started.splice(at, 1);
        }
        await failed(attempt, error);
      }
    }
    const fill = async ({ attempt, fromSeq, filled }: (typeof started)[number]): Promise<void> => {
      try {
        const left = place
          ? await fillWorktree(place, attempt.root, manifest, content, on)
          : await fillCopy(attempt.root, manifest, content, on);
        filled(left);
        if (left.length > 0) {
          throw new Error(
            `${left.length} file${left.length === 1 ? '' : 's'} could not be copied (${left
              .slice(0, 3)
              .map((file) => `${file.path}: ${file.reason}`)
              .join('; ')})`,
          );
        }
        committer.commit(conversationId, [
          { type: 'attempt.prepared', payload: { attemptsId, attemptId: attempt.attemptId, checkpointId: base.checkpointId, fromSeq } },
        ]);
      } catch (error) {
        filled(error as Error);
        await this.deps.turns.release(attempt.conversationId).catch(() => undefined);
        await failed(attempt, error);
      }
    };
    // Each worktree checks out into its own folder and index: they are filled at once, like copies.
    await Promise.all(started.map(fill));
  }

  /** The attempt's conversation: the asking one's history (in the copy's folder), then the attempt's own mark. */
  private createConversation(
    summary: ConversationSummary,
    attemptsId: string,
    attempt: Planned,
    chosen: Readonly<Record<string, string>>,
  ): number {
    const { store, committer } = this.deps;
    this.deps.committer.flush(summary.conversationId);
    const history: Envelope[] = store
      .readEnvelopes(summary.conversationId)
      .filter((envelope) => !NOT_GIVEN.has(envelope.type))
      .map((envelope, index) => ({
        ...envelope,
        conversationId: attempt.conversationId,
        seq: index + 1,
        ...(envelope.type === 'conversation.created' ? { payload: { ...(envelope.payload as object), cwd: attempt.folder } } : {}),
      }));
    store.importEnvelopes(attempt.conversationId, history);
    committer.commit(attempt.conversationId, [
      { type: 'conversation.renamed', payload: { title: `${summary.title || 'Conversation'} — attempt by ${attempt.agentName}` } },
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

  /** The attempt's changes: its copy now against the copy as made. */
  private async changesOf(item: AttemptsItem, attempt: AttemptView, on: GitHost): Promise<FileChange[]> {
    const { checkpoints, store } = this.deps;
    if (item.removed || !(await exists(on, attempt.folder))) {
      const final = this.finalCheckpoint(attempt.conversationId);
      if (!final) {
        throw new Error('its copy was removed and no checkpoint of it was kept');
      }
      return checkpoints.changes(attempt.checkpointId!, final);
    }
    await this.deps.turnCheckpoints?.idle(attempt.conversationId);
    const now = await checkpoints.take(attempt.folder, { maxFileBytes: maxFileBytesSetting(store), machine: on.machine });
    return diffManifests(checkpoints.manifest(attempt.checkpointId!), checkpoints.manifest(now.checkpointId));
  }

  /** What keeping the attempt would apply, and which of those files the person changed since. */
  private async planKeep(
    conversationId: string,
    attemptsId: string,
    attemptId: string,
    keeping = false,
  ): Promise<{
    state: TranscriptState;
    attempt: AttemptView;
    changes: FileChange[];
    changedByYou: Set<string>;
    cannot: LeftOut[];
    folderNow?: Checkpoint;
    on: GitHost;
  }> {
    const { item, attempt, state } = this.find(conversationId, attemptsId, attemptId);
    if (item.kept) {
      throw new InvalidRequestError('One of these attempts was kept already.');
    }
    if (item.removed) {
      throw new InvalidRequestError('These attempts were set aside: their copies are gone. Continue one as a branch instead.');
    }
    if (attempt.state !== 'prepared' || !attempt.checkpointId) {
      throw new InvalidRequestError(`${attempt.agentName}'s attempt did not start, so there is nothing to keep.`);
    }
    this.deps.importReview.requireConfirmed(conversationId);
    if (this.deps.turns.activeTurnId(attempt.conversationId) !== undefined) {
      throw new InvalidRequestError(
        `${attempt.agentName} is still working on its attempt: stop it, or wait for it to finish, before keeping it.`,
      );
    }
    if (this.deps.turns.activeTurnId(conversationId) !== undefined) {
      throw new TurnInProgressError(conversationId);
    }
    const { checkpoints, store } = this.deps;
    const on = this.copies.on(state.machine);
    const scan = { maxFileBytes: maxFileBytesSetting(store), machine: on.machine };
    await this.deps.turnCheckpoints?.idle(attempt.conversationId);
    const now = await checkpoints.take(attempt.folder, scan);
    const start = checkpoints.manifest(attempt.checkpointId);
    const changes = diffManifests(start, checkpoints.manifest(now.checkpointId));
    // Keeping: the working folder as it is now is kept as a checkpoint (the kept turns' "before"); a preview only looks.
    const folderNow = keeping ? await checkpoints.take(state.cwd, scan) : undefined;
    const yours = folderNow ? checkpoints.manifest(folderNow.checkpointId) : await checkpoints.look(state.cwd, scan);
    const changedByYou = new Set(
      changes.filter((change) => yours.get(change.path)?.hash !== start.get(change.path)?.hash).map((change) => change.path),
    );
    const cannot = [...now.tooLarge, ...now.failed].map((file) => ({ path: file.path, reason: `not kept: ${file.reason}` }));
    return { state, attempt, changes, changedByYou, cannot, on, ...(folderNow ? { folderNow } : {}) };
  }

  /** Stops the attempts still running, keeps each one's last checkpoint, removes the copies (not those continued) and records it. */
  private async removeCopies(
    conversationId: string,
    attemptsId: string,
    options: { record: boolean } = { record: true },
  ): Promise<Result<'setAttemptsAside'>> {
    await this.preparing.get(attemptsId);
    const owner = await this.copies.read(attemptsId);
    const on = this.copies.on(owner?.machine);
    const state = this.exists(conversationId) ? this.read(conversationId) : undefined;
    const item = state?.items.find(
      (candidate): candidate is AttemptsItem => candidate.kind === 'attempts' && candidate.attemptsId === attemptsId,
    );
    const failed: Array<{ attemptId: string; reason: string }> = [];
    for (const attempt of item?.attempts ?? []) {
      if (attempt.continuedAs || !this.exists(attempt.conversationId)) {
        continue;
      }
      await this.deps.turns.release(attempt.conversationId);
      await this.deps.turnCheckpoints?.idle(attempt.conversationId);
      if (options.record && attempt.state === 'prepared' && (await exists(on, attempt.folder))) {
        // Its last state is kept, so it can still be continued as a branch.
        await this.keepFinal(attempt, on).catch((error: unknown) =>
          this.deps.log(`could not keep the last state of ${attempt.folder}: ${String(error)}`),
        );
      }
    }
    for (const copy of owner?.copies ?? []) {
      await this.copies
        .remove(owner!, copy, on)
        .catch((error: unknown) => failed.push({ attemptId: copy.attemptId, reason: (error as Error).message }));
    }
    if (failed.length === 0) {
      await this.copies.removeDirectory(attemptsId, on);
    }
    if (options.record && item) {
      this.deps.committer.commit(conversationId, [{ type: 'attempts.removed', payload: { attemptsId, failed } }]);
    }
    return { failed };
  }

  /** Records the attempt's copy as it is now in its own conversation (the checkpoint a later Continue makes its copy from). */
  private async keepFinal(attempt: AttemptView, on: GitHost): Promise<void> {
    const { checkpoints, committer, store } = this.deps;
    const final = await checkpoints.take(attempt.folder, { maxFileBytes: maxFileBytesSetting(store), machine: on.machine });
    const lastTurn = this.ownEvents(attempt.conversationId).findLast((event) => event.type === 'turn.started');
    if (lastTurn?.type === 'turn.started') {
      committer.commit(attempt.conversationId, [checkpointTaken(lastTurn.payload.turnId, 'after', final)]);
    }
  }

  /** The last checkpoint of an attempt's copy recorded in its conversation. */
  private finalCheckpoint(attemptConversationId: string): string | undefined {
    const taken = this.ownEvents(attemptConversationId).findLast(
      (event) => event.type === 'checkpoint.taken' && event.payload.checkpointId !== undefined,
    );
    return taken?.type === 'checkpoint.taken' ? taken.payload.checkpointId : undefined;
  }

  /**
   * Makes an attempt's copy again, at the same place, from its last checkpoint (a worktree on a new
   * branch where it was one). Returns the branch made, if any.
   */
  private async remakeCopy(conversationId: string, item: AttemptsItem, attempt: AttemptView): Promise<string | undefined> {
    const { checkpoints } = this.deps;
    const final = this.finalCheckpoint(attempt.conversationId) ?? attempt.checkpointId;
    if (!final) {
      throw new InvalidRequestError(
        `${attempt.agentName}'s copy was removed and no checkpoint of it was kept, so it cannot be made again.`,
      );
    }
    const summary = this.deps.store.getSummary(conversationId);
    const on = this.copies.on(summary.machine);
    const root = attempt.kind === 'worktree' && item.repository ? rootOf(attempt, on) : attempt.folder;
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
    const place = attempt.kind === 'worktree' && item.repository ? (await copyPlaceOf(summary.cwd, on)).place : undefined;
    const branch = place
      ? await freeBranch(place.root, attempt.branch ?? `baton/${branchPart(conversationId)}/${branchPart(attempt.agentId)}`, on)
      : undefined;
    await this.copies.write({
      conversationId,
      attemptsId: item.attemptsId,
      ...(summary.machine === LOCAL_MACHINE_ID ? {} : { machine: summary.machine }),
      ...(place ? { repository: place.root } : {}),
      copies: [{ attemptId: attempt.attemptId, root, ...(branch ? { branch } : {}) }],
    });
    const left =
      place && branch
        ? await makeWorktree(place, root, branch, manifest, content, on)
        : await makeCopy(attempt.folder, manifest, content, on);
    if (left.length > 0) {
      throw new InvalidRequestError(
        `${attempt.agentName}'s copy could not be made again: ${left.map((file) => `${file.path} (${file.reason})`).join(', ')}`,
      );
    }
    return branch;
  }

  /** Removes the copy of a branch continued from an attempt (it is being erased). */
  private async removeContinuedCopy(summary: ConversationSummary): Promise<void> {
    const attemptOf = summary.attemptOf!;
    const parent = this.exists(attemptOf.conversationId) ? this.read(attemptOf.conversationId) : undefined;
    const item = parent?.items.find(
      (candidate): candidate is AttemptsItem => candidate.kind === 'attempts' && candidate.attemptsId === attemptOf.attemptsId,
    );
    const attempt = item?.attempts.find((candidate) => candidate.attemptId === attemptOf.attemptId);
    const worktree = attempt?.kind === 'worktree' && item?.repository !== undefined;
    const on = this.copies.on(summary.machine);
    const root = attempt && worktree ? rootOf(attempt, on) : summary.cwd;
    // Only the branch Baton recorded when it made the copy: whatever the copy's own .git says now is the agent's to write.
    await removeCopy(
      { folder: root, repository: worktree ? item.repository : undefined, branch: worktree ? attempt.branch : undefined },
      on,
    ).catch((error: unknown) => this.deps.log(`could not remove ${root}: ${String(error)}`));
    await this.copies.removeDirectory(attemptOf.attemptsId, on);
  }

  private requireAsking(summary: ConversationSummary): void {
    if (summary.lifecycle === 'deleted') {
      throw new InvalidRequestError('This conversation is in the trash; restore it to continue.');
    }
    if (summary.lifecycle === 'attempt') {
      throw new InvalidRequestError('This is one attempt of several: continue it as a branch to ask several agents from it.');
    }
  }

  /** The attempts item (and one attempt of it) of a conversation. */
  private find(
    conversationId: string,
    attemptsId: string,
    attemptId?: string,
  ): { state: TranscriptState; item: AttemptsItem; attempt: AttemptView } {
    const state = this.read(conversationId);
    const item = state.items.find(
      (candidate): candidate is AttemptsItem => candidate.kind === 'attempts' && candidate.attemptsId === attemptsId,
    );
    if (!item) {
      throw new NotFoundError('attempts', attemptsId);
    }
    const attempt = attemptId === undefined ? item.attempts[0] : item.attempts.find((candidate) => candidate.attemptId === attemptId);
    if (!attempt) {
      throw new NotFoundError('attempt', attemptId ?? attemptsId);
    }
    return { state, item, attempt };
  }

  /** An attempt conversation's own events: after the history it was given. */
  private ownEvents(attemptConversationId: string): TranscriptEvent[] {
    this.deps.committer.flush(attemptConversationId);
    const { events } = this.deps.store.readEvents(attemptConversationId);
    const mark = events.find((event) => event.type === 'conversation.attempt');
    const fromSeq = mark?.type === 'conversation.attempt' ? mark.payload.fromSeq : 0;
    return events.filter((event) => event.seq > fromSeq);
  }

  /** The text of the attempt's replies, in order. */
  private replyOf(attemptConversationId: string): string {
    const own = this.ownEvents(attemptConversationId);
    const state = reduceAll(emptyTranscript(attemptConversationId), this.deps.store.readEvents(attemptConversationId).events);
    const turnIds = new Set(own.flatMap((event) => (event.type === 'turn.started' ? [event.payload.turnId] : [])));
    return state.items
      .filter((entry) => entry.kind === 'agent' && turnIds.has(entry.turnId))
      .map((entry) => (entry.kind === 'agent' ? entry.text : ''))
      .join('\n\n');
  }

  private read(conversationId: string): TranscriptState {
    this.deps.committer.flush(conversationId);
    return reduceAll(emptyTranscript(conversationId), this.deps.store.readEvents(conversationId).events);
  }

  private exists(conversationId: string): boolean {
    try {
      this.deps.store.getSummary(conversationId);
      return true;
    } catch {
      return false;
    }
  }
}

type AttemptsItem = Extract<TranscriptState['items'][number], { kind: 'attempts' }>;

/** The top of an attempt's copy: its worktree (above the working folder's place in it), or the copy itself. */
function rootOf(attempt: AttemptView, on: GitHost): string {
  // Copies live at <machine data>/attempts/<attemptsId>/<agent>[/<subdir>]: the root is the first three levels under attempts.
  const { sep } = pathsOf(on.machine);
  const parts = attempt.folder.split(sep);
  const at = parts.lastIndexOf('attempts');
  return at >= 0 && parts.length >= at + 3 ? parts.slice(0, at + 3).join(sep) : attempt.folder;
}

/** True when something is at `target` on the machine. */
async function exists(on: GitHost, target: string): Promise<boolean> {
  return on.machine.stat(target).then(
    () => true,
    () => false,
  );
}
