/**
 * The turns of conversations: commits the person's message as a new turn, drives the
 * conversation's live session through it, and records how it ended; steering, Stop (and ending an
 * agent that ignores it), and the person's answers to the questions a running turn asks.
 * Everything goes through the Committer, so it is durable before any window sees it.
 */
import { endedAfterStop, stopNotice, stoppedBeforeSession } from './turnEndings.js';
import { TurnStopped } from './untilStopped.js';
import { BatonError, InvalidRequestError, NotFoundError, TurnInProgressError, toWireError } from '../../../app/errors.js';
import type { ElicitationValue } from '../../../app/agents/elicitation.js';
import type { EventDraft } from '../../../app/events/index.js';
import { newId } from '../../../app/ids.js';
import type { Injector } from '../../../app/instructions/injectors.js';
import type { Attachment } from '../../../app/prompt/attachments.js';
import { emptyTranscript, interruptUnfinished, reduceAll } from '../../../app/transcript/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { SessionOption } from '../acp/sessionOptions.js';
import type { BindingRequest } from '../binding/resolveBinding.js';
import { injectTurn } from '../instructions/injectTurn.js';
import type { TurnCheckpoints } from '../checkpoints/TurnCheckpoints.js';
import { attachmentBlocks, prepareAttachments, type AttachmentMachine, type ReadyAttachment } from './attachments.js';
import { catchUpTurn, handoffBudgetSetting } from './catchUp.js';
import type { ConversationParts } from './ConversationSettings.js';
import type { AnsweredPermission } from './SessionPermissions.js';
import type { EarlierSession } from './LiveSession.js';
import type { LiveSessions, TurnState } from './LiveSessions.js';
import type { PendingFolders } from './PendingFolders.js';
import type { TurnPlanner, TurnSources } from './TurnPlanner.js';

/** How long shutdown waits for cancelled turns to end before the agents are killed. */
const SHUTDOWN_GRACE_MS = 2_000;

/** How long a failed turn waits for the agent's last error output to arrive before recording it. */
const STDERR_SETTLE_MS = 150;

/**
 * How long a prompt waits for its turn's checkpoint (taken while the session starts); past it, the prompt goes out and the checkpoint goes
 * on.
 */
const CHECKPOINT_WAIT_MS = 250;

/**
 * How long an agent has to end a turn after `session/cancel`. Past it, Baton ends the turn as
 * cancelled and the agent's process group with it; the next message starts the agent again.
 */
export const STOP_GRACE_MS = 5_000;

type Running = {
  turnId: string;
  cancelRequested: boolean;
  /** Aborted by Stop: ends a wait for the agent's session at once (see `LiveSessions.start`). */
  stop: AbortController;
  storeFailure: unknown;
  done: Promise<void>;
  /** Set once Stop was pressed: ends the agent if the turn is still running at STOP_GRACE_MS. */
  stopTimer?: NodeJS.Timeout;
  /** The agent did not stop in time and was ended. */
  forced?: boolean;
  /** What the turn's session is bound with; undefined when {@link refusal} says why it cannot be. */
  request: BindingRequest | undefined;
  /** The agent's own earlier session of the conversation, reopened where it can be. */
  earlier: EarlierSession | undefined;
  /** The injectors the turn runs with, and its number in the conversation (1: the first). */
  injectors: readonly Injector[];
  turnNumber: number;
  /** No earlier turn reached an agent: first-turn injectors apply. */
  first: boolean;
  /** Why the turn cannot run, found before any agent is asked (an unavailable injector, an agent not installed). */
  refusal?: unknown;
  /** What the person attached, checked. */
  attached: readonly ReadyAttachment[];
  /** The agent the conversation passed from on this turn: its options and the person's choices there. */
  switchedFrom?: { options: readonly SessionOption[]; chosen: Readonly<Record<string, string>> };
  /** The checkpoint of the working folder taken as the turn starts (recorded when it resolves). */
  checkpointBefore: Promise<void>;
  /** True once the prompt went out (a "before" checkpoint still being taken then is approximate). */
  promptSent: boolean;
};

/** What the turns are run with. */
export type TurnsDeps = Pick<
  ConversationParts,
  'store' | 'catalog' | 'agentEnv' | 'committer' | 'instructions' | 'importReview' | 'log'
> & {
  /** Makes the live sessions the turns drive, told of the turns (which turn runs, a failed write). */
  sessions: (turns: TurnState) => LiveSessions;
  /** Plans each turn: what it runs under and the one binding request of its session. */
  planner: TurnPlanner;
  /** Checkpoints of the working folder before and after each turn (none without it). */
  checkpoints?: TurnCheckpoints;
  /** Folders still being made (an attempt's copy): the turn's first checkpoint waits for its folder. */
  pendingFolders?: PendingFolders;
  /** The machine of a conversation's working folder, where the files a message mentions are looked up. */
  filesOf: (conversationId: string) => AttachmentMachine;
};

/** The turns service. */
export class Turns implements TurnState {
  private readonly running = new Map<string, Running>();
  /** Set once the host is closing: what ends a turn then is not the person's Stop. */
  private closing = false;
  /** The conversations' live agent sessions. */
  readonly sessions: LiveSessions;

  constructor(private readonly deps: TurnsDeps) {
    this.sessions = deps.sessions(this);
    // A write of a streamed reply that failed: the turn it streams into fails with the store's error.
    deps.committer.onBatchFailure((conversationId, error) => this.onStoreFailure(conversationId, error));
  }

  /** Marks turns left running by a process that died as interrupted. Run once at start-up. */
  recoverInterrupted(): void {
    const { store, committer } = this.deps;
    for (const summary of store.runningSummaries()) {
      const drafts = interruptUnfinished(
        reduceAll(emptyTranscript(summary.conversationId), store.readEvents(summary.conversationId).events),
      );
      if (drafts.length > 0) {
        committer.commit(summary.conversationId, drafts);
      }
    }
  }

  /**
   * The attachments of a message to the conversation, checked: a mentioned file is looked up in the
   * working folder on its machine. Rejects with InvalidRequest naming the first bad one.
   */
  prepareAttachments(conversationId: string, attachments: readonly Attachment[]): Promise<ReadyAttachment[]> {
    if (attachments.length === 0) {
      return Promise.resolve([]);
    }
    const { cwd } = this.deps.store.getSummary(conversationId);
    return prepareAttachments(attachments, cwd, this.deps.filesOf(conversationId));
  }

  /**
   * Commits the person's message as a new turn and starts the agent on it in the background.
   * With another `agentId` than the conversation's, the conversation passes to that agent: the
   * switch is committed with the turn it serves, after what the agent cannot take is refused.
   * What the turn composes from (the folder's trusted instructions, the person's injectors) is
   * read first, on the folder's machine; the rest happens at once, as one step.
   */
  async send(
    conversationId: string,
    text: string,
    agentId?: string,
    /** Checked first, on the folder's machine ({@link Turns.prepareAttachments}). */
    attached: readonly ReadyAttachment[] = [],
    options: { withoutInstructions?: boolean; withoutTools?: boolean } = {},
  ): Promise<{ turnId: string; seq: number }> {
    const sources = await this.deps.planner.sources(this.deps.store.getSummary(conversationId));
    return this.sendWith(sources, conversationId, text, agentId, attached, options);
  }

  /** {@link Turns.send} once what the turn composes from is read. */
  private sendWith(
    sources: TurnSources,
    conversationId: string,
    text: string,
    agentId: string | undefined,
    attached: readonly ReadyAttachment[],
    options: { withoutInstructions?: boolean; withoutTools?: boolean },
  ): { turnId: string; seq: number } {
    const { store, catalog, committer, planner } = this.deps;
    const current = store.getSummary(conversationId);
    if (current.lifecycle === 'deleted') {
      throw new InvalidRequestError('This conversation is in the trash; restore it to continue.');
    }
    this.deps.importReview.requireConfirmed(conversationId);
    if (this.running.has(conversationId)) {
      throw new TurnInProgressError(conversationId);
    }
    const adapter = catalog.get(agentId ?? current.agentId);
    const switching = adapter.agentId !== current.agentId;
    const summary: ConversationSummary = switching ? { ...current, agentId: adapter.agentId, agentName: adapter.displayName } : current;
    const context = store.getContext(conversationId);
    const composed = planner.compose(context, sources, summary, options);
    const { injectors, without, instructions, withoutTools, serverIds } = composed;
    let refusal = composed.refusal;
    let request: BindingRequest | undefined;
    try {
      // The agent's own choices: on a switch, those the person made for it earlier in the conversation.
      const chosen = switching ? (context.chosenByAgent[adapter.agentId] ?? {}) : context.chosenOptions;
      request = planner.request(conversationId, summary, { instructions, serverIds }, chosen);
      if (switching) {
        planner.refuseSwitch(request);
      }
    } catch (error) {
      if (switching) {
        // Refused at the switch, before anything is committed: the person keeps their message.
        throw error;
      }
      // The turn fails with it, once the person's message is recorded.
      refusal ??= error;
    }
    const turnId = newId();
    const { events } = committer.commit(conversationId, [
      ...(switching
        ? [
            {
              type: 'agent.switched' as const,
              payload: {
                turnId,
                fromAgentId: current.agentId,
                fromAgentName: current.agentName,
                toAgentId: adapter.agentId,
                toAgentName: adapter.displayName,
              },
            },
          ]
        : []),
      {
        type: 'turn.started',
        payload: {
          turnId,
          agentId: adapter.agentId,
          agentName: adapter.displayName,
          text,
          instructionsSha256: instructions.sha256,
          instructionSources: instructions.sources,
          ...(context.toolbox ? { toolboxDigest: context.toolbox.digest } : {}),
          ...(attached.length > 0 ? { attachments: attached.map((ready) => ready.record) } : {}),
          ...(without ? { withoutInstructions: true as const } : {}),
          ...(withoutTools ? { withoutTools: true as const } : {}),
        },
      },
    ]);
    const running: Running = {
      turnId,
      cancelRequested: false,
      stop: new AbortController(),
      storeFailure: undefined,
      done: Promise.resolve(),
      request,
      earlier: context.sessions[adapter.agentId],
      injectors,
      turnNumber: summary.turnCount + 1,
      first: !context.prompted,
      refusal,
      attached,
      ...(switching ? { switchedFrom: { options: context.sessionOptions, chosen: context.chosenOptions } } : {}),
      checkpointBefore: Promise.resolve(),
      promptSent: false,
    };
    const checkpoints = this.deps.checkpoints;
    const folderReady = this.deps.pendingFolders?.ready(conversationId) ?? Promise.resolve();
    // Of the folder as it is once made (a folder that could not be made fails the turn before any agent session).
    running.checkpointBefore = checkpoints
      ? folderReady.then(
          () => checkpoints.take(conversationId, turnId, summary.cwd, 'before', { promptSent: () => running.promptSent }),
          () => undefined,
        )
      : Promise.resolve();
    this.running.set(conversationId, running);
    running.done = this.run(conversationId, summary, running, text);
    return { turnId, seq: events.at(-1)!.seq };
  }

  /**
   * Sends a follow-up into the running turn, for agents with the steering extension; recorded as
   * the person's, in that turn. Resolves false when it could not be (no turn runs any more, or
   * the agent takes none): the caller sends it as a message of its own instead.
   */
  async steer(conversationId: string, text: string): Promise<boolean> {
    const running = this.running.get(conversationId);
    const live = this.sessions.get(conversationId);
    if (!running || !live || running.cancelRequested) {
      return false;
    }
    if (!(await live.steer(text))) {
      return false;
    }
    this.deps.committer.commit(conversationId, [{ type: 'turn.steered', payload: { turnId: running.turnId, text } }]);
    return true;
  }

  /** Asks the running turn to stop. Resolves false when nothing was running. */
  async cancel(conversationId: string): Promise<boolean> {
    const running = this.running.get(conversationId);
    if (!running) {
      return false;
    }
    running.cancelRequested = true;
    running.stop.abort();
    if (!running.stopTimer) {
      running.stopTimer = setTimeout(() => void this.forceStop(conversationId, running), STOP_GRACE_MS);
      running.stopTimer.unref();
    }
    const live = this.sessions.get(conversationId);
    if (live) {
      await live.cancel().catch((error: unknown) => this.deps.log(`cancel failed: ${String(error)}`));
    }
    return true;
  }

  /** Stops the running turn (as Stop does) and resolves once it has ended: cancelled, or ended by force after the grace period. */
  async stopAndWait(conversationId: string): Promise<void> {
    const running = this.running.get(conversationId);
    if (running && (await this.cancel(conversationId))) {
      await running.done.catch(() => undefined);
    }
  }

  /** The agent ignored Stop: end its process group, so that the turn ends (as cancelled) and the next message starts it again. */
  private async forceStop(conversationId: string, running: Running): Promise<void> {
    if (this.running.get(conversationId) !== running || !this.sessions.get(conversationId)) {
      return;
    }
    const live = this.sessions.take(conversationId)!;
    running.forced = true;
    this.deps.log(`${live.binding.agentName} did not end turn ${running.turnId} within ${STOP_GRACE_MS} ms of session/cancel; ending it`);
    await live.kill();
  }

  /** True while a turn runs in the conversation. */
  isRunning(conversationId: string): boolean {
    return this.running.has(conversationId);
  }

  /** The turn running in the conversation, if any. */
  activeTurnId(conversationId: string): string | undefined {
    return this.running.get(conversationId)?.turnId;
  }

  /** Passes the person's answer to a waiting permission request; returns what was answered. */
  answerPermission(conversationId: string, requestId: string, optionId: string): AnsweredPermission {
    const live = this.sessions.get(conversationId);
    const result = live ? live.answer(requestId, optionId) : 'unknown-request';
    if (result === 'unknown-request') {
      throw new NotFoundError('open permission request', requestId);
    }
    if (result === 'unknown-option') {
      throw new InvalidRequestError(`The agent did not offer the option "${optionId}".`);
    }
    return result;
  }

  /** Passes the person's answer to a waiting elicitation (a form's values are checked first). */
  answerElicitation(
    conversationId: string,
    requestId: string,
    action: 'accept' | 'decline' | 'cancel',
    content: Record<string, ElicitationValue> | undefined,
  ): void {
    const live = this.sessions.get(conversationId);
    const result = live ? live.answerElicitation(requestId, action, content) : { kind: 'unknown-request' as const };
    if (result.kind === 'unknown-request') {
      throw new NotFoundError('open request for input', requestId);
    }
    if (result.kind === 'invalid') {
      throw new InvalidRequestError(result.problems.join(' '));
    }
  }

  /** Stops the conversation's turn and its agent, if one runs (before the conversation is erased). */
  async release(conversationId: string): Promise<void> {
    await this.cancel(conversationId);
    await this.running.get(conversationId)?.done;
    await this.sessions.release(conversationId);
  }

  /** Waits for running turns (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()].map((running) => running.done));
  }

  /** Asks every running turn to stop and gives them a moment to record how they ended. */
  async dispose(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.running.keys()].map((conversationId) => this.cancel(conversationId)));
    await Promise.race([this.idle(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS))]);
  }

  /** A write failed while the agent was streaming: stop the agent; the turn fails with the store's error. */
  onStoreFailure(conversationId: string, error: unknown): void {
    this.deps.log(`store failure in ${conversationId}: ${error instanceof BatonError ? error.message : String(error)}`);
    const running = this.running.get(conversationId);
    if (running && !running.storeFailure) {
      running.storeFailure = error;
      void this.cancel(conversationId);
    } else if (!running) {
      this.deps.committer.push({ name: 'hostError', payload: { conversationId, error: toWireError(error) } });
    }
  }

  private async run(conversationId: string, summary: ConversationSummary, running: Running, text: string): Promise<void> {
    const { turnId } = running;
    const { committer } = this.deps;
    const { sessions } = this;
    try {
      if (running.refusal || !running.request) {
        throw running.refusal;
      }
      const live = await sessions.forTurn(conversationId, running.request, running.earlier, running.stop.signal);
      if (running.cancelRequested) {
        committer.commit(conversationId, [{ type: 'turn.ended', payload: { turnId, outcome: 'cancelled' } }]);
        return;
      }
      const injection = injectTurn({
        agentName: live.binding.agentName,
        injectors: running.injectors,
        turnId,
        turnNumber: running.turnNumber,
        first: running.first,
        message: text,
        embeddedContext: live.takesEmbeddedContext,
        settings: this.deps.instructions.agent(summary.agentId),
        appendLevel: running.injectors.length > 0 ? live.deliveryPlan.levels.append : undefined,
      });
      // Refused here, before a catch-up is prepared, when the agent cannot take what was attached.
      const attachedBlocks = attachmentBlocks(running.attached, {
        agentName: live.binding.agentName,
        image: live.takesImages,
        embeddedContext: live.takesEmbeddedContext,
      });
      const caught = await catchUpTurn({
        conversationId,
        store: this.deps.store,
        commit: (drafts) => committer.commit(conversationId, drafts),
        live,
        agentId: summary.agentId,
        agentName: summary.agentName,
        turnId,
        turnNumber: running.turnNumber,
        switchedFrom: running.switchedFrom,
        fellBack: live.fellBack,
        budgetFallback: handoffBudgetSetting(this.deps.agentEnv),
      });
      await Promise.race([running.checkpointBefore, delay(CHECKPOINT_WAIT_MS)]);
      running.promptSent = true;
      const reply = live.prompt(text, [...(caught?.block ? [caught.block] : []), ...injection.blocks, ...attachedBlocks]);
      // Handled below; this keeps a rejection from counting as unhandled if the commit throws first.
      reply.catch(() => undefined);
      // Recorded once the prompt is on its way, so the agent is not kept waiting for the disk.
      committer.commit(conversationId, [
        ...(caught ? [caught.draft] : []),
        ...injection.drafts,
        { type: 'turn.running', payload: { turnId } },
      ]);
      const { stopReason, tokens } = await reply;
      if (running.storeFailure) {
        throw running.storeFailure;
      }
      const outcome = stopReason === 'cancelled' || running.cancelRequested ? 'cancelled' : 'completed';
      const drafts: EventDraft[] = [];
      if (stopReason === 'max_tokens' || stopReason === 'max_turn_requests' || stopReason === 'refusal') {
        drafts.push({ type: 'notice', payload: { turnId, severity: 'warning', text: stopNotice(stopReason) } });
      }
      drafts.push({ type: 'turn.ended', payload: { turnId, outcome, stopReason, ...(tokens ? { tokens } : {}) } });
      committer.commit(conversationId, drafts);
    } catch (error) {
      await this.recordFailure(conversationId, summary, running, error);
    } finally {
      clearTimeout(running.stopTimer);
      this.running.delete(conversationId);
      // The next message may be sent at once; the turn is done (`idle`) once its checkpoint is recorded.
      const checkpoint = this.deps.checkpoints?.take(conversationId, turnId, summary.cwd, 'after');
      await sessions.afterTurn(conversationId);
      await checkpoint;
    }
  }

  /** Records how a turn that threw ended: cancelled when Baton ended an agent that ignored Stop, else failed. */
  private async recordFailure(conversationId: string, summary: ConversationSummary, running: Running, error: unknown): Promise<void> {
    const { turnId } = running;
    const { committer } = this.deps;
    if (error instanceof TurnStopped && !running.storeFailure) {
      // Stopped before the agent's session was open: ended now, the session request let go.
      committer.commit(conversationId, stoppedBeforeSession(turnId, summary.agentName, this.closing));
      return;
    }
    if (running.forced && !running.storeFailure) {
      committer.commit(conversationId, endedAfterStop(turnId, summary.agentName, STOP_GRACE_MS));
      return;
    }
    const cause = running.storeFailure ?? error;
    this.deps.log(`turn ${turnId} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    // The agent's own last words go with any failure (redacted when recorded): the cause is often only there.
    const wire = toWireError(cause);
    const live = typeof wire.details?.stderrTail === 'string' ? undefined : this.sessions.get(conversationId);
    if (live) {
      // What the agent wrote just before failing may still be on its way through the pipe.
      await delay(STDERR_SETTLE_MS);
    }
    const tail = live?.stderrTail();
    const failure = tail ? { ...wire, details: { ...wire.details, stderrTail: tail } } : wire;
    try {
      committer.commit(conversationId, [{ type: 'turn.ended', payload: { turnId, outcome: 'failed', error: failure } }]);
    } catch (storeError) {
      // The store cannot record the failure either: tell the windows directly.
      committer.push({ name: 'hostError', payload: { conversationId, error: toWireError(storeError) } });
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
