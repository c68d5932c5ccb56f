/**
 * Admission of a conversation's MCP servers by an agent, after `initialize` and before any
 * session starts: a transport the agent does not advertise is refused with the typed error,
 * naming the agent, the server and the transport. Never a silent drop.
 */
import { UnsupportedInputError } from '../../../app/errors.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import type { InitializeResponse } from '../acp/AgentConnection.js';

/** The transport of a server as ACP names it. */
export function transportOf(server: McpServer): 'stdio' | 'http' | 'sse' {
  return 'type' in server ? server.type : 'stdio';
}

/** The typed refusal for each server whose transport the agent does not advertise (stdio always goes). */
export function refusedServers(agentName: string, servers: readonly McpServer[], initialized: InitializeResponse): UnsupportedInputError[] {
  const capabilities = initialized.agentCapabilities?.mcpCapabilities;
  return servers.flatMap((server) => {
    const transport = transportOf(server);
    const advertised = transport === 'stdio' || (transport === 'http' ? capabilities?.http === true : capabilities?.sse === true);
    return advertised
      ? []
      : [
          new UnsupportedInputError(
            agentName,
            `the MCP server "${server.name}" over ${transport.toUpperCase()}`,
            `${agentName} does not take ${transport.toUpperCase()} MCP servers (it does not advertise them); pick a stdio server instead, or run this one through a local stdio bridge`,
          ),
        ];
  });
}
