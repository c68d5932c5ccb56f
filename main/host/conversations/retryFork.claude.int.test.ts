/**
 * Retry of the last reply with the real Claude agent (claude-agent-acp) against the model stub:
 * Claude goes on in a fork of its own session cut where the rewind went back to, so its model
 * sees the earlier exchange as its own history, never the reply set aside, and no handoff.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentTestEnv, tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { isSideRequest, startModelStub, type ModelStub, type RecordedRequest } from '../../../e2e/fixtures/modelStub.js';
import { Host } from '../Host.js';

/**
 * The test's own texts in an Anthropic request's messages, by role, in order ("user: …", "assistant: …"); Claude Code's own blocks left
 * out.
 */
function history(request: RecordedRequest): string[] {
  const messages =
    (request.body as { messages?: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> }).messages ?? [];
  return messages.flatMap(({ role, content }) =>
    (typeof content === 'string' ? [content] : content.flatMap((block) => (block.type === 'text' && block.text ? [block.text] : [])))
      .filter((text) => /^(\w+ question|Answer \d+ to \w+ question)$/.test(text.trim()))
      .map((text) => `${role}: ${text.trim()}`),
  );
}

describe('Retry with Claude', () => {
  let stub: ModelStub;
  let host: Host;
  let replies: number;

  beforeEach(async () => {
    replies = 0;
    stub = await startModelStub({
      reply: (request) =>
        !isSideRequest(request) && request.lastUserText.includes('question')
          ? { chunks: [`Answer ${++replies} to `, request.lastUserText.trim()] }
          : undefined,
    });
    host = new Host({ dataDir: tempDir('data'), env: agentTestEnv(stub.url) });
  });

  afterEach(async () => {
    await host.dispose();
    await stub.close();
  });

  /** The turn requests (with their bodies) whose last user text has `text`. */
  const turnRequests = (text: string): RecordedRequest[] =>
    stub.requests.filter(
      (request) => request.model?.stream === true && !isSideRequest(request.model) && request.model.lastUserText.includes(text),
    );

  it('forks its own session at the rewind point: the model sees the first exchange and not the reply set aside, and nothing is handed off', async () => {
    const conversation = host.conversations.create('claude', tempDir('work'));
    const { conversationId } = conversation;
    await host.turns.send(conversationId, 'first question');
    await host.turns.idle();
    const second = await host.turns.send(conversationId, 'second question');
    await host.turns.idle();
    expect(history(turnRequests('second question').at(-1)!)).toEqual([
      'user: first question',
      'assistant: Answer 1 to first question',
      'user: second question',
    ]);

    // Retry: rewind to before the second message (the files kept) and send it again.
    await host.rewinds.rewind(conversationId, second.turnId, { keepFiles: true, overwrite: [], retry: true });
    const { events: rewound } = host.store.readEvents(conversationId);
    const marker = rewound.findLast((event) => event.type === 'conversation.rewound');
    expect(marker?.type === 'conversation.rewound' ? marker.payload.fork : undefined).toMatchObject({ agentId: 'claude' });
    const retried = await host.turns.send(conversationId, 'second question');
    await host.turns.idle();

    const { events } = host.store.readEvents(conversationId);
    const bound = events.filter((event) => event.type === 'session.bound');
    expect(bound.map((event) => (event.type === 'session.bound' ? event.payload.how : ''))).toEqual(['new', 'fork']);
    const [first, forked] = bound.map((event) => (event.type === 'session.bound' ? event.payload.sessionId : ''));
    expect(forked).not.toBe(first);
    // Nothing was handed to Claude for the retried turn: its own session had it all.
    expect(events.some((event) => event.type === 'handoff.prepared' && event.payload.turnId === retried.turnId)).toBe(false);
    const ended = events.find((event) => event.type === 'turn.ended' && event.payload.turnId === retried.turnId);
    expect(ended?.type === 'turn.ended' ? ended.payload.outcome : undefined).toBe('completed');

    // The model saw the first exchange as Claude's own history; the set-aside "Answer 2" is gone.
    const sent = turnRequests('second question').at(-1)!;
    expect(history(sent)).toEqual(['user: first question', 'assistant: Answer 1 to first question', 'user: second question']);
    expect(JSON.stringify(sent.body)).not.toContain('Answer 2');

    // The next message goes on in the fork, live: its history is the retried exchange.
    await host.turns.send(conversationId, 'third question');
    await host.turns.idle();
    expect(history(turnRequests('third question').at(-1)!)).toEqual([
      'user: first question',
      'assistant: Answer 1 to first question',
      'user: second question',
      'assistant: Answer 3 to second question',
      'user: third question',
    ]);
  }, 180_000);
});
