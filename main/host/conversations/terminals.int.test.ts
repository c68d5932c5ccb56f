/** Client terminals through a real ACP child process (the fake agent): output, limits, kill, release, and cleanup when the session ends. */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { until } from '../../../e2e/fixtures/until.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { groupHasLiveMembers } from '../machine/ProcessGroup.js';

/** Commands run on this computer. */
const here = new LocalMachine(definedEnv(process.env));
import { OutputBuffer, SessionTerminals } from './SessionTerminals.js';

/** True while `pid` runs; a zombie (ended, waiting for this container's init to reap it) does not count. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('the output buffer', () => {
  it('keeps the newest bytes and never splits a character', () => {
    const buffer = new OutputBuffer(7);
    buffer.push(Buffer.from('ab'));
    expect(buffer.text()).toBe('ab');
    expect(buffer.truncated).toBe(false);
    buffer.push(Buffer.from('€€€'));
    // 11 bytes in, 7 kept: the last byte of the first € and two whole ones; the stray byte is not shown.
    expect(buffer.text()).toBe('€€');
    expect(buffer.truncated).toBe(true);
    // A character still arriving is not shown half-written.
    const partial = new OutputBuffer(100);
    partial.push(Buffer.from('x€').subarray(0, 3));
    expect(partial.text()).toBe('x');
  });
});

describe('terminals the agent reports itself', () => {
  it('are announced once and recorded within the same bound', () => {
    const terminals = new SessionTerminals({ machine: here, cwd: '/', env: {}, record: () => {}, turnId: () => 't' });
    const started = { type: 'terminal.started' as const, payload: { terminalId: 'x', command: '', cwd: '' } };
    expect(terminals.boundReported([started])).toHaveLength(1);
    expect(terminals.boundReported([started])).toHaveLength(0);
    const big = 'y'.repeat(200 * 1024);
    const kept = terminals.boundReported([
      { type: 'terminal.output', payload: { terminalId: 'x', text: big } },
      { type: 'terminal.output', payload: { terminalId: 'x', text: big } },
      { type: 'terminal.exited', payload: { terminalId: 'x', exitCode: 0, signal: null, truncated: false } },
    ]);
    expect(kept.map((draft) => (draft.type === 'terminal.output' ? draft.payload.text.length : draft.type))).toEqual([
      200 * 1024,
      56 * 1024,
      'terminal.exited',
    ]);
    expect(kept.at(-1)).toMatchObject({ payload: { truncated: true } });
  });
});

describe("a terminal's working directory", () => {
  it("must be inside the conversation's folder, symlinks resolved", async () => {
    const work = tempDir('terminal-root');
    const outside = tempDir('terminal-outside');
    mkdirSync(path.join(work, 'sub'));
    symlinkSync(outside, path.join(work, 'way-out'));
    const terminals = new SessionTerminals({
      machine: here,
      cwd: work,
      env: definedEnv(process.env),
      record: () => {},
      turnId: () => undefined,
    });
    for (const cwd of ['/', outside, path.join(work, 'way-out'), path.join(work, '..')]) {
      await expect(terminals.create({ command: 'true', cwd })).rejects.toThrow('outside this conversation');
    }
    const inside = await terminals.create({ command: 'true', cwd: path.join(work, 'sub') });
    expect(inside).toMatch(/^term-/);
    await terminals.dispose();
  });

  it('is looked at on the machine the command runs on', async () => {
    const work = tempDir('terminal-machine');
    const asked: string[] = [];
    // This computer, saying what it is asked about its files.
    const there = new Proxy(here, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name, target);
        if (name === 'stat' || name === 'realpath') {
          return (file: string) => {
            asked.push(`${name} ${file}`);
            return (value as (file: string) => Promise<unknown>).call(target, file);
          };
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const terminals = new SessionTerminals({
      machine: there,
      cwd: work,
      env: definedEnv(process.env),
      record: () => {},
      turnId: () => undefined,
    });
    await terminals.create({ command: 'true' });
    expect(asked).toEqual([`stat ${work}`, `realpath ${work}`, `realpath ${work}`]);
    await expect(terminals.create({ command: 'true', cwd: path.join(work, 'gone') })).rejects.toThrow(
      `The working directory does not exist: ${path.join(work, 'gone')}`,
    );
    await terminals.dispose();
  });
});

describe('terminal output handed to the agent', () => {
  it('has the known secrets taken out, so they never reach its model', async () => {
    const work = tempDir('terminal-redact');
    const terminals = new SessionTerminals({
      machine: here,
      cwd: work,
      env: { ...definedEnv(process.env), SERVICE_TOKEN: 'marker-terminal-secret-42' },
      record: () => {},
      turnId: () => undefined,
      redact: (text) => text.split('marker-terminal-secret-42').join('[secret redacted by Baton]'),
    });
    const terminalId = await terminals.create({
      command: process.execPath,
      args: ['-e', 'console.log("token=" + process.env.SERVICE_TOKEN)'],
    });
    await terminals.waitForExit(terminalId);
    expect(terminals.output(terminalId).output).toBe('token=[secret redacted by Baton]\n');
    await terminals.dispose();
  });
});

describe('client terminals', () => {
  let dataDir: string;
  let host: Host;

  const transcript = (conversationId: string): TranscriptState =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
  const reply = (state: TranscriptState): string => state.items.flatMap((item) => (item.kind === 'agent' ? [item.text] : [])).join('');

  beforeEach(() => {
    dataDir = tempDir('terminals');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, env: definedEnv(process.env) });
  });

  afterEach(async () => {
    await host.dispose();
  });

  async function run(text: string): Promise<{ conversationId: string; state: TranscriptState }> {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    await host.turns.send(conversationId, text);
    await host.turns.idle();
    return { conversationId, state: transcript(conversationId) };
  }

  it('runs a command, gives the agent its output and exit code, and records both in the transcript', async () => {
    const { state } = await run('terminal echo');
    expect(reply(state)).toMatch(/^Exit 3 \(3\), truncated false, \d+ bytes: /);
    expect(reply(state)).toContain('héllo from the terminal');
    expect(reply(state)).toContain('and from stderr');
    const tool = state.items.find((item) => item.kind === 'tool');
    expect(tool).toMatchObject({ kind: 'tool', status: 'completed', content: [{ type: 'terminal' }] });
    const terminalId = tool?.kind === 'tool' && tool.content[0]?.type === 'terminal' ? tool.content[0].terminalId : '';
    expect(state.terminals[terminalId]).toMatchObject({ exit: { exitCode: 3, signal: null }, truncated: false });
    expect(state.terminals[terminalId]?.command).toContain('-e');
    expect(state.terminals[terminalId]?.output).toContain('héllo from the terminal');
  });

  it('honours the output byte limit at a character boundary', async () => {
    const { state } = await run('terminal limit');
    // 100 × "é" (200 bytes) into 51: 25 whole characters are kept.
    expect(reply(state)).toBe(`Exit 0 (0), truncated true, 50 bytes: ${'é'.repeat(25)}`);
    // The transcript keeps everything (far below its own bound).
    expect(Object.values(state.terminals)[0]?.output).toBe('é'.repeat(100));
  });

  it('kill ends the process group but keeps the output readable until release', async () => {
    const { state } = await run('terminal kill');
    const match = /^Killed: pids (\d+) (\d+); signal (\w+); output kept true; after release gone \(-32002\)$/.exec(reply(state));
    expect(match, reply(state)).not.toBeNull();
    const [leader, child] = [Number(match![1]), Number(match![2])];
    await until(() => !alive(leader) && !groupHasLiveMembers(leader));
    expect(alive(child)).toBe(false);
    expect(Object.values(state.terminals)[0]?.exit?.signal).toBe(match![3]);
  });

  it('a terminal left running ends with its session', async () => {
    const { conversationId, state } = await run('terminal keep');
    const match = /^Running: pids (\d+) (\d+)$/.exec(reply(state));
    expect(match, reply(state)).not.toBeNull();
    const [leader, child] = [Number(match![1]), Number(match![2])];
    expect(alive(leader) && alive(child)).toBe(true);
    await host.turns.release(conversationId);
    await until(() => !groupHasLiveMembers(leader));
    expect(alive(child)).toBe(false);
    // The transcript says how it ended.
    await until(() => Object.values(transcript(conversationId).terminals)[0]?.exit !== undefined);
  });

  it('a command that does not exist is refused with an error to the agent', async () => {
    const { state } = await run('terminal missing');
    expect(reply(state)).toBe('Terminal refused (-32603): Command not found: no-such-command-for-baton-tests');
  });
});
