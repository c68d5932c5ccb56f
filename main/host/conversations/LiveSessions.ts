/**
 * The conversations' live agent sessions, as the pool's client: starts a conversation's session
 * on the pool's process for its binding, reuses it while the binding is unchanged (both digests),
 * lets it go when the binding changed (recording `binding.changed`), after an idle time, when
 * its agent is to start afresh, and when the host shuts down.
 */
import { z } from 'zod';
import type { EventDraft } from '../../../app/events/index.js';
import { redactSecrets } from '../../../app/instructions/injectors.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import type { PreparedBinding } from '../binding/PreparedBinding.js';
import { resolveBinding, type BindingRequest } from '../binding/resolveBinding.js';
import type { ComposedInstructions } from '../instructions/InstructionSettings.js';
import type { ConversationParts } from './ConversationSettings.js';
import type { LiveSession, LiveSessionOwner } from './LiveSession.js';
import { openLiveSession } from './openLiveSession.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import type { Sharing } from '../pool/poolKey.js';
import type { EventStore } from '../store/EventStore.js';
import type { PendingFolders } from './PendingFolders.js';

/** Early sessions waiting for their conversations at most (see {@link LiveSessions.openEarly}). */
const MAX_EARLY = 4;

/** Minutes an idle session is kept open by default. */
const DEFAULT_IDLE_MINUTES = 10;

/** What a turn's session is bound with: the instructions and servers the turn runs under. */
export type TurnBinding = { instructions: ComposedInstructions; serverIds: readonly string[] };

/** What the live sessions need to know of the turns. */
export type TurnState = {
  /** The turn running in a conversation, if any. */
  activeTurnId(conversationId: string): string | undefined;
  /** A write failed while an agent streamed into the conversation. */
  onStoreFailure(conversationId: string, error: unknown): void;
};

/** What the live sessions are kept with. */
export type LiveSessionsDeps = ConversationParts & {
  turns: TurnState;
  /** The secret values Baton knows: taken out of what it hands an agent from elsewhere. */
  secrets: () => readonly string[];
  /** The data folder: generated session files live under it. */
  dataDir?: string;
  /** Baton's MCP launcher: servers holding secrets go behind it, for agents that expose their server config. */
  launcher?: LauncherGrants;
  /** Folders still being made (an attempt's copy): the agent may start meanwhile, its session opens once the folder is ready. */
  pendingFolders?: PendingFolders;
  /** Watches a working folder for its checkpoints while a session in it is live; the returned function stops. */
  watchFolder?: (folder: string) => () => void;
};

/** What the live sessions ask of Baton's MCP launcher (`toolbox/LaunchRegistry.ts`). */
export type LauncherGrants = {
  /** The server as the conversation's agent is given it. */
  shield(server: McpServer, conversationId: string): McpServer;
  /** Answers the conversation's shielded servers until the returned revocation runs (the session ends). */
  grant(conversationId: string, servers: readonly McpServer[]): () => void;
};

/** A session opened before its conversation exists: the drafts of its bind wait for the first turn. */
type Early = { ready: Promise<{ live: LiveSession; drafts: EventDraft[] } | undefined>; timer: NodeJS.Timeout };

/** Where a conversation's agent works: what its binding is resolved for. */
type Place = { agentId: string; cwd: string };

/** The live sessions, one per conversation at most. */
export class LiveSessions {
  private readonly live = new Map<string, LiveSession>();
  private readonly starting = new Map<string, Promise<LiveSession>>();
  /** Live sessions that could not reopen their agent's earlier session (why, for the handoff). */
  private readonly fellBack = new WeakMap<LiveSession, string>();
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

  /** Why the session could not reopen the agent's earlier one, if it could not (for the handoff). */
  fellBackReason(live: LiveSession): string | undefined {
    return this.fellBack.get(live);
  }

  /**
   * Opens, in the background, the session a conversation about to start (`conversationId` reserved
   * for it) would begin with: its agent, folder, instructions and servers (`turn`) and the person's
   * choices. Its first turn takes it when its binding is still the same; otherwise, or when unused
   * for the idle time, it is closed. Throws at once what the binding cannot be resolved for (an
   * agent not installed); a failure to open is logged, and the first turn opens its own.
   */
  openEarly(conversationId: string, place: Place, turn: TurnBinding, chosen: Record<string, string>): void {
    const request = this.bindingRequest(conversationId, place, turn, chosen);
    // A few wait at most (windows each writing a first message); past that the oldest is closed.
    const oldest = this.early.size >= MAX_EARLY ? this.early.keys().next().value : undefined;
    if (oldest !== undefined) {
      void this.closeEarly(oldest);
    }
    const ready = this.open(conversationId, request)
      .then(async (live) => {
        try {
          return { live, drafts: await live.bind(request.adapter, undefined) };
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
   * The conversation's live agent session, started (and bound) on first use. A live session whose
   * binding no longer matches (another toolbox, other instructions or settings for them) is let go
   * first, and `binding.changed` says so: its session is reopened with the new binding.
   */
  async forTurn(conversationId: string, summary: ConversationSummary, turn: TurnBinding): Promise<LiveSession> {
    this.holdOpen(conversationId);
    const request = this.bindingRequest(conversationId, summary, turn);
    const existing = this.live.get(conversationId);
    if (existing && !this.stale.has(existing) && existing.binding.agentId === summary.agentId) {
      const wanted = resolveBinding({ ...request, initialized: existing.initialized });
      if (wanted.launch.digest === existing.binding.launch.digest && wanted.session.digest === existing.binding.session.digest) {
        return existing;
      }
      this.deps.committer.commit(conversationId, [bindingChanged(existing.binding, wanted)]);
    }
    if (existing) {
      this.live.delete(conversationId);
      await existing.dispose();
    }
    const pending =
      this.starting.get(conversationId) ?? this.start(conversationId, request).finally(() => this.starting.delete(conversationId));
    this.starting.set(conversationId, pending);
    return pending;
  }

  /** Keeps the conversation's session from being closed as idle (a turn is starting). */
  holdOpen(conversationId: string): void {
    clearTimeout(this.idleTimers.get(conversationId));
    this.idleTimers.delete(conversationId);
  }

  /** A turn ended: an agent that broke the protocol is ended; a usable one is closed once idle. */
  async afterTurn(conversationId: string): Promise<void> {
    const live = this.live.get(conversationId);
    if (live && !live.usable) {
      // Still running, but it cannot be talked to.
      this.live.delete(conversationId);
      await live.dispose();
    } else if (live) {
      this.closeWhenIdle(conversationId, live);
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

  /** Has every live session of an agent in a folder start its agent afresh for its next turn (a running turn finishes first). */
  restartAgents(agentId: string, cwd: string): void {
    const asking = this.deps.catalog.get(agentId).modes?.asking;
    for (const [conversationId, live] of this.live) {
      if (live.binding.agentId === agentId && live.binding.cwd === cwd) {
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

  /** What the conversation's next binding is resolved from. */
  private bindingRequest(
    conversationId: string,
    summary: Place,
    turn: TurnBinding,
    chosen: Record<string, string> = this.deps.store.getContext(conversationId).chosenOptions,
  ): BindingRequest {
    const { access, agentEnv, settings, instructions, launcher } = this.deps;
    const { adapter, executable } = access.find(summary.agentId);
    const composed = instructions.forBinding(summary.agentId, turn.instructions);
    access.requireCurrentFor(adapter, composed);
    return {
      adapter,
      executable,
      baseEnv: agentEnv,
      cwd: summary.cwd,
      mcpServers: settings.resolveServers(conversationId, turn.serverIds, summary.cwd),
      instructions: composed,
      chosenOptions: chosen,
      ...(launcher ? { shield: (server: McpServer) => launcher.shield(server, conversationId) } : {}),
    };
  }

  /**
   * Resolves the binding with the agent's `initialize` answer (from a process of it started for
   * that, when none ran yet this time) and starts the session on the pool's process for it.
   */
  private async start(conversationId: string, request: BindingRequest): Promise<LiveSession> {
    const { store, committer } = this.deps;
    // A session opened while the person wrote the first message, if it was opened for this binding.
    const early = await this.earlyFor(conversationId, request);
    const live = early?.live ?? (await this.open(conversationId, request));
    try {
      const drafts = early?.drafts ?? (await this.bind(conversationId, live, request.adapter));
      const turnId = this.deps.turns.activeTurnId(conversationId);
      committer.commit(
        conversationId,
        drafts.map((draft) => (draft.type === 'notice' && turnId ? { ...draft, payload: { ...draft.payload, turnId } } : draft)),
      );
      live.start();
      await this.reapplyChoices(conversationId, live, store.getContext(conversationId).chosenOptions, turnId);
    } catch (error) {
      await live.dispose();
      throw error;
    }
    this.live.set(conversationId, live);
    return live;
  }

  /**
   * Binds the conversation's session on `live`: reopens (or forks) the agent's earlier session of
   * this conversation where it can, else a new one; returns the drafts to record.
   */
  private async bind(conversationId: string, live: LiveSession, adapter: AgentAdapter): Promise<EventDraft[]> {
    const { store, importReview } = this.deps;
    // The agent started while its folder was being made; its session opens in the folder as made.
    await this.deps.pendingFolders?.ready(conversationId);
    const own = store.getContext(conversationId).sessions[adapter.agentId];
    const recorded = own?.sessionId;
    // A session created with other instructions or servers is not reopened: agents keep what a
    // session was created with (measured: claude-agent-acp 0.101 keeps its system prompt and
    // servers across a resume), so it gets a new session and Baton's handoff, said in the transcript.
    const changedSince = own?.sessionDigest !== undefined && own.sessionDigest !== live.binding.session.digest;
    // A session named by an imported file is not reopened: it may not be this conversation's at all.
    const previous = recorded && !changedSince && !importReview.isImportedSession(conversationId, recorded) ? recorded : undefined;
    const drafts = await live.bind(adapter, previous, previous ? own?.forkAt : undefined);
    const bound = drafts[0];
    // After a rewind, an agent that cannot fork its session there gets a new one without a word (as ever).
    if (previous && own?.forkAt === undefined && bound?.type === 'session.bound' && bound.payload.how === 'new') {
      // The turn's catch-up hands it the conversation instead, and says so.
      this.fellBack.set(
        live,
        `${adapter.displayName} could not reopen its own earlier session, so Baton handed it the conversation instead`,
      );
    } else if (recorded && changedSince) {
      this.fellBack.set(
        live,
        `${adapter.displayName}'s toolbox or instructions changed, which its earlier session would not take, so Baton started a new session and handed it the conversation`,
      );
    }
    return drafts;
  }

  /** Starts the agent process for the binding (or takes the pool's) and prepares the session on it, not yet bound. */
  private async open(conversationId: string, request: BindingRequest): Promise<LiveSession> {
    const { adapter } = request;
    const { pool, dataDir, launcher } = this.deps;
    // The launcher answers this session's shielded servers from before `session/new` (the agent
    // starts them then) until the session ends.
    const revoke = launcher && adapter.exposesServerConfig ? launcher.grant(conversationId, request.mcpServers ?? []) : () => {};
    // Its checkpoints look only at what changed while the session is live.
    const unwatch = this.deps.watchFolder?.(request.cwd) ?? (() => undefined);
    const detach = (): void => {
      revoke();
      unwatch();
    };
    const sharing = this.sharingFor(conversationId, adapter, request.cwd);
    return openLiveSession(request, {
      pool,
      owner: this.owner(conversationId),
      onDetach: detach,
      sharing,
      ...(dataDir ? { sessionFilesDir: dataDir } : {}),
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
    const wanted = resolveBinding({ ...request, initialized: opened.live.initialized });
    const { launch, session } = opened.live.binding;
    if (opened.live.usable && wanted.launch.digest === launch.digest && wanted.session.digest === session.digest) {
      return opened;
    }
    this.deps.log(`the early session of ${conversationId} was opened for other settings than its first turn's; it is closed`);
    await opened.live.dispose();
    return undefined;
  }

  /** Applies what the person chose for this conversation to a session that was just bound. */
  private async reapplyChoices(
    conversationId: string,
    live: LiveSession,
    chosen: Record<string, string>,
    turnId: string | undefined,
  ): Promise<void> {
    for (const [optionId, value] of Object.entries(chosen)) {
      const option = live.sessionOptions.find((candidate) => candidate.id === optionId);
      if (!option || option.currentValue === value) {
        continue;
      }
      try {
        this.deps.committer.commit(conversationId, [await live.choose(optionId, value)]);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.deps.committer.commit(conversationId, [
          {
            type: 'notice',
            payload: { turnId, severity: 'warning', text: `Your choice of ${option.name} could not be applied again: ${reason}` },
          },
        ]);
      }
    }
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

/** The `binding.changed` draft for a live session's binding and the one the next turn needs. */
function bindingChanged(from: PreparedBinding, to: PreparedBinding): EventDraft {
  const changed = [
    ...(JSON.stringify(from.mcpServers) !== JSON.stringify(to.mcpServers) ? ['the toolbox'] : []),
    ...(from.instructions?.sha256 !== to.instructions?.sha256 ||
    JSON.stringify(from.instructions?.settings) !== JSON.stringify(to.instructions?.settings)
      ? ['the instructions']
      : []),
  ];
  return {
    type: 'binding.changed',
    payload: {
      ...(to.instructions ? { instructionsDigest: to.instructions.sha256 } : {}),
      launchDigest: to.launch.digest,
      sessionDigest: to.session.digest,
      changed: changed.length > 0 ? changed : ["the agent's settings"],
    },
  };
}

/** The setting `agents.processPerConversation`: the agents whose every conversation gets a process of its own. */
export function processPerConversation(store: Pick<EventStore, 'getSetting'>): string[] {
  return store.getSetting('agents.processPerConversation', z.array(z.string()), []);
}
