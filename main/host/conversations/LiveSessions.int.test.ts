/**
 * The live sessions of a host, with the fake agent in real processes: one session per
 * conversation, reused from turn to turn; conversations in one folder share the agent's process;
 * an idle session closes (and its process ends, and the folder is no longer watched) and the next
 * message opens one again; a session of an agent changed since (an "always" answer revoked) is
 * started afresh; and release ends it at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, fakeAgentProcesses, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host, definedEnv } from '../Host.js';
import { LiveSessions } from './LiveSessions.js';

const IDLE_MS = 400;

describe('LiveSessions', () => {
  let host: Host;
  let dataDir: string;
  let sessions: LiveSessions;

  beforeEach(() => {
    dataDir = tempDir('live-sessions');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, homeDir: tempDir('home'), env: { ...definedEnv(process.env), BATON_AGENT_IDLE_MS: String(IDLE_MS) } });
    sessions = host.sessions;
  });
  afterEach(async () => {
    await host.dispose();
  });

  const turn = async (conversationId: string, text = 'hello'): Promise<void> => {
    await host.turns.send(conversationId, text);
    await host.turns.idle();
    await host.turnCheckpoints.idle();
  };

  it('keeps one session per conversation from turn to turn; conversations in one folder share the process', async () => {
    expect(sessions).toBeInstanceOf(LiveSessions);
    expect(sessions.idleMs).toBe(IDLE_MS);
    const work = tempDir('live-work');
    const first = host.conversations.create(FAKE_AGENT_ID, work).conversationId;
    const second = host.conversations.create(FAKE_AGENT_ID, work).conversationId;
    await turn(first);
    const live = sessions.get(first);
    expect(live).toBeDefined();
    await turn(first, 'again');
    expect(sessions.get(first)).toBe(live);
    await turn(second);
    expect(sessions.sharingWith(first)).toEqual([second]);
    expect(fakeAgentProcesses(dataDir)).toHaveLength(1);
  });

  it('closes a session once idle, ends its process and stops watching its folder; the next message opens one again', async () => {
    const work = tempDir('live-idle');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    await turn(conversationId);
    expect(sessions.get(conversationId)).toBeDefined();
    await until(() => sessions.get(conversationId) === undefined, 5_000);
    await until(() => fakeAgentProcesses(dataDir).length === 0, 5_000);
    // Not watched any more: the next checkpoint walks the folder, and says why.
    await turn(conversationId, 'back again');
    expect(Object.keys(host.checkpoints.counts().reasons)).toContainEqual(expect.stringMatching(/not watched/));
    expect(sessions.get(conversationId)).toBeDefined();
  });

  it('starts an agent afresh for the next turn once told to, and release ends a session at once', async () => {
    const work = tempDir('live-restart');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    await turn(conversationId);
    const before = sessions.get(conversationId);
    sessions.restartAgents(FAKE_AGENT_ID, work, 'local');
    await turn(conversationId, 'after the restart');
    const after = sessions.get(conversationId);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    await sessions.release(conversationId);
    expect(sessions.get(conversationId)).toBeUndefined();
    await until(() => fakeAgentProcesses(dataDir).length === 0, 5_000);
  });
});
