/** Elicitation through a real ACP child process (the fake agent): a form and a link, answered only by the person, values not kept. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { until } from '../../../e2e/fixtures/until.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { emptyTranscript, reduceAll, type TranscriptItem, type TranscriptState } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';

type ElicitationItem = Extract<TranscriptItem, { kind: 'elicitation' }>;

describe('elicitation', () => {
  let dataDir: string;
  let host: Host;

  const transcript = (conversationId: string): TranscriptState =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
  const reply = (state: TranscriptState): string => state.items.flatMap((item) => (item.kind === 'agent' ? [item.text] : [])).join('');

  const waitForRequest = (conversationId: string): Promise<ElicitationItem> =>
    until(() => transcript(conversationId).items.find((item): item is ElicitationItem => item.kind === 'elicitation'));

  beforeEach(() => {
    dataDir = tempDir('elicitation');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, env: definedEnv(process.env) });
  });

  afterEach(async () => {
    await host.dispose();
  });

  it('shows a form, waits for the person, refuses a bad answer, passes on a good one and keeps no values', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const { turnId } = await host.turns.send(conversationId, 'elicit form');
    const item = await waitForRequest(conversationId);
    expect(item.request).toMatchObject({
      mode: 'form',
      message: 'The deploy server needs a few details.',
      schema: { required: ['name', 'region'] },
    });

    // Never answered on the person's behalf.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(transcript(conversationId).turns[turnId]?.status).toBe('running');

    const { requestId } = item.request;
    const bad = await host.handle('answerElicitation', {
      conversationId,
      requestId,
      action: 'accept',
      content: { name: 'x', region: 'mars', replicas: 9 },
    });
    expect(bad).toMatchObject({
      ok: false,
      error: {
        code: 'InvalidRequest',
        message: 'Project name must be at least 2 characters. Region must be one of: eu, us. Replicas must be at most 5.',
      },
    });

    const good = await host.handle('answerElicitation', {
      conversationId,
      requestId,
      action: 'accept',
      content: { name: 'secret-project', region: 'eu', replicas: 2, public: false, features: ['backup'] },
    });
    expect(good.ok).toBe(true);
    await host.turns.idle();
    const state = transcript(conversationId);
    expect(reply(state)).toBe(
      'Elicitation accept {"name":"secret-project","region":"eu","replicas":2,"public":false,"features":["backup"]}',
    );
    expect(state.items.find((candidate) => candidate.kind === 'elicitation')).toMatchObject({
      answer: { action: 'accept', by: 'person', fields: ['name', 'region', 'replicas', 'public', 'features'] },
    });
    // The values went to the agent only: the stored answer holds none (the agent's own reply above repeats them).
    const stored = host.store.readEvents(conversationId).events.filter((event) => event.type === 'elicitation.answered');
    expect(JSON.stringify(stored)).not.toContain('secret-project');
    expect(await host.handle('answerElicitation', { conversationId, requestId, action: 'decline' })).toMatchObject({
      ok: false,
      error: { code: 'NotFound' },
    });
  });

  it('a link is shown, not opened; accepting it and the agent reporting it done are both recorded', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    await host.turns.send(conversationId, 'elicit url');
    const item = await waitForRequest(conversationId);
    expect(item.request).toMatchObject({ mode: 'url', url: 'https://auth.example.test/authorize?state=abc' });
    expect((await host.handle('answerElicitation', { conversationId, requestId: item.request.requestId, action: 'accept' })).ok).toBe(true);
    await host.turns.idle();
    const state = transcript(conversationId);
    expect(reply(state)).toBe('Elicitation accept');
    expect(state.items.find((candidate) => candidate.kind === 'elicitation')).toMatchObject({
      answer: { action: 'accept' },
      completed: true,
    });
  });

  it('declining is passed on; cancelling the turn withdraws an open request', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    await host.turns.send(conversationId, 'elicit form');
    const first = await waitForRequest(conversationId);
    expect((await host.handle('answerElicitation', { conversationId, requestId: first.request.requestId, action: 'decline' })).ok).toBe(
      true,
    );
    await host.turns.idle();
    expect(reply(transcript(conversationId))).toBe('Elicitation decline');

    const { turnId } = await host.turns.send(conversationId, 'elicit form again');
    await until(() => transcript(conversationId).items.filter((item) => item.kind === 'elicitation').length >= 2);
    await host.turns.cancel(conversationId);
    await host.turns.idle();
    const state = transcript(conversationId);
    expect(state.items.filter((item) => item.kind === 'elicitation').at(-1)).toMatchObject({
      answer: { action: 'cancel', by: 'turn-cancelled' },
    });
    expect(state.turns[turnId]?.status).toBe('cancelled');
  });

  it('a link that is not http(s) is refused with an error to the agent', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    await host.turns.send(conversationId, 'elicit bad');
    await host.turns.idle();
    expect(reply(transcript(conversationId))).toBe(
      'Elicitation refused (-32602): Baton opens only http and https links, not file:///etc/passwd.',
    );
  });
});
