/** Requests about agents: the list, capability cards, install and remove, log-in and log-out, their own sessions, the processes running. */
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
  | 'listAgentProcesses';

/** The agents' handlers. */
export function agentHandlers(parts: HostParts): HandlerGroup<AgentMethods> {
  const { catalog, probe, installer, logins, imports, pool } = parts;
  return {
    listAgents: () => ({ agents: catalog.list() }),
    describeAgent: async ({ agentId }) => {
      const card = await probe.describe(agentId);
      return { card: { ...card, instructions: `${card.instructions}${instructionNotes(parts, agentId)}` } };
    },
    authenticateAgent: async ({ agentId, methodId }) => {
      await probe.authenticate(agentId, methodId);
      return {};
    },
    cancelAgentInstall: ({ agentId }) => ({ cancelled: installer.cancel(agentId) }),
    installAgent: async ({ agentId }) => {
      await installer.install(catalog.get(agentId));
      probe.forget(agentId);
      return { agents: catalog.list() };
    },
    removeAgent: async ({ agentId }) => {
      await installer.remove(catalog.get(agentId));
      probe.forget(agentId);
      return { agents: catalog.list() };
    },
    startLoginTerminal: async ({ agentId, methodId, cols, rows }) => ({ terminalId: await logins.start(agentId, methodId, { cols, rows }) }),
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
      processes: pool.table().map((row) => ({ agentId: row.agentId, agentName: row.agentName, launchDigest: row.key, pid: row.pid ?? null, version: row.version ?? null, sessions: row.sessions, state: row.state })),
    }),
  };
}

/** What the card adds about instructions for this person: their own prompt settings in force, delivery turned off. */
function instructionNotes({ catalog, env, instructions }: HostParts, agentId: string): string {
  const adapter = catalog.get(agentId);
  const own = ownPromptSettings(adapter, { args: adapter.args, env: { ...env, ...adapter.env } });
  const notes = Object.entries<string>(own).map(([intent, setting]) => ` Your own ${setting} is in force (${intent === 'replace' ? 'replacing' : 'adding to'} its prompt): Baton adds no second one.`);
  if (instructions.agent(agentId).off) {
    notes.push(` Baton's delivery is turned off for ${adapter.displayName}: it runs with only its own prompt.`);
  }
  return notes.join('');
}
