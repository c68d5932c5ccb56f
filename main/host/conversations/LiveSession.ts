/**
 * One conversation's live agent session: its lease on a pooled agent process, the ACP session it
 * is bound to, and the questions waiting for the person. Created on the first message after a
 * start (no agent runs just because a conversation is opened) and disposed when the agent exits,
 * the session has been idle, or the host shuts down. Its process may carry other conversations'
 * sessions: requests and updates reach it by its session id.
 */
import type { EventDraft } from '../../../app/events/index.js';
import type { ElicitationValue } from '../../../app/agents/elicitation.js';
import type { DeliveryPlan } from '../../../app/instructions/delivery.js';
import {
  AgentConnection,
  type InitializeResponse,
  type PromptBlock,
  type PromptOutcome,
  type SessionHandlers,
} from '../acp/AgentConnection.js';
import type { SessionOption } from '../acp/sessionOptions.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import { bareLaunch } from '../binding/ownLaunch.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import { requireBindable, resolveBinding, type BindingRequest } from '../binding/resolveBinding.js';
import type { AgentProcesses, Lease } from '../pool/AgentProcesses.js';
import { leaseFor } from '../pool/leaseFor.js';
import type { Sharing } from '../pool/poolKey.js';
import { SessionElicitations, type ElicitationAnswerResult } from './SessionElicitations.js';
import { SessionFiles } from './SessionFiles.js';
import { SessionGate } from './SessionGate.js';
import { SessionModes } from './SessionModes.js';
import { SessionSubagents } from './SessionSubagents.js';
import { SessionPermissions, type AnsweredPermission } from './SessionPermissions.js';
import type { LiveSessionOwner } from './SessionOwner.js';
import { SessionTerminals } from './SessionTerminals.js';
import { SessionUpdates } from './SessionUpdates.js';
import { sessionHandlers } from './sessionHandlers.js';
import type { SessionFolders } from '../process/SessionFolder.js';

/** The agent's earlier session of the conversation, to be reopened (see {@link LiveSession.bind}). */
export type EarlierSession = {
  sessionId: string;
  /** After a rewind: forked at this message of the agent's, never reopened as it is. */
  forkAt?: string | undefined;
  /** The digest of the session part it was created with. */
  sessionDigest?: string | undefined;
};

/** An ACP session as bound: its id, how, and the options the agent reported. */
type Bound = { sessionId: string; how: 'new' | 'load' | 'resume' | 'fork'; options: SessionOption[] };

/** A conversation's session with its agent. */
export class LiveSession {
  private sessionId: string | undefined;
  private readonly permissions: SessionPermissions;
  private readonly elicitations = new SessionElicitations(() => this.sessionId);
  /** When the last prompt ended (see `AgentAdapter.saveGraceMs`). */
  private lastTurnEndedAt = 0;
  /** True while a prompt is on its way. */
  private prompting = false;
  /** How the session was bound (new, or reopened by resume or load). */
  boundHow: 'new' | 'load' | 'resume' | 'fork' | undefined;
  /** Why the session is not the agent's earlier one it was to reopen, if it is not: the turn's catch-up hands it the conversation. */
  fellBack: string | undefined;
  /** Prompts sent on this session so far. */
  promptsSent = 0;
  /** A cancelled prompt left the session out of step (`AgentAdapter.reopenAfterCancel`): reopen it first. */
  private outOfStep = false;
  /** The session's options and its permission mode. */
  private readonly modes: SessionModes;
  private readonly subagents: SessionSubagents;
  /** Requests in this session's name need a running turn of its conversation (see SessionGate). */
  private readonly gate: SessionGate;
  private unregister: (() => void) | undefined;
  private readonly stopWatchingExit: () => void;
  private readonly handlers: SessionHandlers;

  private readonly terminals: SessionTerminals;
  /** The updates the agent sends in this session. */
  private readonly updates: SessionUpdates;

  /**
   * The session on the process `lease` holds (leased for the binding's launch part: see
   * {@link LiveSession.open}), not yet bound. `onDetach` runs once when it lets its process go
   * (what was granted for it ends with it).
   */
  private constructor(
    readonly binding: PreparedBinding,
    private readonly lease: Lease,
    private readonly owner: LiveSessionOwner,
    private readonly adapter: AgentAdapter,
    private readonly onDetach?: () => void,
  ) {
    const terminals = new SessionTerminals({
      machine: lease.machine,
      cwd: binding.cwd,
      env: binding.launch.own.env,
      record: (drafts) => owner.commit(drafts),
      turnId: () => owner.activeTurnId(),
      ...(owner.redact ? { redact: owner.redact } : {}),
    });
    this.terminals = terminals;
    this.subagents = new SessionSubagents(
      owner,
      () => lease.agent,
      () => this.sessionId,
    );
    this.modes = new SessionModes({
      agentName: binding.agentName,
      modes: adapter.modes,
      owner,
      connection: () => this.connection,
      sessionId: () => this.sessionId,
    });
    this.gate = new SessionGate(owner, binding.agentName);
    const { agentName } = binding;
    this.updates = new SessionUpdates({ agentName, owner, modes: this.modes, subagents: this.subagents, terminals, gate: this.gate });
    this.permissions = new SessionPermissions(owner, this.updates.toolCalls);
    const files = new SessionFiles(
      lease.machine,
      [binding.cwd],
      adapter.missingFileReadsAsEmpty?.(lease.agent.initialized.agentInfo?.version) === true,
    );
    const { permissions, elicitations, updates, gate } = this;
    this.handlers = sessionHandlers({ cwd: binding.cwd, owner, gate, updates, permissions, elicitations, files, terminals });
    this.stopWatchingExit = lease.agent.onExit(() => {
      this.withdrawQuestions();
      // The agent's commands run in groups of their own: end them with it.
      void terminals.dispose();
      owner.onExit();
    });
  }

  /**
   * Starts a live session the way the host does: resolves the binding with the agent's own
   * `initialize` answer (from the pool's memory, or from a process started to read it, which
   * becomes the session's when its launch is the same), refuses what the agent cannot take, and
   * prepares the session on the pool's process for the binding's launch (not yet bound).
   */
  static async open(
    request: BindingRequest,
    options: { pool: AgentProcesses; owner: LiveSessionOwner; sessionFiles?: SessionFolders; onDetach?: () => void; sharing?: Sharing },
  ): Promise<LiveSession> {
    const { adapter, executable, baseEnv } = request;
    const { pool } = options;
    const launchOptions = {
      adapter,
      executable,
      baseEnv,
      pool,
      ...(options.sessionFiles ? { sessionFiles: options.sessionFiles } : {}),
      ...(options.sharing ? { sharing: options.sharing } : {}),
      ...(request.machine ? { machine: request.machine } : {}),
    };
    const known = pool.knownAnswer(adapter.agentId, executable, request.machine);
    // Without an answer yet, a process of the agent is started to read it, launched as the adapter
    // expects the binding to be (its instructions' channels): mostly the session's own launch, so
    // the agent starts once (OpenCode's start is seconds). One the guess refuses starts without
    // instructions, to be judged on the agent's own answer.
    const guess = known ? undefined : resolveBinding(request);
    let lease = guess
      ? await leaseFor({
          ...launchOptions,
          binding: guess.refusals.length === 0 ? guess : { launch: bareLaunch(adapter, executable, baseEnv, request.cwd) },
        })
      : undefined;
    try {
      const binding = resolveBinding({ ...request, initialized: known ?? lease!.agent.initialized });
      // Refused here, after initialize and before any session: what the agent cannot take.
      requireBindable(binding);
      // The process started to read the answer is the session's own when its launch is the same (the
      // guess was right); an agent that cannot run twice must not find it still held for another launch.
      if (lease && lease.agent.launchDigest !== binding.launch.digest) {
        const read = lease;
        lease = undefined;
        await read.release();
      }
      lease ??= await leaseFor({ ...launchOptions, binding });
      return new LiveSession(binding, lease, options.owner, adapter, options.onDetach);
    } catch (error) {
      await lease?.release();
      throw error;
    }
  }

  private get connection(): AgentConnection {
    return this.lease.agent.connection;
  }

  /** The agent process's last lines of error output (what a failed turn shows as "Agent output"). */
  stderrTail(): string {
    return this.connection.stderrTail();
  }

  /**
   * Binds an ACP session: reopens the agent's `earlier` session of the conversation when the agent
   * can (forks it at `forkAt` instead, where the agent takes that), else starts a new one, and says
   * why in {@link fellBack}. A session that starts in a mode where the agent approves on its own,
   * which the person did not pick, is set to the agent's asking mode first. Returns the drafts to
   * record: `session.bound`, then any notice and `session.options`.
   */
  async bind(earlier?: EarlierSession): Promise<EventDraft[]> {
    const { agentName } = this.binding;
    // A session created with other instructions or servers is not reopened: agents keep what a
    // session was created with (measured: claude-agent-acp 0.101 keeps its system prompt and
    // servers across a resume), so it gets a new session and Baton's handoff, said in the transcript.
    const changedSince = earlier?.sessionDigest !== undefined && earlier.sessionDigest !== this.binding.session.digest;
    const previous = changedSince ? undefined : earlier;
    const agentVersion = this.connection.initialized.agentInfo?.version;
    // After a rewind the earlier session saw the turns set aside: it is forked, never reopened as it is.
    const reopened = previous ? await this.reopen(previous, agentVersion) : undefined;
    const { sessionId, how, options } = reopened ?? (await this.newSession());
    if (changedSince) {
      this.fellBack = `${agentName}'s toolbox or instructions changed, which its earlier session would not take, so Baton started a new session and handed it the conversation`;
    } else if (previous && previous.forkAt === undefined && !reopened) {
      // After a rewind, an agent that cannot fork its session there gets a new one without a word (as ever).
      this.fellBack = `${agentName} could not reopen its own earlier session, so Baton handed it the conversation instead`;
    }
    this.sessionId = sessionId;
    this.boundHow = how;
    // A reopened session's updates are routed from before its replay; any other's from now.
    this.unregister ??= this.lease.agent.register(sessionId, this.handlers);
    const bound: EventDraft = {
      type: 'session.bound',
      payload: {
        agentId: this.binding.agentId,
        sessionId,
        how,
        ...(agentVersion ? { agentVersion } : {}),
        sessionDigest: this.binding.session.digest,
        ...(this.connection.canSteer ? { steering: true } : {}),
      },
    };
    return [bound, ...(await this.modes.bound(sessionId, options, this.binding.session.chosenOptions))];
  }

  /** False once the agent can no longer be talked to; the next message starts a new process. */
  get usable(): boolean {
    return this.connection.usable;
  }

  /** Starts applying updates: call once the drafts from `bind` are committed. */
  start(): void {
    this.updates.start();
  }

  /** The session's options now. */
  get sessionOptions(): readonly SessionOption[] {
    return this.modes.current;
  }

  /** Sets one option for the person; resolves with the `session.options` draft to record. */
  async choose(optionId: string, value: string): Promise<EventDraft> {
    return this.modes.choose(this.requireSession(), optionId, value);
  }

  /** Applies the person's choices to the session just bound: the drafts to record (see `SessionModes.applyChoices`). */
  async applyChoices(chosen: Readonly<Record<string, string>>): Promise<EventDraft[]> {
    return this.modes.applyChoices(this.requireSession(), chosen);
  }

  /** A new session, as the binding's session part says. */
  private async newSession(): Promise<Bound> {
    const { cwd, mcpServers, meta, systemPrompt } = this.binding.session;
    const { sessionId, options } = await this.connection.newSession(cwd, mcpServers, { meta, systemPrompt });
    return { sessionId, how: 'new', options };
  }

  /**
   * Reopens the agent's earlier session. After a rewind (`forkAt`), a copy of it that ends at that
   * message of the agent's, where the agent advertises `session/fork` and takes a fork point at this
   * version (the session itself saw the turns set aside). Otherwise `session/resume` where
   * advertised, then `session/load` (whose replayed history is already in the transcript) when
   * resume is missing or fails (some agents advertise resume but answer "Method not found").
   * Undefined when none works: the caller starts a new session and says so.
   */
  private async reopen(earlier: EarlierSession, version: string | undefined): Promise<Bound | undefined> {
    const { sessionId, forkAt } = earlier;
    const { cwd, mcpServers, meta, systemPrompt } = this.binding.session;
    if (forkAt !== undefined) {
      const point = this.adapter.forkAtMessage?.(version, forkAt);
      if (!point || !this.connection.canForkSession) {
        return undefined;
      }
      try {
        const forked = await this.connection.forkSession(sessionId, cwd, mcpServers, { meta: { ...meta, ...point }, systemPrompt });
        return { ...forked, how: 'fork' };
      } catch (error) {
        this.owner.log(`${this.binding.agentName} could not fork session ${sessionId} at ${forkAt}: ${String(error)}`);
        return undefined;
      }
    }
    // Routed from before the reopen, so that what the agent sends meanwhile (a load's replay) finds the session.
    const unregister = this.lease.agent.register(sessionId, this.handlers);
    if (this.connection.canResumeSession) {
      try {
        const options = await this.connection.resumeSession(sessionId, cwd, mcpServers, { meta, systemPrompt });
        this.unregister = unregister;
        return { sessionId, how: 'resume', options };
      } catch (error) {
        this.owner.log(`${this.binding.agentName} could not resume session ${sessionId}: ${String(error)}`);
      }
    }
    if (this.connection.canLoadSession) {
      this.updates.replaying = true;
      try {
        const options = await this.connection.loadSession(sessionId, cwd, mcpServers, { meta, systemPrompt });
        this.unregister = unregister;
        return { sessionId, how: 'load', options };
      } catch (error) {
        this.owner.log(`${this.binding.agentName} could not load session ${sessionId}: ${String(error)}`);
      } finally {
        this.updates.replaying = false;
      }
    }
    unregister();
    return undefined;
  }

  /**
   * Sends the person's text, after any context blocks that go ahead of it; resolves with the agent's stop reason (and tokens, when
   * reported).
   */
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
    this.modes.reported(await this.connection.resumeSession(sessionId, cwd, mcpServers, { meta, systemPrompt }));
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

  /** The pooled process it runs on (conversations whose sessions share it share one principal). */
  get process(): object {
    return this.lease.agent;
  }

  /** The pool key of its process. */
  get processKey(): string {
    return this.lease.agent.key;
  }

  /** The agent's process group id. */
  get processGroupId(): number | undefined {
    return this.connection.processGroupId;
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
    this.onDetach?.();
    this.unregister?.();
    this.unregister = undefined;
    this.stopWatchingExit();
    await this.terminals.dispose();
    await this.lease.release();
  }

  private withdrawQuestions(): void {
    this.permissions.withdrawAll();
    this.elicitations.withdrawAll(this.owner);
  }

  /** Answers an elicitation with what the person chose; a form's values are checked first. */
  answerElicitation(
    requestId: string,
    action: 'accept' | 'decline' | 'cancel',
    content: Record<string, ElicitationValue> | undefined,
  ): ElicitationAnswerResult {
    return this.elicitations.answer(requestId, action, content, this.owner);
  }

  private requireSession(): string {
    if (!this.sessionId) {
      throw new Error('No ACP session is bound yet.');
    }
    return this.sessionId;
  }
}
