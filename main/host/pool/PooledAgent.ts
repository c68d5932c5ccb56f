/**
 * One pooled agent process and the sessions it carries: each request and update of the agent goes
 * to its session's handlers (a subagent's to the session that runs it), and updates for a session
 * whose handlers are not registered yet wait, within bounds.
 */
import type {
  AgentConnection,
  AgentConnectionHandlers,
  InitializeResponse,
  SessionHandlers,
  SessionUpdate,
} from '../acp/AgentConnection.js';

/** How many updates are kept for a session whose handlers are not registered yet. */
const UNROUTED_LIMIT = 2_000;
/** How many session ids may have updates waiting at once (a new session has a few; more is an agent naming ids that never come). */
const UNROUTED_IDS_LIMIT = 32;
/** How many bytes (as JSON) of waiting updates a process may hold over all its ids. */
const UNROUTED_BYTES_LIMIT = 8 * 1024 * 1024;

/** One pooled agent process and the sessions it carries. */
export class PooledAgent {
  private readonly sessions = new Map<string, SessionHandlers>();
  private readonly unrouted = new Map<string, Array<{ update: SessionUpdate; bytes: number }>>();
  /** Bytes of the updates waiting in {@link unrouted}. */
  private unroutedBytes = 0;
  /** Session ids whose updates were dropped (said once each in the log). */
  private readonly dropped = new Set<string>();
  private readonly exitListeners = new Set<(description: string) => void>();
  /** Sessions with a prompt on its way (for requests that name no session). */
  private readonly prompting = new Set<string>();
  /** Subagent sessions the agent announced (ACP subagents), each with the session whose turn runs it. */
  private readonly children = new Map<string, string>();
  connection!: AgentConnection;
  /** True once its process answered `initialize` (until then it is starting). */
  started = false;
  cleanup: (() => void | Promise<void>) | undefined;
  users = 0;
  exited = false;
  /** Set once the pool ends it (its last lease released, its wait over, a Stop, the host ending): it is not handed out again. */
  ending = false;
  /** Resolves {@link ended}; declared first, so that the promise below sets it. */
  markEnded: () => void = () => {};
  /** Resolves once the process has been ended (after `ending`). */
  ended: Promise<void> = new Promise((resolve) => (this.markEnded = resolve));
  /** Where the agent keeps the state it holds exclusively, for agents that do. */
  stateKey: string | undefined;
  /** Set while it runs with no lease, waiting a while for the next one (see `ProcessRequest.linger`). */
  private lingering: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly key: string,
    readonly agentId: string,
    readonly agentName: string,
    /** The launch digest it was started with (its `key` may add a scope: a folder, a conversation). */
    readonly launchDigest: string = key,
    private readonly log: (message: string) => void = () => {},
  ) {}

  /** True while it waits, with no lease, for the next one (see {@link linger}). */
  get idle(): boolean {
    return this.lingering !== undefined;
  }

  /** Waits `ms` with no lease, then calls `end`; a lease, an end or an exit meanwhile stops the wait ({@link stopLingering}). */
  linger(ms: number, end: () => void): void {
    this.lingering = setTimeout(() => {
      this.lingering = undefined;
      end();
    }, ms);
    this.lingering.unref?.();
  }

  /** Stops waiting (a lease took it, or it ends). */
  stopLingering(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
  }

  /** The handlers the connection is started with: each request goes to its session. */
  readonly handlers: AgentConnectionHandlers = {
    session: (sessionId) => (sessionId !== undefined ? (this.sessions.get(sessionId) ?? this.childSession(sessionId)) : this.soleSession()),
    onUnrouted: (sessionId, update) => this.keepUnrouted(sessionId, update),
    onElicitationComplete: (elicitationId) => {
      for (const session of this.sessions.values()) {
        session.onElicitationComplete?.(elicitationId);
      }
    },
    offers: { files: true, terminals: true, elicitation: true },
    onExit: (description) => {
      this.exited = true;
      for (const listener of [...this.exitListeners]) {
        listener(description);
      }
    },
  };

  /** The agent's answer to `initialize`. */
  get initialized(): InitializeResponse {
    return this.connection.initialized;
  }

  /** The agent's version, as it said at `initialize`. */
  get version(): string | undefined {
    return this.connection.initialized.agentInfo?.version;
  }

  /** True while any of its sessions has a prompt on its way (a turn runs). */
  get busy(): boolean {
    return this.prompting.size > 0;
  }

  /** How many sessions it carries now. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Keeps an update for a session id that has no handlers yet (it comes while `session/new` is
   * answered), within bounds: per id, over all ids in bytes, and in ids. Past them it is dropped,
   * with one log line per id.
   */
  private keepUnrouted(sessionId: string, update: SessionUpdate): void {
    const bytes = JSON.stringify(update).length;
    const queue = this.unrouted.get(sessionId);
    const why =
      queue === undefined && this.unrouted.size >= UNROUTED_IDS_LIMIT
        ? `${UNROUTED_IDS_LIMIT} session ids already wait`
        : (queue?.length ?? 0) >= UNROUTED_LIMIT
          ? `${UNROUTED_LIMIT} updates already wait for it`
          : this.unroutedBytes + bytes > UNROUTED_BYTES_LIMIT
            ? `${UNROUTED_BYTES_LIMIT} bytes of updates already wait`
            : undefined;
    if (why !== undefined) {
      if (!this.dropped.has(sessionId) && this.dropped.size < 1_000) {
        this.dropped.add(sessionId);
        this.log(`${this.agentName} sent updates for session ${sessionId.slice(0, 80)}, which Baton has no handler for; dropped (${why})`);
      }
      return;
    }
    this.unroutedBytes += bytes;
    this.unrouted.set(sessionId, [...(queue ?? []), { update, bytes }]);
  }

  /** Takes the updates waiting for a session id. */
  private takeUnrouted(sessionId: string): SessionUpdate[] {
    const early = this.unrouted.get(sessionId) ?? [];
    this.unrouted.delete(sessionId);
    this.unroutedBytes -= early.reduce((sum, entry) => sum + entry.bytes, 0);
    return early.map((entry) => entry.update);
  }

  /** How many bytes of updates wait for sessions with no handler (tests). */
  get waitingBytes(): number {
    return this.unroutedBytes;
  }

  /** Routes a session's requests and updates to `handlers`; updates that came before are delivered now. Returns the removal. */
  register(sessionId: string, handlers: SessionHandlers): () => void {
    this.sessions.set(sessionId, handlers);
    for (const update of this.takeUnrouted(sessionId)) {
      handlers.onUpdate(update);
    }
    return () => {
      if (this.sessions.get(sessionId) === handlers) {
        this.sessions.delete(sessionId);
        this.prompting.delete(sessionId);
        for (const [child, parent] of this.children) {
          if (parent === sessionId) {
            this.children.delete(child);
          }
        }
      }
    };
  }

  /**
   * Routes an announced subagent session to the session that runs it (a subagent's own subagents
   * to the same one): its updates reach that session's `onSubagentUpdate`, its requests that
   * session's handlers. Updates that came before the announcement are delivered now.
   */
  adopt(childId: string, parentId: string): void {
    this.children.set(childId, this.children.get(parentId) ?? parentId);
    const child = this.childSession(childId);
    for (const update of this.takeUnrouted(childId)) {
      child?.onUpdate(update);
    }
  }

  private childSession(childId: string): SessionHandlers | undefined {
    const parentId = this.children.get(childId);
    const parent = parentId === undefined ? undefined : this.sessions.get(parentId);
    return parent && { ...parent, onUpdate: (update) => parent.onSubagentUpdate?.(childId, update) };
  }

  /** Marks a session as prompting (or not), for requests that name no session. */
  setPrompting(sessionId: string, on: boolean): void {
    if (on) {
      this.prompting.add(sessionId);
    } else {
      this.prompting.delete(sessionId);
    }
  }

  /** Called once when the process ends; returns the removal. */
  onExit(listener: (description: string) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  private soleSession(): SessionHandlers | undefined {
    const candidates = this.prompting.size > 0 ? [...this.prompting] : [...this.sessions.keys()];
    return candidates.length === 1 ? this.sessions.get(candidates[0]!) : undefined;
  }
}
