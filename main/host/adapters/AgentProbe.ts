/**
 * Fills agents' capability cards: starts the agent, reads its `initialize` answer, ends it. One
 * probe per agent per run (probes of the same agent share one start); nothing is kept on disk.
 */
import os from 'node:os';
import type { AgentCard } from '../../../app/agents/agentCard.js';
import { AgentNotInstalledError, InvalidRequestError, UnsupportedInputError } from '../../../app/errors.js';
import { AgentConnection, type AgentConnectionHandlers } from '../acp/AgentConnection.js';
import { prepareBinding } from '../binding/PreparedBinding.js';
import type { AgentAdapter, Env } from './AgentAdapter.js';
import type { AgentCatalog } from './AgentCatalog.js';
import { launchSpec } from './launchSpec.js';
import { capabilityOf, describeChannels } from '../instructions/deliverInstructions.js';
import { ptyProgram } from './LoginTerminals.js';

/** Probes and caches capability cards. */
export class AgentProbe {
  private readonly cards = new Map<string, Promise<AgentCard>>();

  constructor(
    private readonly catalog: AgentCatalog,
    private readonly env: Env,
  ) {}

  /** Drops an agent's cached card (it was installed, updated or removed). */
  forget(agentId: string): void {
    this.cards.delete(agentId);
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
    const { connection } = await this.connect(agentId);
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
      await connection.dispose();
    }
  }

  /** Logs out of an agent that offers it, in a process of its own; refused plainly otherwise. */
  async logout(agentId: string): Promise<void> {
    const { connection } = await this.connect(agentId);
    try {
      if (!connection.canLogout) {
        throw new UnsupportedInputError(connection.agentName, 'logging out', 'it does not offer a way to log out over ACP; use its own command-line tool');
      }
      await connection.logout();
      this.cards.delete(agentId);
    } finally {
      await connection.dispose();
    }
  }

  /**
   * Starts an agent outside any conversation: for `initialize`, logging in or out, or reading
   * its own sessions. The caller disposes the connection.
   */
  async connect(agentId: string, options: { cwd?: string; onUpdate?: AgentConnectionHandlers['onUpdate'] } = {}): Promise<{ adapter: AgentAdapter; connection: AgentConnection }> {
    const adapter = this.catalog.get(agentId);
    const executable = this.catalog.resolve(adapter);
    if (!executable) {
      throw new AgentNotInstalledError(adapter.displayName, adapter.command, adapter.installHint);
    }
    const binding = prepareBinding({ agentId, agentName: adapter.displayName, cwd: options.cwd ?? this.env.HOME ?? os.homedir() });
    const connection = await AgentConnection.start({
      agentName: adapter.displayName,
      launch: launchSpec(adapter, executable, binding, this.env),
      // Nothing runs here that could ask the person anything: a question is answered "cancelled".
      handlers: {
        onUpdate: options.onUpdate ?? (() => {}),
        requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }),
        terminalLogin: ptyProgram(this.env) !== undefined,
      },
    });
    return { adapter, connection };
  }

  private async probe(agentId: string): Promise<AgentCard> {
    const { adapter, connection } = await this.connect(agentId);
    try {
      const { protocolVersion, agentCapabilities: capabilities, agentInfo } = connection.initialized;
      const sessions = capabilities?.sessionCapabilities;
      return {
        agentId,
        displayName: adapter.displayName,
        ...(agentInfo ? { implementation: `${agentInfo.title ?? agentInfo.name} ${agentInfo.version}` } : {}),
        protocolVersion,
        sessions: { load: capabilities?.loadSession === true, list: Boolean(sessions?.list), resume: Boolean(sessions?.resume), fork: Boolean((sessions as Record<string, unknown> | undefined)?.fork), close: Boolean(sessions?.close) },
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
      await connection.dispose();
    }
  }
}
