/**
 * One conversation's live agent session: its lease on a pooled agent process, the ACP session it
 * is bound to, and the questions waiting for the person. Created on the first message after a
 * start (no agent runs just because a conversation is opened) and disposed when the agent exits,
 * the session has been idle, or the host shuts down. Its process may carry other conversations'
 * sessions: requests and updates reach it by its session id.
 */
import { InvalidRequestError } from '../../../app/errors.js';
import type { EventDraft } from '../../../app/events/index.js';
import type { ElicitationValue } from '../../../app/agents/elicitation.js';
import type { DeliveryPlan } from '../../../app/instructions/delivery.js';
import { AgentConnection, type InitializeResponse, type PromptBlock, type PromptOutcome, type SessionHandlers, type SessionUpdate } from '../acp/AgentConnection.js';
import { mapUpdate } from '../acp/mapUpdate.js';
import { markSelfApproving, modeName, modeOption, modeToRestore } from '../acp/permissionModes.js';
import { MODE_OPTION_ID, sessionOptions, withCurrentMode, type SessionOption } from '../acp/sessionOptions.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import { requireBindable } from '../binding/resolveBinding.js';
import { leaseFor } from '../pool/leaseFor.js';
import type { AgentProcesses, Lease } from '../pool/AgentProcesses.js';
import { SessionElicitations, type ElicitationAnswerResult } from './SessionElicitations.js';
import { SessionFiles } from './SessionFiles.js';
import { SessionPermissions, type AnsweredPermission } from './SessionPermissions.js';
import { SessionTerminals } from './SessionTerminals.js';

export type { AnsweredPermission } from './SessionPermissions.js';

/** What a live session needs from the conversation that owns it. */
export type LiveSessionOwner = {
  /** Commits drafts for the running turn and pushes them. */
  commit(drafts: EventDraft[]): void;
  /** The turn now running, if any. */
  activeTurnId(): string | undefined;
  /** The agent process ended. */
  onExit(): void;
  /** Reports something worth a log line (unknown update kinds). */
  log(message: string): void;
  /** Takes the known secret values out of text Baton hands the agent from elsewhere (terminal output). */
  redact?(text: string): string;
};

/** The synthesized mode option as ACP mode state, so it survives a config-option update. */
function modeState(options: readonly SessionOption[]): { currentModeId: string; availableModes: Array<{ id: string; name: string }> } | null {
  const mode = options.find((option) => option.id === MODE_OPTION_ID);
  return mode ? { currentModeId: mode.currentValue, availableModes: mode.options.map(({ value, name }) => ({ id: value, name })) } : null;
}

/** Options for {@link LiveSession.start}. */
export type LiveSessionStart = {
  adapter: AgentAdapter;
  executable: string;
  binding: PreparedBinding;
  /** The environment agents inherit (terminal log-in needs to know whether a pty can run). */
  baseEnv: Env;
  owner: LiveSessionOwner;
  pool: AgentProcesses;
  /** Files generated for a launch (instructions, wrappers) go in a private folder under it, removed when the process ends. */
  sessionFilesDir?: string;
  /** A lease on the process for this launch, already taken (it becomes the session's). */
  lease?: Lease;
};

/** A conversation's session with its agent. */
export class LiveSession {
  private sessionId: string | undefined;
  /** While the agent replays a loaded session, its updates are already in the transcript. */
  private replaying = false;
  private readonly toolCalls = new Set<string>();
  private readonly permissions: SessionPermissions;
  private readonly elicitations = new SessionElicitations(() => this.sessionId);
  /** The session's options as the agent last reported them. */
  private options: SessionOption[] = [];
  /** When the last prompt ended (see `AgentAdapter.saveGraceMs`). */
  private lastTurnEndedAt = 0;
  /** Updates that arrived before the bind's drafts were committed. */
  private early: SessionUpdate[] | undefined = [];
  /** True while a prompt is on its way. */
  private prompting = false;
  /** How the session was bound (new, or reopened by resume or load). */
  boundHow: 'new' | 'load' | 'resume' | undefined;
  /** Prompts sent on this session so far. */
  promptsSent = 0;
  /** A cancelled prompt left the session out of step (`AgentAdapter.reopenAfterCancel`): reopen it first. */
  private outOfStep = false;
  /** The mode the person picked for this session, if any (a self-approving one is kept only then). */
  private pickedMode: string | undefined;
  private unregister: (() => void) | undefined;
  private readonly stopWatchingExit: () => void;
  private readonly handlers: SessionHandlers;

  private constructor(
    readonly binding: PreparedBinding,
    private readonly lease: Lease,
    private readonly owner: LiveSessionOwner,
    private readonly terminals: SessionTerminals,
    private readonly adapter: AgentAdapter,
  ) {
    this.permissions = new SessionPermissions(owner, this.toolCalls);
    this.handlers = {
      onUpdate: (update) => this.onUpdate(update),
      requestPermission: (request, signal) => this.permissions.request(request, signal),
      elicit: (request, signal) => this.elicitations.request(request, signal, owner),
      onElicitationComplete: (elicitationId) => this.elicitations.complete(elicitationId, owner),
      files: new SessionFiles([binding.cwd]),
      terminals,
    };
    this.stopWatchingExit = lease.agent.onExit(() => {
      this.withdrawQuestions();
      // The agent's commands run in groups of their own: end them with it.
      void terminals.dispose();
      owner.onExit();
    });
  }

  /** Leases the agent process for the binding (shared with other sessions of the same launch) and prepares the session. */
  static async start(options: LiveSessionStart): Promise<LiveSession> {
    const { adapter, binding, owner } = options;
    const terminals = new SessionTerminals({ cwd: binding.cwd, env: binding.launch.own.env, record: (drafts) => owner.commit(drafts), turnId: () => owner.activeTurnId(), ...(owner.redact ? { redact: owner.redact } : {}) });
    const lease = options.lease ?? (await leaseFor(options));
    return new LiveSession(binding, lease, owner, terminals, adapter);
  }

  private get connection(): AgentConnection {
    return this.lease.agent.connection;
  }

  /**
   * Binds an ACP session: reopens `previousSessionId` when the agent can, else starts a new one.
   * A session that starts in a mode where the agent approves on its own, which the person did not
   * pick, is set to the agent's asking mode first. Returns the drafts to record: `session.bound`,
   * then `session.options` (and a notice when the mode was set back).
   */
  async bind(_adapter: AgentAdapter, previousSessionId: string | undefined): Promise<EventDraft[]> {
    // Refused here, after initialize and before any session: what the agent cannot take.
    requireBindable(this.binding);
    const agentVersion = this.connection.initialized.agentInfo?.version;
    const versionField = agentVersion ? { agentVersion } : {};
    const reopened = previousSessionId ? await this.reopen(previousSessionId) : undefined;
    if (previousSessionId && reopened) {
      this.sessionId = previousSessionId;
      this.options = reopened.options;
      this.boundHow = reopened.how;
    } else {
      const { cwd, mcpServers, meta, systemPrompt } = this.binding.session;
      const { sessionId, options } = await this.connection.newSession(cwd, mcpServers, { meta, systemPrompt });
      this.sessionId = sessionId;
      this.unregister = this.lease.agent.register(sessionId, this.handlers);
      this.options = markSelfApproving(options, this.adapter.modes);
      this.boundHow = 'new';
    }
    const steering = this.connection.canSteer ? { steering: true } : {};
    const bound: EventDraft = { type: 'session.bound', payload: { agentId: this.binding.agentId, sessionId: this.sessionId, how: this.boundHow, ...versionField, sessionDigest: this.binding.session.digest, ...steering } };
    return [bound, ...(await this.keepAskingMode(this.binding.session.chosenOptions[modeOption(this.options)?.id ?? ''])), { type: 'session.options', payload: { options: this.options } }];
  }

  /**
   * Sets the asking mode when the session is in a self-approving one the person did not pick.
   * Returns the notice to record, if it did.
   */
  private async keepAskingMode(picked: string | undefined): Promise<EventDraft[]> {
    this.pickedMode = picked;
    const restore = modeToRestore(this.options, this.adapter.modes, picked);
    if (!restore) {
      return [];
    }
    this.options = markSelfApproving(await this.connection.setOption(this.requireSession(), this.options, restore.option.id, restore.to), this.adapter.modes);
    const text = `${this.binding.agentName} started this session in ${modeName(restore.option, restore.from)}, where it decides without asking you. Baton set it to ${modeName(restore.option, restore.to)}, which asks you first; pick another mode in the Mode menu if you want one.`;
    return [{ type: 'notice', payload: { severity: 'info', text } }];
  }

  /** False once the agent can no longer be talked to; the next message starts a new process. */
  get usable(): boolean {
    return this.connection.usable;
  }

  /** Starts applying updates: call once the drafts from `bind` are committed. */
  start(): void {
    const early = this.early ?? [];
    this.early = undefined;
    for (const update of early) {
      this.onUpdate(update);
    }
  }

  /** The session's options now. */
  get sessionOptions(): readonly SessionOption[] {
    return this.options;
  }

  /** Sets one option for the person; resolves with the `session.options` draft to record. */
  async choose(optionId: string, value: string): Promise<EventDraft> {
    const option = this.options.find((candidate) => candidate.id === optionId);
    if (!option || !option.options.some((candidate) => candidate.value === value)) {
      throw new InvalidRequestError(`${this.binding.agentName} does not offer "${value}" for ${option?.name ?? optionId}.`);
    }
    if (option.category === 'mode') {
      this.pickedMode = value;
    }
    this.options = markSelfApproving(await this.connection.setOption(this.requireSession(), this.options, optionId, value), this.adapter.modes);
    return { type: 'session.options', payload: { options: this.options } };
  }

  /**
   * Reopens an earlier session: `session/resume` where advertised, then `session/load` (whose
   * replayed history is already in the transcript) when resume is missing or fails (some agents
   * advertise resume but answer "Method not found"). Undefined when neither works: the caller
   * starts a new session and says so.
   */
  private async reopen(sessionId: string): Promise<{ how: 'resume' | 'load'; options: SessionOption[] } | undefined> {
    const { cwd, mcpServers, meta, systemPrompt } = this.binding.session;
    const unregister = this.lease.agent.register(sessionId, this.handlers);
    if (this.connection.canResumeSession) {
      try {
        const options = await this.connection.resumeSession(sessionId, cwd, mcpServers, { meta, systemPrompt });
        this.unregister = unregister;
        return { how: 'resume', options: markSelfApproving(options, this.adapter.modes) };
      } catch (error) {
        this.owner.log(`${this.binding.agentName} could not resume session ${sessionId}: ${String(error)}`);
      }
    }
    if (this.connection.canLoadSession) {
      this.replaying = true;
      try {
        const options = await this.connection.loadSession(sessionId, cwd, mcpServers, { meta, systemPrompt });
        this.unregister = unregister;
        return { how: 'load', options: markSelfApproving(options, this.adapter.modes) };
      } catch (error) {
        this.owner.log(`${this.binding.agentName} could not load session ${sessionId}: ${String(error)}`);
      } finally {
        this.replaying = false;
      }
    }
    unregister();
    return undefined;
  }

  /** True once a session is bound. */
  get bound(): boolean {
    return this.sessionId !== undefined;
  }

  /** The bound session's id. */
  get boundSessionId(): string | undefined {
    return this.sessionId;
  }

  /** Sends the person's text, after any context blocks that go ahead of it; resolves with the agent's stop reason (and tokens, when reported). */
  async prompt(text: string, ahead: readonly PromptBlock[] = []): Promise<PromptOutcome> {
    const sessionId = this.requireSession();
    this.prompting = true;
    this.lease.agent.setPrompting(sessionId, true);
    try {
      if (this.outOfStep) {
        await this.resync(sessionId);
      }
      this.promptsSent += 1;
      return await this.connection.prompt(sessionId, [...ahead, { type: 'text', text }]);
    } finally {
      this.prompting = false;
      this.lease.agent.setPrompting(sessionId, false);
      this.lastTurnEndedAt = Date.now();
    }
  }

  /** Sends the person's follow-up into the running prompt; false when none runs any more (or the agent takes none). */
  async steer(text: string): Promise<boolean> {
    if (!this.prompting || !this.sessionId || !this.connection.canSteer) {
      return false;
    }
    return this.connection.steer(this.sessionId, text);
  }

  /** Asks the agent to stop the running prompt and withdraws open questions. */
  async cancel(): Promise<void> {
    this.withdrawQuestions();
    if (this.sessionId && !this.connection.exited) {
      if (this.prompting && this.adapter.reopenAfterCancel?.(this.connection.initialized.agentInfo?.version) === true) {
        this.outOfStep = true;
      }
      await this.connection.cancel(this.sessionId);
    }
  }

  /**
   * Closes and resumes the session so that the next prompt starts on a clean stream (see
   * `AgentAdapter.reopenAfterCancel`), with what it was bound with.
   */
  private async resync(sessionId: string): Promise<void> {
    this.outOfStep = false;
    if (!this.connection.canCloseSession || !this.connection.canResumeSession) {
      this.owner.log(`${this.binding.agentName} may be out of step after a cancel, but cannot close and resume its session`);
      return;
    }
    const { cwd, mcpServers, meta, systemPrompt } = this.binding.session;
    await this.connection.closeSession(sessionId);
    this.options = markSelfApproving(await this.connection.resumeSession(sessionId, cwd, mcpServers, { meta, systemPrompt }), this.adapter.modes);
  }

  /** Answers a permission request with the option the person chose; says what was answered. */
  answer(requestId: string, optionId: string): AnsweredPermission | 'unknown-request' | 'unknown-option' {
    return this.permissions.answer(requestId, optionId);
  }

  /** Where this session's instructions landed (the binding's plan). */
  get deliveryPlan(): DeliveryPlan {
    return this.binding.plan;
  }

  /** Whether the agent takes images in a prompt (`promptCapabilities.image`). */
  get takesImages(): boolean {
    return this.connection.initialized.agentCapabilities?.promptCapabilities?.image === true;
  }

  /** True when the agent takes embedded resources in a prompt (`promptCapabilities.embeddedContext`). */
  get takesEmbeddedContext(): boolean {
    return this.connection.initialized.agentCapabilities?.promptCapabilities?.embeddedContext === true;
  }

  /** What the agent answered to `initialize`. */
  get initialized(): InitializeResponse {
    return this.connection.initialized;
  }

  /** The agent's process group id. */
  get processGroupId(): number | undefined {
    return this.connection.processGroupId;
  }

  /** The agent's recent stderr, for error reports. */
  stderrTail(): string {
    return this.connection.stderrTail();
  }

  /**
   * Closes the ACP session where the agent offers it (so it saves the session), ends its terminals
   * and releases the process, which ends when no other session uses it.
   */
  async dispose(): Promise<void> {
    if (this.sessionId && !this.connection.exited) {
      if (this.connection.canCloseSession) {
        await this.connection.closeSession(this.sessionId).catch(() => undefined);
      } else if (this.lease.agent.users === 1) {
        // Without session/close, an agent may still be writing the turn that just ended to its own
        // session file (Qwen Code does, after answering): give it a moment before it is ended.
        const wait = (this.adapter.saveGraceMs ?? 0) - (Date.now() - this.lastTurnEndedAt);
        if (wait > 0) {
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    }
    await this.detach();
  }

  /**
   * Ends the session at once, without closing it first (the agent ignored Stop): the process ends
   * with it when no other session uses it; otherwise only this session is let go.
   */
  async kill(): Promise<void> {
    if (this.lease.agent.users === 1) {
      await this.connection.dispose();
    } else if (this.sessionId && this.connection.canCloseSession) {
      void this.connection.closeSession(this.sessionId).catch(() => undefined);
    }
    await this.detach();
  }

  private async detach(): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
    this.stopWatchingExit();
    await this.terminals.dispose();
    await this.lease.release();
  }

  private onUpdate(update: SessionUpdate): void {
    if (this.replaying) {
      return;
    }
    if (this.early) {
      this.early.push(update);
      return;
    }
    const { owner } = this;
    // Changes of mode or options belong to the session, whether or not a turn runs.
    if (update.sessionUpdate === 'current_mode_update' || update.sessionUpdate === 'config_option_update') {
      this.options = markSelfApproving(
        update.sessionUpdate === 'current_mode_update' ? withCurrentMode(this.options, update.currentModeId) : sessionOptions(modeState(this.options), update.configOptions),
        this.adapter.modes,
      );
      owner.commit([{ type: 'session.options', payload: { options: this.options } }]);
      void this.undoOwnModeSwitch();
      return;
    }
    if (update.sessionUpdate === 'available_commands_update') {
      const commands = update.availableCommands.map(({ name, description, input }) => ({ name, description, ...(input && 'hint' in input ? { hint: input.hint } : {}) }));
      owner.commit([{ type: 'session.commands', payload: { commands } }]);
      return;
    }
    if (update.sessionUpdate === 'session_info_update') {
      if (update.title !== undefined) {
        owner.commit([{ type: 'session.info', payload: { title: update.title } }]);
      }
      return;
    }
    const turnId = owner.activeTurnId();
    if (!turnId) {
      return;
    }
    const mapped = mapUpdate(update, turnId, { isKnownToolCall: (id) => this.toolCalls.has(id) });
    const drafts = this.terminals.boundReported(mapped.drafts);
    for (const draft of drafts) {
      if (draft.type === 'tool.call') {
        this.toolCalls.add(draft.payload.toolCallId);
      }
    }
    if (mapped.unknownKind) {
      owner.log(`ignored an unknown session/update kind "${mapped.unknownKind}" from ${this.binding.agentName}`);
    }
    if (drafts.length > 0) {
      owner.commit(drafts);
    }
  }

  /** The agent switched itself into a mode where it decides alone, which the person did not pick: switch it back, and say so. */
  private async undoOwnModeSwitch(): Promise<void> {
    const restore = modeToRestore(this.options, this.adapter.modes, this.pickedMode);
    if (!restore || !this.sessionId || this.connection.exited) {
      return;
    }
    try {
      this.options = markSelfApproving(await this.connection.setOption(this.sessionId, this.options, restore.option.id, restore.to), this.adapter.modes);
      const text = `${this.binding.agentName} switched itself to ${modeName(restore.option, restore.from)}, where it decides without asking you. Baton switched it back to ${modeName(restore.option, restore.to)}.`;
      this.owner.commit([{ type: 'session.options', payload: { options: this.options } }, { type: 'notice', payload: { ...this.turnField(), severity: 'warning', text } }]);
    } catch (error) {
      this.owner.log(`could not switch ${this.binding.agentName} back to ${restore.to}: ${String(error)}`);
    }
  }

  private turnField(): { turnId?: string } {
    const turnId = this.owner.activeTurnId();
    return turnId ? { turnId } : {};
  }

  private withdrawQuestions(): void {
    this.permissions.withdrawAll();
    this.elicitations.withdrawAll(this.owner);
  }

  /** Answers an elicitation with what the person chose; a form's values are checked first. */
  answerElicitation(requestId: string, action: 'accept' | 'decline' | 'cancel', content: Record<string, ElicitationValue> | undefined): ElicitationAnswerResult {
    return this.elicitations.answer(requestId, action, content, this.owner);
  }

  private requireSession(): string {
    if (!this.sessionId) {
      throw new Error('No ACP session is bound yet.');
    }
    return this.sessionId;
  }
}
