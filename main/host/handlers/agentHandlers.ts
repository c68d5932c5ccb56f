/** Requests about agents: the list, capability cards, install and remove, log-in and log-out, their own sessions, the processes running. */
import { UnsupportedInputError } from '../../../app/errors.js';
import { processPerConversation } from '../conversations/LiveSessions.js';
import { ownPromptSettings } from '../instructions/deliverInstructions.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type AgentMethods =
  | 'listAgents'
  | 'describeAgent'
  | 'authenticateAgent'
  | 'installAgent'
  | 'cancelAgentInstall'
  | 'removeAgent'
  | 'startLoginTerminal'
  | 'loginTerminalInput'
  | 'closeLoginTerminal'
  | 'logoutAgent'
  | 'listAgentSessions'
  | 'importAgentSession'
  | 'listAgentProcesses'
  | 'stopAgentProcess'
  | 'getProcessSharing'
  | 'setProcessPerConversation'
  | 'refreshRegistry'
  | 'setRegistryUrl';

/** The agents' handlers. */
export function agentHandlers(parts: HostParts): HandlerGroup<AgentMethods> {
  const { catalog, probe, installer, logins, imports, pool, sessions, store, turns } = parts;
  /** The agents, why agents.json was not read, and the registry's status. */
  const agentList = () => ({ ...catalog.list(), registry: catalog.registry?.status() ?? null });
  return {
    listAgents: () => agentList(),
    refreshRegistry: async () => {
      await catalog.registry?.refresh();
      return agentList();
    },
    setRegistryUrl: async ({ url }) => {
      store.setSetting('agents.registryUrl', url === null || url === '' ? null : url);
      await catalog.registry?.refresh();
      return agentList();
    },
    describeAgent: async ({ agentId }) => {
      const card = await probe.describe(agentId);
      return { card: { ...card, instructions: `${card.instructions}${instructionNotes(parts, agentId)}` } };
    },
    authenticateAgent: async ({ agentId, methodId }) => {
      await probe.authenticate(agentId, methodId);
      return {};
    },
    cancelAgentInstall: ({ agentId }) => ({ cancelled: installer.cancel(agentId) }),
    installAgent: async ({ agentId, unverified, version }) => {
      await installer.install(catalog.get(agentId), { unverified: unverified === true, ...(version ? { version } : {}) });
      probe.forget(agentId);
      return agentList();
    },
    removeAgent: async ({ agentId }) => {
      await installer.remove(catalog.get(agentId));
      probe.forget(agentId);
      return agentList();
    },
    startLoginTerminal: async ({ agentId, methodId, cols, rows }) => ({
      terminalId: await logins.start(agentId, methodId, { cols, rows }),
    }),
    loginTerminalInput: ({ terminalId, data }) => {
      logins.input(terminalId, data);
      return {};
    },
    closeLoginTerminal: async ({ terminalId }) => {
      await logins.close(terminalId);
      return {};
    },
    logoutAgent: async ({ agentId }) => {
      await probe.logout(agentId);
      return {};
    },
    listAgentSessions: ({ agentId, cwd }) => imports.list(agentId, cwd),
    importAgentSession: ({ agentId, sessionId, cwd }) => imports.import(agentId, sessionId, cwd),
    listAgentProcesses: () => ({
      processes: pool.table().map((row) => {
        const conversationIds = sessions.conversationsOn(row.key);
        return {
          agentId: row.agentId,
          agentName: row.agentName,
          launchDigest: row.key,
          pid: row.pid ?? null,
          version: row.version ?? null,
          sessions: row.sessions,
          state: row.state,
          machine: row.machine,
          conversationIds,
          conversationTitles: conversationIds.map((conversationId) => titleOf(store, conversationId)),
        };
      }),
      perConversation: processPerConversation(store),
      cannotSeparate: Object.fromEntries(
        catalog
          .adapters()
          .flatMap((adapter) => (adapter.exclusiveState ? [[adapter.agentId, sharedStateReason(adapter.displayName)]] : [])),
      ),
    }),
    stopAgentProcess: async ({ launchDigest }) => {
      // Its turns end as stopped (as with Stop in the conversation), not as a crash.
      await Promise.all(sessions.conversationsOn(launchDigest).map((conversationId) => turns.stopAndWait(conversationId)));
      return { stopped: await pool.stop(launchDigest) };
    },
    getProcessSharing: ({ conversationId }) => {
      const summary = store.getSummary(conversationId);
      const adapter = catalog.get(summary.agentId);
      return {
        agentId: adapter.agentId,
        agentName: adapter.displayName,
        live: sessions.get(conversationId) !== undefined,
        sharedWith: sessions.sharingWith(conversationId).map((other) => ({ conversationId: other, title: store.getSummary(other).title })),
        perConversation: processPerConversation(store).includes(adapter.agentId),
        cannotSeparate: adapter.exclusiveState ? sharedStateReason(adapter.displayName) : null,
      };
    },
    setProcessPerConversation: ({ agentId, on }) => {
      const adapter = catalog.get(agentId);
      if (on && adapter.exclusiveState) {
        throw new UnsupportedInputError(
          adapter.displayName,
          'one process per conversation',
          'it keeps its state in one database that only one process may hold',
        );
      }
      const agentIds = [...new Set([...processPerConversation(store).filter((id) => id !== agentId), ...(on ? [agentId] : [])])];
      store.setSetting('agents.processPerConversation', agentIds);
      return { agentIds };
    },
  };
}

/** What the card adds about instructions for this person: their own prompt settings in force, delivery turned off. */
function instructionNotes({ catalog, env, instructions }: HostParts, agentId: string): string {
  const adapter = catalog.get(agentId);
  const own = ownPromptSettings(adapter, { args: adapter.args, env: { ...env, ...adapter.env } });
  const notes = Object.entries<string>(own).map(
    ([intent, setting]) =>
      ` Your own ${setting} is in force (${intent === 'replace' ? 'replacing' : 'adding to'} its prompt): Baton adds no second one.`,
  );
  if (instructions.agent(agentId).off) {
    notes.push(` Baton's delivery is turned off for ${adapter.displayName}: it runs with only its own prompt.`);
  }
  return notes.join('');
}

/** Why an agent that holds its state exclusively shares one process among its conversations. */
function sharedStateReason(agentName: string): string {
  return `${agentName} keeps its state in one database that only one process may hold, so its conversations share one process`;
}

/** A conversation's title for a table (an erased one, or one not yet named, reads as such). */
function titleOf(store: HostParts['store'], conversationId: string): string {
  try {
    return store.getSummary(conversationId).title || 'Untitled';
  } catch {
    return 'Erased conversation';
  }
}
