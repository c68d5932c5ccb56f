/**
 * Baton's MCP launcher in real processes: an MCP client over stdio, given only the launcher and
 * an opaque id (nothing secret in its command line or environment), reaches a stdio server with
 * its secret variables and an HTTP server with its secret header; what the servers send back (and
 * their error output) has the secret values taken out. The socket answers an id only while it is
 * granted, and only with that server's own values.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
  registry = LaunchRegistry.open({
    dataDir: tempDir('launcher'),
    launch: { command: process.execPath, args: [builtFile('main/host/toolbox/mcpLauncher.js')] },
    secrets: () => [TOKEN, SECRET],
  });
  await registry.ready;
}, 120_000);
afterAll(async () => {
  await registry.close();
  await http.close();
});

/** The scope ids are granted to in these tests (a conversation, in Baton). */
const SCOPE = 'conversation-a';
const revocations: Array<() => void> = [];
afterEach(() => revocations.splice(0).forEach((revoke) => revoke()));

/** Connects to the server as an agent would be given it; `agentEnv` is the agent's own environment, which the launcher inherits. */
async function connect(server: McpServer, agentEnv: Record<string, string> = {}): Promise<{ client: Client; shown: string }> {
  revocations.push(registry.grant(SCOPE, [server]));
  const shielded = registry.shield(server, SCOPE);
  expect('command' in shielded).toBe(true);
  if (!('command' in shielded)) {
    throw new Error('not shielded');
  }
  const shown = JSON.stringify(shielded);
  const client = new Client({ name: 'launcher-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: shielded.command,
      args: [...shielded.args],
      env: { ...agentEnv, ...Object.fromEntries(shielded.env.map(({ name, value }) => [name, value])) },
      stderr: 'pipe',
    }),
  );
  return { client, shown };
}

describe("Baton's MCP launcher", () => {
  it('runs a stdio server with its secret variable, and takes the secret out of what it answers', async () => {
    const { client, shown } = await connect({
      name: 'everything',
      command: everythingServer.command,
      args: everythingServer.args,
      env: [{ name: 'LOC_TOKEN', value: SECRET }],
    });
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
    const { client, shown } = await connect({
      type: 'http',
      name: 'lookup',
      url: http.httpUrl,
      headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}` }],
    });
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
    expect(registry.shield(plain, SCOPE)).toBe(plain);
  });

  it("takes a known secret of the agent's environment, which the server inherits, out of what it says (get-env)", async () => {
    const { client, shown } = await connect(
      { name: 'everything', command: everythingServer.command, args: everythingServer.args, env: [{ name: 'LOC_TOKEN', value: TOKEN }] },
      { HOST_SIDE_TOKEN: SECRET },
    );
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

  it('takes the secret out of what the server writes to its error output, too', async () => {
    const server: McpServer = {
      name: 'noisy',
      command: process.execPath,
      args: ['-e', "console.error('starting with ' + process.env.LOC_TOKEN)"],
      env: [{ name: 'LOC_TOKEN', value: SECRET }],
    };
    revocations.push(registry.grant(SCOPE, [server]));
    const shielded = registry.shield(server, SCOPE);
    if (!('command' in shielded)) {
      throw new Error('not shielded');
    }
    const child = spawn(shielded.command, shielded.args, {
      env: { PATH: process.env.PATH ?? '', ...Object.fromEntries(shielded.env.map(({ name, value }) => [name, value])) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await new Promise((resolve) => child.on('exit', resolve));
    expect(stderr).toContain(`starting with ${REDACTED_MARK}`);
    expect(stderr).not.toContain(SECRET);
  });
});

/** Asks the launcher's socket for an id the way anyone who read it could. */
function ask(id: string): Promise<{ server?: McpServer; redact?: string[]; error?: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(registry.socketPath);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ id })}\n`));
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(JSON.parse(text) as never));
  });
}

/** The launch id a shielded server carries. */
function idOf(shielded: McpServer): string {
  const id = 'command' in shielded ? shielded.env.find((entry) => entry.name === 'BATON_LAUNCH_ID')?.value : undefined;
  if (!id) {
    throw new Error('not shielded');
  }
  return id;
}

describe("the launcher's socket", () => {
  const mine: McpServer = {
    name: 'mine',
    command: 'node',
    args: ['mine.js'],
    env: [{ name: 'MINE_TOKEN', value: 'mine-secret-value-111' }],
  };
  const theirs: McpServer = {
    name: 'theirs',
    command: 'node',
    args: ['theirs.js'],
    env: [{ name: 'THEIRS_TOKEN', value: 'theirs-secret-value-222' }],
  };

  it("answers an id with that server's own values only, never another conversation's or the agents' secrets", async () => {
    revocations.push(registry.grant('conversation-a', [mine]), registry.grant('conversation-b', [theirs]));
    const answer = await ask(idOf(registry.shield(mine, 'conversation-a')));
    expect(answer.server).toEqual(mine);
    const said = JSON.stringify(answer);
    expect(said).not.toContain('theirs-secret-value-222');
    // The registry knows these secrets too (the agents' environment): they are not the server's to know.
    expect(said).not.toContain(TOKEN);
    expect(said).not.toContain(SECRET);
    expect(answer.redact).toEqual(['mine-secret-value-111']);
  });

  it('gives an id of one conversation nothing for another: ids are per conversation', async () => {
    revocations.push(registry.grant('conversation-b', [mine]));
    // The same server shielded for conversation A has another id, which was never granted.
    expect(await ask(idOf(registry.shield(mine, 'conversation-a')))).toEqual({
      error: expect.stringContaining('gives no server for that id'),
    });
    expect((await ask(idOf(registry.shield(mine, 'conversation-b')))).server).toEqual(mine);
  });

  it("answers nothing once the session that received the id ended, its conversation's toolbox changed, or the server was removed", async () => {
    const id = idOf(registry.shield(mine, 'conversation-a'));
    const revoke = registry.grant('conversation-a', [mine]);
    expect((await ask(id)).server).toEqual(mine);
    revoke();
    expect(await ask(id)).toEqual({ error: expect.stringContaining('gives no server for that id') });

    revocations.push(registry.grant('conversation-a', [mine]));
    registry.revokeScope('conversation-a');
    expect((await ask(id)).error).toBeDefined();

    revocations.push(registry.grant('conversation-a', [mine]));
    registry.revokeServer('MINE');
    expect((await ask(id)).error).toBeDefined();
    expect(registry.grantedCount).toBe(0);
  });
});
