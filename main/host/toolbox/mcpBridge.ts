/**
 * The local stdio bridge Baton ships: an MCP server over stdio that passes every message on to
 * an SSE or streamable-HTTP server and back, for agents that take only stdio servers. Run as its
 * own process (`node mcpBridge.js`); where to connect comes from its environment, never its
 * arguments, so header secrets stay out of the process list:
 *   BATON_BRIDGE_URL        the server's URL
 *   BATON_BRIDGE_TRANSPORT  "sse" or "http"
 *   BATON_BRIDGE_HEADERS    JSON object of headers to send
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

async function main(): Promise<void> {
  const url = process.env.BATON_BRIDGE_URL;
  const kind = process.env.BATON_BRIDGE_TRANSPORT;
  if (!url || (kind !== 'sse' && kind !== 'http')) {
    process.stderr.write('baton bridge: BATON_BRIDGE_URL and BATON_BRIDGE_TRANSPORT (sse or http) are required\n');
    process.exit(2);
  }
  const headers = JSON.parse(process.env.BATON_BRIDGE_HEADERS ?? '{}') as Record<string, string>;
  const requestInit = { headers };
  const remote: Transport =
    kind === 'sse'
      ? new SSEClientTransport(new URL(url), { requestInit })
      : new StreamableHTTPClientTransport(new URL(url), { requestInit });
  const local = new StdioServerTransport();
  const fail = (error: unknown): void => {
    process.stderr.write(`baton bridge: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  };
  local.onmessage = (message) => void remote.send(message).catch(fail);
  remote.onmessage = (message) => void local.send(message).catch(fail);
  remote.onerror = fail;
  remote.onclose = () => process.exit(0);
  local.onclose = () => {
    void remote.close().finally(() => process.exit(0));
  };
  await remote.start();
  await local.start();
}

void main();
