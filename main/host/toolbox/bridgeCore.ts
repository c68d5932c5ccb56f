/**
 * What Baton's stdio bridge and launcher share: passing MCP messages between this process's stdio
 * and a remote (SSE or streamable-HTTP) server, and taking known secret values out of what a
 * server sends back before the agent (and its model) sees it.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** What replaces a secret value in a server's output. */
export const REDACTED_MARK = '[redacted by Baton]';

/** Replaces every secret (and its JSON-escaped form) in one line of JSON text; the line stays valid JSON. */
export function redactLine(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) {
    if (secret.length < 4) {
      continue;
    }
    const escaped = JSON.stringify(secret).slice(1, -1);
    out = out.split(escaped).join(REDACTED_MARK);
    if (escaped !== secret) {
      out = out.split(secret).join(REDACTED_MARK);
    }
  }
  return out;
}

/** A message with the secrets taken out of every string in it. */
export function redactMessage<T>(message: T, secrets: readonly string[]): T {
  return secrets.length === 0 ? message : (JSON.parse(redactLine(JSON.stringify(message), secrets)) as T);
}

/** Bridges this process's stdio to a remote server until either side closes; exits the process then. */
export async function runBridge(options: { url: string; kind: 'sse' | 'http'; headers: Record<string, string>; redact: readonly string[]; label: string }): Promise<void> {
  const requestInit = { headers: options.headers };
  const remote: Transport =
    options.kind === 'sse' ? new SSEClientTransport(new URL(options.url), { requestInit }) : new StreamableHTTPClientTransport(new URL(options.url), { requestInit });
  const local = new StdioServerTransport();
  const fail = (error: unknown): void => {
    process.stderr.write(`${options.label}: ${error instanceof Error ? error.message : String(error)}\n`);
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
