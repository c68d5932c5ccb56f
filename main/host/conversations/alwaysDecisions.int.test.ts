/** "Always" answers through a real ACP child process (the fake agent): remembered, listed, revoked. */
import { mkdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { until } from '../../../e2e/fixtures/until.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import type { Method, Params, Result } from '../../../app/ipc/index.js';
import { Host, definedEnv } from '../Host.js';

describe('"always" answers', () => {
  let dataDir: string;
  let host: Host;

  const transcript = (conversationId: string): TranscriptState =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
  /** Calls the host as a window does, typed by the contract; a refusal fails the test. */
  const call = async <M extends Method>(method: M, params: Params<M>): Promise<Result<M>> => {
    const response = await host.handle(method, params);
    if (!response.ok) {
      throw new Error(`refused: ${JSON.stringify(response.error)}`);
    }
    return response.result as Result<M>;
  };
  const agentPid = async (conversationId: string): Promise<string> => {
    await host.turns.send(conversationId, 'pid?');
    await host.turns.idle();
    const reply = transcript(conversationId).items.at(-1);
    return reply?.kind === 'agent' ? reply.text : '';
  };

  beforeEach(() => {
    dataDir = tempDir('always');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, env: definedEnv(process.env) });
  });

  afterEach(async () => {
    await host.dispose();
  });

  it('are listed with what was asked, and revoking one records it and starts that agent afresh', async () => {
    const work = tempDir('always-work');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const before = await agentPid(conversationId);
    const { turnId } = await host.turns.send(conversationId, 'please ask permission');
    const request = await until(() => transcript(conversationId).items.find((item) => item.kind === 'permission'));
    const requestId = request.kind === 'permission' ? request.requestId : '';
    await call('answerPermission', { conversationId, requestId, optionId: 'allow-always' });
    await host.turns.idle();

    const { decisions } = await call('listAlwaysDecisions', {});
    expect(decisions).toEqual([
      expect.objectContaining({
        agentId: FAKE_AGENT_ID,
        agentName: 'Fake',
        cwd: work,
        title: 'Write notes.txt',
        optionName: 'Always allow',
        decision: 'allow',
        conversationId,
        turnId,
        requestId,
      }),
    ]);
    // The same agent process serves the conversation until then.
    expect(await agentPid(conversationId)).toBe(before);

    const revoked = await call('revokeAlwaysDecision', { id: decisions[0]!.id });
    expect(revoked.decisions).toEqual([]);
    expect(revoked.note).toBe('Fake starts afresh for its next message in this folder: rules it kept for the session are gone.');
    expect(transcript(conversationId).items.find((item) => item.kind === 'permission')).toMatchObject({
      revoked: { at: expect.any(String), note: null },
    });
    // The next message runs in a new agent process.
    const after = await agentPid(conversationId);
    expect(after).toMatch(/^Agent pid \d+$/);
    expect(after).not.toBe(before);
    // Unknown now.
    expect(await host.handle('revokeAlwaysDecision', { id: decisions[0]!.id })).toMatchObject({ ok: false, error: { code: 'NotFound' } });
  });

  it('a one-time answer is not remembered', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('always-work'));
    await host.turns.send(conversationId, 'please ask permission');
    const request = await until(() => transcript(conversationId).items.find((item) => item.kind === 'permission'));
    await call('answerPermission', {
      conversationId,
      requestId: request.kind === 'permission' ? request.requestId : '',
      optionId: 'allow',
    });
    await host.turns.idle();
    expect((await call('listAlwaysDecisions', {})).decisions).toEqual([]);
  });

  it('completes folder paths, and exports every conversation as one Markdown file', async () => {
    const home = tempDir('always-home');
    mkdirSync(`${home}/projects/baton`, { recursive: true });
    mkdirSync(`${home}/projects/banana`);
    mkdirSync(`${home}/projects/.hidden`);
    await host.dispose();
    const data = tempDir('always-data');
    registerFakeAgent(data);
    host = new Host({ dataDir: data, env: definedEnv(process.env), homeDir: home });
    expect((await call('listFolders', { typed: `${home}/projects/ba` })).folders).toEqual([
      `${home}/projects/banana`,
      `${home}/projects/baton`,
    ]);
    expect((await call('listFolders', { typed: '~/projects/' })).folders).toEqual([`${home}/projects/banana`, `${home}/projects/baton`]);
    expect((await call('listFolders', { typed: '~/projects/.' })).folders).toEqual([`${home}/projects/.hidden`]);
    expect((await call('listFolders', { typed: 'relative/path' })).folders).toEqual([]);
    expect((await call('listFolders', { typed: `${home}/missing/x` })).folders).toEqual([]);

    const first = host.conversations.create(FAKE_AGENT_ID, home, 'First one');
    host.conversations.create(FAKE_AGENT_ID, home, 'Second one');
    await call('setArchived', { conversationId: first.conversationId, archived: true });
    const gone = host.conversations.create(FAKE_AGENT_ID, home, 'In the trash');
    await call('deleteConversation', { conversationId: gone.conversationId });
    const exported = await call('exportAllConversations', {});
    expect(exported.count).toBe(2);
    expect(exported.fileName).toMatch(/^baton-conversations-\d{4}-\d{2}-\d{2}\.md$/);
    expect(exported.content).toContain('First one');
    expect(exported.content).toContain('Second one');
    expect(exported.content).not.toContain('In the trash');
  });
});
