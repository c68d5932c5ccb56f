/**
 * "Tools this agent sees": asks each server of a conversation for its tools, the way an agent
 * would (an MCP client over its own transport, bounded in time), so a server that fails to start
 * or answer says so plainly instead of being silently missing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import { transportOf } from './admission.js';

/** How long a server has to start and list its tools. */
export const LIST_TOOLS_TIMEOUT_MS = 15_000;

/** One server's answer. */
export type ServerTools = { name: string; transport: 'stdio' | 'http' | 'sse'; tools: string[]; error: string | null };

function transportFor(server: McpServer, cwd: string): Transport {
  if (!('type' in server)) {
    return new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: Object.fromEntries(server.env.map(({ name, value }) => [name, value])),
      cwd,
      stderr: 'ignore',
    });
  }
  const requestInit = { headers: Object.fromEntries(server.headers.map(({ name, value }) => [name, value])) };
  return server.type === 'sse'
    ? new SSEClientTransport(new URL(server.url), { requestInit })
    : new StreamableHTTPClientTransport(new URL(server.url), { requestInit });
}

/** Lists one server's tools, or says why it could not. */
export async function listServerTools(
  server: McpServer,
  cwd: string,
  baseEnv: Readonly<Record<string, string>>,
  timeoutMs = LIST_TOOLS_TIMEOUT_MS,
): Promise<ServerTools> {
  const transport = transportOf(server);
  const withBaseEnv: McpServer =
    'type' in server ? server : { ...server, env: [...Object.entries(baseEnv).map(([name, value]) => ({ name, value })), ...server.env] };
  const client = new Client({ name: 'baton', version: '0.1.0' });
  let timer: NodeJS.Timeout | undefined;
  try {
    const listed = await Promise.race([
      (async () => {
        await client.connect(transportFor(withBaseEnv, cwd));
        return client.listTools();
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`it did not list its tools within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      }),
    ]);
    return { name: server.name, transport, tools: listed.tools.map((tool) => tool.name), error: null };
  } catch (error) {
    return {
      name: server.name,
      transport,
      tools: [],
      error: `"${server.name}" could not be asked for its tools: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}
