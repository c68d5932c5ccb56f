/**
 * Conversations and their turns: creates conversations, commits the person's message as a new
 * turn, drives the conversation's live agent through it, and records how it ended. Everything
 * goes through the Committer, so it is durable before any window sees it.
 */
import os from 'node:os';
import { z } from 'zod';
import { AgentNotInstalledError, BatonError, InvalidRequestError, NotFoundError, TurnInProgressError, toWireError } from '../../../app/errors.js';
import type { ElicitationValue } from '../../../app/agents/elicitation.js';
import type { EventDraft } from '../../../app/events/index.js';
import { newId } from '../../../app/ids.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import { emptyTranscript, interruptUnfinished, reduceAll } from '../../../app/transcript/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { Env } from '../adapters/AgentAdapter.js';
import type { AgentCatalog } from '../adapters/AgentCatalog.js';
import type { InstructionText } from '../../../app/instructions/bundle.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import { resolveBinding, type BindingRequest } from '../binding/resolveBinding.js';
import { AgentProcesses } from '../pool/AgentProcesses.js';
import { InstructionSettings, type ComposedInstructions } from '../instructions/InstructionSettings.js';
import { injectTurn } from '../instructions/injectTurn.js';
import type { SessionOption } from '../acp/sessionOptions.js';
import { catchUpTurn, handoffBudgetSetting } from './catchUp.js';
import { refuseSwitch } from './refuseSwitch.js';
import { injectorChoiceSchema, type Injector, type InjectorChoice } from '../../../app/instructions/injectors.js';
import { agentSecrets } from '../instructions/knownSecrets.js';
import { SessionFolder } from '../instructions/SessionFolder.js';
import type { ToolboxCatalog } from '../toolbox/ToolboxCatalog.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import type { EventStore } from '../store/EventStore.js';
import { Committer } from './Committer.js';
import { LiveSession, type AnsweredPermission, type LiveSessionOwner } from './LiveSession.js';
import { openLiveSession } from './openLiveSession.js';
import type { Attachment } from '../../../app/prompt/attachments.js';
import { attachmentBlocks, prepareAttachments, type ReadyAttachment } from './attachments.js';
import { checkWorkingFolder } from '../files/checkWorkingFolder.js';
import { ImportReview } from './ImportReview.js';
import { redactSecrets } from '../../../app/instructions/injectors.js';

/** Receives pushed events. */
export type PushListener = (event: PushEvent) => void;

/** Minutes an idle session is kept open by default. */
const DEFAULT_IDLE_MINUTES = 10;

/** How long shutdown waits for cancelled turns to end before the agents are killed. */
const SHUTDOWN_GRACE_MS = 2_000;

/**
 * How long an agent has to end a turn after `session/cancel`. Past it, Baton ends the turn as
 * cancelled and the agent's process group with it; the next message starts the agent again.
 */
export const STOP_GRACE_MS = 5_000;

type Running = {
  turnId: string;
  cancelRequested: boolean;
  storeFailure: unknown;
  done: Promise<void>;
  /** Set once Stop was pressed: ends the agent if the turn is still running at STOP_GRACE_MS. */
  stopTimer?: NodeJS.Timeout;
  /** The agent did not stop in time and was ended. */
  forced?: boolean;
  /** The instruction bundle the turn runs under. */
  instructions: ComposedInstructions;
  /** The catalog servers the turn may use. */
  serverIds: readonly string[];
  /** The injectors the turn runs with, and its number in the conversation (1: the first). */
  injectors: readonly Injector[];
  turnNumber: number;
  /** No earlier turn reached an agent: first-turn injectors apply. */
  first: boolean;
  /** Why the turn cannot run, found before any agent is asked (an unavailable injector). */
  refusal?: unknown;
  /** What the person attached, checked. */
  attached: readonly ReadyAttachment[];
  /** The agent the conversation passed from on this turn: its options and the person's choices there. */
  switchedFrom?: { options: readonly SessionOption[]; chosen: Readonly<Record<string, string>> };
};

/** The conversations service. */
export class ConversationService {
  readonly committer: Committer;
  private readonly listeners = new Set<PushListener>();
  private readonly live = new Map<string, LiveSession>();
  private readonly starting = new Map<string, Promise<LiveSession>>();
  private readonly running = new Map<string, Running>();
  /** Live sessions that could not reopen their agent's earlier session (why, for the handoff). */
  private readonly fellBack = new WeakMap<LiveSession, string>();
  /** Live sessions whose agent is to be started afresh before their next turn. */
  private readonly stale = new WeakSet<LiveSession>();
  /** Per conversation, the timer that closes its idle session (see {@link idleMs}). */
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();

  /** The person's instruction settings (their own instructions, per-agent choices). */
  readonly instructions: InstructionSettings;
  /** The secret values Baton knows (toolbox, the agents' environment): redacted from what is recorded or handed on. */
  private readonly secrets: () => string[];
  /** Imported conversations waiting for the person's confirmation. */
  readonly importReview: ImportReview;

  constructor(
    private readonly store: EventStore,
    private readonly catalog: AgentCatalog,
    private readonly agentEnv: Env,
    private readonly log: (message: string) => void = () => {},
    /** The data folder: generated session files live under it. */
    private readonly dataDir?: string,
    /** The MCP servers conversations may use; without it, conversations get none. */
    private readonly toolbox?: ToolboxCatalog,
    private readonly homeDir: string = os.homedir(),
    /** The agent processes, shared by conversations whose bindings share a launch. */
    readonly pool: AgentProcesses = new AgentProcesses(log),
    /** Puts a server holding secrets behind Baton's launcher, for agents that expose their server config. */
    private readonly shield?: BindingRequest['shield'],
  ) {
    const secrets = (): string[] => [...(toolbox?.secretValues() ?? []), ...agentSecrets(agentEnv, catalog.adapters())];
    this.secrets = secrets;
    this.importReview = new ImportReview(store, homeDir);
    this.instructions = new InstructionSettings(store, agentEnv, dataDir, secrets);
    if (dataDir) {
      SessionFolder.removeLeftovers(dataDir);
    }
    this.committer = new Committer(store, (event) => this.emit(event), (conversationId, error) => this.onStoreFailure(conversationId, error), secrets);
  }

  /** Adds a listener for pushed events; returns its removal. */
  subscribe(listener: PushListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Marks turns left running by a process that died as interrupted. Run once at start-up. */
  recoverInterruptedTurns(): void {
    for (const summary of this.store.runningSummaries()) {
      const drafts = interruptUnfinished(reduceAll(emptyTranscript(summary.conversationId), this.store.readEvents(summary.conversationId).events));
      if (drafts.length > 0) {
        this.committer.commit(summary.conversationId, drafts);
      }
    }
  }

  /** Creates a conversation bound to an agent and a working folder, with its own instructions if given. */
  create(agentId: string, cwd: string, title = '', instructions?: InstructionText, serverIds?: readonly string[], injectors?: InjectorChoice): ConversationSummary {
    const adapter = this.catalog.get(agentId);
    checkWorkingFolder(cwd);
    const drafts: EventDraft[] = [{ type: 'conversation.created', payload: { title, agentId, agentName: adapter.displayName, cwd } }];
    if (instructions && instructions.text.trim() !== '') {
      this.instructions.compose({ conversation: instructions, agentId, cwd });
      drafts.push({ type: 'instructions.set', payload: instructions });
    }
    // Without a choice, a new conversation gets the default toolbox (if the person made one).
    const servers = serverIds ?? this.toolbox?.defaultServerIds() ?? [];
    if (servers.length > 0) {
      drafts.push({ type: 'toolbox.set', payload: this.requireToolbox().choose(servers) });
    }
    if (injectors && (injectors.names.length > 0 || injectors.off)) {
      drafts.push({ type: 'injectors.set', payload: injectorChoiceSchema.parse({ names: [...new Set(injectors.names)], off: injectors.off }) });
    }
    const { summary } = this.committer.commit(newId(), drafts, 0);
    return summary;
  }

  /** Chooses the MCP servers a conversation may use from its next turn (recorded with their names and a digest). */
  setToolbox(conversationId: string, serverIds: readonly string[]): void {
    this.store.getSummary(conversationId);
    this.committer.commit(conversationId, [{ type: 'toolbox.set', payload: this.requireToolbox().choose(serverIds) }]);
  }

  /** The conversation's servers, resolved as its next session would get them. */
  resolvedServers(conversationId: string): { servers: McpServer[]; cwd: string } {
    const summary = this.store.getSummary(conversationId);
    const serverIds = this.store.getContext(conversationId).toolbox?.servers.map((server) => server.serverId) ?? [];
    return { servers: this.resolveServers(conversationId, serverIds, summary.cwd), cwd: summary.cwd };
  }

  /** Resolves chosen servers; one removed from the catalog since is named in the error. */
  private resolveServers(conversationId: string, serverIds: readonly string[], cwd: string): McpServer[] {
    if (serverIds.length === 0) {
      return [];
    }
    try {
      return this.requireToolbox().resolve(serverIds, { env: this.agentEnv, workspaceFolder: cwd, userHome: this.homeDir });
    } catch (error) {
      if (error instanceof NotFoundError) {
        const missing = this.store.getContext(conversationId).toolbox?.servers.find((server) => server.serverId === error.details?.id);
        throw new InvalidRequestError(`The MCP server "${missing?.name ?? String(error.details?.id)}" chosen for this conversation is no longer in your toolbox; choose its tools again in Toolbox.`);
      }
      throw error;
    }
  }

  private requireToolbox(): ToolboxCatalog {
    if (!this.toolbox) {
      throw new InvalidRequestError('This Baton has no toolbox catalog.');
    }
    return this.toolbox;
  }

  /** Selects the conversation's injectors by name, or turns them all off; applies from its next turn. */
  setInjectors(conversationId: string, choice: InjectorChoice): void {
    const summary = this.store.getSummary(conversationId);
    if (summary.lifecycle === 'deleted') {
      throw new InvalidRequestError('This conversation is in the trash; restore it to change its injectors.');
    }
    this.committer.commit(conversationId, [{ type: 'injectors.set', payload: injectorChoiceSchema.parse({ names: [...new Set(choice.names)], off: choice.off }) }]);
  }

  /** Sets a conversation's own instructions (empty text clears them); they apply from its next turn. */
  setInstructions(conversationId: string, instructions: InstructionText): void {
    const summary = this.store.getSummary(conversationId);
    // Refuses a bundle past the size limit before anything is recorded.
    this.instructions.compose({ conversation: instructions, agentId: summary.agentId, cwd: summary.cwd });
    this.committer.commit(conversationId, [{ type: 'instructions.set', payload: instructions }]);
  }

  /**
   * Commits the person's message as a new turn and starts the agent on it in the background.
   * With another `agentId` than the conversation's, the conversation passes to that agent: the
   * switch is committed with the turn it serves, after what the agent cannot take is refused.
   */
  send(conversationId: string, text: string, agentId?: string, attachments: readonly Attachment[] = []): { turnId: string; seq: number } {
    const current = this.store.getSummary(conversationId);
    if (current.lifecycle === 'deleted') {
      throw new InvalidRequestError('This conversation is in the trash; restore it to continue.');
    }
    this.importReview.requireConfirmed(conversationId);
    if (this.running.has(conversationId)) {
      throw new TurnInProgressError(conversationId);
    }
    const adapter = this.catalog.get(agentId ?? current.agentId);
    const switching = adapter.agentId !== current.agentId;
    const summary: ConversationSummary = switching ? { ...current, agentId: adapter.agentId, agentName: adapter.displayName } : current;
    const context = this.store.getContext(conversationId);
    // An injector that cannot be used fails the turn closed, before any agent is asked.
    let injectors: Injector[] = [];
    let refusal: unknown;
    try {
      injectors = context.injectors && !context.injectors.off ? this.instructions.injectors.resolve(context.injectors.names, summary.cwd) : [];
    } catch (error) {
      refusal = error;
    }
    const instructions = this.instructions.compose({ conversation: context.instructions, agentId: summary.agentId, cwd: summary.cwd, injectors });
    const serverIds = context.toolbox?.servers.map((server) => server.serverId) ?? [];
    if (switching) {
      // Refused at the switch, before anything is committed: the person keeps their message.
      refuseSwitch(adapter, this.catalog, this.pool, {
        baseEnv: this.agentEnv,
        cwd: summary.cwd,
        mcpServers: this.resolveServers(conversationId, serverIds, summary.cwd),
        instructions: this.instructions.forBinding(adapter.agentId, instructions),
      });
    }
    const attached = prepareAttachments(attachments, summary.cwd);
    const turnId = newId();
    const { events } = this.committer.commit(conversationId, [
      ...(switching ? [{ type: 'agent.switched' as const, payload: { turnId, fromAgentId: current.agentId, fromAgentName: current.agentName, toAgentId: adapter.agentId, toAgentName: adapter.displayName } }] : []),
      { type: 'turn.started', payload: { turnId, agentId: adapter.agentId, agentName: adapter.displayName, text, instructionsSha256: instructions.sha256, instructionSources: instructions.sources, ...(context.toolbox ? { toolboxDigest: context.toolbox.digest } : {}), ...(attached.length > 0 ? { attachments: attached.map((ready) => ready.record) } : {}) } },
    ]);
    const running: Running = {
      turnId,
      cancelRequested: false,
      storeFailure: undefined,
      done: Promise.resolve(),
      instructions,
      serverIds,
      injectors,
      turnNumber: summary.turnCount + 1,
      first: !context.prompted,
      refusal,
      attached,
      ...(switching ? { switchedFrom: { options: context.sessionOptions, chosen: context.chosenOptions } } : {}),
    };
    this.running.set(conversationId, running);
    clearTimeout(this.idleTimers.get(conversationId));
    this.idleTimers.delete(conversationId);
    running.done = this.runTurn(conversationId, summary, running, text);
    return { turnId, seq: events.at(-1)!.seq };
  }

  /**
   * Sends a follow-up into the running turn, for agents with the steering extension; recorded as
   * the person's, in that turn. Resolves false when it could not be (no turn runs any more, or
   * the agent takes none): the caller sends it as a message of its own instead.
   */
  async steer(conversationId: string, text: string): Promise<boolean> {
    const running = this.running.get(conversationId);
    const live = this.live.get(conversationId);
    if (!running || !live || running.cancelRequested) {
      return false;
    }
    if (!(await live.steer(text))) {
      return false;
    }
    this.committer.commit(conversationId, [{ type: 'turn.steered', payload: { turnId: running.turnId, text } }]);
    return true;
  }

  /** Asks the running turn to stop. Resolves false when nothing was running. */
  async cancel(conversationId: string): Promise<boolean> {
    const running = this.running.get(conversationId);
    if (!running) {
      return false;
    }
    running.cancelRequested = true;
    if (!running.stopTimer) {
      running.stopTimer = setTimeout(() => void this.forceStop(conversationId, running), STOP_GRACE_MS);
      running.stopTimer.unref();
    }
    const live = this.live.get(conversationId);
    if (live) {
      await live.cancel().catch((error: unknown) => this.log(`cancel failed: ${String(error)}`));
    }
    return true;
  }

  /** The agent ignored Stop: end its process group, so that the turn ends (as cancelled) and the next message starts it again. */
  private async forceStop(conversationId: string, running: Running): Promise<void> {
    const live = this.live.get(conversationId);
    if (this.running.get(conversationId) !== running || !live) {
      return;
    }
    running.forced = true;
    this.live.delete(conversationId);
    this.log(`${live.binding.agentName} did not end turn ${running.turnId} within ${STOP_GRACE_MS} ms of session/cancel; ending it`);
    await live.kill();
  }

  /** True while a turn runs in the conversation. */
  isRunning(conversationId: string): boolean {
    return this.running.has(conversationId);
  }

  /** Passes the person's answer to a waiting permission request; returns what was answered. */
  answerPermission(conversationId: string, requestId: string, optionId: string): AnsweredPermission {
    const live = this.live.get(conversationId);
    const result = live ? live.answer(requestId, optionId) : 'unknown-request';
    if (result === 'unknown-request') {
      throw new NotFoundError('open permission request', requestId);
    }
    if (result === 'unknown-option') {
      throw new InvalidRequestError(`The agent did not offer the option "${optionId}".`);
    }
    return result;
  }

  /** Has every live session of an agent in a folder start its agent afresh for its next turn (a running turn finishes first). */
  restartAgents(agentId: string, cwd: string): void {
    const asking = this.catalog.get(agentId).modes?.asking;
    for (const [conversationId, live] of this.live) {
      if (live.binding.agentId === agentId && live.binding.cwd === cwd) {
        this.stale.add(live);
        // An "always" answer may have been a mode (claude-agent-acp 0.101: "allow all edits during
        // this session" is its acceptEdits), which a reopened session keeps: the person's revoking
        // it is a choice of the asking mode, applied when the session is bound again.
        const mode = live.sessionOptions.find((option) => option.category === 'mode');
        if (asking && mode && mode.options.some((value) => value.value === asking)) {
          this.committer.commit(conversationId, [{ type: 'session.option.chosen', payload: { optionId: mode.id, value: asking } }]);
        }
      }
    }
  }

  /** Passes the person's answer to a waiting elicitation (a form's values are checked first). */
  answerElicitation(conversationId: string, requestId: string, action: 'accept' | 'decline' | 'cancel', content: Record<string, ElicitationValue> | undefined): void {
    const live = this.live.get(conversationId);
    const result = live ? live.answerElicitation(requestId, action, content) : { kind: 'unknown-request' as const };
    if (result.kind === 'unknown-request') {
      throw new NotFoundError('open request for input', requestId);
    }
    if (result.kind === 'invalid') {
      throw new InvalidRequestError(result.problems.join(' '));
    }
  }

  /** Stops the conversation's agent, if one runs (before the conversation is erased). */
  async release(conversationId: string): Promise<void> {
    await this.cancel(conversationId);
    await this.running.get(conversationId)?.done;
    const live = this.live.get(conversationId);
    this.live.delete(conversationId);
    await live?.dispose();
  }

  /** Waits for running turns (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()].map((running) => running.done));
  }

  /** Stops every agent; running turns get a moment to record how they ended. */
  async dispose(): Promise<void> {
    await Promise.all([...this.running.keys()].map((conversationId) => this.cancel(conversationId)));
    await Promise.race([this.idle(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS))]);
    for (const timer of this.idleTimers.values()) {
      clearTimeout(timer);
    }
    this.idleTimers.clear();
    await Promise.all([...this.live.values()].map((live) => live.dispose()));
    this.live.clear();
    await this.pool.dispose();
    try {
      this.committer.flush();
    } catch (error) {
      this.log(`could not save the last streamed text: ${String(error)}`);
    }
    this.listeners.clear();
  }

  private async runTurn(conversationId: string, summary: ConversationSummary, running: Running, text: string): Promise<void> {
    const { turnId } = running;
    try {
      if (running.refusal) {
        throw running.refusal;
      }
      const live = await this.liveSession(conversationId, summary, running);
      if (running.cancelRequested) {
        this.committer.commit(conversationId, [{ type: 'turn.ended', payload: { turnId, outcome: 'cancelled' } }]);
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
        settings: this.instructions.agent(summary.agentId),
        appendLevel: running.injectors.length > 0 ? live.deliveryPlan.levels.append : undefined,
      });
      // Refused here, before a catch-up is prepared, when the agent cannot take what was attached.
      const attachedBlocks = attachmentBlocks(running.attached, { agentName: live.binding.agentName, image: live.takesImages, embeddedContext: live.takesEmbeddedContext });
      const caught = await catchUpTurn({
        conversationId,
        store: this.store,
        commit: (drafts) => this.committer.commit(conversationId, drafts),
        live,
        agentId: summary.agentId,
        agentName: summary.agentName,
        turnId,
        turnNumber: running.turnNumber,
        switchedFrom: running.switchedFrom,
        fellBack: this.fellBack.get(live),
        budgetFallback: handoffBudgetSetting(this.agentEnv),
      });
      const reply = live.prompt(text, [...(caught?.block ? [caught.block] : []), ...injection.blocks, ...attachedBlocks]);
      // Handled below; this keeps a rejection from counting as unhandled if the commit throws first.
      reply.catch(() => undefined);
      // Recorded once the prompt is on its way, so the agent is not kept waiting for the disk.
      this.committer.commit(conversationId, [...(caught ? [caught.draft] : []), ...injection.drafts, { type: 'turn.running', payload: { turnId } }]);
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
      this.committer.commit(conversationId, drafts);
    } catch (error) {
      if (running.forced && !running.storeFailure) {
        this.committer.commit(conversationId, [
          { type: 'notice', payload: { turnId, severity: 'warning', text: `${summary.agentName} did not stop within ${STOP_GRACE_MS / 1000} s of being asked, so Baton ended it. Your next message starts it again.` } },
          { type: 'turn.ended', payload: { turnId, outcome: 'cancelled' } },
        ]);
        return;
      }
      const cause = running.storeFailure ?? error;
      this.log(`turn ${turnId} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
      try {
        this.committer.commit(conversationId, [{ type: 'turn.ended', payload: { turnId, outcome: 'failed', error: toWireError(cause) } }]);
      } catch (storeError) {
        // The store cannot record the failure either: tell the windows directly.
        this.committer.push({ name: 'hostError', payload: { conversationId, error: toWireError(storeError) } });
      }
    } finally {
      clearTimeout(running.stopTimer);
      this.running.delete(conversationId);
      // An agent that broke the protocol is still running but cannot be talked to: end it.
      const live = this.live.get(conversationId);
      if (live && !live.usable) {
        this.live.delete(conversationId);
        await live.dispose();
      } else if (live) {
        this.closeWhenIdle(conversationId, live);
      }
    }
  }

  /**
   * How long a session may stay idle before it is closed (`session/close`) and its process let
   * go; the next message reopens it. A setting (`agents.idleMinutes`, default 10);
   * `BATON_AGENT_IDLE_MS` overrides it (benchmarks, tests).
   */
  get idleMs(): number {
    const override = Number(this.agentEnv.BATON_AGENT_IDLE_MS);
    if (Number.isFinite(override) && override > 0) {
      return override;
    }
    return this.store.getSetting('agents.idleMinutes', z.number().min(1).max(24 * 60), DEFAULT_IDLE_MINUTES) * 60_000;
  }

  private closeWhenIdle(conversationId: string, live: LiveSession): void {
    clearTimeout(this.idleTimers.get(conversationId));
    const timer = setTimeout(() => {
      this.idleTimers.delete(conversationId);
      if (this.live.get(conversationId) === live && !this.running.has(conversationId) && !this.starting.has(conversationId)) {
        this.live.delete(conversationId);
        void live.dispose().catch((error: unknown) => this.log(`could not close the idle session of ${conversationId}: ${String(error)}`));
      }
    }, this.idleMs);
    timer.unref();
    this.idleTimers.set(conversationId, timer);
  }

  /** A write failed while the agent was streaming: stop the agent; the turn fails with the store's error. */
  private onStoreFailure(conversationId: string, error: unknown): void {
    this.log(`store failure in ${conversationId}: ${error instanceof BatonError ? error.message : String(error)}`);
    const running = this.running.get(conversationId);
    if (running && !running.storeFailure) {
      running.storeFailure = error;
      void this.cancel(conversationId);
    } else if (!running) {
      this.committer.push({ name: 'hostError', payload: { conversationId, error: toWireError(error) } });
    }
  }

  /**
   * The conversation's live agent session, started (and bound) on first use. A live session whose
   * binding no longer matches (another toolbox, other instructions or settings for them) is let go
   * first, and `binding.changed` says so: its session is reopened with the new binding.
   */
  private async liveSession(conversationId: string, summary: ConversationSummary, running: Pick<Running, 'instructions' | 'serverIds'>): Promise<LiveSession> {
    const request = this.bindingRequest(conversationId, summary, running);
    const existing = this.live.get(conversationId);
    if (existing && !this.stale.has(existing) && existing.binding.agentId === summary.agentId) {
      const wanted = resolveBinding({ ...request, initialized: existing.initialized });
      if (wanted.launch.digest === existing.binding.launch.digest && wanted.session.digest === existing.binding.session.digest) {
        return existing;
      }
      this.committer.commit(conversationId, [bindingChanged(existing.binding, wanted)]);
    }
    if (existing) {
      this.live.delete(conversationId);
      await existing.dispose();
    }
    const pending = this.starting.get(conversationId) ?? this.startLiveSession(conversationId, request).finally(() => this.starting.delete(conversationId));
    this.starting.set(conversationId, pending);
    return pending;
  }

  /** What the conversation's next binding is resolved from. */
  private bindingRequest(conversationId: string, summary: ConversationSummary, running: Pick<Running, 'instructions' | 'serverIds'>): BindingRequest {
    const adapter = this.catalog.get(summary.agentId);
    const executable = this.catalog.resolve(adapter);
    if (!executable) {
      throw new AgentNotInstalledError(adapter.displayName, adapter.command, adapter.installHint);
    }
    return {
      adapter,
      executable,
      baseEnv: this.agentEnv,
      cwd: summary.cwd,
      mcpServers: this.resolveServers(conversationId, running.serverIds, summary.cwd),
      instructions: this.instructions.forBinding(summary.agentId, running.instructions),
      chosenOptions: this.store.getContext(conversationId).chosenOptions,
      ...(this.shield ? { shield: this.shield } : {}),
    };
  }

  /**
   * Resolves the binding with the agent's `initialize` answer (from a process of it started for
   * that, when none ran yet this time) and starts the session on the pool's process for it.
   */
  private async startLiveSession(conversationId: string, request: BindingRequest): Promise<LiveSession> {
    const { adapter } = request;
    const live = await openLiveSession(request, { pool: this.pool, owner: this.owner(conversationId), ...(this.dataDir ? { sessionFilesDir: this.dataDir } : {}) });
    try {
      const context = this.store.getContext(conversationId);
      const own = context.sessions[adapter.agentId];
      const recorded = own?.sessionId;
      // A session created with other instructions or servers is not reopened: agents keep what a
      // session was created with (measured: claude-agent-acp 0.101 keeps its system prompt and
      // servers across a resume), so it gets a new session and Baton's handoff, said in the transcript.
      const changedSince = own?.sessionDigest !== undefined && own.sessionDigest !== live.binding.session.digest;
      // A session named by an imported file is not reopened: it may not be this conversation's at all.
      const previous = recorded && !changedSince && !this.importReview.isImportedSession(conversationId, recorded) ? recorded : undefined;
      const turnId = this.running.get(conversationId)?.turnId;
      const drafts = (await live.bind(adapter, previous)).map((draft) => (draft.type === 'notice' && turnId ? { ...draft, payload: { ...draft.payload, turnId } } : draft));
      const bound = drafts[0];
      if (previous && bound?.type === 'session.bound' && bound.payload.how === 'new') {
        // The turn's catch-up hands it the conversation instead, and says so.
        this.fellBack.set(live, `${adapter.displayName} could not reopen its own earlier session, so Baton handed it the conversation instead`);
      } else if (recorded && changedSince) {
        this.fellBack.set(live, `${adapter.displayName}'s toolbox or instructions changed, which its earlier session would not take, so Baton started a new session and handed it the conversation`);
      }
      this.committer.commit(conversationId, drafts);
      live.start();
      await this.reapplyChoices(conversationId, live, context.chosenOptions, turnId);
    } catch (error) {
      await live.dispose();
      throw error;
    }
    this.live.set(conversationId, live);
    return live;
  }

  /** Applies what the person chose for this conversation to a session that was just bound. */
  private async reapplyChoices(conversationId: string, live: LiveSession, chosen: Record<string, string>, turnId: string | undefined): Promise<void> {
    for (const [optionId, value] of Object.entries(chosen)) {
      const option = live.sessionOptions.find((candidate) => candidate.id === optionId);
      if (!option || option.currentValue === value) {
        continue;
      }
      try {
        this.committer.commit(conversationId, [await live.choose(optionId, value)]);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.committer.commit(conversationId, [{ type: 'notice', payload: { turnId, severity: 'warning', text: `Your choice of ${option.name} could not be applied again: ${reason}` } }]);
      }
    }
  }

  /**
   * Sets a session option (model, mode…) and remembers it for the conversation. Without a live
   * agent it is only remembered, and applied when the next session is bound.
   */
  async chooseOption(conversationId: string, optionId: string, value: string): Promise<void> {
    this.store.getSummary(conversationId);
    const live = this.live.get(conversationId);
    const drafts: EventDraft[] = [{ type: 'session.option.chosen', payload: { optionId, value } }];
    if (live) {
      drafts.push(await live.choose(optionId, value));
    }
    this.committer.commit(conversationId, drafts);
  }

  private owner(conversationId: string): LiveSessionOwner {
    return {
      commit: (drafts) => {
        try {
          this.committer.submit(conversationId, drafts);
        } catch (error) {
          this.onStoreFailure(conversationId, error);
        }
      },
      activeTurnId: () => this.running.get(conversationId)?.turnId,
      redact: (text) => redactSecrets(text, this.secrets()),
      onExit: () => {
        const live = this.live.get(conversationId);
        this.live.delete(conversationId);
        void live?.dispose();
      },
      log: this.log,
    };
  }

  private emit(event: PushEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.log(`a listener failed: ${String(error)}`);
      }
    }
  }
}

/** The `binding.changed` draft for a live session's binding and the one the next turn needs. */
function bindingChanged(from: PreparedBinding, to: PreparedBinding): EventDraft {
  const changed = [
    ...(JSON.stringify(from.mcpServers) !== JSON.stringify(to.mcpServers) ? ['the toolbox'] : []),
    ...(from.instructions?.sha256 !== to.instructions?.sha256 || JSON.stringify(from.instructions?.settings) !== JSON.stringify(to.instructions?.settings) ? ['the instructions'] : []),
  ];
  return {
    type: 'binding.changed',
    payload: { ...(to.instructions ? { instructionsDigest: to.instructions.sha256 } : {}), launchDigest: to.launch.digest, sessionDigest: to.session.digest, changed: changed.length > 0 ? changed : ['the agent\'s settings'] },
  };
}

function stopNotice(stopReason: 'max_tokens' | 'max_turn_requests' | 'refusal'): string {
  switch (stopReason) {
    case 'max_tokens':
      return 'The reply stopped because the model reached its token limit.';
    case 'max_turn_requests':
      return 'The reply stopped because the agent reached its limit of model requests for one turn.';
    case 'refusal':
      return 'The agent refused to continue.';
  }
}
