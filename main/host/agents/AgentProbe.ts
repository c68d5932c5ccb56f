/**
 * Fills agents' capability cards from their `initialize` answer, read from a loan of the agent's
 * process (`AgentAccess`: one that runs for a conversation, or one started for the card and ended
 * after it), and logs in and out there. One probe per agent per run (probes of the same agent
 * share one start); nothing is kept on disk.
 */
import type { AgentCard } from '../../../app/agents/agentCard.js';
import { InvalidRequestError, UnsupportedInputError } from '../../../app/errors.js';
import { compareVersions } from '../adapters/versions.js';
import { capabilityOf, describeChannels } from '../instructions/deliverInstructions.js';
import type { AgentProcesses } from '../pool/AgentProcesses.js';
import type { AgentAccess } from './AgentAccess.js';
import { signedInWords } from '../../../app/agents/logInWords.js';

/**
 * How long a card waits for an agent that reports its log-in to say which. Claude Code reads it
 * by running its CLI (`claude auth status`) from `initialize` on, about 0.5 s idle, and gives that
 * read 5 s before it says nothing: the wait covers the agent's own bound, so a busy machine (a
 * 340 MB binary read from a cold disk cache) does not lose an answer the agent still sends.
 */
const AUTH_STATUS_WAIT_MS = 6_000;

/** Probes and caches capability cards. */
export class AgentProbe {
  private readonly cards = new Map<string, Promise<AgentCard>>();

  constructor(
    private readonly access: AgentAccess,
    private readonly pool: AgentProcesses,
  ) {}

  /**
   * Drops an agent's cached card (it was installed, updated or removed, or logged in to), and ends
   * its idle processes: the next use starts the agent as it is now.
   */
  forget(agentId: string): void {
    this.cards.delete(agentId);
    this.pool.forgetAnswers(agentId);
    void this.pool.endIdle(agentId);
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
   * Logs in with one of the agent's methods, on a loan of its process. Agents keep their
   * credentials themselves, so the next session is logged in. Terminal methods run in a terminal
   * of their own (`LoginTerminals`), not here.
   */
  async authenticate(agentId: string, methodId: string): Promise<void> {
    const { connection, release } = await this.access.borrow(agentId);
    try {
      const method = connection.authMethods().find((candidate) => candidate.id === methodId);
      if (!method) {
        throw new InvalidRequestError(`${connection.agentName} offers no log-in method "${methodId}".`);
      }
      if (method.terminal) {
        throw new InvalidRequestError(
          `${connection.agentName}'s log-in method "${method.name}" runs in a terminal: start it with startLoginTerminal.`,
        );
      }
      await connection.authenticate(methodId);
      // The card's sign-in state may have changed.
      this.cards.delete(agentId);
    } finally {
      await release();
    }
  }

  /** Logs out of an agent that offers it, on a loan of its process; refused plainly otherwise. */
  async logout(agentId: string): Promise<void> {
    const { connection, release } = await this.access.borrow(agentId);
    try {
      if (!connection.canLogout) {
        throw new UnsupportedInputError(
          connection.agentName,
          'logging out',
          'it does not offer a way to log out over ACP; use its own command-line tool',
        );
      }
      const status = await connection.authStatus(AUTH_STATUS_WAIT_MS);
      if (status && !(await connection.logoutEnds(0))) {
        throw new UnsupportedInputError(
          connection.agentName,
          'logging out',
          `it uses ${signedInWords(status)}, which logging out cannot end: ${status.kind === 'api_key' ? 'remove the key from the environment Baton starts it with' : 'change it where it is set'}`,
        );
      }
      await connection.logout();
      this.cards.delete(agentId);
    } finally {
      await release();
    }
  }

  /** Deletes one of the agent's own sessions where it offers `session/delete`; says whether it did. */
  async deleteSession(agentId: string, sessionId: string): Promise<boolean> {
    const { connection, release } = await this.access.borrow(agentId);
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
    const { adapter, connection, release } = await this.access.borrow(agentId);
    try {
      const { protocolVersion, agentCapabilities: capabilities, agentInfo } = connection.initialized;
      const signedIn = await connection.authStatus(AUTH_STATUS_WAIT_MS);
      const sessions = capabilities?.sessionCapabilities;
      return {
        agentId,
        displayName: adapter.displayName,
        ...(agentInfo ? { implementation: `${agentInfo.title ?? agentInfo.name} ${agentInfo.version}`, version: agentInfo.version } : {}),
        ...(adapter.oldestSupported && agentInfo?.version && compareVersions(agentInfo.version, adapter.oldestSupported) < 0
          ? { oldestSupported: adapter.oldestSupported }
          : {}),
        protocolVersion,
        sessions: {
          load: capabilities?.loadSession === true,
          list: Boolean(sessions?.list),
          resume: Boolean(sessions?.resume),
          fork: Boolean((sessions as Record<string, unknown> | undefined)?.fork),
          close: Boolean(sessions?.close),
          subagents: Boolean((sessions as Record<string, unknown> | undefined)?.subagents),
        },
        mcp: {
          stdio: adapter.takesMcpServers !== false,
          http: capabilities?.mcpCapabilities?.http === true,
          sse: capabilities?.mcpCapabilities?.sse === true,
        },
        prompt: {
          image: capabilities?.promptCapabilities?.image === true,
          audio: capabilities?.promptCapabilities?.audio === true,
          embeddedContext: capabilities?.promptCapabilities?.embeddedContext === true,
        },
        authMethods: connection.authMethods(),
        logout: await connection.logoutEnds(AUTH_STATUS_WAIT_MS),
        ...(signedIn ? { signedIn } : {}),
        instructions: describeChannels(adapter.displayName, capabilityOf(adapter, connection.initialized)),
        instructionChannels: capabilityOf(adapter, connection.initialized),
        ...(adapter.asksBeforeMcpTools === undefined ? {} : { asksBeforeMcpTools: adapter.asksBeforeMcpTools }),
      };
    } finally {
      await release();
    }
  }
}
