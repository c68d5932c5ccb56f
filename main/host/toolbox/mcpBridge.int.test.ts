/**
 * Baton's stdio bridge in a real process: an MCP client over stdio reaches an SSE and a streamable-HTTP server through it, headers and all.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { startMcpHttpServer, type McpHttpServer } from '../../../e2e/fixtures/mcpHttpServer.js';

const TOKEN = 'bridge-token-77';
let server: McpHttpServer;

beforeAll(async () => {
  ensureBuilt();
  server = await startMcpHttpServer({ token: TOKEN });
}, 120_000);
afterAll(async () => {
  await server.close();
});

describe('the stdio bridge', () => {
  it.each(['sse', 'http'] as const)('carries a tool call to a %s server and its answer back', async (transport) => {
    const client = new Client({ name: 'bridge-test', version: '1.0.0' });
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [builtFile('main/host/toolbox/mcpBridge.js')],
      env: {
        BATON_BRIDGE_URL: transport === 'sse' ? server.sseUrl : server.httpUrl,
        BATON_BRIDGE_TRANSPORT: transport,
        BATON_BRIDGE_HEADERS: JSON.stringify({ Authorization: `Bearer ${TOKEN}` }),
      },
      stderr: 'pipe',
    });
    let stderr = '';
    stdio.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await client.connect(stdio);
      const { tools } = await client.listTools();
      expect(
        tools.map((tool) => tool.name),
        stderr,
      ).toEqual(['lookup']);
      const result = await client.callTool({ name: 'lookup', arguments: { message: `via ${transport}` } });
      expect(result.content).toEqual([{ type: 'text', text: `Looked up: via ${transport}` }]);
    } finally {
      await client.close();
    }
  });
});
