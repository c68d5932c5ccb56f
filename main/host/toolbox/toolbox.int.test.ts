/**
 * The toolbox with real agents and real MCP servers, read back from what the model stub was
 * offered: exactly the selected servers' tools (plus the agent's built-ins), none when none is
 * selected, a tool call that reaches the server and comes back into the transcript, and after a
 * change mid-conversation the new set on the next turn. Secret headers reach the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, agentUnavailable, everythingServer, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startMcpHttpServer, type McpHttpServer } from '../../../e2e/fixtures/mcpHttpServer.js';
import { startModelStub, type ModelStub, type NormalizedRequest } from '../../../e2e/fixtures/modelStub.js';
import { until } from '../../../e2e/fixtures/until.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { Host, definedEnv } from '../Host.js';
import { sendAllowing } from '../conversations/settledTurns.kit.test.js';

const TURN_TIMEOUT = 150_000;
const TOKEN = 'lookup-token-5e1f';

/** The MCP servers whose tools a model request offers, by server name (each dialect names them its own way). */
function offeredServers(request: NormalizedRequest): string[] {
  const names = new Set<string>();
  for (const tool of request.toolNames) {
    const match = /^mcp__([A-Za-z0-9-]+?)(?:__|\/)/.exec(tool);
    if (match?.[1]) {
      names.add(match[1]);
    }
  }
  // Agents that defer MCP tools name them in their prompt, or only in what their tool search answers (Qwen 0.24).
  for (const match of [request.system, ...(request.toolResults ?? [])].join('\n').matchAll(/\bmcp__([A-Za-z0-9-]+?)__\w+/g)) {
    names.add(match[1]!);
  }
  return [...names].sort();
}

describe.each(['claude', 'codex', 'qwen'] as const)('the toolbox with %s', (agent) => {
  const skip = agentUnavailable(agent);
  let stub: ModelStub;
  let lookup: McpHttpServer;
  let host: Host;

  beforeAll(async () => {
    stub = await startModelStub();
    lookup = await startMcpHttpServer({ token: TOKEN });
    host = new Host({ dataDir: tempDir(`toolbox-${agent}`), env: agentHome(agent, stub.url) });
  });
  afterAll(async () => {
    await host?.dispose();
    await lookup?.close();
    await stub?.close();
  });

  function transcript(conversationId: string): TranscriptState {
    return reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
  }

  const send = (conversationId: string, text: string): Promise<string> => sendAllowing(host, conversationId, text);

  const lastRequest = (text: string): NormalizedRequest => {
    const found = stub
      .modelRequests()
      .filter(
        (request) => request.userTexts.some((user) => user.includes(text)) && !request.system.startsWith('You are a title generator'),
      );
    expect(found.length, `no model request for "${text}"`).toBeGreaterThan(0);
    return found.at(-1)!;
  };

  /** The servers offered over the whole turn (an agent that defers its tools finds them with a search during it). */
  const offeredInTurn = (text: string): string[] => {
    lastRequest(text);
    const turn = stub
      .modelRequests()
      .filter(
        (request) => request.userTexts.some((user) => user.includes(text)) && !request.system.startsWith('You are a title generator'),
      );
    return [...new Set(turn.flatMap(offeredServers))].sort();
  };

  it.skipIf(skip)(
    withSkipReason('offers exactly the selected server, calls it, and after a change offers the new one', skip),
    async () => {
      const everything = host.toolbox.addServer({
        name: 'everything',
        transport: 'stdio',
        command: everythingServer.command,
        args: everythingServer.args,
      });
      const web = host.toolbox.addServer({
        name: 'weblookup',
        transport: 'http',
        url: lookup.httpUrl,
        headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}`, secret: true }],
      });

      const none = host.conversations.create(agent, tempDir(`${agent}-none`), '', undefined, []);
      await send(none.conversationId, 'no tools here please');
      expect(offeredInTurn('no tools here please')).toEqual([]);

      const { conversationId } = host.conversations.create(agent, tempDir(`${agent}-work`), '', undefined, [everything.serverId]);
      const first = await send(conversationId, 'please [tool:echo] now');
      expect(offeredInTurn('please [tool:echo] now')).toEqual(['everything']);
      const afterCall = transcript(conversationId);
      const reply = afterCall.items
        .filter((item) => item.kind === 'agent' && item.turnId === first)
        .map((item) => (item.kind === 'agent' ? item.text : ''))
        .join('');
      expect(reply).toContain('Tool said:');
      expect(reply).toContain('hello from baton');

      host.conversations.setToolbox(conversationId, [web.serverId]);
      await send(conversationId, 'now [tool:lookup] instead');
      // The change is recorded with the binding's digests before the turn that applies it.
      expect(
        host.store
          .readEvents(conversationId)
          .events.some((event) => event.type === 'binding.changed' && event.payload.changed?.includes('the toolbox')),
      ).toBe(true);
      expect(offeredInTurn('now [tool:lookup] instead')).toEqual(['weblookup']);
      await until(() => (lookup.calls.includes('hello from baton') ? true : undefined), 10_000);
      expect(lookup.authorizations).toContain(`Bearer ${TOKEN}`);
      // The transcript records each choice by name and digest, never the secret.
      const choices = host.store.readEvents(conversationId).events.filter((event) => event.type === 'toolbox.set');
      expect(choices.map((event) => (event.type === 'toolbox.set' ? event.payload.servers.map((server) => server.name) : []))).toEqual([
        ['everything'],
        ['weblookup'],
      ]);
      expect(JSON.stringify(host.store.readEnvelopes(conversationId))).not.toContain(TOKEN);
      // "Tools this agent sees" still lists the server's own tools, and says when the agent loads them on demand.
      const listed = await host.handle('listConversationTools', { conversationId });
      expect(listed.ok && listed.result).toMatchObject({ servers: [{ name: 'weblookup', tools: ['lookup'] }] });
      const onDemand = listed.ok ? (listed.result as { onDemand?: string | null }).onDemand : undefined;
      expect(onDemand ?? null).toEqual(agent === 'codex' ? null : expect.stringContaining('loads these tools on demand'));
    },
    TURN_TIMEOUT,
  );
});

describe.each(['claude', 'codex', 'qwen'] as const)('a stdio server slow to start, with %s', (agent) => {
  const skip = agentUnavailable(agent);
  it.skipIf(skip)(
    withSkipReason("still reaches the conversation's first turn (a busy machine must not drop the person's tools)", skip),
    async () => {
      const stub = await startModelStub();
      const host = new Host({ dataDir: tempDir(`toolbox-slow-${agent}`), env: agentHome(agent, stub.url) });
      try {
        // Four seconds before the server reads its first message: past the second Codex allows.
        const slow = host.toolbox.addServer({
          name: 'slowstart',
          transport: 'stdio',
          command: '/bin/sh',
          args: ['-c', 'sleep 4; exec "$0" "$@"', everythingServer.command, ...everythingServer.args],
        });
        const { conversationId } = host.conversations.create(agent, tempDir(`${agent}-slow`), '', undefined, [slow.serverId]);
        await sendAllowing(host, conversationId, 'slow [tool:echo] please');
        const requests = stub
          .modelRequests()
          .filter((request) => request.userTexts.some((user) => user.includes('slow [tool:echo] please')));
        expect(requests.length).toBeGreaterThan(0);
        expect([...new Set(requests.flatMap(offeredServers))]).toEqual(['slowstart']);
      } finally {
        await host.dispose();
        await stub.close();
      }
    },
    TURN_TIMEOUT,
  );
});

describe('an SSE server for Codex, which takes no SSE servers', () => {
  const skip = agentUnavailable('codex');
  it.skipIf(skip)(
    withSkipReason('is refused with the typed error before any model request; through the bridge its tool reaches Codex', skip),
    async () => {
      const stub = await startModelStub();
      const lookup = await startMcpHttpServer({ token: TOKEN });
      const host = new Host({ dataDir: tempDir('toolbox-sse'), env: agentHome('codex', stub.url) });
      const transcript = (conversationId: string) =>
        reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
      try {
        const sse = host.toolbox.addServer({
          name: 'ssefeed',
          transport: 'sse',
          url: lookup.sseUrl,
          headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}`, secret: true }],
        });
        const { conversationId } = host.conversations.create('codex', tempDir('codex-sse'), '', undefined, [sse.serverId]);
        const refused = await host.turns.send(conversationId, 'use the feed [tool:lookup]');
        await host.turns.idle();
        const state = transcript(conversationId);
        expect(state.turns[refused.turnId]?.status).toBe('failed');
        expect(state.items.at(-1)).toMatchObject({
          kind: 'notice',
          severity: 'error',
          error: { code: 'UnsupportedInput', details: { agentName: 'Codex', input: 'the MCP server "ssefeed" over SSE' } },
        });
        expect(stub.modelRequests()).toEqual([]);

        host.toolbox.setBridge(sse.serverId, true);
        // The choice is made again so the conversation's digest follows the bridged server.
        host.conversations.setToolbox(conversationId, [sse.serverId]);
        await sendAllowing(host, conversationId, 'use the feed now [tool:lookup]');
        const request = stub.modelRequests().find((candidate) => candidate.userTexts.some((text) => text.includes('use the feed now')));
        expect(request && offeredServers(request)).toEqual(['ssefeed']);
        expect(lookup.calls).toContain('hello from baton');
        expect(lookup.authorizations.every((authorization) => authorization === `Bearer ${TOKEN}`)).toBe(true);
      } finally {
        await host.dispose();
        await lookup.close();
        await stub.close();
      }
    },
    TURN_TIMEOUT,
  );
});

describe('tools this agent sees', () => {
  it("lists each selected server's tools from the server itself, and says plainly when one fails to start", async () => {
    const dataDir = tempDir('toolbox-list');
    registerFakeAgent(dataDir);
    const lookup = await startMcpHttpServer({ token: TOKEN });
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    try {
      const everything = host.toolbox.addServer({
        name: 'everything',
        transport: 'stdio',
        command: everythingServer.command,
        args: everythingServer.args,
      });
      const web = host.toolbox.addServer({
        name: 'weblookup',
        transport: 'http',
        url: lookup.httpUrl,
        headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}`, secret: true }],
      });
      const broken = host.toolbox.addServer({ name: 'broken', transport: 'stdio', command: 'no-such-mcp-server-for-baton' });
      const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', undefined, [
        everything.serverId,
        web.serverId,
        broken.serverId,
      ]);
      const answer = await host.handle('listConversationTools', { conversationId });
      expect(answer.ok, JSON.stringify(answer)).toBe(true);
      const servers = answer.ok
        ? (answer.result as { servers: Array<{ name: string; tools: string[]; error: string | null; calledByAgent: string[] }> }).servers
        : [];
      expect(servers.map((server) => server.name)).toEqual(['everything', 'weblookup', 'broken']);
      expect(servers[0]?.tools).toContain('echo');
      expect(servers[1]).toEqual({ name: 'weblookup', transport: 'http', tools: ['lookup'], error: null, calledByAgent: [] });
      expect(servers[2]).toMatchObject({ tools: [], error: expect.stringMatching(/^"broken" could not be asked for its tools: /) });
    } finally {
      await host.dispose();
      await lookup.close();
    }
  }, 60_000);
});

describe('named toolboxes', () => {
  it('group servers; the default one is what a new conversation gets, and a choice can be cleared', async () => {
    const dataDir = tempDir('toolbox-sets');
    registerFakeAgent(dataDir);
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    try {
      const a = host.toolbox.addServer({ name: 'alpha', transport: 'stdio', command: 'alpha' });
      const b = host.toolbox.addServer({ name: 'beta', transport: 'http', url: 'https://beta.test/mcp' });
      expect(() => host.toolbox.addServer({ name: 'Alpha', transport: 'stdio', command: 'other' })).toThrow(/already in your toolbox/);
      expect(() => host.toolbox.addServer({ name: 'gamma', transport: 'http', url: 'not a url' })).toThrow(/needs an http\(s\) URL/);
      host.toolbox.saveToolbox({ name: 'Repo work', serverIds: [a.serverId], isDefault: false });
      host.toolbox.saveToolbox({ name: 'Web research', serverIds: [a.serverId, b.serverId], isDefault: true });
      expect(host.toolbox.listToolboxes().map((toolbox) => [toolbox.name, toolbox.isDefault])).toEqual([
        ['Repo work', false],
        ['Web research', true],
      ]);

      const fresh = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
      expect(host.store.getContext(fresh.conversationId).toolbox?.servers.map((server) => server.name)).toEqual(['alpha', 'beta']);
      const chosen = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', undefined, []);
      expect(host.store.getContext(chosen.conversationId).toolbox).toBeNull();
      host.conversations.setToolbox(fresh.conversationId, []);
      expect(host.store.getContext(fresh.conversationId).toolbox?.servers).toEqual([]);

      host.toolbox.removeServer(b.serverId);
      expect(host.toolbox.listServers().map((server) => server.name)).toEqual(['alpha']);
    } finally {
      await host.dispose();
    }
  });
});
