/**
 * The one ACP client wrapper: with `clientMethods.ts` beside it, the only importer of `@agentclientprotocol/sdk`. Spawns the
 * agent in its own process group, performs the handshake with a timeout, routes `session/update`
 * and permission requests to the caller, and turns every failure into a typed error.
 */
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk/unstable';
import {
  type AuthMethodInfo,
  AgentError,
  AgentExitedError,
  AgentFailedToStartError,
  AgentNotInstalledError,
  WorkingFolderMissingError,
  AuthRequiredError,
  BatonError,
  ProtocolError,
} from '../../../app/errors.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import type { LaunchSpec, Machine, MachineProcess } from '../machine/Machine.js';
import { describeExit } from '../machine/ProcessGroup.js';
import { rpcReason } from './rpcReason.js';
import { authMethodsOf, terminalMethodOf, type TerminalLoginMethod } from './authMethods.js';
import { answerClientMethods, type AgentConnectionHandlers } from './clientMethods.js';
import { AUTH_STATUS_METHOD, authStatusParams, AuthStatusWatch, logoutEnds, type AuthStatus } from './authStatus.js';
import { MODE_OPTION_ID, sessionOptions, withCurrentMode, type SessionOption } from './sessionOptions.js';
import { turnTokensSchema, type TurnTokens } from '../../../app/events/index.js';

export type { TerminalLoginMethod } from './authMethods.js';

/** How a prompt turn ended, as the agent answered `session/prompt`. */
export type PromptOutcome = { stopReason: acp.StopReason; tokens?: TurnTokens };

export type {
  SessionUpdate,
  RequestPermissionRequest,
  RequestPermissionResponse,
  InitializeResponse,
  CreateElicitationRequest,
  CreateElicitationResponse,
  ContentBlock as PromptBlock,
} from '@agentclientprotocol/sdk/unstable';
/** The JSON-RPC error a client handler throws to refuse a request. */
export { RequestError } from '@agentclientprotocol/sdk/unstable';
export type { AgentConnectionHandlers, SessionHandlers } from './clientMethods.js';

/** What a session carries besides its folder and servers: the standard system prompt and `_meta`. */
export type SessionExtras = {
  meta?: Readonly<Record<string, unknown>> | undefined;
  systemPrompt?: Readonly<{ mode: string; content: ReadonlyArray<{ type: 'text'; text: string }> }> | undefined;
};

/**
 * The extras as request fields. `systemPrompt` is the protocol's standard field (unstable in the
 * SDK's schema, so typed here); it is sent only to agents that advertise it.
 */
function extras(extra: SessionExtras): Record<string, unknown> {
  return {
    ...(extra.meta ? { _meta: { ...extra.meta } } : {}),
    ...(extra.systemPrompt
      ? { systemPrompt: { mode: extra.systemPrompt.mode, content: extra.systemPrompt.content.map((block) => ({ ...block })) } }
      : {}),
  };
}

/** Options for {@link AgentConnection.start}. */
export type StartOptions = {
  agentName: string;
  /** The machine the agent runs on. */
  machine: Machine;
  launch: LaunchSpec;
  handlers: AgentConnectionHandlers;
  initializeTimeoutMs?: number;
};

/** JSON-RPC code agents use for "authentication required". */
const AUTH_REQUIRED = -32000;
const DEFAULT_INITIALIZE_TIMEOUT_MS = 60_000;
const STDERR_LINES_IN_ERRORS = 20;
const EXIT_SETTLE_MS = 1_000;
const CLOSE_TIMEOUT_MS = 5_000;
/**
 * After `session/load` answers, replayed updates may still be on their way (Qwen Code sends some
 * after its answer): the load counts as done once no update has come for this long…
 */
const REPLAY_QUIET_MS = 150;
/** …or after this long at most. */
const REPLAY_SETTLE_MAX_MS = 3_000;

/** A live connection to one agent process. */
export class AgentConnection {
  private disposed = false;
  /** When the last `session/update` came in (for the settle after a load). */
  private readonly updates: { lastAt: number };

  private constructor(
    /** The agent's display name, used in every message about it. */
    readonly agentName: string,
    private readonly process: MachineProcess,
    private readonly connection: acp.ClientConnection,
    /** The agent's answer to `initialize`. */
    readonly initialized: acp.InitializeResponse,
    updates: { lastAt: number },
    private readonly auth: AuthStatusWatch,
  ) {
    this.updates = updates;
  }

  /** Spawns the agent and completes `initialize`; throws a typed error otherwise. */
  static async start(options: StartOptions): Promise<AgentConnection> {
    const { agentName, launch, handlers, machine } = options;
    const child = machine.spawn(launch);
    try {
      await child.spawned();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        // spawn says ENOENT for a missing working folder too: name the folder, not the agent.
        const folderThere = await machine.stat(launch.cwd).then(
          () => true,
          () => false,
        );
        if (!folderThere) {
          throw new WorkingFolderMissingError(agentName, launch.cwd);
        }
        throw new AgentNotInstalledError(agentName, launch.command);
      }
      throw new AgentFailedToStartError(agentName, (error as Error).message);
    }
    const stream = acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const updates = { lastAt: 0 };
    const offers = handlers.offers ?? {};
    const auth = new AuthStatusWatch();
    const client = answerClientMethods(acp.client({ name: 'Baton' }), handlers, updates).onNotification(
      AUTH_STATUS_METHOD,
      authStatusParams,
      ({ params }) => auth.set(params.authStatus),
    );
    const connection = client.connect(stream);
    void child.exited.then((exit) => {
      connection.close(new AgentExitedError(agentName, describeExit(exit), child.lastErrorLines(STDERR_LINES_IN_ERRORS)));
      handlers.onExit?.(describeExit(exit));
    });

    const timeoutMs = options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    // Only what Baton really implements: files (confined to the session) and terminals when handlers are given.
    const clientCapabilities: acp.ClientCapabilities = {
      fs: { readTextFile: Boolean(offers.files), writeTextFile: Boolean(offers.files) },
      terminal: Boolean(offers.terminals),
      ...(handlers.terminalLogin ? { auth: { terminal: true } } : {}),
      ...(offers.elicitation ? { elicitation: { form: {}, url: {} } } : {}),
      // Claude Code and Codex then report their own shell commands' output as terminals (see mapUpdate).
      _meta: { terminal_output: true },
    };
    // ACP subagents (an RFD, unstable in the SDK's schema, so added here): a subagent runs as a
    // session of its own, announced with `subagent_update` on its parent's; Baton shows its work
    // in the parent's turn.
    Object.assign(clientCapabilities, { subagents: {} });
    let timer: NodeJS.Timeout | undefined;
    try {
      const initialized = await Promise.race([
        connection.agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities,
          clientInfo: { name: 'baton', title: 'Baton', version: '0.1.0' },
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new AgentFailedToStartError(agentName, `no answer to initialize within ${Math.round(timeoutMs / 1000)} s`)),
            timeoutMs,
          );
        }),
      ]);
      if (initialized.protocolVersion !== acp.PROTOCOL_VERSION) {
        throw new AgentFailedToStartError(
          agentName,
          `it speaks ACP version ${initialized.protocolVersion}; Baton speaks ${acp.PROTOCOL_VERSION}`,
        );
      }
      return new AgentConnection(agentName, child, connection, initialized, updates, auth);
    } catch (error) {
      // An agent that exits at once (a missing setting) breaks the pipe before it is seen to exit:
      // its exit, and what it said last, are the cause, not the broken pipe.
      const exitedAlone =
        error instanceof AgentFailedToStartError
          ? undefined
          : await Promise.race([
              child.exited,
              new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), HANDSHAKE_EXIT_MS)),
            ]);
      await child.dispose();
      const tail = child.lastErrorLines(STDERR_LINES_IN_ERRORS);
      if (error instanceof AgentFailedToStartError) {
        throw error;
      }
      if (exitedAlone || error instanceof AgentExitedError) {
        const said = lastLine(tail);
        throw new AgentFailedToStartError(
          agentName,
          `it exited (${describeExit(exitedAlone ?? child.exit)}) before answering${said ? `: ${said}` : ''}`,
          tail,
        );
      }
      throw new AgentFailedToStartError(agentName, error instanceof Error ? error.message : String(error), tail);
    } finally {
      clearTimeout(timer);
    }
  }

  /** True when the agent can load a session it created before (after a restart). */
  get canLoadSession(): boolean {
    return this.initialized.agentCapabilities?.loadSession === true;
  }

  /** `session/new`; resolves with the session and the options it offers. */
  async newSession(
    cwd: string,
    mcpServers: readonly McpServer[],
    extra: SessionExtras = {},
  ): Promise<{ sessionId: string; options: SessionOption[] }> {
    const response = await this.call<acp.NewSessionResponse>(() =>
      this.connection.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [...mcpServers], ...extras(extra) }),
    );
    return { sessionId: response.sessionId, options: sessionOptions(response.modes, response.configOptions) };
  }

  /** `session/set_config_option`, or `session/set_mode` for the synthesized mode option; resolves with the options after the change. */
  async setOption(sessionId: string, current: SessionOption[], optionId: string, value: string): Promise<SessionOption[]> {
    if (optionId === MODE_OPTION_ID) {
      await this.call(() => this.connection.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: value }));
      return withCurrentMode(current, value);
    }
    const option = current.find((candidate) => candidate.id === optionId);
    const params =
      option?.type === 'boolean'
        ? { sessionId, configId: optionId, type: 'boolean' as const, value: value === 'true' }
        : { sessionId, configId: optionId, value };
    const response = await this.call<acp.SetSessionConfigOptionResponse>(() =>
      this.connection.agent.request(acp.methods.agent.session.setConfigOption, params),
    );
    const mode = current.find((candidate) => candidate.id === MODE_OPTION_ID);
    return sessionOptions(
      mode ? { currentModeId: mode.currentValue, availableModes: mode.options.map(({ value: id, name }) => ({ id, name })) } : null,
      response.configOptions,
    );
  }

  /** The ways the agent offers to log in. */
  authMethods(): AuthMethodInfo[] {
    return authMethodsOf(this.initialized.authMethods ?? []);
  }

  /** The arguments and environment of a terminal log-in method, or undefined when it is not one. */
  terminalMethod(methodId: string): TerminalLoginMethod | undefined {
    return terminalMethodOf(this.initialized.authMethods ?? [], methodId);
  }

  /** `authenticate` with one of the agent's methods. */
  async authenticate(methodId: string): Promise<void> {
    await this.call(() => this.connection.agent.request(acp.methods.agent.authenticate, { methodId }));
  }

  /** True when the agent advertises `session/list`. */
  get canListSessions(): boolean {
    return Boolean(this.initialized.agentCapabilities?.sessionCapabilities?.list);
  }

  /** `session/list`, following the cursor up to `limit` sessions. */
  async listSessions(cwd: string | undefined, limit: number): Promise<acp.SessionInfo[]> {
    const sessions: acp.SessionInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.call<acp.ListSessionsResponse>(() =>
        this.connection.agent.request(acp.methods.agent.session.list, { ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) }),
      );
      sessions.push(...page.sessions);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && sessions.length < limit);
    return sessions.slice(0, limit);
  }

  /** True when the agent advertises `logout`. */
  get canLogout(): boolean {
    return Boolean(this.initialized.agentCapabilities?.auth?.logout);
  }

  /**
   * The log-in this process uses, where the agent says (`_auth/status_update`); it is pushed soon
   * after `initialize`, so this waits up to `timeoutMs` for the first one. Undefined: not said.
   */
  async authStatus(timeoutMs: number): Promise<AuthStatus | undefined> {
    const meta = this.initialized.agentCapabilities?._meta;
    return meta && typeof meta['authStatus'] === 'object' ? this.auth.first(timeoutMs) : undefined;
  }

  /** Whether `logout` would end the log-in in use: advertised, and not a key or credentials from elsewhere where the agent says which. */
  async logoutEnds(timeoutMs: number): Promise<boolean> {
    if (!this.canLogout) {
      return false;
    }
    const status = await this.authStatus(timeoutMs);
    return status === undefined || logoutEnds(status);
  }

  /** `logout`: the agent forgets the credentials it keeps. */
  async logout(): Promise<void> {
    await this.call(() => this.connection.agent.request(acp.methods.agent.logout, {}));
  }

  /** True when the agent advertises `session/resume` (reopen without replaying history). */
  get canResumeSession(): boolean {
    return Boolean(this.initialized.agentCapabilities?.sessionCapabilities?.resume);
  }

  /** `session/resume`: reopens a session without replaying its history; resolves with its options. */
  async resumeSession(
    sessionId: string,
    cwd: string,
    mcpServers: readonly McpServer[],
    extra: SessionExtras = {},
  ): Promise<SessionOption[]> {
    const response = await this.call<acp.ResumeSessionResponse>(() =>
      this.connection.agent.request(acp.methods.agent.session.resume, { sessionId, cwd, mcpServers: [...mcpServers], ...extras(extra) }),
    );
    return sessionOptions(response.modes, response.configOptions);
  }

  /** True when the agent advertises the unstable `session/fork` (a copy of a session under a new id). */
  get canForkSession(): boolean {
    return Boolean((this.initialized.agentCapabilities?.sessionCapabilities as { fork?: unknown } | undefined)?.fork);
  }

  /**
   * `session/fork`: a new session holding a copy of `sessionId`'s history (up to the point `meta`
   * names, for an agent that takes one); resolves with the new session's id and options.
   */
  async forkSession(
    sessionId: string,
    cwd: string,
    mcpServers: readonly McpServer[],
    extra: SessionExtras = {},
  ): Promise<{ sessionId: string; options: SessionOption[] }> {
    const response = await this.call<acp.ForkSessionResponse>(() =>
      this.connection.agent.request(acp.methods.agent.session.fork, { sessionId, cwd, mcpServers: [...mcpServers], ...extras(extra) }),
    );
    return { sessionId: response.sessionId, options: sessionOptions(response.modes, response.configOptions) };
  }

  /**
   * `session/load`: the agent replays the history as updates, which the owner reconciles.
   * Resolves once the replay has settled (see {@link REPLAY_QUIET_MS}).
   */
  async loadSession(sessionId: string, cwd: string, mcpServers: readonly McpServer[], extra: SessionExtras = {}): Promise<SessionOption[]> {
    const response = await this.call<acp.LoadSessionResponse | undefined>(() =>
      this.connection.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [...mcpServers], ...extras(extra) }),
    );
    const answeredAt = Date.now();
    const deadline = answeredAt + REPLAY_SETTLE_MAX_MS;
    do {
      await new Promise((resolve) => setTimeout(resolve, REPLAY_QUIET_MS / 3));
    } while (Date.now() - Math.max(this.updates.lastAt, answeredAt) < REPLAY_QUIET_MS && Date.now() < deadline);
    return sessionOptions(response?.modes, response?.configOptions);
  }

  /**
   * `session/prompt` with its content blocks (the person's text last); resolves with the stop
   * reason and, when the agent reports them (ACP's unstable `usage` field), the turn's tokens.
   * A malformed `usage` is left out rather than failing a turn that otherwise ended well.
   */
  async prompt(sessionId: string, prompt: acp.ContentBlock[]): Promise<PromptOutcome> {
    const response = await this.call<acp.PromptResponse & { usage?: unknown }>(() =>
      this.connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt }),
    );
    const tokens = turnTokensSchema.safeParse(response.usage);
    return { stopReason: response.stopReason, ...(tokens.success ? { tokens: tokens.data } : {}) };
  }

  /** True when the agent takes follow-ups into a running turn (`_meta.steering.supported` at `initialize`). */
  get canSteer(): boolean {
    const meta = (this.initialized as { _meta?: { steering?: { supported?: unknown } } | null })._meta;
    return meta?.steering?.supported === true;
  }

  /**
   * The steering extension (`_session/steering`): puts the person's text into the running turn.
   * Resolves false when no turn runs any more (the agent answered "promptRequired"): the caller
   * sends it as a message of its own.
   */
  async steer(sessionId: string, text: string): Promise<boolean> {
    const response = await this.call<{ outcome?: string } | null>(() =>
      this.connection.agent.request<{ outcome?: string } | null>('_session/steering', {
        sessionId,
        prompt: [{ type: 'text', text }],
        _meta: { steering: { idleBehavior: 'promptRequired' } },
      }),
    );
    return response?.outcome !== 'promptRequired';
  }

  /** True when the agent advertises `session/delete`. */
  get canDeleteSession(): boolean {
    return Boolean((this.initialized.agentCapabilities?.sessionCapabilities as Record<string, unknown> | null | undefined)?.delete);
  }

  /** `session/delete`: the agent forgets a session of its own for good. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.call(() => this.connection.agent.request(acp.methods.agent.session.delete, { sessionId }));
  }

  /** True when the agent advertises `session/close`. */
  get canCloseSession(): boolean {
    return Boolean(this.initialized.agentCapabilities?.sessionCapabilities?.close);
  }

  /** `session/close` when the agent advertises it, bounded in time; a no-op otherwise. */
  async closeSession(sessionId: string): Promise<void> {
    if (!this.canCloseSession) {
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.call(() => this.connection.agent.request(acp.methods.agent.session.close, { sessionId })),
        new Promise((resolve) => {
          timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** `session/cancel`: the agent ends the running prompt with stopReason "cancelled". */
  async cancel(sessionId: string): Promise<void> {
    await this.call(() => this.connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }));
  }

  /** The last lines the agent wrote to stderr. */
  stderrTail(lines = STDERR_LINES_IN_ERRORS): string {
    return this.process.lastErrorLines(lines);
  }

  /** The agent's process group id (its leader's pid). */
  get processGroupId(): number | undefined {
    return this.process.pid;
  }

  /** False once the connection is closed (the process exited, or the agent broke the protocol). */
  get usable(): boolean {
    return !this.disposed && !this.connection.signal.aborted && this.process.exit === undefined;
  }

  /** True once the process has exited. */
  get exited(): boolean {
    return this.process.exit !== undefined;
  }

  /** Closes the connection and ends the agent's whole process group. */
  async dispose(): Promise<void> {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.connection.close();
    await this.process.dispose();
  }

  /** Runs a request and translates whatever it throws into a typed error. */
  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      // The cause wins over its consequence: the agent may exit only because the connection was closed on it.
      if (error instanceof acp.MessageTooLargeError) {
        throw new ProtocolError(
          this.agentName,
          `it sent a message over the ${Math.round(error.maxMessageBytes / 1024 / 1024)} MiB limit (${error.message.replace(/\.$/, '')}).`,
        );
      }
      // The stream usually ends a moment before the process's exit is reported: wait for it, so
      // a dead agent is reported as such and not as a protocol fault.
      if (this.connection.signal.aborted && !this.process.exit) {
        await Promise.race([this.process.exited, new Promise((resolve) => setTimeout(resolve, EXIT_SETTLE_MS))]);
      }
      throw this.translate(error);
    }
  }

  private translate(error: unknown): BatonError {
    if (this.process.exit) {
      return new AgentExitedError(this.agentName, describeExit(this.process.exit), this.stderrTail());
    }
    if (error instanceof BatonError) {
      return error;
    }
    if (error instanceof acp.RequestError) {
      if (error.code === AUTH_REQUIRED) {
        return new AuthRequiredError(this.agentName, this.authMethods());
      }
      if (error.code === -32700 || error.code === -32600) {
        return new ProtocolError(this.agentName, error.message);
      }
      return new AgentError(this.agentName, rpcReason(error.message, error.data), error.code);
    }
    return new ProtocolError(this.agentName, error instanceof Error ? error.message : String(error));
  }
}

/** How long a failed handshake waits to see whether the agent exited on its own. */
const HANDSHAKE_EXIT_MS = 300;

/** The last line of an agent's error output that says something. */
function lastLine(text: string | undefined): string | undefined {
  return text
    ?.split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);
}
