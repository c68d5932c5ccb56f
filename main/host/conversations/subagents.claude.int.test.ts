/**
 * Subagents of the real Claude agent (claude-agent-acp 0.101, which runs Claude Code's subagents
 * as ACP subagent sessions once the client asks for them), against the model stub: the model
 * starts a subagent with Claude Code's Agent tool, the subagent answers in its own model request,
 * and Baton keeps the subagent's work in a card inside the turn.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentTestEnv, tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { Host } from '../Host.js';

describe('subagents of the real Claude agent', () => {
  let stub: ModelStub;
  let host: Host;

  beforeEach(async () => {
    stub = await startModelStub({
      reply: (request) => {
        if (request.lastUserText.includes('INNER-TASK')) {
          return { chunks: ['The subagent looked: ', 'all quiet.'] };
        }
        if (request.lastUserText.includes('START-A-SUBAGENT') && request.toolResult === undefined) {
          const tool = request.toolNames.find((name) => name === 'Agent' || name === 'Task');
          return tool
            ? {
                kind: 'tool',
                name: tool,
                arguments: { description: 'Look around', prompt: 'INNER-TASK: look around and report', subagent_type: 'general-purpose' },
              }
            : { chunks: ['No subagent tool was offered.'] };
        }
        if (request.toolResult !== undefined) {
          return { chunks: ['The parent heard back.'] };
        }
        return undefined;
      },
    });
    host = new Host({ dataDir: tempDir('data'), env: agentTestEnv(stub.url) });
  });

  afterEach(async () => {
    await host.dispose();
    await stub.close();
  });

  it('a subagent Claude starts shows its own reply in a card inside the turn', async () => {
    const { conversationId } = host.conversations.create('claude', tempDir('work'));
    await host.conversations.chooseOption(conversationId, 'mode', 'bypassPermissions');
    const { turnId } = await host.turns.send(conversationId, 'START-A-SUBAGENT please');
    await host.turns.idle();
    const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    expect(state.turns[turnId]?.status).toBe('completed');
    const card = state.items.find((item) => item.kind === 'subagent');
    expect(card, JSON.stringify(state.items.map((item) => item.kind))).toBeDefined();
    expect(card?.kind === 'subagent' && card.items.some((item) => item.kind === 'agent' && item.text.includes('all quiet'))).toBe(true);
    expect(state.items.some((item) => item.kind === 'agent' && item.text.includes('The parent heard back.'))).toBe(true);
  }, 120_000);
});
