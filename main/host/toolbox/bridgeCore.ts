/**
 * What Baton's stdio bridge and launcher share: passing MCP messages between this process's stdio
 * and a remote (SSE or streamable-HTTP) server, and taking known secret values out of what a
 * server sends back before the agent (and its model) sees it.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export { REDACTED_MARK, redactLine, redactMessage } from './redactLines.js';
import { redactLine, redactMessage } from './redactLines.js';

/** Bridges this process's stdio to a remote server until either side closes; exits the process then. */
export async function runBridge(options: {
  url: string;
  kind: 'sse' | 'http';
  headers: Record<string, string>;
  redact: readonly string[];
  label: string;
}): Promise<void> {
  const requestInit = { headers: options.headers };
  const remote: Transport =
    options.kind === 'sse'
      ? new SSEClientTransport(new URL(options.url), { requestInit })
      : new StreamableHTTPClientTransport(new URL(options.url), { requestInit });
  const local = new StdioServerTransport();
  const fail = (error: unknown): void => {
    // An error may quote the request (its URL, a header): redacted like everything else it says.
    process.stderr.write(`${options.label}: ${redactLine(error instanceof Error ? error.message : String(error), options.redact)}\n`);
    process.exit(1);
  };
  local.onmessage = (message) => void remote.send(message).catch(fail);
  remote.onmessage = (message) => void local.send(redactMessage(message, options.redact)).catch(fail);
  remote.onerror = fail;
  remote.onclose = () => process.exit(0);
  local.onclose = () => {
    void remote.close().finally(() => process.exit(0));
  };
  await remote.start();
  await local.start();
}
