/**
 * Baton's MCP launcher in real processes: an MCP client over stdio, given only the launcher and
 * an opaque id (nothing secret in its command line or environment), reaches a stdio server with
 * its secret variables and an HTTP server with its secret header; what the servers send back has
 * the secret values taken out.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingServer } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { startMcpHttpServer, type McpHttpServer } from '../../../e2e/fixtures/mcpHttpServer.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import { REDACTED_MARK } from './bridgeCore.js';
import { LaunchRegistry } from './LaunchRegistry.js';

const TOKEN = 'launcher-token-4c2a9e';
const SECRET = 'launcher-secret-77b1d0';
let http: McpHttpServer;
let registry: LaunchRegistry;

beforeAll(async () => {
  ensureBuilt();
  http = await startMcpHttpServer({ token: TOKEN });
  registry = LaunchRegistry.open({ dataDir: tempDir('launcher'), launch: { command: process.execPath, args: [builtFile('main/host/toolbox/mcpLauncher.js')] }, secrets: () => [TOKEN, SECRET] });
  await registry.ready;
}, 120_000);
afterAll(async () => {
  await registry.close();
  await http.close();
});

/** Connects to the server as an agent would be given it; `agentEnv` is the agent's own environment, which the launcher inherits. */
async function connect(server: McpServer, agentEnv: Record<string, string> = {}): Promise<{ client: Client; shown: string }> {
  const shielded = registry.shield(server);
  expect('command' in shielded).toBe(true);
  if (!('command' in shielded)) {
    throw new Error('not shielded');
  }
  const shown = JSON.stringify(shielded);
  const client = new Client({ name: 'launcher-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: shielded.command, args: [...shielded.args], env: { ...agentEnv, ...Object.fromEntries(shielded.env.map(({ name, value }) => [name, value])) }, stderr: 'pipe' }));
  return { client, shown };
}

describe("Baton's MCP launcher", () => {
  it('runs a stdio server with its secret variable, and takes the secret out of what it answers', async () => {
    const { client, shown } = await connect({ name: 'everything', command: everythingServer.command, args: everythingServer.args, env: [{ name: 'LOC_TOKEN', value: SECRET }] });
    try {
      expect(shown).not.toContain(SECRET);
      const result = await client.callTool({ name: 'get-env', arguments: {} });
      const text = JSON.stringify(result.content);
      // The server saw the variable (its name is there), but its value does not come back.
      expect(text).toContain('LOC_TOKEN');
      expect(text).toContain(REDACTED_MARK);
      expect(text).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  });

  it('reaches an HTTP server with its secret header, which is nowhere in what the agent is given', async () => {
    const { client, shown } = await connect({ type: 'http', name: 'lookup', url: http.httpUrl, headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}` }] });
    try {
      expect(shown).not.toContain(TOKEN);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['lookup']);
      const result = await client.callTool({ name: 'lookup', arguments: { message: `the token is ${TOKEN}` } });
      expect(JSON.stringify(result.content)).toContain(`Looked up: the token is ${REDACTED_MARK}`);
      expect(http.authorizations).toContain(`Bearer ${TOKEN}`);
    } finally {
      await client.close();
    }
  });

  it('leaves a server without secrets as it is', () => {
    const plain: McpServer = { name: 'plain', command: 'node', args: ['x.js'], env: [{ name: 'LOG_LEVEL', value: 'debug' }] };
    expect(registry.shield(plain)).toBe(plain);
  });

  it("takes a known secret of the agent's environment, which the server inherits, out of what it says (get-env)", async () => {
    const { client, shown } = await connect({ name: 'everything', command: everythingServer.command, args: everythingServer.args, env: [{ name: 'LOC_TOKEN', value: TOKEN }] }, { HOST_SIDE_TOKEN: SECRET });
    try {
      expect(shown).not.toContain(SECRET);
      const result = await client.callTool({ name: 'get-env', arguments: {} });
      const said = JSON.stringify(result.content);
      // The server inherited the variable from the agent, but its value does not come back.
      expect(said).toContain('HOST_SIDE_TOKEN');
      expect(said).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  });
});
