/** The host core drives the real Claude agent (claude-agent-acp) through real turns against the model stub. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentTestEnv, tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { Host } from '../Host.js';

describe('a real turn through claude-agent-acp', () => {
  let stub: ModelStub;
  let host: Host;
  let pushed: PushEvent[];

  beforeEach(async () => {
    stub = await startModelStub({
      reply: () => ({ chunks: ['Hello ', 'from ', 'the stub.'], delayMs: 20 }),
    });
    host = new Host({ dataDir: tempDir('data'), env: agentTestEnv(stub.url) });
    pushed = [];
    host.subscribe((event) => pushed.push(event));
  });

  afterEach(async () => {
    await host.dispose();
    await stub.close();
  });

  it('streams the reply, commits it, and sends the person\'s text to the model', async () => {
    const conversation = host.conversations.create('claude', tempDir('work'));
    const { turnId } = host.conversations.send(conversation.conversationId, 'What is the airspeed of a swallow?');
    await host.conversations.idle();

    const chunks = pushed.filter((event) => event.name === 'transcript' && event.payload.event.type === 'message.chunk');
    expect(chunks.length).toBeGreaterThan(1);

    const { events } = host.store.readEvents(conversation.conversationId);
    const state = reduceAll(emptyTranscript(conversation.conversationId), events);
    expect(state.turns[turnId]?.status).toBe('completed');
    const reply = state.items.find((item) => item.kind === 'agent');
    expect(reply && reply.kind === 'agent' ? reply.text : '').toBe('Hello from the stub.');
    expect(reply && reply.kind === 'agent' ? reply.agentName : '').toBe('Claude');

    const sent = stub.modelRequests().map((request) => request.lastUserText);
    expect(sent.some((text) => text.includes('What is the airspeed of a swallow?'))).toBe(true);

    // Every pushed transcript event is already in the store, in the same order.
    const pushedSeqs = pushed.flatMap((event) => (event.name === 'transcript' ? [event.payload.event.seq] : []));
    expect(pushedSeqs).toEqual(events.map((event) => event.seq));
  }, 120_000);
});
