/**
 * One agent process is one principal (the trust review's cross-session requests): with two
 * conversations on one fake agent process, the agent of A names B's session while B is idle, to
 * read and write B's files, run a command and ask for input there. Each is refused with a typed
 * error and said in B. Conversations in different folders get processes of their own by default,
 * and with "one process per conversation" so do conversations of one folder; which conversations
 * share a process is told. Every file the agent writes through Baton is on its turn's card.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import type { Result } from '../../../app/ipc/index.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';

describe('one agent process, several conversations', () => {
  let host: Host;
  let work: string;

  beforeEach(() => {
    const dataDir = tempDir('principal');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
    work = tempDir('principal-work');
  });
  afterEach(async () => {
    await host.dispose();
  });

  const stateOf = (conversationId: string): TranscriptState =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
  const send = async (conversationId: string, text: string): Promise<string> => {
    await host.turns.send(conversationId, text);
    await host.turns.idle();
    const reply = stateOf(conversationId).items.findLast((item) => item.kind === 'agent');
    return reply?.kind === 'agent' ? reply.text : '';
  };
  const call = async <M extends 'getProcessSharing' | 'setProcessPerConversation'>(method: M, params: unknown): Promise<Result<M>> => {
    const answer = await host.handle(method, params);
    if (!answer.ok) {
      throw new Error(answer.error.message);
    }
    return answer.result as Result<M>;
  };

  it("refuses the requests A's agent makes in idle B's name, and says so in B", async () => {
    writeFileSync(path.join(work, 'b-notes.txt'), "B's notes");
    const a = host.conversations.create(FAKE_AGENT_ID, work, 'A').conversationId;
    const b = host.conversations.create(FAKE_AGENT_ID, work, 'B').conversationId;
    await send(b, 'hello from B');
    await send(a, 'hello from A');
    expect(await send(a, 'pid?')).toBe(await send(b, 'pid?'));
    expect(await call('getProcessSharing', { conversationId: a })).toMatchObject({
      live: true,
      sharedWith: [{ conversationId: b, title: 'B' }],
      perConversation: false,
      cannotSeparate: null,
    });

    // B's session is the newest the process saw ("foreign" names it); B has no turn running.
    await send(b, 'B again');
    const refused = /^Foreign \S+: refused \(-32602\): Refused: no turn of this session's conversation is running/;
    expect(await send(a, `foreign read:${path.join(work, 'b-notes.txt')}`)).toMatch(refused);
    expect(await send(a, `foreign write:${path.join(work, 'planted.txt')}`)).toMatch(refused);
    expect(existsSync(path.join(work, 'planted.txt'))).toBe(false);
    expect(await send(a, 'foreign terminal')).toMatch(refused);
    expect(await send(a, 'foreign elicit')).toMatch(refused);
    // A permission question for an idle session is answered "cancelled", never allowed.
    expect(await send(a, 'foreign permission')).toBe('Foreign permission: permission {"outcome":"cancelled"}');

    const notices = stateOf(b).items.flatMap((item) => (item.kind === 'notice' ? [item.text] : []));
    expect(notices.filter((text) => text.startsWith("Baton refused Fake's request to"))).toHaveLength(4);
    expect(stateOf(b).items.some((item) => item.kind === 'elicitation')).toBe(false);
  });

  it('gives conversations in other folders a process of their own, and one per conversation when the person sets it', async () => {
    const a = host.conversations.create(FAKE_AGENT_ID, work, 'A').conversationId;
    const elsewhere = host.conversations.create(FAKE_AGENT_ID, tempDir('principal-other'), 'Elsewhere').conversationId;
    expect(await send(a, 'pid?')).not.toBe(await send(elsewhere, 'pid?'));
    expect((await call('getProcessSharing', { conversationId: a })).sharedWith).toEqual([]);

    expect(await call('setProcessPerConversation', { agentId: FAKE_AGENT_ID, on: true })).toEqual({ agentIds: [FAKE_AGENT_ID] });
    const c = host.conversations.create(FAKE_AGENT_ID, work, 'C').conversationId;
    const d = host.conversations.create(FAKE_AGENT_ID, work, 'D').conversationId;
    expect(await send(c, 'pid?')).not.toBe(await send(d, 'pid?'));
    expect(await call('getProcessSharing', { conversationId: c })).toMatchObject({ sharedWith: [], perConversation: true });
  });

  it("records every file the agent writes through Baton on its turn's card", async () => {
    const a = host.conversations.create(FAKE_AGENT_ID, work).conversationId;
    writeFileSync(path.join(work, 'old.txt'), 'old');
    await send(a, `write:${path.join(work, 'sub', 'new.txt')}`);
    await send(a, `write:${path.join(work, 'old.txt')}`);
    const turns = Object.values(stateOf(a).turns);
    expect(turns.map((turn) => turn.written)).toEqual([
      [{ path: 'sub/new.txt', bytes: 25, created: true }],
      [{ path: 'old.txt', bytes: 25, created: false }],
    ]);
  });
});
