/**
 * One conversation's live agent: the connection, the ACP session it is bound to, and the
 * permission requests waiting for the person. Created on the first message after a start (no
 * agent runs just because a conversation is opened) and disposed when the agent exits or the
 * host shuts down.
 */
import { InvalidRequestError } from '../../../app/errors.js';
import { newId } from '../../../app/ids.js';
import type { EventDraft, EventPayload } from '../../../app/events/index.js';
import { AgentConnection, type PromptBlock, type PromptOutcome, type RequestPermissionRequest, type RequestPermissionResponse, type SessionUpdate } from '../acp/AgentConnection.js';
import type { ElicitationValue } from '../../../app/agents/elicitation.js';
import { mapUpdate } from '../acp/mapUpdate.js';
import { MODE_OPTION_ID, sessionOptions, withCurrentMode, type SessionOption } from '../acp/sessionOptions.js';
import type { AgentAdapter, Env } from '../adapters/AgentAdapter.js';
import { launchSpec } from '../adapters/launchSpec.js';
import { ptyProgram } from '../adapters/LoginTerminals.js';
import { SessionElicitations, type ElicitationAnswerResult } from './SessionElicitations.js';
import { SessionFiles } from './SessionFiles.js';
import { SessionTerminals } from './SessionTerminals.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import { instructionSessionMeta, planFor } from '../instructions/deliverInstructions.js';
import type { DeliveryPlan } from '../../../app/instructions/delivery.js';
import { SessionFolder } from '../instructions/SessionFolder.js';
import { admitServers } from '../toolbox/admission.js';
import type { LaunchSpec } from '../process/ProcessGroup.js';

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

type PendingPermission = {
  turnId: string;
  title: string;
  toolKind: string | undefined;
  options: EventPayload<'permission.requested'>['options'];
  resolve: (response: RequestPermissionResponse) => void;
};

/** A permission question the person answered: what was asked and the option chosen. */
export type AnsweredPermission = Omit<PendingPermission, 'options' | 'resolve'> & { option: PendingPermission['options'][number] };

/** A conversation's connection to its agent. */
export class LiveSession {
  private sessionId: string | undefined;
  /** While the agent replays a loaded session, its updates are already in the transcript. */
  private replaying = false;
  private readonly pending = new Map<string, PendingPermission>();
  private readonly elicitations = new SessionElicitations(() => this.sessionId);
  private readonly toolCalls = new Set<string>();
  /** The session's options as the agent last reported them. */
  private options: SessionOption[] = [];
  /** When the last prompt ended (see `AgentAdapter.saveGraceMs`). */
  private lastTurnEndedAt = 0;
  /** Updates that arrived while a session was being bound, before its id was known here. */
  private early: Array<{ sessionId: string; update: SessionUpdate }> | undefined = [];
  /** True while a prompt is on its way. */
  private prompting = false;
  /** How the session was bound (new, or reopened by resume or load). */
  boundHow: 'new' | 'load' | 'resume' | undefined;
  /** Prompts sent on this session so far. */
  promptsSent = 0;
  /** A cancelled prompt left the session out of step (`AgentAdapter.reopenAfterCancel`): reopen it first. */
  private outOfStep = false;
  /** `_meta` the session was bound with, sent again when it is reopened. */
  private meta: Record<string, unknown> | undefined;

  private constructor(
    readonly binding: PreparedBinding,
    private readonly connection: AgentConnection,
    private readonly owner: LiveSessionOwner,
    private readonly terminals: SessionTerminals,
    private readonly adapter: AgentAdapter,
    /** The launch without Baton's instruction channels (the person's own prompt settings are read from it). */
    private readonly launch: LaunchSpec,
    private readonly removeFiles: () => void,
  ) {}

  /**
   * Starts the agent process for a binding. Files generated for it (instructions, wrappers) go in
   * a private folder under `sessionFilesDir`, removed when the process ends.
   */
  static async start(options: {
    adapter: AgentAdapter;
    executable: string;
    binding: PreparedBinding;
    baseEnv: Env;
    owner: LiveSessionOwner;
    sessionFilesDir?: string;
  }): Promise<LiveSession> {
    const { adapter, executable, binding, baseEnv, owner } = options;
    let folder: SessionFolder | undefined;
    const makeFolder = (): SessionFolder => {
      if (!options.sessionFilesDir) {
        throw new Error('No folder for session files was given.');
      }
      folder ??= SessionFolder.create(options.sessionFilesDir);
      return folder;
    };
    let launch: LaunchSpec;
    try {
      launch = launchSpec(adapter, executable, binding, baseEnv, makeFolder);
    } catch (error) {
      folder?.dispose();
      throw error;
    }
    // The connection's handlers need the session object, which needs the connection.
    const self: { live?: LiveSession } = {};
    // The launch without Baton's instruction channels: the person's own settings are read from it,
    // and commands the agent runs in terminals get its environment.
    const ownLaunch = launchSpec(adapter, executable, { ...binding, instructions: null }, baseEnv);
    const terminalEnv = ownLaunch.env;
    const terminals = new SessionTerminals({ cwd: binding.cwd, env: terminalEnv, record: (drafts) => owner.commit(drafts), turnId: () => owner.activeTurnId(), ...(owner.redact ? { redact: owner.redact } : {}) });
    let connection: AgentConnection;
    try {
      connection = await AgentConnection.start({
        agentName: adapter.displayName,
        launch,
        handlers: {
          onUpdate: (sessionId, update) => self.live?.onUpdate(sessionId, update, owner),
          requestPermission: (request, signal) =>
            self.live ? self.live.onPermission(request, signal, owner) : Promise.resolve({ outcome: { outcome: 'cancelled' } }),
          elicit: (request, signal) => (self.live ? self.live.elicitations.request(request, signal, owner) : Promise.resolve({ action: 'cancel' })),
          onElicitationComplete: (elicitationId) => self.live?.elicitations.complete(elicitationId, owner),
          onExit: () => {
            self.live?.cancelPendingPermissions(owner);
            // The agent's commands run in groups of their own: end them with it.
            void terminals.dispose();
            owner.onExit();
          },
          files: new SessionFiles([binding.cwd]),
          terminals,
          terminalLogin: ptyProgram(baseEnv) !== undefined,
        },
      });
    } catch (error) {
      folder?.dispose();
      throw error;
    }
    self.live = new LiveSession(binding, connection, owner, terminals, adapter, ownLaunch, () => folder?.dispose());
    return self.live;
  }

  /**
   * Binds an ACP session: reopens `previousSessionId` when the agent can, else starts a new one.
   * Returns the drafts to record: `session.bound`, then `session.options`.
   */
  async bind(adapter: AgentAdapter, previousSessionId: string | undefined): Promise<[EventDraft, EventDraft]> {
    // Refused here, after initialize and before any session: what the agent cannot take.
    admitServers(this.binding.agentName, this.binding.mcpServers, this.connection.initialized);
    const instructionMeta = instructionSessionMeta(adapter, this.binding, this.launch, this.connection.initialized);
    const ownMeta = adapter.sessionMeta?.(this.binding);
    const meta = ownMeta || instructionMeta ? { ...ownMeta, ...instructionMeta } : undefined;
    this.meta = meta;
    const agentVersion = this.connection.initialized.agentInfo?.version;
    const versionField = agentVersion ? { agentVersion } : {};
    const optionsDraft = (): EventDraft => ({ type: 'session.options', payload: { options: this.options } });
    if (previousSessionId) {
      const reopened = await this.reopen(previousSessionId, meta);
      if (reopened) {
        this.sessionId = previousSessionId;
        this.options = reopened.options;
        this.boundHow = reopened.how;
        return [{ type: 'session.bound', payload: { agentId: this.binding.agentId, sessionId: previousSessionId, how: reopened.how, ...versionField } }, optionsDraft()];
      }
    }
    const { sessionId, options } = await this.connection.newSession(this.binding.cwd, this.binding.mcpServers, meta);
    this.sessionId = sessionId;
    this.options = options;
    this.boundHow = 'new';
    return [{ type: 'session.bound', payload: { agentId: this.binding.agentId, sessionId, how: 'new', ...versionField } }, optionsDraft()];
  }

  /** False once the agent can no longer be talked to; the next message starts a new process. */
  get usable(): boolean {
    return this.connection.usable;
  }

  /** Starts applying updates: call once the drafts from `bind` are committed. */
  start(): void {
    this.drainEarly();
  }

  /** The session's options now. */
  get sessionOptions(): readonly SessionOption[] {
    return this.options;
  }

  /** Sets one option; resolves with the `session.options` draft to record. */
  async choose(optionId: string, value: string): Promise<EventDraft> {
    const option = this.options.find((candidate) => candidate.id === optionId);
    if (!option || !option.options.some((candidate) => candidate.value === value)) {
      throw new InvalidRequestError(`${this.binding.agentName} does not offer "${value}" for ${option?.name ?? optionId}.`);
    }
    this.options = await this.connection.setOption(this.requireSession(), this.options, optionId, value);
    return { type: 'session.options', payload: { options: this.options } };
  }

  /**
   * Reopens an earlier session: `session/resume` where advertised, then `session/load` (whose
   * replayed history is already in the transcript) when resume is missing or fails (Qwen
   * advertises resume but answers "Method not found"). Undefined when neither works: the caller
   * starts a new session and says so.
   */
  private async reopen(sessionId: string, meta: Record<string, unknown> | undefined): Promise<{ how: 'resume' | 'load'; options: SessionOption[] } | undefined> {
    const { cwd, mcpServers } = this.binding;
    if (this.connection.canResumeSession) {
      try {
        return { how: 'resume', options: await this.connection.resumeSession(sessionId, cwd, mcpServers, meta) };
      } catch (error) {
        // Some agents advertise resume without implementing it ("Method not found"); others fail
        // it now and then: either way, loading is the next best thing.
        this.owner.log(`${this.binding.agentName} could not resume session ${sessionId}: ${String(error)}`);
      }
    }
    if (!this.connection.canLoadSession) {
      return undefined;
    }
    this.replaying = true;
    try {
      return { how: 'load', options: await this.connection.loadSession(sessionId, cwd, mcpServers, meta) };
    } catch (error) {
      this.owner.log(`${this.binding.agentName} could not load session ${sessionId}: ${String(error)}`);
      return undefined;
    } finally {
      this.replaying = false;
    }
  }

  /** True once a session is bound. */
  get bound(): boolean {
    return this.sessionId !== undefined;
  }

  /** Sends the person's text, after any context blocks that go ahead of it; resolves with the agent's stop reason (and tokens, when reported). */
  async prompt(text: string, ahead: readonly PromptBlock[] = []): Promise<PromptOutcome> {
    const sessionId = this.requireSession();
    this.prompting = true;
    try {
      if (this.outOfStep) {
        await this.resync(sessionId);
      }
      this.promptsSent += 1;
      return await this.connection.prompt(sessionId, [...ahead, { type: 'text', text }]);
    } finally {
      this.prompting = false;
      this.lastTurnEndedAt = Date.now();
    }
  }

  /** Asks the agent to stop the running prompt and withdraws open permission questions. */
  async cancel(owner: LiveSessionOwner): Promise<void> {
    this.cancelPendingPermissions(owner);
    if (this.sessionId && !this.connection.exited) {
      if (this.prompting && this.adapter.reopenAfterCancel) {
        this.outOfStep = true;
      }
      await this.connection.cancel(this.sessionId);
    }
  }

  /**
   * Closes and resumes the session so that the next prompt starts on a clean stream (see
   * `AgentAdapter.reopenAfterCancel`), re-sending the `_meta` it was bound with.
   */
  private async resync(sessionId: string): Promise<void> {
    this.outOfStep = false;
    if (!this.connection.canCloseSession || !this.connection.canResumeSession) {
      this.owner.log(`${this.binding.agentName} may be out of step after a cancel, but cannot close and resume its session`);
      return;
    }
    await this.connection.closeSession(sessionId);
    this.options = await this.connection.resumeSession(sessionId, this.binding.cwd, this.binding.mcpServers, this.meta);
  }

  /** Answers a permission request with the option the person chose; says what was answered. */
  answer(requestId: string, optionId: string, owner: LiveSessionOwner): AnsweredPermission | 'unknown-request' | 'unknown-option' {
    const pending = this.pending.get(requestId);
    if (!pending) {
      return 'unknown-request';
    }
    const option = pending.options.find((candidate) => candidate.optionId === optionId);
    if (!option) {
      return 'unknown-option';
    }
    this.pending.delete(requestId);
    owner.commit([{ type: 'permission.decided', payload: { turnId: pending.turnId, requestId, optionId, by: 'person' } }]);
    pending.resolve({ outcome: { outcome: 'selected', optionId } });
    return { turnId: pending.turnId, title: pending.title, toolKind: pending.toolKind, option };
  }

  /** What the agent answered to `initialize`. */
  /** Where this session's instructions landed (the same planner as its launch). */
  get deliveryPlan(): DeliveryPlan {
    return planFor(this.adapter, this.binding, this.launch, this.connection.initialized);
  }

  /** True when the agent takes embedded resources in a prompt (`promptCapabilities.embeddedContext`). */
  /** Whether the agent takes images in a prompt (`promptCapabilities.image`). */
  get takesImages(): boolean {
    return this.connection.initialized.agentCapabilities?.promptCapabilities?.image === true;
  }

  get takesEmbeddedContext(): boolean {
    return this.connection.initialized.agentCapabilities?.promptCapabilities?.embeddedContext === true;
  }

  get initialized(): AgentConnection['initialized'] {
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
   * Closes the ACP session where the agent offers it (so it saves the session), then ends the
   * agent's process group and those of its terminals.
   */
  async dispose(): Promise<void> {
    if (this.sessionId && !this.connection.exited) {
      if (this.connection.canCloseSession) {
        await this.connection.closeSession(this.sessionId).catch(() => undefined);
      } else {
        // Without session/close, an agent may still be writing the turn that just ended to its own
        // session file (Qwen Code does, after answering): give it a moment before SIGTERM.
        const wait = (this.adapter.saveGraceMs ?? 0) - (Date.now() - this.lastTurnEndedAt);
        if (wait > 0) {
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    }
    await this.kill();
  }

  /** Ends the agent's process group and its terminals at once, without closing the session first. */
  async kill(): Promise<void> {
    await Promise.all([this.connection.dispose(), this.terminals.dispose()]);
    this.removeFiles();
  }

  /** Applies updates that came in while binding, now that the session id is known. */
  private drainEarly(): void {
    const early = this.early ?? [];
    this.early = undefined;
    for (const { sessionId, update } of early) {
      this.onUpdate(sessionId, update, this.owner);
    }
  }

  private onUpdate(sessionId: string, update: SessionUpdate, owner: LiveSessionOwner): void {
    if (this.early && !this.replaying) {
      this.early.push({ sessionId, update });
      return;
    }
    if (this.replaying || sessionId !== this.sessionId) {
      return;
    }
    // Changes of mode or options belong to the session, whether or not a turn runs.
    if (update.sessionUpdate === 'current_mode_update' || update.sessionUpdate === 'config_option_update') {
      this.options =
        update.sessionUpdate === 'current_mode_update'
          ? withCurrentMode(this.options, update.currentModeId)
          : sessionOptions(modeState(this.options), update.configOptions);
      owner.commit([{ type: 'session.options', payload: { options: this.options } }]);
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
    const { unknownKind } = mapped;
    const drafts = this.terminals.boundReported(mapped.drafts);
    for (const draft of drafts) {
      if (draft.type === 'tool.call') {
        this.toolCalls.add(draft.payload.toolCallId);
      }
    }
    if (unknownKind) {
      owner.log(`ignored an unknown session/update kind "${unknownKind}" from ${this.binding.agentName}`);
    }
    if (drafts.length > 0) {
      owner.commit(drafts);
    }
  }

  private onPermission(request: RequestPermissionRequest, signal: AbortSignal, owner: LiveSessionOwner): Promise<RequestPermissionResponse> {
    const turnId = owner.activeTurnId();
    if (!turnId) {
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    }
    const requestId = newId();
    const options = request.options.map(({ optionId, name, kind }) => ({ optionId, name, kind }));
    const title = request.toolCall.title ?? 'The agent asks for permission';
    const { toolCallId } = request.toolCall;
    // A question about a tool call not announced yet announces it, so the answer has something to attach to.
    if (!this.toolCalls.has(toolCallId)) {
      this.toolCalls.add(toolCallId);
      owner.commit([{ type: 'tool.call', payload: { turnId, toolCallId, title, ...(request.toolCall.kind ? { kind: request.toolCall.kind } : {}), status: 'pending' } }]);
    }
    owner.commit([
      {
        type: 'permission.requested',
        payload: { turnId, requestId, toolCallId: request.toolCall.toolCallId, title, options },
      },
    ]);
    return new Promise((resolve) => {
      this.pending.set(requestId, { turnId, title, toolKind: request.toolCall.kind ?? undefined, options, resolve });
      signal.addEventListener('abort', () => this.withdraw(requestId, owner), { once: true });
    });
  }

  private cancelPendingPermissions(owner: LiveSessionOwner): void {
    for (const requestId of [...this.pending.keys()]) {
      this.withdraw(requestId, owner);
    }
    this.elicitations.withdrawAll(owner);
  }

  /** Answers an elicitation with what the person chose; a form's values are checked first. */
  answerElicitation(requestId: string, action: 'accept' | 'decline' | 'cancel', content: Record<string, ElicitationValue> | undefined, owner: LiveSessionOwner): ElicitationAnswerResult {
    return this.elicitations.answer(requestId, action, content, owner);
  }

  private withdraw(requestId: string, owner: LiveSessionOwner): void {
    const pending = this.pending.get(requestId);
    if (!pending) {
      return;
    }
    this.pending.delete(requestId);
    owner.commit([{ type: 'permission.decided', payload: { turnId: pending.turnId, requestId, optionId: null, by: 'turn-cancelled' } }]);
    pending.resolve({ outcome: { outcome: 'cancelled' } });
  }

  private requireSession(): string {
    if (!this.sessionId) {
      throw new Error('No ACP session is bound yet.');
    }
    return this.sessionId;
  }
}
