/**
 * Stop in Settings › Agents › Agent processes (`stopAgentProcess`), with the fake agent (a real ACP
 * process): the turn running on it is stopped and ends as cancelled (a person's Stop, not a crash),
 * the process and its group are gone, a second Stop says it had ended, and the next message starts
 * the agent again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host, definedEnv } from '../Host.js';

let host: Host | undefined;
afterEach(async () => {
  await host?.dispose();
  host = undefined;
});

describe('stopping an agent process', () => {
  it('stops its turn (cancelled, not failed), ends it and its group; the next message starts it again', async () => {
    const dataDir = tempDir('stop-process');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, env: definedEnv(process.env) });
    const transcript = (conversationId: string): TranscriptState =>
      reduceAll(emptyTranscript(conversationId), host!.store.readEvents(conversationId).events);
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('stop-process-work'));
    const turn = await host.turns.send(conversationId, 'slow please');
    await until(
      () => (transcript(conversationId).items.some((item) => item.kind === 'agent' && item.text.length > 0) ? true : undefined),
      20_000,
    );
    const row = host.pool.table().find((candidate) => candidate.agentId === FAKE_AGENT_ID);
    expect(row?.pid).toBeDefined();

    expect(await host.handle('stopAgentProcess', { launchDigest: row!.key })).toEqual({ ok: true, result: { stopped: true } });
    await host.turns.idle();
    expect(transcript(conversationId).turns[turn.turnId]?.status).toBe('cancelled');
    expect(host.pool.table().filter((candidate) => candidate.key === row!.key)).toEqual([]);
    await until(() => {
      try {
        process.kill(-row!.pid!, 0);
        return undefined;
      } catch {
        return true;
      }
    }, 10_000);
    // Already gone: said so.
    expect(await host.handle('stopAgentProcess', { launchDigest: row!.key })).toEqual({ ok: true, result: { stopped: false } });

    const again = await host.turns.send(conversationId, 'are you back?');
    await host.turns.idle();
    expect(transcript(conversationId).turns[again.turnId]?.status).toBe('completed');
  }, 60_000);
});
