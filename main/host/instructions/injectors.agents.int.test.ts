/**
 * Injectors and folder trust with real agents, read back from what the model stub was sent:
 * first-turn context in turn 1's new user message only, every-turn instructions in the system
 * channel of every turn, on-input context only on matching turns, an unknown name or a path
 * escape failing the turn with no model request; and a hostile folder contributing nothing
 * until trusted, and nothing new after a change until trusted again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, agentUnavailable, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { dataFolderBytes, writeInjector } from '../../../e2e/fixtures/dataFiles.js';
import { startModelStub, type ModelStub, type NormalizedRequest } from '../../../e2e/fixtures/modelStub.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host } from '../Host.js';
import { personInjectorFolder } from './InjectorRegistry.js';

const TURN_TIMEOUT = 180_000;

function transcript(host: Host, conversationId: string): TranscriptState {
  return reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
}

/**
 * The model requests of the turn whose new user message carries `text` (OpenCode's request to
 * its small model for a title is not the agent's turn).
 */
function turnRequests(stub: ModelStub, text: string): NormalizedRequest[] {
  return stub
    .modelRequests()
    .filter((request) => request.lastUserText.includes(text) && !request.system.startsWith('You are a title generator'));
}

async function ask(host: Host, conversationId: string, text: string) {
  const { turnId } = await host.turns.send(conversationId, text);
  await host.turns.idle();
  const state = transcript(host, conversationId);
  return { state, turnId, status: state.turns[turnId]?.status, last: state.items.at(-1) };
}

/** Each agent, and whether it can take additions to its system prompt (Gemini can only have it replaced). */
describe.each([
  ['claude', true],
  ['opencode', true],
  ['gemini', false],
] as const)('injectors with %s', (agent, appends) => {
  const skip = agentUnavailable(agent);
  let stub: ModelStub;
  const hosts: Host[] = [];
  beforeAll(async () => {
    stub = await startModelStub();
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.dispose()));
  });
  afterAll(async () => {
    await stub.close();
  });

  function open(): { host: Host; mine: string } {
    const dataDir = tempDir(`injectors-${agent}`);
    const host = new Host({ dataDir, env: agentHome(agent, stub.url) });
    hosts.push(host);
    return { host, mine: personInjectorFolder(dataDir) };
  }

  it.skipIf(skip)(
    withSkipReason('first_turn in turn 1 only, every_turn in the system channel of every turn, on_input only on matching turns', skip),
    async () => {
      const { host, mine } = open();
      const first = `FIRST-${agent}-7c1`;
      const every = `EVERY-${agent}-3d9`;
      const input = `INPUT-${agent}-e42`;
      writeInjector(mine, 'kickoff', {
        'manifest.json': { name: 'kickoff', when: 'first_turn', context: ['notes.md'] },
        'notes.md': `Project notes: ${first}`,
      });
      writeInjector(mine, 'style', { 'INSTRUCTIONS.md': `Sign every answer with ${every}.` });
      writeInjector(mine, 'deploys', {
        'manifest.json': { name: 'deploys', when: 'on_input', match: '\\bdeploy\\b', instructions: 'd.md' },
        'd.md': `Deploy checklist: ${input}`,
      });
      const { conversationId } = host.conversations.create(agent, tempDir(`${agent}-work`), '', undefined, undefined, {
        names: ['kickoff', 'style', 'deploys'],
        off: false,
      });
      if (!appends) {
        // Every-turn instructions need a channel that adds to the system prompt: refused, naming why, before the model is asked.
        const before = stub.modelRequests().length;
        const refused = await ask(host, conversationId, `refused ${agent}`);
        expect(refused.last).toMatchObject({
          error: { code: 'UnsupportedInput', details: { input: 'instructions to add to its prompt' } },
        });
        expect(stub.modelRequests().length).toBe(before);
        host.conversations.setInjectors(conversationId, { names: ['kickoff', 'deploys'], off: false });
      }

      const messages = [`turn one ${agent}`, `turn two, please deploy ${agent}`, `turn three ${agent}`];
      for (const message of messages) {
        const { status, last } = await ask(host, conversationId, message);
        expect(status, JSON.stringify(last)).toBe('completed');
      }
      const [one, two, three] = messages.map((message) => turnRequests(stub, message));
      for (const [index, requests] of [one, two, three].entries()) {
        expect(requests!.length, `turn ${index + 1} reached the model`).toBeGreaterThan(0);
        for (const request of requests!) {
          expect(request.system.includes(every)).toBe(appends);
          expect(request.lastUserText.includes(first)).toBe(index === 0);
          expect(request.lastUserText.includes(input)).toBe(index === 1);
        }
      }
      // The person's messages stay exactly what they typed; the contributions are recorded apart.
      const state = transcript(host, conversationId);
      expect(
        state.items
          .filter((item) => item.kind === 'user')
          .map((item) => item.text)
          .slice(-3),
      ).toEqual(messages);
      const style = appends ? ['style:system'] : [];
      expect(state.items.filter((item) => item.kind === 'injected').map((item) => `${item.injector}:${item.level}`)).toEqual([
        'kickoff:per-turn resource',
        ...style,
        ...style,
        'deploys:per-turn resource',
        ...style,
      ]);
    },
    TURN_TIMEOUT,
  );

  it.skipIf(skip)(
    withSkipReason('an unknown name, or a manifest naming a file outside its folder, fails the turn with no model request', skip),
    async () => {
      const { host, mine } = open();
      writeInjector(mine, 'escape', { 'manifest.json': { name: 'escape', when: 'every_turn', context: ['../../baton.db'] } });
      for (const [name, code] of [
        ['no-such-injector', /no injector of that name/],
        ['escape', /"\.\.\/\.\.\/baton\.db" climbs out/],
      ] as const) {
        const before = stub.modelRequests().length;
        const { conversationId } = host.conversations.create(agent, tempDir(`${agent}-work`), '', undefined, undefined, {
          names: [name],
          off: false,
        });
        const { status, last } = await ask(host, conversationId, `refused ${name} ${agent}`);
        expect(status).toBe('failed');
        expect(last).toMatchObject({
          kind: 'notice',
          error: { code: 'InjectorUnavailable', details: { name }, message: expect.stringMatching(code) },
        });
        expect(stub.modelRequests().length).toBe(before);
      }
    },
    TURN_TIMEOUT,
  );
});

describe('a hostile working folder with Claude', () => {
  const skip = agentUnavailable('claude');
  it.skipIf(skip)(
    withSkipReason('contributes nothing until trusted, and nothing new after a change until trusted again', skip),
    async () => {
      const stub = await startModelStub();
      const host = new Host({ dataDir: tempDir('hostile'), env: agentHome('claude', stub.url) });
      try {
        const work = tempDir('hostile-work');
        mkdirSync(path.join(work, '.baton'));
        const write = (project: string, injector: string): void => {
          writeFileSync(path.join(work, '.baton', 'instructions.md'), project);
          writeInjector(path.join(work, '.agents', 'instructions'), 'evil', { 'INSTRUCTIONS.md': injector });
        };
        write('Obey HOSTILE-PROJECT-1.', 'Obey HOSTILE-INJECTOR-1.');
        const projects = host.instructions.projects;
        const plain = host.conversations.create('claude', work);
        const selecting = host.conversations.create('claude', work, '', undefined, undefined, { names: ['evil'], off: false });
        const systemOf = (message: string): string =>
          turnRequests(stub, message)
            .map((request) => request.system)
            .join('\n');

        // Untrusted: the folder's text reaches no request, and selecting its injector fails closed.
        expect((await ask(host, plain.conversationId, 'untrusted hello')).status).toBe('completed');
        expect(systemOf('untrusted hello')).not.toMatch(/HOSTILE/);
        const before = stub.modelRequests().length;
        const refused = await ask(host, selecting.conversationId, 'untrusted select');
        expect(refused.last).toMatchObject({ error: { code: 'InjectorUnavailable', details: { name: 'evil' } } });
        expect(stub.modelRequests().length).toBe(before);
        expect(JSON.stringify(stub.everyModelRequest())).not.toMatch(/HOSTILE/);

        // Trusted as read: both reach the system channel.
        await projects.trust({ machine: host.machine, cwd: work }, (await projects.read({ machine: host.machine, cwd: work })).sha256!);
        expect((await ask(host, selecting.conversationId, 'trusted hello')).status).toBe('completed');
        expect(systemOf('trusted hello')).toContain('HOSTILE-PROJECT-1');
        expect(systemOf('trusted hello')).toContain('HOSTILE-INJECTOR-1');

        // Changed on disk (a pull): the trusted text is still the one used, and the change is listed.
        write('Obey HOSTILE-PROJECT-2.', 'Obey HOSTILE-INJECTOR-2.');
        expect(await projects.read({ machine: host.machine, cwd: work })).toMatchObject({
          state: 'changed',
          changes: [
            path.join('.baton', 'instructions.md') + ' changed',
            path.join('.agents', 'instructions', 'evil', 'INSTRUCTIONS.md') + ' changed',
          ],
        });
        expect((await ask(host, selecting.conversationId, 'changed hello')).status).toBe('completed');
        expect(systemOf('changed hello')).toContain('HOSTILE-PROJECT-1');
        expect(systemOf('changed hello')).toContain('HOSTILE-INJECTOR-1');
        expect(JSON.stringify(stub.everyModelRequest())).not.toMatch(/HOSTILE-(PROJECT|INJECTOR)-2/);

        // Trusted again: the new text from then on; untrusted: nothing again.
        await projects.trust({ machine: host.machine, cwd: work }, (await projects.read({ machine: host.machine, cwd: work })).sha256!);
        expect((await ask(host, selecting.conversationId, 'retrusted hello')).status).toBe('completed');
        expect(systemOf('retrusted hello')).toContain('HOSTILE-INJECTOR-2');
        await projects.untrust({ machine: host.machine, cwd: work });
        expect((await ask(host, plain.conversationId, 'untrusted again')).status).toBe('completed');
        expect(systemOf('untrusted again')).not.toMatch(/HOSTILE/);
      } finally {
        await host.dispose();
        await stub.close();
      }
    },
    300_000,
  );
});

describe('a secret in an injector with Claude', () => {
  const skip = agentUnavailable('claude');
  it.skipIf(skip)(
    withSkipReason(
      'is redacted: the marker reaches neither the model stub nor any file of the data folder (the SQLite file and its WAL included)',
      skip,
    ),
    async () => {
      const marker = 'INJECTOR-SECRET-MARKER-41aa7e';
      const stub = await startModelStub();
      const dataDir = tempDir('injector-secret');
      const host = new Host({ dataDir, env: agentHome('claude', stub.url) });
      try {
        // A toolbox secret Baton knows; the conversation does not even use that server.
        host.toolbox.addServer({
          name: 'vault',
          transport: 'http',
          url: 'http://127.0.0.1:9/mcp',
          headers: [{ name: 'Authorization', value: marker, secret: true }],
        });
        const work = tempDir('injector-secret-work');
        writeInjector(path.join(work, '.agents', 'instructions'), 'leaky', {
          'manifest.json': { name: 'leaky', when: 'every_turn', instructions: 'rules.md', context: ['env.md'] },
          'rules.md': `Use the key ${marker} when asked.`,
          'env.md': `API_TOKEN=${marker}`,
        });
        const projects = host.instructions.projects;
        await projects.trust({ machine: host.machine, cwd: work }, (await projects.read({ machine: host.machine, cwd: work })).sha256!);
        const { conversationId } = host.conversations.create('claude', work, '', undefined, [], { names: ['leaky'], off: false });
        const { status, last } = await ask(host, conversationId, 'secret hello');
        expect(status, JSON.stringify(last)).toBe('completed');
        const requests = turnRequests(stub, 'secret hello');
        expect(requests.length).toBeGreaterThan(0);
        expect(requests[0]!.system).toContain('Use the key [secret redacted by Baton] when asked.');
        expect(requests[0]!.lastUserText).toContain('API_TOKEN=[secret redacted by Baton]');
        expect(JSON.stringify(stub.requests)).not.toContain(marker);
      } finally {
        await host.dispose();
        await stub.close();
      }
      const bytes = dataFolderBytes(dataDir);
      expect(bytes).not.toContain(marker);
      expect(bytes).toContain('[secret redacted by Baton]');
    },
    TURN_TIMEOUT,
  );
});
