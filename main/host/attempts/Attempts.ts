/**
 * "Ask several agents": one message to two to four agents at once, each attempt in its own copy
 * of the working folder (see `folderCopies.ts`) and its own hidden conversation, made of the
 * asking conversation's history, so each agent gets the conversation so far the usual way (its
 * first turn is handed off) and its turns, permissions, terminals and checkpoints are those of an
 * ordinary conversation, confined to its copy. The asking conversation records the attempts
 * (`attempts.started` before any copy exists, then each one prepared or failed).
 *
 * This is the room's door: each verb finds its attempt in the read model (`AttemptSets`) once and
 * hands it to its part: the preparation (`prepareAttempts.ts`), Keep (`keepAttempt.ts`), Continue
 * (`continueAttempt.ts`), Compare (`attemptComparison.ts`) and the copies' removal
 * (`closeAttempts.ts`). The copies are made on the machine the working folder is on, under its own
 * Baton folder, and listed before they are made, so a copy left by a host that died is removed on
 * the next start or stays listed with its attempts.
 */
import { z } from 'zod';
import { InvalidRequestError, TurnInProgressError } from '../../../app/errors.js';
import { newId } from '../../../app/ids.js';
import type { Result } from '../../../app/ipc/index.js';
import { branchPart, MAX_ATTEMPTS } from '../../../app/transcript/attempts.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { boxMachineId } from '../machine/AttemptContainers.js';
import { LOCAL_MACHINE_ID, pathsOf } from '../machine/Machine.js';
import { compareAttempts, comparisonText } from './attemptComparison.js';
import type { ContainerChoice } from './attemptBoxes.js';
import { AttemptSets, type Standing } from './AttemptSets.js';
import type { AttemptsContext, AttemptsDeps } from './attemptsContext.js';
import { beforePurge, copiesOnDisk, recoverCopies, removeCopies } from './closeAttempts.js';
import { continueAttempt } from './continueAttempt.js';
import { copyPlaceOf, freeBranch, under } from './folderCopies.js';
import { keepAttempt, previewKeep } from './keepAttempt.js';
import { prepareAttempts, type Planned } from './prepareAttempts.js';

export type { AttemptsDeps } from './attemptsContext.js';

/** One agent asked, with the options the person picked for it. */
export type AttemptChoice = { agentId: string; options?: Readonly<Record<string, string>> };

/** The attempts of conversations. */
export class Attempts implements AttemptsContext {
  readonly preparing = new Map<string, Promise<void>>();
  readonly removing = new Set<Promise<unknown>>();
  readonly watching = new Map<string, Array<() => void>>();
  /** The read model: each conversation's asks, kept from their events. */
  readonly sets: AttemptSets;

  constructor(readonly deps: AttemptsDeps) {
    this.sets = new AttemptSets(deps);
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
  async ask(
    conversationId: string,
    text: string,
    choices: readonly AttemptChoice[],
    container?: ContainerChoice,
  ): Promise<{ attemptsId: string }> {
    const { committer, importReview, turns } = this.deps;
    const { place: asking, standing, open } = this.sets.asking(conversationId);
    requireAsking(standing);
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
    if (open.length > 0) {
      throw new InvalidRequestError('Keep one of the open attempts, or set them aside, before asking several agents again.');
    }
    const names = choices.map((choice) => this.deps.agentName(choice.agentId));
    if (container) {
      await requireContainers(this.deps, asking.machine, container);
    }
    await this.deps.turnCheckpoints?.idle(conversationId);
    const on = this.sets.copies.on(asking.machine);
    const { place, plainBecause } = await copyPlaceOf(asking.cwd, on);
    const attemptsId = newId();
    const directory = this.sets.copies.directoryOn(on, attemptsId);
    const taken = new Set<string>();
    const planned: Planned[] = [];
    for (const [index, choice] of choices.entries()) {
      const slug = branchPart(choice.agentId);
      const root = pathsOf(on.machine).join(directory, slug);
      const branch = place ? await freeBranch(place.root, `baton/${branchPart(conversationId)}/${slug}`, on, taken) : undefined;
      if (branch) {
        taken.add(branch);
      }
      const attemptId = newId();
      planned.push({
        attemptId,
        ...(container ? { machine: boxMachineId(attemptId) } : {}),
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
    await this.sets.copies.write({
      conversationId,
      attemptsId,
      ...(asking.machine === LOCAL_MACHINE_ID ? {} : { machine: asking.machine }),
      ...(place ? { repository: place.root } : {}),
      copies: planned.map(({ attemptId, root, branch }) => ({ attemptId, root, ...(branch ? { branch } : {}) })),
    });
    // The summary the commit gives back is what the attempts' conversations are made from (its title).
    const { summary } = committer.commit(conversationId, [
      {
        type: 'attempts.started',
        payload: {
          attemptsId,
          text,
          attempts: planned.map((attempt) => ({
            attemptId: attempt.attemptId,
            agentId: attempt.agentId,
            agentName: attempt.agentName,
            conversationId: attempt.conversationId,
            folder: attempt.folder,
            // In a container: the container's machine (the copy is on this computer, mounted there at its own path).
            machine: attempt.machine ?? asking.machine,
            kind: attempt.kind,
            ...(attempt.branch ? { branch: attempt.branch } : {}),
          })),
          ...(place ? { repository: place.root } : {}),
          ...(container ? { container: { image: container.image.trim(), network: container.network } } : {}),
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
    const work = prepareAttempts(this, { summary, attemptsId, text, planned, place, on, options, container }).finally(() =>
      this.preparing.delete(attemptsId),
    );
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
    const { set, attempt } = this.sets.find(summary.attemptOf.conversationId, summary.attemptOf.attemptsId, summary.attemptOf.attemptId);
    if (set.kept || set.removed) {
      throw new InvalidRequestError(
        `${attempt.agentName}'s attempt is closed (${set.kept ? 'another was kept' : 'the attempts were set aside'}); continue it as a branch to go on with it.`,
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

  /** What keeping an attempt would do: each file it changed, whether the person changed it since, both texts. */
  previewKeep(conversationId: string, attemptsId: string, attemptId: string): Promise<Result<'previewKeep'>> {
    return previewKeep(this, this.sets.choice(conversationId, attemptsId, attemptId));
  }

  /**
   * Keeps one attempt: applies its changes to the working folder (a file the person changed since
   * the attempts started only when ticked in `overwrite`), adds its turns to the conversation (which
   * goes on with its agent), and removes every copy but those continued as branches.
   */
  keep(conversationId: string, attemptsId: string, attemptId: string, overwrite: readonly string[]): Promise<Result<'keepAttempt'>> {
    return keepAttempt(this, this.sets.choice(conversationId, attemptsId, attemptId), overwrite);
  }

  /** Continues an attempt as a branch of its own, in its copy of the folder (made again if it was removed). */
  continueAttempt(conversationId: string, attemptsId: string, attemptId: string): Promise<ConversationSummary> {
    const { set, attempt } = this.sets.find(conversationId, attemptsId, attemptId);
    return continueAttempt(this, this.deps.store.getSummary(conversationId), set, attempt);
  }

  /** Each attempt's changes against the working folder as the attempts started, with both texts. */
  compare(conversationId: string, attemptsId: string): Promise<Result<'compareAttempts'>> {
    const { place, set } = this.sets.choice(conversationId, attemptsId);
    return compareAttempts(this, set, this.sets.copies.on(place.machine));
  }

  /** A message for an agent asked to compare the attempts: each attempt's reply and its changes as a diff. */
  async comparisonMessage(conversationId: string, attemptsId: string): Promise<string> {
    const { place, set } = this.sets.choice(conversationId, attemptsId);
    const { attempts } = await compareAttempts(this, set, this.sets.copies.on(place.machine));
    return comparisonText(set, attempts, (attemptConversationId) => this.sets.replyOf(attemptConversationId));
  }

  /** Sets the attempts aside: stops those still running and removes their copies (not those continued as branches). */
  async setAside(conversationId: string, attemptsId: string): Promise<Result<'setAttemptsAside'>> {
    const { set } = this.sets.find(conversationId, attemptsId);
    return set.removed ? { failed: [] } : removeCopies(this, conversationId, attemptsId);
  }

  /** Before a conversation is erased: its attempts (conversations and copies) go with it, through `erase`. */
  beforePurge(conversationId: string, erase: (conversationId: string) => Promise<void>): Promise<void> {
    return beforePurge(this, this.deps.store.getSummary(conversationId), erase);
  }

  /** At start-up: the copies nothing accounts for are removed, unfinished attempts marked failed. Returns what was removed. */
  recover(): Promise<string[]> {
    return recoverCopies(this);
  }

  /** The copies left on their machines (those open now), by attempts id. */
  copiesOnDisk(): Promise<Array<{ attemptsId: string; conversationId: string; roots: string[] }>> {
    return copiesOnDisk(this);
  }
}

/** Attempts in containers: on this computer (the engine mounts its folders), with an engine and an image named. */
async function requireContainers(deps: AttemptsDeps, machine: string, container: ContainerChoice): Promise<void> {
  if (!deps.containers) {
    throw new InvalidRequestError('This Baton cannot start containers.');
  }
  if (machine !== LOCAL_MACHINE_ID) {
    throw new InvalidRequestError(
      'Attempts in containers are for a folder on this computer: the engine here mounts each copy. Ask without containers on another machine.',
    );
  }
  if (container.image.trim() === '') {
    throw new InvalidRequestError('Name the image the containers start from (for example: docker.io/library/node:22).');
  }
  await deps.containers.engine();
}

function requireAsking(standing: Standing): void {
  if (standing === 'deleted') {
    throw new InvalidRequestError('This conversation is in the trash; restore it to continue.');
  }
  if (standing === 'attempt') {
    throw new InvalidRequestError('This is one attempt of several: continue it as a branch to ask several agents from it.');
  }
}
