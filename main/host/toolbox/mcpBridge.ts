/**
 * The local stdio bridge Baton ships: an MCP server over stdio that passes every message on to
 * an SSE or streamable-HTTP server and back, for agents that take only stdio servers. Run as its
 * own process (`node mcpBridge.js`); where to connect comes from its environment, never its
 * arguments, so header secrets stay out of the process list:
 *   BATON_BRIDGE_URL        the server's URL
 *   BATON_BRIDGE_TRANSPORT  "sse" or "http"
 *   BATON_BRIDGE_HEADERS    JSON object of headers to send
 */
import { runBridge } from './bridgeCore.js';

const url = process.env.BATON_BRIDGE_URL;
const kind = process.env.BATON_BRIDGE_TRANSPORT;
if (!url || (kind !== 'sse' && kind !== 'http')) {
  process.stderr.write('baton bridge: BATON_BRIDGE_URL and BATON_BRIDGE_TRANSPORT (sse or http) are required\n');
  process.exit(2);
}
const headers = JSON.parse(process.env.BATON_BRIDGE_HEADERS ?? '{}') as Record<string, string>;
void runBridge({ url, kind, headers, redact: [], label: 'baton bridge' });
