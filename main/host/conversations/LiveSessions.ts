/**
 * The conversations' live agent sessions, as the pool's client: starts a conversation's session
 * on the pool's process for its binding, reuses it while the binding is unchanged (both digests),
 * lets it go when the binding changed (recording `binding.changed`), after an idle time, when
 * its agent is to start afresh, and when the host shuts down.
 */
import type { Machine } from '../machine/Machine.js';
import { untilStopped } from './untilStopped.js';
import { z } from 'zod';
import type { EventDraft } from '../../../app/events/index.js';
import { redactSecrets } from '../../../app/instructions/injectors.js';
import { bindingChange, type BindingRequest } from '../binding/resolveBinding.js';
import type { ConversationParts } from './ConversationSettings.js';
import { LiveSession, type EarlierSession } from './LiveSession.js';
import type { LiveSessionOwner } from './SessionOwner.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import type { Sharing } from '../pool/poolKey.js';
import type { EventStore } from '../store/EventStore.js';
import type { PendingFolders } from './PendingFolders.js';
import type { LauncherGrants } from './TurnPlanner.js';
import type { SessionFolders } from '../process/SessionFolder.js';

/** Early sessions waiting for their conversations at most (see {@link LiveSessions.openEarly}). */
const MAX_EARLY = 4;

/** Minutes an idle session is kept open by default. */
const DEFAULT_IDLE_MINUTES = 10;

/** What the live sessions need to know of the turns. */
export type TurnState = {
  /** The turn running in a conversation, if any. */
  activeTurnId(conversationId: string): string | undefined;
  /** A write failed while an agent streamed into the conversation. */
  onStoreFailure(conversationId: string, error: unknown): void;
};

/** What the live sessions are kept with. */
export type LiveSessionsDeps = Pick<ConversationParts, 'store' | 'catalog' | 'agentEnv' | 'committer' | 'importReview' | 'pool' | 'log'> & {
  turns: TurnState;
  /** The secret values Baton knows: taken out of what it hands an agent from elsewhere. */
  secrets: () => readonly string[];
  /** Where generated session files live, on each agent's machine. */
  sessionFiles?: SessionFolders;
  /** Baton's MCP launcher: servers holding secrets go behind it, for agents that expose their server config. */
  launcher?: LauncherGrants;
  /** Folders still being made (an attempt's copy): the agent may start meanwhile, its session opens once the folder is ready. */
  pendingFolders?: PendingFolders;
  /** Watches a working folder for its checkpoints while a session in it is live; the returned function stops. */
  watchFolder?: (folder: string, machine?: Machine) => () => void;
};

/** A session opened before its conversation exists: the drafts of its bind wait for the first turn. */
type Early = { ready: Promise<{ live: LiveSession; drafts: EventDraft[] } | undefined>; timer: NodeJS.Timeout };

/** The live sessions, one per conversation at most. */
export class LiveSessions {
  private readonly live = new Map<string, LiveSession>();
  private readonly starting = new Map<string, Promise<LiveSession>>();
  /** Live sessions whose agent is to be started afresh before their next turn. */
  private readonly stale = new WeakSet<LiveSession>();
  /** Per conversation, the timer that closes its idle session (see {@link idleMs}). */
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();
  /** Sessions opened for conversations about to start (see {@link openEarly}), by the id reserved for each. */
  private readonly early = new Map<string, Early>();

  constructor(private readonly deps: LiveSessionsDeps) {}

  /** The conversation's live session, if one runs. */
  get(conversationId: string): LiveSession | undefined {
    return this.live.get(conversationId);
  }

  /**
   * Opens, in the background, the session a conversation about to start (`conversationId` reserved
   * for it) would begin with, from the binding request its first turn is planned with (its agent,
   * folder, instructions, servers and the person's choices: see `TurnPlanner`). Its first turn
   * takes it when its binding is still the same; otherwise, or when unused for the idle time, it is
   * closed. A failure to open is logged, and the first turn opens its own.
   */
  openEarly(conversationId: string, request: BindingRequest): void {
    // A few wait at most (windows each writing a first message); past that the oldest is closed.
    const oldest = this.early.size >= MAX_EARLY ? this.early.keys().next().value : undefined;
    if (oldest !== undefined) {
      void this.closeEarly(oldest);
    }
    const ready = this.open(conversationId, request)
      .then(async (live) => {
        try {
          return { live, drafts: await live.bind(undefined) };
        } catch (error) {
          await live.dispose();
          throw error;
        }
      })
      .catch((error: unknown) => {
        this.deps.log(`could not open an early session for ${conversationId}: ${String(error)}`);
        return undefined;
      });
    const timer = setTimeout(() => void this.closeEarly(conversationId), this.idleMs);
    timer.unref();
    this.early.set(conversationId, { ready, timer });
  }

  /** True while `conversationId` is reserved by an early session not yet taken or closed. */
  isEarly(conversationId: string): boolean {
    return this.early.has(conversationId);
  }

  /** Closes the early session reserved as `conversationId` (its settings changed, or it went unused). */
  async closeEarly(conversationId: string): Promise<void> {
    const opened = await this.takeEarly(conversationId);
    await opened?.live.dispose();
  }

  /** The early session reserved as `conversationId`, out of the waiting list, once it is open (undefined: none, or it failed). */
  private async takeEarly(conversationId: string): Promise<{ live: LiveSession; drafts: EventDraft[] } | undefined> {
    const early = this.early.get(conversationId);
    if (!early) {
      return undefined;
    }
    this.early.delete(conversationId);
    clearTimeout(early.timer);
    return early.ready;
  }

  /**
   * The conversation's live agent session for a turn bound with `request` (planned once for the
   * turn: see `TurnPlanner`), started (and bound, reopening the agent's `earlier` session where it
   * can) on first use. A live session whose binding no longer matches (another toolbox, other
   * instructions or settings for them) is let go first, and `binding.changed` says so: its session
   * is reopened with the new binding.
   */
  async forTurn(conversationId: string, request: BindingRequest, earlier?: EarlierSession, stopped?: AbortSignal): Promise<LiveSession> {
    this.holdOpen(conversationId);
    const existing = this.live.get(conversationId);
    const reuse = existing && this.reuse(existing, request);
    if (reuse === true) {
      return existing;
    }
    if (reuse) {
      this.deps.committer.commit(conversationId, [reuse]);
    }
    if (existing) {
      this.live.delete(conversationId);
      await existing.dispose();
    }
    const pending =
      this.starting.get(conversationId) ??
      this.start(conversationId, request, earlier, stopped).finally(() => this.starting.delete(conversationId));
    this.starting.set(conversationId, pending);
    return pending;
  }

  /** Keeps the conversation's session from being closed as idle (a turn is starting). */
  private holdOpen(conversationId: string): void {
    clearTimeout(this.idleTimers.get(conversationId));
    this.idleTimers.delete(conversationId);
  }

  /** A turn ended: an agent that broke the protocol is ended; a usable one is closed once idle. */
  async afterTurn(conversationId: string): Promise<void> {
    const live = this.live.get(conversationId);
    if (live?.usable) {
      this.closeWhenIdle(conversationId, live);
    } else {
      // Still running, but it cannot be talked to.
      await this.release(conversationId);
    }
  }

  /** Takes the conversation's live session out (its agent is being ended); the next turn starts another. */
  take(conversationId: string): LiveSession | undefined {
    const live = this.live.get(conversationId);
    this.live.delete(conversationId);
    return live;
  }

  /** Closes the conversation's live session, if one runs. */
  async release(conversationId: string): Promise<void> {
    await this.take(conversationId)?.dispose();
  }

  /** Has every live session of an agent in a folder on `machine` start its agent afresh for its next turn (a running turn ends first). */
  restartAgents(agentId: string, cwd: string, machine: string): void {
    const asking = this.deps.catalog.get(agentId).modes?.asking;
    for (const [conversationId, live] of this.live) {
      const there = live.binding.agentId === agentId && live.binding.cwd === cwd;
      if (there && this.deps.store.getSummary(conversationId).machine === machine) {
        this.stale.add(live);
        // An "always" answer may have been a mode (claude-agent-acp 0.101: "allow all edits during
        // this session" is its acceptEdits), which a reopened session keeps: the person's revoking
        // it is a choice of the asking mode, applied when the session is bound again.
        const mode = live.sessionOptions.find((option) => option.category === 'mode');
        if (asking && mode && mode.options.some((value) => value.value === asking)) {
          this.deps.committer.commit(conversationId, [{ type: 'session.option.chosen', payload: { optionId: mode.id, value: asking } }]);
        }
      }
    }
  }

  /**
   * How long a session may stay idle before it is closed (`session/close`) and its process let
   * go; the next message reopens it. A setting (`agents.idleMinutes`, default 10);
   * `BATON_AGENT_IDLE_MS` overrides it (benchmarks, tests).
   */
  get idleMs(): number {
    const override = Number(this.deps.agentEnv.BATON_AGENT_IDLE_MS);
    if (Number.isFinite(override) && override > 0) {
      return override;
    }
    return (
      this.deps.store.getSetting(
        'agents.idleMinutes',
        z
          .number()
          .min(1)
          .max(24 * 60),
        DEFAULT_IDLE_MINUTES,
      ) * 60_000
    );
  }

  /**
   * How widely a conversation's agent process may be shared: with conversations in the same
   * working folder, unless the person set the agent to one process per conversation; an agent
   * that holds its state exclusively shares one process per launch (see `pool/poolKey.ts`).
   */
  sharingFor(conversationId: string, adapter: AgentAdapter, cwd: string): Sharing {
    if (adapter.exclusiveState) {
      return { kind: 'launch' };
    }
    return processPerConversation(this.deps.store).includes(adapter.agentId)
      ? { kind: 'conversation', conversationId }
      : { kind: 'folder', cwd };
  }

  /** The other conversations whose live sessions run on the same agent process as this one's (none when it has no live session). */
  sharingWith(conversationId: string): string[] {
    const own = this.live.get(conversationId)?.process;
    return own === undefined
      ? []
      : [...this.live].flatMap(([other, live]) => (other !== conversationId && live.process === own ? [other] : []));
  }

  /** The conversations whose live sessions run on the pooled process with this key. */
  conversationsOn(key: string): string[] {
    return [...this.live].flatMap(([conversationId, live]) => (live.processKey === key ? [conversationId] : []));
  }

  /** Closes every live session. */
  async dispose(): Promise<void> {
    for (const timer of this.idleTimers.values()) {
      clearTimeout(timer);
    }
    this.idleTimers.clear();
    await Promise.all([...this.live.values()].map((live) => live.dispose()));
    this.live.clear();
    await Promise.all([...this.early.keys()].map((conversationId) => this.closeEarly(conversationId)));
  }

  private closeWhenIdle(conversationId: string, live: LiveSession): void {
    clearTimeout(this.idleTimers.get(conversationId));
    const timer = setTimeout(() => {
      this.idleTimers.delete(conversationId);
      if (
        this.live.get(conversationId) === live &&
        this.deps.turns.activeTurnId(conversationId) === undefined &&
        !this.starting.has(conversationId)
      ) {
        this.live.delete(conversationId);
        void live
          .dispose()
          .catch((error: unknown) => this.deps.log(`could not close the idle session of ${conversationId}: ${String(error)}`));
      }
    }, this.idleMs);
    timer.unref();
    this.idleTimers.set(conversationId, timer);
  }

  /**
   * Resolves the binding with the agent's `initialize` answer (from a process of it started for
   * that, when none ran yet this time) and starts the session on the pool's process for it.
   */
  /**
   * Starts the conversation's session for a turn. Stopped (`stopped` aborts) while it waits for the
   * agent (its process, its folder, `session/new`), it gives up at once with `TurnStopped`: what was
   * opened is let go (its lease released: a process no one else uses ends, and with it a request
   * the agent never answered).
   */
  private async start(
    conversationId: string,
    request: BindingRequest,
    earlier: EarlierSession | undefined,
    stopped?: AbortSignal,
  ): Promise<LiveSession> {
    const { committer, importReview, pendingFolders } = this.deps;
    // A session named by an imported file is not reopened: it may not be this conversation's at all.
    const own = earlier && !importReview.isImportedSession(conversationId, earlier.sessionId) ? earlier : undefined;
    // A session opened while the person wrote the first message, if it was opened for this binding.
    const early = await untilStopped(this.earlyFor(conversationId, request), stopped);
    const opening = early ? Promise.resolve(early.live) : this.open(conversationId, request);
    let live: LiveSession;
    try {
      live = await untilStopped(opening, stopped);
    } catch (error) {
      // Stopped while the process started: once it has, it is let go.
      void opening.then(
        (opened) => opened.dispose(),
        () => undefined,
      );
      throw error;
    }
    try {
      let drafts = early?.drafts;
      if (!drafts) {
        // The agent may have started while its folder was being made; its session opens in the folder as made.
        await untilStopped(pendingFolders?.ready(conversationId) ?? Promise.resolve(), stopped);
        drafts = await untilStopped(live.bind(own), stopped);
      }
      const turnId = this.deps.turns.activeTurnId(conversationId);
      committer.commit(conversationId, withTurn(drafts, turnId));
      live.start();
      // The person's choices for this conversation, applied again (an early session was bound before some were made).
      committer.commit(conversationId, withTurn(await live.applyChoices(request.chosenOptions ?? {}), turnId));
    } catch (error) {
      await live.dispose();
      throw error;
    }
    this.live.set(conversationId, live);
    return live;
  }

  /** Starts the agent process for the binding (or takes the pool's) and prepares the session on it, not yet bound. */
  private async open(conversationId: string, request: BindingRequest): Promise<LiveSession> {
    const { adapter } = request;
    const { pool, sessionFiles, launcher } = this.deps;
    // The launcher answers this session's shielded servers from before `session/new` (the agent
    // starts them then) until the session ends.
    const revoke = launcher && adapter.exposesServerConfig ? launcher.grant(conversationId, request.mcpServers ?? []) : () => {};
    // Its checkpoints look only at what changed while the session is live.
    const unwatch = this.deps.watchFolder?.(request.cwd, request.machine) ?? (() => undefined);
    const detach = (): void => {
      revoke();
      unwatch();
    };
    const owner = this.owner(conversationId);
    const sharing = this.sharingFor(conversationId, adapter, request.cwd);
    return LiveSession.open(request, {
      pool,
      owner,
      onDetach: detach,
      sharing,
      ...(sessionFiles ? { sessionFiles } : {}),
    }).catch((error: unknown) => {
      detach();
      throw error;
    });
  }

  /** The conversation's early session, when it is still usable and was opened for the binding its first turn needs; closed otherwise. */
  private async earlyFor(
    conversationId: string,
    request: BindingRequest,
  ): Promise<{ live: LiveSession; drafts: EventDraft[] } | undefined> {
    const opened = await this.takeEarly(conversationId);
    if (!opened) {
      return undefined;
    }
    if (this.reuse(opened.live, request) === true) {
      return opened;
    }
    this.deps.log(`the early session of ${conversationId} was opened for other settings than its first turn's; it is closed`);
    await opened.live.dispose();
    return undefined;
  }

  /**
   * True when `live` can serve a turn bound with `request` as it is: its agent answers, is not to
   * start afresh, and the session is bound as the request resolves now (both digests). Else the
   * `binding.changed` draft when its binding is what changed, or false. The one check of reuse, for
   * a conversation's live session and for an early one.
   */
  private reuse(live: LiveSession, request: BindingRequest): boolean | EventDraft {
    if (!live.usable || this.stale.has(live) || live.binding.agentId !== request.adapter.agentId) {
      return false;
    }
    return bindingChange(live.binding, live.initialized, request) ?? true;
  }

  private owner(conversationId: string): LiveSessionOwner {
    const { committer, turns, secrets, log } = this.deps;
    return {
      commit: (drafts) => {
        try {
          committer.submit(conversationId, drafts);
        } catch (error) {
          turns.onStoreFailure(conversationId, error);
        }
      },
      activeTurnId: () => turns.activeTurnId(conversationId),
      redact: (text) => redactSecrets(text, [...secrets()]),
      onExit: () => void this.release(conversationId),
      log,
    };
  }
}

/** The drafts with their notices said in the running turn, if one runs. */
function withTurn(drafts: EventDraft[], turnId: string | undefined): EventDraft[] {
  return drafts.map((draft) => (draft.type === 'notice' && turnId ? { ...draft, payload: { ...draft.payload, turnId } } : draft));
}

/** The setting `agents.processPerConversation`: the agents whose every conversation gets a process of its own. */
export function processPerConversation(store: Pick<EventStore, 'getSetting'>): string[] {
  return store.getSetting('agents.processPerConversation', z.array(z.string()), []);
}
