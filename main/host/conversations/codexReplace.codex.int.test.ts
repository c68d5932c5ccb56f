/**
 * Codex with the person's instructions set to replace its prompt answers in a new conversation,
 * right after Codex is picked (issue 46, item 4): the page's steps with the real Codex against the
 * model stub (its card read, its early session opened while the message is written, the
 * conversation created and sent). Codex 2.x lets one process hold its state database; a process
 * that holds it only idly must never make Baton refuse the turn.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { agentHome, agentUnavailable, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import { Host } from '../Host.js';

const skip = agentUnavailable('codex');

describe('Codex with replace instructions', () => {
  let stub: ModelStub;
  let host: Host | undefined;
  beforeAll(async () => {
    stub = await startModelStub();
  });
  afterEach(async () => {
    await host?.dispose();
  });
  afterAll(async () => {
    await stub.close();
  });

  async function call<T>(method: string, params: object): Promise<T> {
    const answer = await host!.handle(method, params);
    if (!answer.ok) {
      throw new Error(`${method}: ${answer.error.message}`);
    }
    return answer.result as T;
  }

  it.skipIf(skip)(
    withSkipReason('answers in a new conversation right after Codex is picked', skip),
    async () => {
      host = new Host({ dataDir: tempDir('codex-replace'), env: agentHome('codex', stub.url) });
      host.instructions.setAgent('codex', { off: false, commandLineAccepted: true });
      await call('saveInstructions', { person: { text: 'You are terse. Always end with CODEX-REPLACED.', intent: 'replace' } });
      const work = tempDir('codex-replace-work');
      // Picked: its card is read while the message is being written and its early session opens (as the page does, at once).
      const [, { conversationId: early }] = await Promise.all([
        call('describeAgent', { agentId: 'codex' }),
        call<{ conversationId: string }>('openEarlySession', { agentId: 'codex', cwd: work }),
      ]);
      const { conversation } = await call<{ conversation: { conversationId: string } }>('newConversation', {
        agentId: 'codex',
        cwd: work,
        conversationId: early,
      });
      const { turnId } = await call<{ turnId: string }>('sendMessage', {
        conversationId: conversation.conversationId,
        text: 'hello codex',
      });
      await host.turns.idle();
      const state = reduceAll(emptyTranscript(conversation.conversationId), host.store.readEvents(conversation.conversationId).events);
      expect(state.turns[turnId]?.status, JSON.stringify(state.items.at(-1))).toBe('completed');
      const [request] = stub.modelRequests().filter((candidate) => candidate.userTexts.some((text) => text.includes('hello codex')));
      expect(request?.system).toContain('CODEX-REPLACED');
    },
    180_000,
  );
});
