/**
 * Handing one conversation between two real agents against the model stub: Claude → Qwen →
 * Claude. Qwen's first request carries turn 1 (from Baton's handoff) and its own message; back
 * with Claude, its own session is reopened and its request for turn 3 carries turn 2 (the delta)
 * with turn 1 present once, not twice. The digests of the toolbox and instructions do not move.
 */
import { describe, expect, it } from 'vitest';
import { agentUnavailable, allAgentsHome, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type NormalizedRequest } from '../../../e2e/fixtures/modelStub.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { Host } from '../Host.js';

const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

describe('Claude → Qwen → Claude in one conversation', () => {
  const skip = agentUnavailable('claude') ?? agentUnavailable('qwen');
  it.skipIf(skip)(
    withSkipReason('hands turn 1 to Qwen, then gives Claude only turn 2 on its own reopened session', skip),
    async () => {
      // Replies that never repeat what they were sent, so a marker is counted only where Baton put it.
      const stub = await startModelStub({
        reply: (request) => (request.jsonSchema !== undefined ? undefined : { kind: 'text', chunks: ['Noted.'] }),
      });
      const host = new Host({ dataDir: tempDir('switch-agents'), env: allAgentsHome(stub.url) });
      try {
        const { conversationId } = host.conversations.create('claude', tempDir('switch-work'));
        const run = async (text: string, agentId?: string) => {
          const { turnId } = await host.turns.send(conversationId, text, agentId);
          await host.turns.idle();
          const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
          expect(state.turns[turnId]?.status, JSON.stringify(state.items.at(-1))).toBe('completed');
          return state;
        };
        const turnOf = (marker: string): NormalizedRequest[] =>
          stub.modelRequests().filter((request) => request.lastUserText.includes(marker));

        await run('Turn one names ALPHA-MARK.');
        await run('Turn two names BRAVO-MARK.', 'qwen');
        const qwen = turnOf('BRAVO-MARK');
        expect(qwen.length).toBeGreaterThan(0);
        expect(qwen[0]!.dialect).toBe('openai-chat');
        expect(qwen[0]!.userRaw).toContain('ALPHA-MARK');

        const state = await run('Turn three names CHARLIE-MARK.', 'claude');
        const claude = turnOf('CHARLIE-MARK');
        expect(claude.length).toBeGreaterThan(0);
        expect(claude[0]!.dialect).toBe('anthropic');
        expect(claude[0]!.userRaw).toContain('BRAVO-MARK');
        expect(count(claude[0]!.userRaw, 'ALPHA-MARK')).toBe(1);

        const markers = state.items.flatMap((item) => (item.kind === 'handoff' ? [item] : []));
        expect(markers.map((item) => [item.fromAgentName, item.toAgentName, item.prepared?.fidelity])).toEqual([
          ['Claude', 'Qwen', 'handed-off'],
          ['Qwen', 'Claude', 'resumed'],
        ]);
        expect(Object.values(state.turns).map((turn) => turn.agentName)).toEqual(['Claude', 'Qwen', 'Claude']);
        const started = host.store
          .readEvents(conversationId)
          .events.flatMap((event) => (event.type === 'turn.started' ? [event.payload] : []));
        expect(new Set(started.map((payload) => payload.instructionsSha256)).size).toBe(1);
        expect(new Set(started.map((payload) => payload.toolboxDigest)).size).toBe(1);
      } finally {
        await host.dispose();
        await stub.close();
      }
    },
    240_000,
  );
});
