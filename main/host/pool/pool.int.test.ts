/**
 * One agent process, many conversations, with the real agents: two Codex 2.6 conversations (which
 * cannot run as two processes on one CODEX_HOME) answer at the same time from one process; a
 * SIGKILLed Codex process fails only its own sessions' turns, while a Claude turn goes on; the
 * next message in each Codex conversation starts it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentUnavailable, allAgentsHome, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import { until } from '../../../e2e/fixtures/until.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host } from '../Host.js';

const TURN_TIMEOUT = 150_000;
const skip = agentUnavailable('codex') ?? agentUnavailable('claude');

describe('the agent pool with real agents', () => {
  let stub: ModelStub;
  let host: Host;
  const transcript = (conversationId: string): TranscriptState =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
  const replyOf = (conversationId: string, turnId: string): string =>
    transcript(conversationId)
      .items.filter((item) => item.kind === 'agent' && item.turnId === turnId)
      .map((item) => (item.kind === 'agent' ? item.text : ''))
      .join('');

  beforeAll(async () => {
    stub = await startModelStub();
    host = new Host({ dataDir: tempDir('pool'), env: allAgentsHome(stub.url) });
  });
  afterAll(async () => {
    await host?.dispose();
    await stub?.close();
  });

  it.skipIf(skip)(
    withSkipReason('two Codex conversations answer at the same time from one Codex process', skip),
    async () => {
      const first = host.conversations.create('codex', tempDir('pool-a'));
      const second = host.conversations.create('codex', tempDir('pool-b'));
      const a = await host.turns.send(first.conversationId, 'First Codex conversation, SLOW_STREAM 2');
      const b = await host.turns.send(second.conversationId, 'Second Codex conversation, SLOW_STREAM 2');
      // Both run at once: each streams before either has ended.
      await until(
        () => replyOf(first.conversationId, a.turnId).includes('slow3') && replyOf(second.conversationId, b.turnId).includes('slow3'),
        60_000,
      );
      expect(host.turns.isRunning(first.conversationId) && host.turns.isRunning(second.conversationId)).toBe(true);
      const table = host.pool.table();
      expect(table.filter((row) => row.agentId === 'codex')).toEqual([expect.objectContaining({ sessions: 2 })]);
      await host.turns.idle();
      expect(transcript(first.conversationId).turns[a.turnId]?.status).toBe('completed');
      expect(transcript(second.conversationId).turns[b.turnId]?.status).toBe('completed');
    },
    TURN_TIMEOUT,
  );

  it.skipIf(skip)(
    withSkipReason("a killed Codex process fails only its own sessions' turns; the next message in each works", skip),
    async () => {
      const first = host.conversations.create('codex', tempDir('pool-c'));
      const second = host.conversations.create('codex', tempDir('pool-d'));
      const claude = host.conversations.create('claude', tempDir('pool-e'));
      const a = await host.turns.send(first.conversationId, 'Codex one, SLOW_STREAM 20');
      const b = await host.turns.send(second.conversationId, 'Codex two, SLOW_STREAM 20');
      const c = await host.turns.send(claude.conversationId, 'Claude, SLOW_STREAM 4');
      await until(
        () =>
          replyOf(first.conversationId, a.turnId).includes('slow2') &&
          replyOf(second.conversationId, b.turnId).includes('slow2') &&
          replyOf(claude.conversationId, c.turnId).includes('slow2'),
        60_000,
      );
      const codex = host.pool.table().filter((row) => row.agentId === 'codex');
      expect(codex).toHaveLength(1);
      process.kill(-codex[0]!.pid!, 'SIGKILL');
      await host.turns.idle();
      for (const [conversationId, turnId] of [
        [first.conversationId, a.turnId],
        [second.conversationId, b.turnId],
      ] as const) {
        const state = transcript(conversationId);
        expect(state.turns[turnId]?.status).toBe('failed');
        expect(state.items.find((item) => item.kind === 'notice' && item.turnId === turnId && item.severity === 'error')).toMatchObject({
          error: { code: 'AgentExited' },
        });
      }
      expect(transcript(claude.conversationId).turns[c.turnId]?.status).toBe('completed');
      // The next message in each starts Codex again (one process for both).
      const again = [
        await host.turns.send(first.conversationId, 'Codex one, are you back?'),
        await host.turns.send(second.conversationId, 'Codex two, are you back?'),
      ];
      await host.turns.idle();
      expect(transcript(first.conversationId).turns[again[0]!.turnId]?.status).toBe('completed');
      expect(transcript(second.conversationId).turns[again[1]!.turnId]?.status).toBe('completed');
      expect(replyOf(first.conversationId, again[0]!.turnId)).toContain('Codex one, are you back?');
      expect(host.pool.table().filter((row) => row.agentId === 'codex')).toHaveLength(1);
    },
    TURN_TIMEOUT,
  );
});
