/**
 * Fills agents' capability cards from their `initialize` answer, read from the pool's process of
 * the agent (one that runs for a conversation, or one started for the card and ended after it).
 * One probe per agent per run (probes of the same agent share one start); nothing is kept on disk.
 */
import os from 'node:os';
import type { AgentCard } from '../../../app/agents/agentCard.js';
import { AgentNotInstalledError, InvalidRequestError, UnsupportedInputError } from '../../../app/errors.js';
import type { AgentConnection, SessionUpdate } from '../acp/AgentConnection.js';
import { resolveBinding } from '../binding/resolveBinding.js';
import { leaseFor } from '../pool/leaseFor.js';
import { compareVersions } from './versions.js';
import type { AgentProcesses } from '../pool/AgentProcesses.js';
import type { AgentAdapter, Env } from './AgentAdapter.js';
import type { AgentCatalog } from './AgentCatalog.js';
import { capabilityOf, describeChannels } from '../instructions/deliverInstructions.js';

/** Probes and caches capability cards. */
export class AgentProbe {
  private readonly cards = new Map<string, Promise<AgentCard>>();

  constructor(
    private readonly catalog: AgentCatalog,
    private readonly env: Env,
    private readonly pool: AgentProcesses,
  ) {}

  /** Drops an agent's cached card (it was installed, updated or removed). */
  forget(agentId: string): void {
    this.cards.delete(agentId);
    this.pool.forgetAnswers(agentId);
  }

  /** The card of an agent, probing it on first request. A failed probe is not cached. */
  describe(agentId: string): Promise<AgentCard> {
    let card = this.cards.get(agentId);
    if (!card) {
      card = this.probe(agentId);
      this.cards.set(agentId, card);
      card.catch(() => this.cards.delete(agentId));
    }
    return card;
  }

  /**
   * Logs in with one of the agent's methods, in a process of its own. Agents keep their
   * credentials themselves, so the next session is logged in. Terminal methods are refused: Baton
   * has no terminal to run them in yet.
   */
  async authenticate(agentId: string, methodId: string): Promise<void> {
    const { connection, release } = await this.connect(agentId);
    try {
      const method = connection.authMethods().find((candidate) => candidate.id === methodId);
      if (!method) {
        throw new InvalidRequestError(`${connection.agentName} offers no log-in method "${methodId}".`);
      }
      if (method.terminal) {
        throw new InvalidRequestError(`${connection.agentName}'s log-in method "${method.name}" runs in a terminal: start it with startLoginTerminal.`);
      }
      await connection.authenticate(methodId);
      // The card's sign-in state may have changed.
      this.cards.delete(agentId);
    } finally {
      await release();
    }
  }

  /** Logs out of an agent that offers it, in a process of its own; refused plainly otherwise. */
  async logout(agentId: string): Promise<void> {
    const { connection, release } = await this.connect(agentId);
    try {
      if (!connection.canLogout) {
        throw new UnsupportedInputError(connection.agentName, 'logging out', 'it does not offer a way to log out over ACP; use its own command-line tool');
      }
      await connection.logout();
      this.cards.delete(agentId);
    } finally {
      await release();
    }
  }

  /**
   * The agent outside any conversation, for `initialize`, logging in or out, or reading its own
   * sessions: a process of it that runs already (any launch), or one started in the pool without
   * Baton's instruction channels. `route` hears a session's updates (a session it loads); the
   * caller releases the process, which ends when nothing else uses it.
   */
  async connect(agentId: string, options: { cwd?: string } = {}): Promise<{ adapter: AgentAdapter; connection: AgentConnection; route(sessionId: string, onUpdate: (update: SessionUpdate) => void): () => void; release(): Promise<void> }> {
    const adapter = this.catalog.get(agentId);
    const executable = this.catalog.resolve(adapter);
    if (!executable) {
      throw new AgentNotInstalledError(adapter.displayName, adapter.command, adapter.installHint);
    }
    const base = resolveBinding({ adapter, executable, baseEnv: this.env, cwd: options.cwd ?? this.env.HOME ?? os.homedir() });
    const running = await this.pool.running(agentId);
    const lease = await leaseFor({ adapter, executable, baseEnv: this.env, pool: this.pool, binding: running ? { launch: { ...base.launch, digest: running.key } } : base, ...(running ? { ownProcess: false } : {}) });
    return {
      adapter,
      connection: lease.agent.connection,
      // Nothing runs here that could ask the person anything: a question is answered "cancelled".
      route: (sessionId, onUpdate) => lease.agent.register(sessionId, { onUpdate, requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) }),
      release: () => lease.release(),
    };
  }

  /** Deletes one of the agent's own sessions where it offers `session/delete`; says whether it did. */
  async deleteSession(agentId: string, sessionId: string): Promise<boolean> {
    const { connection, release } = await this.connect(agentId);
    try {
      if (!connection.canDeleteSession) {
        return false;
      }
      await connection.deleteSession(sessionId);
      return true;
    } finally {
      await release();
    }
  }

  private async probe(agentId: string): Promise<AgentCard> {
    const { adapter, connection, release } = await this.connect(agentId);
    try {
      const { protocolVersion, agentCapabilities: capabilities, agentInfo } = connection.initialized;
      const sessions = capabilities?.sessionCapabilities;
      return {
        agentId,
        displayName: adapter.displayName,
        ...(agentInfo ? { implementation: `${agentInfo.title ?? agentInfo.name} ${agentInfo.version}`, version: agentInfo.version } : {}),
        ...(adapter.oldestSupported && agentInfo?.version && compareVersions(agentInfo.version, adapter.oldestSupported) < 0 ? { oldestSupported: adapter.oldestSupported } : {}),
        protocolVersion,
        sessions: { load: capabilities?.loadSession === true, list: Boolean(sessions?.list), resume: Boolean(sessions?.resume), fork: Boolean((sessions as Record<string, unknown> | undefined)?.fork), close: Boolean(sessions?.close), subagents: Boolean((sessions as Record<string, unknown> | undefined)?.subagents) },
        mcp: { stdio: adapter.takesMcpServers !== false, http: capabilities?.mcpCapabilities?.http === true, sse: capabilities?.mcpCapabilities?.sse === true },
        prompt: {
          image: capabilities?.promptCapabilities?.image === true,
          audio: capabilities?.promptCapabilities?.audio === true,
          embeddedContext: capabilities?.promptCapabilities?.embeddedContext === true,
        },
        authMethods: connection.authMethods(),
        logout: connection.canLogout,
        instructions: describeChannels(adapter.displayName, capabilityOf(adapter, connection.initialized)),
        instructionChannels: capabilityOf(adapter, connection.initialized),
        ...(adapter.asksBeforeMcpTools === undefined ? {} : { asksBeforeMcpTools: adapter.asksBeforeMcpTools }),
      };
    } finally {
      await release();
    }
  }
}
