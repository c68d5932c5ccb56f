/**
 * Injectors on real files and through a real ACP child process (the fake agent, which echoes
 * the prompt blocks it got): folders confined to themselves, a manifest read as data only,
 * per-turn context as embedded resources on the turns it belongs to, every-turn instructions in
 * the session's bundle, refusals before any prompt, known secrets redacted, and every
 * contribution recorded apart from the person's message.
 */
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { dataFolderBytes, writeInjector } from '../../../e2e/fixtures/dataFiles.js';
import { FAKE_AGENT_ID, fakeAgentProcesses, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { injectorUri, type BrokenInjector, type Injector } from '../../../app/instructions/injectors.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { folderReader, parseInjector, readInjectorFolders } from './injectorFiles.js';
import { personInjectorFolder } from './InjectorRegistry.js';

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.dispose()));
});

const thisComputer = new LocalMachine(definedEnv(process.env));

async function read(dir: string): Promise<Injector | BrokenInjector> {
  return parseInjector(path.basename(dir), 'data', dir, await folderReader(thisComputer, dir));
}

describe('an injector folder', () => {
  it('with only INSTRUCTIONS.md is a static every-turn injector named by its folder', async () => {
    const dir = writeInjector(tempDir('injectors'), 'house-style', { 'INSTRUCTIONS.md': 'Use British spelling.' });
    expect(await read(dir)).toMatchObject({
      name: 'house-style',
      when: 'every_turn',
      instructions: 'Use British spelling.',
      context: [],
      ignored: [],
    });
  });

  it('reads its manifest as data: the files it names, and nothing from keys Baton does not know (tools, permissions, code)', async () => {
    const dir = writeInjector(tempDir('injectors'), 'api', {
      'manifest.json': {
        name: 'api',
        description: 'API notes',
        when: 'on_input',
        match: '\\bapi\\b',
        instructions: 'rules.md',
        context: ['docs/endpoints.md'],
        tools: [{ name: 'rm' }],
        permissions: { allow: '*' },
        code: 'index.js',
      },
      'rules.md': 'Follow the API rules.',
      'docs/endpoints.md': 'GET /items',
      'index.js': 'process.exit(1)',
    });
    expect(await read(dir)).toEqual({
      name: 'api',
      description: 'API notes',
      when: 'on_input',
      match: '\\bapi\\b',
      origin: 'data',
      folder: dir,
      instructions: 'Follow the API rules.',
      context: [{ file: 'docs/endpoints.md', text: 'GET /items' }],
      ignored: ['tools', 'permissions', 'code'],
    });
  });

  it.each([
    ['../outside.md', /"\.\.\/outside\.md" climbs out of the injector's folder/],
    ['/etc/passwd', /"\/etc\/passwd" is an absolute path/],
    ['link.md', /"link\.md" leads outside the injector's folder \(through a symbolic link\)/],
    ['missing.md', /"missing\.md" is missing/],
  ])('refuses a manifest naming %s, with an error naming the file', async (file, problem) => {
    const parent = tempDir('injectors');
    writeFileSync(path.join(parent, 'outside.md'), 'OUTSIDE TEXT');
    const dir = writeInjector(parent, 'escape', { 'manifest.json': { name: 'escape', when: 'every_turn', context: [file] } });
    symlinkSync(path.join(parent, 'outside.md'), path.join(dir, 'link.md'));
    const result = await read(dir);
    expect(result).toMatchObject({ name: 'escape', problem: expect.stringMatching(problem) });
    expect(JSON.stringify(result)).not.toContain('OUTSIDE TEXT');
  });

  it('with a bad manifest says what is wrong with it', async () => {
    const parent = tempDir('injectors');
    writeInjector(parent, 'a', { 'manifest.json': '{ not json' });
    writeInjector(parent, 'b', { 'manifest.json': { name: 'b', when: 'sometimes' } });
    writeInjector(parent, 'c', { 'manifest.json': { name: 'c', when: 'on_input', match: '(' } });
    writeInjector(parent, 'd', { 'notes.txt': 'nothing to read' });
    const problems = (await readInjectorFolders(thisComputer, parent, 'data')).map((entry) =>
      'problem' in entry ? entry.problem : 'usable',
    );
    expect(problems).toEqual([
      expect.stringMatching(/"manifest\.json" is not valid JSON/),
      expect.stringMatching(/"manifest\.json": when: /),
      expect.stringMatching(/match is not a valid regular expression/),
      'the folder has neither manifest.json nor INSTRUCTIONS.md',
    ]);
  });
});

function openHost(options: Parameters<typeof registerFakeAgent>[1] = {}): { host: Host; dataDir: string } {
  const dataDir = tempDir('injector-host');
  registerFakeAgent(dataDir, options);
  const host = new Host({ dataDir, env: definedEnv(process.env) });
  hosts.push(host);
  return { host, dataDir };
}

function transcript(host: Host, conversationId: string): TranscriptState {
  return reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
}

/** Sends `text` and returns the turn's state and the fake agent's reply. */
async function ask(host: Host, conversationId: string, text: string) {
  const { turnId } = await host.turns.send(conversationId, text);
  await host.turns.idle();
  const state = transcript(host, conversationId);
  const reply = state.items
    .filter((item) => item.kind === 'agent' && item.turnId === turnId)
    .map((item) => (item.kind === 'agent' ? item.text : ''))
    .join('');
  return { state, turnId, reply, status: state.turns[turnId]?.status };
}

type Block = { type: string; text?: string; resource?: { uri: string; mimeType: string; text: string } };
const blocksOf = (reply: string): Block[] => JSON.parse(reply.replace(/^Blocks: /, '')) as Block[];

describe('injectors in a conversation with the fake agent', () => {
  it('first_turn context travels as an embedded resource on turn 1 only; on_input only on matching turns; each is recorded apart', async () => {
    const { host, dataDir } = openHost({ embeddedContext: true });
    const mine = personInjectorFolder(dataDir);
    writeInjector(mine, 'onboarding', {
      'manifest.json': { name: 'onboarding', when: 'first_turn', instructions: 'intro.md', context: ['map.md'] },
      'intro.md': 'FIRST-TURN-MARKER',
      'map.md': 'src/ holds the code',
    });
    writeInjector(mine, 'deploys', {
      'manifest.json': { name: 'deploys', when: 'on_input', match: '\\bdeploy\\b', instructions: 'deploy.md' },
      'deploy.md': 'ON-INPUT-MARKER',
    });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', undefined, undefined, {
      names: ['onboarding', 'deploys'],
      off: false,
    });

    const first = await ask(host, conversationId, 'blocks? hello');
    expect(first.status).toBe('completed');
    const firstBlocks = blocksOf(first.reply);
    expect(firstBlocks).toEqual([
      {
        type: 'resource',
        resource: {
          uri: injectorUri('onboarding', 1),
          mimeType: 'text/markdown',
          text: 'FIRST-TURN-MARKER\n\n## map.md\n\nsrc/ holds the code',
        },
      },
      { type: 'text', text: 'blocks? hello' },
    ]);

    const second = await ask(host, conversationId, 'blocks? please deploy it');
    expect(blocksOf(second.reply)).toEqual([
      { type: 'resource', resource: { uri: injectorUri('deploys', 2), mimeType: 'text/markdown', text: 'ON-INPUT-MARKER' } },
      { type: 'text', text: 'blocks? please deploy it' },
    ]);
    const third = await ask(host, conversationId, 'blocks? nothing to see');
    expect(blocksOf(third.reply)).toEqual([{ type: 'text', text: 'blocks? nothing to see' }]);

    // Recorded as injected context, ahead of the person's message and never inside it.
    const items = third.state.items;
    const injected = items.filter((item) => item.kind === 'injected');
    expect(injected.map((item) => [item.turnId, item.injector, item.timing, item.level, item.uri])).toEqual([
      [first.turnId, 'onboarding', 'first_turn', 'per-turn resource', injectorUri('onboarding', 1)],
      [second.turnId, 'deploys', 'on_input', 'per-turn resource', injectorUri('deploys', 2)],
    ]);
    const users = items.filter((item) => item.kind === 'user');
    expect(users.map((item) => item.text)).toEqual(['blocks? hello', 'blocks? please deploy it', 'blocks? nothing to see']);
    expect(items.indexOf(injected[0]!)).toBe(items.indexOf(users[0]!) - 1);
    const markdown = host.history.export(conversationId, 'markdown').content;
    expect(markdown).toContain('Injected context: onboarding (first turn, per-turn resource; not typed by you)');
  });

  it('every_turn instructions join the session bundle (system level) on every turn and are recorded so', async () => {
    const { host, dataDir } = openHost({ sessionInstructions: true, embeddedContext: true });
    writeInjector(personInjectorFolder(dataDir), 'tone', { 'INSTRUCTIONS.md': 'EVERY-TURN-MARKER' });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', undefined, undefined, {
      names: ['tone'],
      off: false,
    });
    for (const turn of [1, 2]) {
      const { reply, state, turnId } = await ask(host, conversationId, 'instructions?');
      expect(JSON.parse(reply.replace(/^Instructions: /, ''))).toMatchObject({ append: expect.stringContaining('EVERY-TURN-MARKER') });
      expect(
        state.items.find((item) => item.kind === 'injected' && item.turnId === turnId),
        `turn ${turn}`,
      ).toMatchObject({ injector: 'tone', timing: 'every_turn', level: 'system', text: 'EVERY-TURN-MARKER' });
    }
    const started = host.store.readEvents(conversationId).events.filter((event) => event.type === 'turn.started');
    expect(
      started.map((event) =>
        event.type === 'turn.started' ? event.payload.instructionSources?.find((source) => source.source === 'injector')?.name : undefined,
      ),
    ).toEqual(['tone', 'tone']);
    // The switch turns them all off from the next turn.
    host.conversations.setInjectors(conversationId, { names: ['tone'], off: true });
    const off = await ask(host, conversationId, 'instructions?');
    expect(off.reply).not.toContain('EVERY-TURN-MARKER');
  });

  it('an unknown or vanished name fails the turn with the typed error naming it, before any agent starts', async () => {
    const { host, dataDir } = openHost({ embeddedContext: true });
    const dir = writeInjector(personInjectorFolder(dataDir), 'brief', { 'INSTRUCTIONS.md': 'Be brief.' });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', undefined, undefined, {
      names: ['brief', 'no-such-injector'],
      off: false,
    });
    const unknown = await ask(host, conversationId, 'hello');
    expect(unknown.status).toBe('failed');
    expect(unknown.state.items.at(-1)).toMatchObject({
      kind: 'notice',
      severity: 'error',
      error: { code: 'InjectorUnavailable', details: { name: 'no-such-injector' } },
    });
    expect(fakeAgentProcesses(dataDir)).toEqual([]);
    host.conversations.setInjectors(conversationId, { names: ['brief'], off: false });
    rmSync(dir, { recursive: true });
    const vanished = await ask(host, conversationId, 'hello');
    expect(vanished.state.items.at(-1)).toMatchObject({
      kind: 'notice',
      error: { code: 'InjectorUnavailable', details: { name: 'brief' } },
    });
    expect(fakeAgentProcesses(dataDir)).toEqual([]);
  });

  it('an injector whose manifest names a file outside its folder fails the turn, naming the file', async () => {
    const { host, dataDir } = openHost({ embeddedContext: true });
    writeInjector(personInjectorFolder(dataDir), 'escape', {
      'manifest.json': { name: 'escape', when: 'every_turn', context: ['../../baton.db'] },
    });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', undefined, undefined, {
      names: ['escape'],
      off: false,
    });
    const { status, state } = await ask(host, conversationId, 'hello');
    expect(status).toBe('failed');
    expect(state.items.at(-1)).toMatchObject({
      error: { code: 'InjectorUnavailable', message: expect.stringContaining('"../../baton.db" climbs out') },
    });
  });

  it('per-turn context for an agent without embedded context is refused, unless the person lets it travel as labelled text', async () => {
    const { host, dataDir } = openHost();
    writeInjector(personInjectorFolder(dataDir), 'kickoff', {
      'manifest.json': { name: 'kickoff', when: 'on_input', instructions: 'k.md' },
      'k.md': 'KICKOFF-MARKER',
    });
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'), '', undefined, undefined, {
      names: ['kickoff'],
      off: false,
    });
    const refused = await ask(host, conversationId, 'blocks?');
    expect(refused.status).toBe('failed');
    expect(refused.state.items.at(-1)).toMatchObject({
      error: { code: 'UnsupportedInput', details: { agentName: 'Fake', input: 'context from the injector "kickoff"' } },
    });
    expect(refused.reply).toBe('');

    host.instructions.setAgent(FAKE_AGENT_ID, { contextAsText: true });
    const allowed = await ask(host, conversationId, 'blocks?');
    const blocks = blocksOf(allowed.reply);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(
        new RegExp(`^<injected-context source="${injectorUri('kickoff', 2)}">[\\s\\S]*KICKOFF-MARKER[\\s\\S]*</injected-context>$`),
      ),
    });
    expect(allowed.state.items.find((item) => item.kind === 'injected')).toMatchObject({ level: 'per-turn text' });
  });

  it('known secrets are redacted from injector output before it is sent or recorded', async () => {
    const marker = 'INJECTOR-SECRET-5be1d0c9';
    const { host, dataDir } = openHost({ embeddedContext: true });
    host.toolbox.addServer({
      name: 'vault',
      transport: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: [{ name: 'Authorization', value: marker, secret: true }],
    });
    const work = tempDir('work');
    writeInjector(path.join(work, '.agents', 'instructions'), 'leaky', {
      'manifest.json': { name: 'leaky', when: 'first_turn', context: ['env.md'] },
      'env.md': `token=${marker}`,
    });
    const projects = host.instructions.projects;
    await projects.trust({ machine: host.machine, cwd: work }, (await projects.read({ machine: host.machine, cwd: work })).sha256!);
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work, '', undefined, [], { names: ['leaky'], off: false });
    const { reply, status } = await ask(host, conversationId, 'blocks?');
    expect(status).toBe('completed');
    expect(reply).toContain('token=[secret redacted by Baton]');
    expect(reply).not.toContain(marker);
    await host.dispose();
    const bytes = dataFolderBytes(dataDir);
    expect(bytes).toContain('secret redacted by Baton');
    expect(bytes).not.toContain(marker);
  });
});
