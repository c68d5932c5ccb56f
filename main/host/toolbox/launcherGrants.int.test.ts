/**
 * The launcher secrets of the trust review, with a fake agent that puts its MCP config where
 * others can read it (as claude-agent-acp does) and asks Baton's launcher socket for every launch
 * id it was given, as the agent of conversation A did: it gets its own server's values only
 * (never conversation B's server, never another agent's key), and nothing once the server is
 * removed or the session that received the id has ended.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';

const A_SECRET = 'alpha-server-secret-0a1';
const B_SECRET = 'bravo-server-secret-0b2';
const AGENT_KEY = 'other-agent-api-key-0c3';

type Asked = Array<{
  name: string;
  id: string;
  answer: { server?: { name: string; env: Array<{ name: string; value: string }> }; redact?: string[]; error?: string };
}>;

describe("Baton's launcher, asked by a fake agent", () => {
  let host: Host;
  let work: string;
  let dataDir: string;

  beforeEach(() => {
    dataDir = tempDir('launcher-grants');
    registerFakeAgent(dataDir, { exposesServerConfig: true, env: { OTHER_API_KEY: AGENT_KEY } });
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
    work = tempDir('launcher-work');
  });
  afterEach(async () => {
    await host.dispose();
  });

  const lastReply = (conversationId: string): string => {
    const reply = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events).items.findLast(
      (item) => item.kind === 'agent',
    );
    return reply?.kind === 'agent' ? reply.text : '';
  };
  const send = async (conversationId: string, text: string): Promise<string> => {
    await host.turns.send(conversationId, text);
    await host.turns.idle();
    return lastReply(conversationId);
  };
  /** What the agent got from the socket, as it got it (the transcript has the secrets taken out). */
  const asked = async (conversationId: string): Promise<Asked> => {
    rmSync(path.join(dataDir, 'launcher-answers.json'), { force: true });
    expect(await send(conversationId, 'launch?')).toMatch(/^Launcher: /);
    return JSON.parse(readFileSync(path.join(dataDir, 'launcher-answers.json'), 'utf8')) as Asked;
  };

  it('answers each id with its own server only, and nothing after removal or once its session ended', async () => {
    const server = (name: string, secret: string) =>
      host.toolbox.addServer({
        name,
        transport: 'stdio',
        command: process.execPath,
        args: ['-e', 'setInterval(() => {}, 1000)'],
        env: [{ name: 'LOC_TOKEN', value: secret, secret: true }],
      });
    const alpha = server('alpha', A_SECRET);
    const bravo = server('bravo', B_SECRET);
    const a = host.conversations.create(FAKE_AGENT_ID, work, 'A', undefined, [alpha.serverId]).conversationId;
    const b = host.conversations.create(FAKE_AGENT_ID, work, 'B', undefined, [bravo.serverId]).conversationId;
    await send(b, 'hello from B');
    // One process carries both sessions (same folder): the agent was given B's launch id too.
    const first = await asked(a);
    expect(first.map((entry) => entry.name).sort()).toEqual(['alpha', 'bravo']);
    for (const { name, answer } of first) {
      const said = JSON.stringify(answer);
      expect(said).not.toContain(AGENT_KEY);
      if (name === 'alpha') {
        expect(answer.server?.env).toEqual([{ name: 'LOC_TOKEN', value: A_SECRET }]);
        expect(said).not.toContain(B_SECRET);
      } else {
        // B's id answers only B's server (which the agent process was given for B's session anyway).
        expect(said).not.toContain(A_SECRET);
      }
    }

    // B's session ends: its id answers nothing more.
    await host.sessions.release(b);
    const afterEnd = await asked(a);
    expect(afterEnd.find((entry) => entry.name === 'bravo')?.answer).toEqual({
      error: expect.stringContaining('gives no server for that id'),
    });
    expect(afterEnd.find((entry) => entry.name === 'alpha')?.answer.server?.name).toBe('alpha');

    // alpha is removed from the catalog: its id answers nothing more, though A's session still
    // lives and the agent still holds the id (asked from B's new session on the same process).
    host.toolbox.removeServer(alpha.serverId);
    expect(host.sessions.get(a)).toBeDefined();
    const afterRemoval = await asked(b);
    expect(afterRemoval.find((entry) => entry.name === 'alpha')?.answer).toEqual({
      error: expect.stringContaining('gives no server for that id'),
    });
    expect(afterRemoval.find((entry) => entry.name === 'bravo')?.answer.server?.name).toBe('bravo');
    expect(JSON.stringify(afterRemoval)).not.toContain(A_SECRET);
  });
});
