/**
 * Fills agents' capability cards: starts the agent, reads its `initialize` answer, ends it. One
 * probe per agent per run (probes of the same agent share one start); nothing is kept on disk.
 */
import os from 'node:os';
import type { AgentCard } from '../../../app/agents/agentCard.js';
import { AgentNotInstalledError } from '../../../app/errors.js';
import { AgentConnection } from '../acp/AgentConnection.js';
import { prepareBinding } from '../binding/PreparedBinding.js';
import type { Env } from './AgentAdapter.js';
import type { AgentCatalog } from './AgentCatalog.js';
import { launchSpec } from './launchSpec.js';

/** Probes and caches capability cards. */
export class AgentProbe {
  private readonly cards = new Map<string, Promise<AgentCard>>();

  constructor(
    private readonly catalog: AgentCatalog,
    private readonly env: Env,
  ) {}

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

  private async probe(agentId: string): Promise<AgentCard> {
    const adapter = this.catalog.get(agentId);
    const executable = this.catalog.resolve(adapter);
    if (!executable) {
      throw new AgentNotInstalledError(adapter.displayName, adapter.command, adapter.installHint);
    }
    const binding = prepareBinding({ agentId, agentName: adapter.displayName, cwd: this.env.HOME ?? os.homedir() });
    const connection = await AgentConnection.start({
      agentName: adapter.displayName,
      launch: launchSpec(adapter, executable, binding, this.env),
      handlers: { onUpdate: () => {}, requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) },
    });
    try {
      const { protocolVersion, agentCapabilities: capabilities, agentInfo, authMethods } = connection.initialized;
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
        authMethods: (authMethods ?? []).map((method) => ({ id: method.id, name: method.name })),
        instructions: adapter.deliverInstructions
          ? (adapter.instructionChannel ?? 'delivered at system level')
          : `not delivered by Baton yet${adapter.instructionChannel ? ` (its channel: ${adapter.instructionChannel})` : ''}`,
        ...(adapter.asksBeforeMcpTools === undefined ? {} : { asksBeforeMcpTools: adapter.asksBeforeMcpTools }),
      };
    } finally {
      await connection.dispose();
    }
  }
}
