/**
 * Handing a conversation between two fake agents (real ACP child processes whose sessions
 * outlive them and that log what they receive): a new session gets Baton's handoff, a reopened
 * one only the delta since its watermark; each switch is recorded with its fidelity, attributed
 * per turn, identical after a restart; what the new agent cannot take is refused at the switch;
 * the toolbox and instruction digests do not change across a switch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { agentHome, everythingServer } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { fakeAgentId, fakeAgentLog, registerFakeAgents } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { BatonError } from '../../../app/errors.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';
import { equivalentChoices } from './catchUp.js';

const ONE = fakeAgentId('Fake');
const TWO = fakeAgentId('Fake Two');
const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.dispose()));
});

function open(dataDir = tempDir('switch'), env = definedEnv(process.env)): Host {
  registerFakeAgents(dataDir, [
    { name: 'Fake', options: { sessions: true, embeddedContext: true, sessionInstructions: true } },
    { name: 'Fake Two', options: { sessions: true, sessionInstructions: true } },
  ]);
  const host = new Host({ dataDir, env });
  hosts.push(host);
  return host;
}

function transcript(host: Host, conversationId: string): TranscriptState {
  return reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
}

async function ask(host: Host, conversationId: string, text: string, agentId?: string) {
  const { turnId } = await host.turns.send(conversationId, text, agentId);
  await host.turns.idle();
  const state = transcript(host, conversationId);
  const reply = state.items
    .filter((item) => item.kind === 'agent' && item.turnId === turnId)
    .map((item) => (item.kind === 'agent' ? item.text : ''))
    .join('');
  return { state, turnId, reply, status: state.turns[turnId]?.status };
}

describe('switching agents in a conversation', () => {
  it('hands off to a new agent, and gives the first one only the delta when its own session is reopened', async () => {
    const dataDir = tempDir('switch');
    const host = open(dataDir);
    const { conversationId } = host.conversations.create(ONE, tempDir('work'));

    const first = await ask(host, conversationId, 'Remember MARK-ONE please');
    expect(first.reply).toBe('Fake reply: Remember MARK-ONE please');

    // To Fake Two (no embedded context): a new session, handed the conversation as delimited text.
    const promptOf = (text: string) =>
      fakeAgentLog(dataDir).find((entry) => entry.method === 'session/prompt' && entry.prompt?.at(-1)?.text === text)?.prompt ?? [];
    const second = await ask(host, conversationId, 'Take over MARK-TWO', TWO);
    expect(second.status).toBe('completed');
    const handoff = promptOf('Take over MARK-TWO');
    expect(handoff).toHaveLength(2);
    expect(handoff[0]!.text).toMatch(new RegExp(`^<conversation-handoff source="baton://conversation/${conversationId}/handoff/2">`));
    expect(handoff[0]!.text).toContain('Remember MARK-ONE please');
    expect(handoff[0]!.text).toContain('Fake reply: Remember MARK-ONE please');

    // Back to Fake: its process was ended, so its session is resumed; it is told only what it missed.
    await ask(host, conversationId, 'Back with MARK-THREE', ONE);
    const delta = promptOf('Back with MARK-THREE');
    expect(delta).toHaveLength(2);
    expect(delta[0]).toMatchObject({ type: 'resource', resource: { uri: `baton://conversation/${conversationId}/handoff/3` } });
    expect(delta[0]!.resource!.text).toMatch(/^# Since you last took part/);
    expect(delta[0]!.resource!.text).toContain('Take over MARK-TWO');
    expect(delta[0]!.resource!.text).not.toContain('MARK-ONE');
    const history = await ask(host, conversationId, 'history?');
    expect(JSON.parse(history.reply.replace(/^History: /, ''))).toEqual(['Remember MARK-ONE please', 'Back with MARK-THREE']);
    // A later turn with the same agent needs no catch-up.
    expect(promptOf('history?')).toEqual([{ type: 'text', text: 'history?' }]);

    const log = fakeAgentLog(dataDir);
    const firstSession = log.find((entry) => entry.method === 'session/new')!.sessionId;
    expect(log.filter((entry) => entry.method === 'session/resume').map((entry) => entry.sessionId)).toEqual([firstSession]);

    // The transcript: the agent of each turn, a marker at each switch with its fidelity.
    const state = history.state;
    expect(Object.values(state.turns).map((turn) => turn.agentName)).toEqual(['Fake', 'Fake Two', 'Fake', 'Fake']);
    const markers = state.items.filter((item) => item.kind === 'handoff');
    expect(
      markers.map((item) => [item.fromAgentName, item.toAgentName, item.prepared?.fidelity, item.prepared?.kind, item.prepared?.level]),
    ).toEqual([
      ['Fake', 'Fake Two', 'handed-off', 'handoff', 'text'],
      ['Fake Two', 'Fake', 'resumed', 'delta', 'resource'],
    ]);
    expect(markers[0]!.prepared?.turns).toEqual({ full: 1, summarised: 0, omitted: 0 });
    expect(state.items.filter((item) => item.kind === 'user').map((item) => item.text)).toEqual([
      'Remember MARK-ONE please',
      'Take over MARK-TWO',
      'Back with MARK-THREE',
      'history?',
    ]);
    expect(host.store.getSummary(conversationId)).toMatchObject({ agentId: ONE, agents: [{ agentId: ONE }, { agentId: TWO }] });

    // Exported and imported again, it keeps its switches; search finds each reply under its own agent.
    const imported = host.history.import(host.history.export(conversationId, 'jsonl').content);
    const copy = transcript(host, imported.conversationId);
    expect(
      copy.items
        .filter((item) => item.kind === 'handoff')
        .map((item) => item.kind === 'handoff' && [item.toAgentName, item.prepared?.fidelity]),
    ).toEqual([
      ['Fake Two', 'handed-off'],
      ['Fake', 'resumed'],
    ]);
    expect(host.history.export(conversationId, 'markdown').content).toContain(
      '_Switched from Fake to Fake Two: handed off (1 turn in full, 0 summarised, 0 left out)_',
    );
    const hits = host.store.search({ text: 'MARK-TWO', agentId: TWO });
    expect(hits.length).toBeGreaterThan(0);

    // After a restart, the same transcript.
    await host.dispose();
    hosts.splice(hosts.indexOf(host), 1);
    const again = open(dataDir);
    expect(JSON.stringify(transcript(again, conversationId).items)).toBe(JSON.stringify(state.items));
    expect(again.store.getContext(conversationId).sessions[TWO]?.sessionId).toBe(
      log.filter((entry) => entry.method === 'session/new')[1]!.sessionId,
    );
  });

  it('reopens an agent that can only load its session as "replayed", its replayed history not shown twice', async () => {
    const dataDir = tempDir('switch');
    registerFakeAgents(dataDir, [
      { name: 'Fake', options: { sessions: true, embeddedContext: true, extraArgs: ['--no-resume'] } },
      { name: 'Fake Two', options: {} },
    ]);
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    hosts.push(host);
    const { conversationId } = host.conversations.create(ONE, tempDir('work'));
    await ask(host, conversationId, 'first with one');
    await ask(host, conversationId, 'then with two', TWO);
    const back = await ask(host, conversationId, 'history?', ONE);
    expect(JSON.parse(back.reply.replace(/^History: /, ''))).toEqual(['first with one']);
    expect(fakeAgentLog(dataDir).map((entry) => entry.method)).toEqual(['session/new', 'session/prompt', 'session/load', 'session/prompt']);
    const markers = back.state.items.filter((item) => item.kind === 'handoff');
    expect(markers.map((item) => item.prepared?.fidelity)).toEqual(['handed-off', 'replayed']);
    expect(back.state.items.filter((item) => item.kind === 'user').map((item) => item.text)).toEqual([
      'first with one',
      'then with two',
      'history?',
    ]);
    expect(back.state.items.filter((item) => item.kind === 'agent').map((item) => item.text)).toEqual([
      'Fake reply: first with one',
      'Fake reply: then with two',
      'History: ["first with one"]',
    ]);
  });

  it('after a restart, an agent that cannot reopen its session is handed the conversation, and the marker says so', async () => {
    const dataDir = tempDir('switch');
    registerFakeAgents(dataDir, [{ name: 'Fake', options: {} }]);
    let host = new Host({ dataDir, env: definedEnv(process.env) });
    hosts.push(host);
    const { conversationId } = host.conversations.create(ONE, tempDir('work'));
    await ask(host, conversationId, 'before the restart');
    await host.dispose();
    hosts.pop();
    host = new Host({ dataDir, env: definedEnv(process.env) });
    hosts.push(host);
    const after = await ask(host, conversationId, 'after the restart');
    const marker = after.state.items.find((item) => item.kind === 'handoff');
    expect(marker).toMatchObject({
      fromAgentName: undefined,
      toAgentName: 'Fake',
      prepared: {
        fidelity: 'handed-off',
        level: 'text',
        fellBack: 'Fake could not reopen its own earlier session, so Baton handed it the conversation instead',
      },
    });
    expect(marker?.kind === 'handoff' && marker.prepared?.text).toContain('before the restart');
  });

  it('keeps the toolbox and the instruction bundle across a switch: the same digests on the turns before and after', async () => {
    const dataDir = tempDir('switch');
    const host = open(dataDir);
    const server = host.toolbox.addServer({
      name: 'everything',
      transport: 'stdio',
      command: everythingServer.command,
      args: everythingServer.args,
    });
    const { conversationId } = host.conversations.create(ONE, tempDir('work'), '', { text: 'Be exact.', intent: 'append' }, [
      server.serverId,
    ]);
    await ask(host, conversationId, 'instructions?');
    const after = await ask(host, conversationId, 'instructions?', TWO);
    expect(after.reply).toContain('Be exact.');
    const started = host.store.readEvents(conversationId).events.flatMap((event) => (event.type === 'turn.started' ? [event.payload] : []));
    expect(started.map((payload) => payload.agentId)).toEqual([ONE, TWO]);
    expect(started[1]!.instructionsSha256).toBe(started[0]!.instructionsSha256);
    expect(started[1]!.toolboxDigest).toBe(started[0]!.toolboxDigest);
    const log = fakeAgentLog(dataDir);
    const news = log.filter((entry) => entry.method === 'session/new');
    expect(news.map((entry) => (entry.mcpServers as Array<{ name: string }>).map((mcp) => mcp.name))).toEqual([
      ['everything'],
      ['everything'],
    ]);
  });

  it("an agent the conversation passes back to gets the choices the person made for it, not the other agent's", async () => {
    const dataDir = tempDir('switch');
    registerFakeAgents(dataDir, [
      { name: 'Fake', options: { sessions: true, models: ['small', 'large'] } },
      { name: 'Fake Two', options: { sessions: true, models: ['tiny', 'huge'] } },
    ]);
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    hosts.push(host);
    const { conversationId } = host.conversations.create(ONE, tempDir('work'));
    await ask(host, conversationId, 'hello');
    await host.conversations.chooseOption(conversationId, 'model', 'large');
    await ask(host, conversationId, 'over to you', TWO);
    await host.conversations.chooseOption(conversationId, 'model', 'huge');
    const model = () => host.store.getContext(conversationId).sessionOptions.find((option) => option.id === 'model')?.currentValue;
    expect(model()).toBe('huge');
    // Back to Fake in a process of its own (the other agent's process does not carry its session): its own choice is applied again.
    await host.sessions.release(conversationId);
    const back = await ask(host, conversationId, 'back to you', ONE);
    expect(back.status).toBe('completed');
    expect(model()).toBe('large');
  });

  it('is refused while a turn runs, and for an agent that cannot take the conversation (nothing committed)', async () => {
    const host = open(tempDir('switch'), agentHome('gemini', 'http://127.0.0.1:9'));
    const { conversationId } = host.conversations.create(ONE, tempDir('work'), '', { text: 'Add this.', intent: 'append' });
    await host.turns.send(conversationId, 'slow');
    await expect(host.turns.send(conversationId, 'now you', TWO)).rejects.toThrow(expect.objectContaining({ code: 'TurnInProgress' }));
    await host.turns.cancel(conversationId);
    await host.turns.idle();
    const before = host.store.readEvents(conversationId).events.length;
    let refused: unknown;
    try {
      await host.turns.send(conversationId, 'over to Gemini', 'gemini');
    } catch (error) {
      refused = error;
    }
    // Gemini cannot add to its prompt (or, without it installed, is not there at all): refused before anything is written.
    expect(refused).toBeInstanceOf(BatonError);
    expect(['UnsupportedInput', 'AgentNotInstalled']).toContain((refused as BatonError).code);
    expect(host.store.readEvents(conversationId).events.length).toBe(before);
    expect(host.store.getSummary(conversationId).agentId).toBe(ONE);
  });
});

describe('option choices across a switch', () => {
  const mode = (values: string[], current: string) => ({
    id: 'mode',
    name: 'Mode',
    category: 'mode',
    type: 'select' as const,
    currentValue: current,
    options: values.map((value) => ({ value, name: value[0]!.toUpperCase() + value.slice(1) })),
  });
  it('carry over where the new agent has an equivalent, say which did not, and never override a choice made for the new agent', () => {
    const from = {
      options: [
        mode(['ask', 'plan'], 'plan'),
        {
          id: 'effort',
          name: 'Reasoning',
          category: 'thought_level',
          type: 'select' as const,
          currentValue: 'high',
          options: [{ value: 'high', name: 'High' }],
        },
      ],
      chosen: { mode: 'plan', effort: 'high' },
    };
    const to = [{ ...mode(['default', 'plan'], 'default'), id: 'session_mode' }];
    expect(equivalentChoices(from, to, {})).toEqual({
      apply: [{ optionId: 'session_mode', value: 'plan' }],
      carried: ['Mode: Plan'],
      notCarried: ['Reasoning: High'],
    });
    expect(equivalentChoices(from, to, { session_mode: 'default' }).apply).toEqual([]);
  });
});
