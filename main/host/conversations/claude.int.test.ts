/** The host core drives the real Claude agent (claude-agent-acp) through real turns against the model stub. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentTestEnv, tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { until } from '../../../e2e/fixtures/until.js';
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

  it("streams the reply, commits it, and sends the person's text to the model", async () => {
    const conversation = host.conversations.create('claude', tempDir('work'));
    const { turnId } = await host.turns.send(conversation.conversationId, 'What is the airspeed of a swallow?');
    await host.turns.idle();

    const chunks = pushed
      .flatMap((event) => (event.name === 'transcript' ? event.payload.events : []))
      .filter((event) => event.type === 'message.chunk');
    expect(chunks.length).toBeGreaterThan(1);

    const { events } = host.store.readEvents(conversation.conversationId);
    const state = reduceAll(emptyTranscript(conversation.conversationId), events);
    expect(state.turns[turnId]?.status).toBe('completed');
    const reply = state.items.find((item) => item.kind === 'agent');
    expect(reply && reply.kind === 'agent' ? reply.text : '').toBe('Hello from the stub.');
    expect(reply && reply.kind === 'agent' ? reply.agentName : '').toBe('Claude');

    // Claude reports how much of its context the conversation uses (its default model's window: 1M tokens in 0.101).
    expect(state.usage).toMatchObject({ turnId, size: 1_000_000 });
    expect(state.usage?.used).toBeGreaterThan(0);

    const sent = stub.modelRequests().map((request) => request.lastUserText);
    expect(sent.some((text) => text.includes('What is the airspeed of a swallow?'))).toBe(true);

    // Every pushed transcript event is already in the store, in the same order.
    const pushedSeqs = pushed.flatMap((event) => (event.name === 'transcript' ? event.payload.events.map((envelope) => envelope.seq) : []));
    expect(pushedSeqs).toEqual(events.map((event) => event.seq));

    // Its next report is the context of the longer conversation, not the first figure again.
    const next = await host.turns.send(conversation.conversationId, `And of an African swallow? ${'Laden with a coconut. '.repeat(40)}`);
    await host.turns.idle();
    const after = reduceAll(emptyTranscript(conversation.conversationId), host.store.readEvents(conversation.conversationId).events);
    expect(after.usage).toMatchObject({ turnId: next.turnId, size: 1_000_000 });
    expect(after.usage!.used).toBeGreaterThan(state.usage!.used + 100);
  }, 120_000);

  it('an agent killed mid-turn fails that turn readably, and the next message starts it again', async () => {
    await stub.close();
    stub = await startModelStub();
    await host.dispose();
    host = new Host({ dataDir: tempDir('data'), env: agentTestEnv(stub.url) });
    const cwd = tempDir('work');
    const conversation = host.conversations.create('claude', cwd);
    const { turnId } = await host.turns.send(conversation.conversationId, 'Stream slowly please [slow]');
    const transcript = () =>
      reduceAll(emptyTranscript(conversation.conversationId), host.store.readEvents(conversation.conversationId).events);
    await expect
      .poll(() => transcript().items.some((item) => item.kind === 'agent' && item.text.includes('word2')), { timeout: 30_000 })
      .toBe(true);

    // The agent process is the one running claude-agent-acp in this conversation's folder.
    const pid = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .find((entry) => {
        try {
          return readlinkSync(`/proc/${entry}/cwd`) === cwd && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('claude-agent-acp');
        } catch {
          return false;
        }
      });
    expect(pid).toBeDefined();
    process.kill(Number(pid), 'SIGKILL');
    await host.turns.idle();
    const failed = transcript();
    expect(failed.turns[turnId]?.status).toBe('failed');
    expect(failed.items.at(-1)).toMatchObject({
      kind: 'notice',
      severity: 'error',
      error: { code: 'AgentExited', message: expect.stringContaining('Claude exited unexpectedly (signal SIGKILL)') },
    });

    const next = await host.turns.send(conversation.conversationId, 'Are you back?');
    await host.turns.idle();
    const after = transcript();
    expect(after.turns[next.turnId]?.status).toBe('completed');
    expect(after.items.at(-1)).toMatchObject({ kind: 'agent', text: expect.stringContaining('Are you back?') });
  }, 120_000);

  it("a model chosen from the agent's own options reaches the model, and is applied again after a restart", async () => {
    const dataDir = tempDir('options');
    await host.dispose();
    host = new Host({ dataDir, env: agentTestEnv(stub.url) });
    const { conversationId } = host.conversations.create('claude', tempDir('work'));
    await host.turns.send(conversationId, 'first message');
    await host.turns.idle();
    const state = () => reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    const model = state().sessionOptions.find((option) => option.category === 'model');
    expect(model?.options.map((choice) => choice.value)).toContain('haiku');
    expect(await host.handle('setSessionOption', { conversationId, optionId: model!.id, value: 'haiku' })).toMatchObject({ ok: true });
    expect(state().chosenOptions).toEqual({ [model!.id]: 'haiku' });
    expect(state().sessionOptions.find((option) => option.id === model!.id)?.currentValue).toBe('haiku');
    expect(await host.handle('setSessionOption', { conversationId, optionId: model!.id, value: 'no-such-model' })).toMatchObject({
      ok: false,
      error: { code: 'InvalidRequest' },
    });

    await host.turns.send(conversationId, 'second message');
    await host.turns.idle();
    const modelOf = (text: string) =>
      stub
        .modelRequests()
        .filter((request) => request.lastUserText.includes(text))
        .at(-1)?.model ?? '';
    expect(modelOf('second message')).toContain('haiku');

    await host.dispose();
    host = new Host({ dataDir, env: agentTestEnv(stub.url) });
    await host.turns.send(conversationId, 'third message');
    await host.turns.idle();
    expect(modelOf('third message')).toContain('haiku');
    expect(state().sessionOptions.find((option) => option.id === model!.id)?.currentValue).toBe('haiku');
  }, 120_000);

  it('a shell command Claude wants to run waits for the person, then shows its output in the tool call', async () => {
    await stub.close();
    stub = await startModelStub({
      reply: (request) =>
        request.toolResult !== undefined
          ? { kind: 'text', chunks: ['Done: ', request.toolResult] }
          : {
              kind: 'tool',
              name: 'Bash',
              arguments: { command: 'echo written-by-claude > out.txt && cat out.txt', description: 'Write and show a file' },
            },
    });
    await host.dispose();
    host = new Host({ dataDir: tempDir('data'), env: agentTestEnv(stub.url) });
    const cwd = tempDir('work');
    const conversation = host.conversations.create('claude', cwd);
    const { turnId } = await host.turns.send(conversation.conversationId, 'Write the file please');
    const transcript = () =>
      reduceAll(emptyTranscript(conversation.conversationId), host.store.readEvents(conversation.conversationId).events);
    const request = await until(() => transcript().items.find((item) => item.kind === 'permission'), 60_000);
    // Nothing ran before the person answered.
    expect(() => readFileSync(`${cwd}/out.txt`)).toThrow();
    const allowOnce = request?.kind === 'permission' ? request.options.find((option) => option.kind === 'allow_once') : undefined;
    host.turns.answerPermission(
      conversation.conversationId,
      request?.kind === 'permission' ? request.requestId : '',
      allowOnce?.optionId ?? '',
    );
    await host.turns.idle();
    const state = transcript();
    expect(state.turns[turnId]?.status).toBe('completed');
    expect(readFileSync(`${cwd}/out.txt`, 'utf8')).toBe('written-by-claude\n');
    const tool = state.items.find((item) => item.kind === 'tool');
    expect(tool).toMatchObject({
      kind: 'tool',
      toolKind: 'execute',
      status: 'completed',
      title: 'echo written-by-claude > out.txt && cat out.txt',
    });
    // Baton asks for Claude's shell-output extension: the command shows as a terminal with its output and exit.
    const terminalId = tool?.kind === 'tool' && tool.content[0]?.type === 'terminal' ? tool.content[0].terminalId : '';
    expect(state.terminals[terminalId]).toMatchObject({ exit: { exitCode: 0 } });
    expect(state.terminals[terminalId]?.output).toContain('written-by-claude');
  }, 120_000);

  it('after Stop during a streamed reply, each later message gets its own reply', async () => {
    await stub.close();
    stub = await startModelStub();
    await host.dispose();
    host = new Host({ dataDir: tempDir('data'), env: agentTestEnv(stub.url) });
    const { conversationId } = host.conversations.create('claude', tempDir('work'));
    const transcript = () => reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
    const first = await host.turns.send(conversationId, 'Tell me a long story\nSLOW_STREAM 60');
    await expect
      .poll(() => transcript().items.some((item) => item.kind === 'agent' && item.text.includes('slow3')), { timeout: 60_000 })
      .toBe(true);
    expect(await host.turns.cancel(conversationId)).toBe(true);
    await host.turns.idle();
    expect(transcript().turns[first.turnId]?.status).toBe('cancelled');

    const replyTo = (turnId: string) =>
      transcript()
        .items.filter((item) => item.kind === 'agent' && item.turnId === turnId)
        .map((item) => (item.kind === 'agent' ? item.text : ''))
        .join('');
    const ping = await host.turns.send(conversationId, 'ping after stop');
    await host.turns.idle();
    expect(transcript().turns[ping.turnId]?.status).toBe('completed');
    expect(replyTo(ping.turnId)).toContain('ping after stop');
    const second = await host.turns.send(conversationId, 'second ping');
    await host.turns.idle();
    expect(transcript().turns[second.turnId]?.status).toBe('completed');
    expect(replyTo(second.turnId)).toContain('second ping');
    expect(replyTo(second.turnId)).not.toContain('ping after stop');
    // The model was asked about each message once, in order.
    const asked = stub
      .modelRequests()
      .map((request) => request.lastUserText)
      .filter((text) => /ping/.test(text));
    expect(asked.filter((text) => text.includes('ping after stop')).length).toBeGreaterThanOrEqual(1);
    expect(asked.at(-1)).toContain('second ping');
  }, 180_000);
});
