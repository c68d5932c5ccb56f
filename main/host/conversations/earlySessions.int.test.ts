/**
 * Early sessions, with the fake agent in real processes: the session opened while the first
 * message is written is the one the first turn prompts (no second `session/new`); one opened for
 * other settings is closed and the turn opens its own; a closed or unknown reservation gives a
 * conversation a new id; what the conversation could not be created with is refused at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, fakeAgentLog, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host, definedEnv } from '../Host.js';

describe('early sessions', () => {
  let host: Host;
  let dataDir: string;
  let work: string;

  beforeEach(() => {
    dataDir = tempDir('early');
    work = tempDir('early-work');
    registerFakeAgent(dataDir, { sessions: true, sessionInstructions: true });
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
  });
  afterEach(async () => {
    await host.dispose();
  });

  /** Calls the host as a window does; fails the test on an error answer. */
  const call = async <T>(method: string, params: unknown): Promise<T> => {
    const answer = await host.handle(method, params);
    if (!answer.ok) {
      throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    }
    return answer.result as T;
  };
  const sessionsOpened = (): string[] =>
    fakeAgentLog(dataDir).flatMap((entry) => (entry.method === 'session/new' ? [entry.sessionId] : []));
  const promptedIn = (): string[] => fakeAgentLog(dataDir).flatMap((entry) => (entry.method === 'session/prompt' ? [entry.sessionId] : []));

  it('the first turn prompts the session opened while its message was written, and opens none of its own', async () => {
    const instructions = { text: 'Answer in French.', intent: 'append' as const };
    const { conversationId: reserved } = await call<{ conversationId: string }>('openEarlySession', {
      agentId: FAKE_AGENT_ID,
      cwd: work,
      instructions,
    });
    // The agent's session is open before the person sends anything.
    await until(() => sessionsOpened().length === 1);
    const [early] = sessionsOpened();

    const { conversation } = await call<{ conversation: { conversationId: string } }>('newConversation', {
      agentId: FAKE_AGENT_ID,
      cwd: work,
      instructions,
      conversationId: reserved,
    });
    expect(conversation.conversationId).toBe(reserved);
    await call('sendMessage', { conversationId: reserved, text: 'hello early' });
    await host.turns.idle();

    expect(sessionsOpened()).toEqual([early]);
    expect(promptedIn()).toEqual([early]);
    const { events } = host.store.readEvents(reserved);
    const bound = events.find((event) => event.type === 'session.bound');
    expect(bound?.type === 'session.bound' ? bound.payload : undefined).toMatchObject({ sessionId: early, how: 'new' });
    const ended = events.find((event) => event.type === 'turn.ended');
    expect(ended?.type === 'turn.ended' ? ended.payload.outcome : undefined).toBe('completed');
    // The reservation is used up: the id cannot be taken again.
    expect(host.sessions.isEarly(reserved)).toBe(false);
  });

  it('a session opened for other settings is closed; the first turn opens one with its own', async () => {
    const { conversationId: reserved } = await call<{ conversationId: string }>('openEarlySession', { agentId: FAKE_AGENT_ID, cwd: work });
    await until(() => sessionsOpened().length === 1);
    const [early] = sessionsOpened();
    // The person wrote instructions after the session was opened.
    await call('newConversation', {
      agentId: FAKE_AGENT_ID,
      cwd: work,
      instructions: { text: 'Be brief.', intent: 'append' },
      conversationId: reserved,
    });
    await call('sendMessage', { conversationId: reserved, text: 'hello with new instructions' });
    await host.turns.idle();

    const opened = sessionsOpened();
    expect(opened).toHaveLength(2);
    expect(promptedIn()).toEqual([opened[1]]);
    expect(promptedIn()).not.toContain(early);
  });

  it('a closed reservation is not an id any more, and what a conversation could not be created with is refused at once', async () => {
    const { conversationId: reserved } = await call<{ conversationId: string }>('openEarlySession', { agentId: FAKE_AGENT_ID, cwd: work });
    expect(await call('closeEarlySession', { conversationId: reserved })).toEqual({ closed: true });
    expect(host.sessions.isEarly(reserved)).toBe(false);
    const { conversation } = await call<{ conversation: { conversationId: string } }>('newConversation', {
      agentId: FAKE_AGENT_ID,
      cwd: work,
      conversationId: reserved,
    });
    expect(conversation.conversationId).not.toBe(reserved);
    // Nor is an id the host never reserved.
    const made = await call<{ conversation: { conversationId: string } }>('newConversation', {
      agentId: FAKE_AGENT_ID,
      cwd: work,
      conversationId: 'chosen-by-a-page',
    });
    expect(made.conversation.conversationId).not.toBe('chosen-by-a-page');

    const missing = await host.handle('openEarlySession', { agentId: FAKE_AGENT_ID, cwd: `${work}/no-such-folder` });
    expect(missing.ok).toBe(false);
    expect(JSON.stringify(missing)).toMatch(/no-such-folder/);
  });
});
