/**
 * Requests about the toolbox: its servers and named toolboxes, imports from other clients, a conversation's choice and the tools it sees.
 */
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import { listServerTools } from '../toolbox/listServerTools.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type ToolboxMethods =
  | 'listToolbox'
  | 'addServer'
  | 'updateServer'
  | 'setServerBridge'
  | 'removeServer'
  | 'listServerUsage'
  | 'saveToolbox'
  | 'removeToolbox'
  | 'scanServerImports'
  | 'importServers'
  | 'listConversationTools'
  | 'setConversationToolbox';

/** The toolbox's handlers. */
export function toolboxHandlers({
  toolbox,
  serverImports,
  conversations,
  planner,
  store,
  catalog,
  env,
}: HostParts): HandlerGroup<ToolboxMethods> {
  return {
    listToolbox: () => ({ servers: toolbox.listServers(), toolboxes: toolbox.listToolboxes() }),
    addServer: ({ server }) => ({ server: toolbox.addServer(server) }),
    updateServer: ({ serverId, server }) => ({ server: toolbox.updateServer(serverId, server) }),
    setServerBridge: ({ serverId, bridge }) => ({ server: toolbox.setBridge(serverId, bridge) }),
    removeServer: ({ serverId }) => {
      toolbox.removeServer(serverId);
      return {};
    },
    listServerUsage: ({ serverId }) => ({ conversations: store.conversationsUsingServer(serverId) }),
    saveToolbox: (saved) => ({ toolbox: toolbox.saveToolbox(saved) }),
    removeToolbox: ({ toolboxId }) => {
      toolbox.removeToolbox(toolboxId);
      return {};
    },
    scanServerImports: ({ cwd, file }) => serverImports.scan({ ...(cwd ? { cwd } : {}), ...(file ? { file } : {}) }),
    importServers: ({ candidateIds, inputs }) => ({ servers: serverImports.import(candidateIds, inputs) }),
    listConversationTools: async ({ conversationId }) => {
      const { servers, cwd } = planner.resolvedServers(conversationId);
      const calls = reduceAll(emptyTranscript(conversationId), store.readEvents(conversationId).events).items.flatMap((item) =>
        item.kind === 'tool' ? [item.title] : [],
      );
      const listed = await Promise.all(servers.map((server) => listServerTools(server, cwd, env)));
      const adapter = catalog.get(store.getSummary(conversationId).agentId);
      const titles = toolTitles(catalog.adapters());
      return {
        onDemand: adapter.loadsToolsOnDemand
          ? `${adapter.displayName} loads these tools on demand: its model is given their names, and fetches a tool's description when it needs it.`
          : null,
        servers: listed.map((entry) => ({
          ...entry,
          // Any agent of the conversation may have called it, each naming it its own way.
          calledByAgent: entry.tools.filter((tool) =>
            calls.some((title) =>
              titles.some((pattern) => title.includes(pattern.replace('{server}', entry.name).replace('{tool}', tool))),
            ),
          ),
        })),
      };
    },
    setConversationToolbox: ({ conversationId, serverIds }) => {
      conversations.setToolbox(conversationId, serverIds);
      return {};
    },
  };
}

/** The distinct ways the agents title a call of an MCP tool (adapter data). */
function toolTitles(adapters: readonly AgentAdapter[]): string[] {
  return [...new Set(adapters.flatMap((adapter) => (adapter.mcpToolTitle ? [adapter.mcpToolTitle] : [])))];
}
