/** Turns through a real ACP child process (the fake agent): permission, cancel, a crash mid-turn, recovery after a dead host. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { until } from '../../../e2e/fixtures/until.js';
import { FAKE_AGENT_ID, fakeAgentProcesses, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import type { PushEvent } from '../../../app/ipc/index.js';
import { emptyTranscript, reduceAll, type TranscriptState } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';
import { STOP_GRACE_MS } from './Turns.js';

describe('turns through a real ACP process', () => {
  let dataDir: string;
  let host: Host;
  let pushed: PushEvent[];

  const transcript = (conversationId: string): TranscriptState =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);

  beforeEach(() => {
    dataDir = tempDir('turns');
    registerFakeAgent(dataDir);
    host = new Host({ dataDir, env: definedEnv(process.env) });
    pushed = [];
    host.subscribe((event) => pushed.push(event));
  });

  afterEach(async () => {
    await host.dispose();
  });

  it('waits for the person before a tool runs and passes on exactly the option chosen', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const { turnId } = await host.turns.send(conversationId, 'please ask permission');
    const request = await until(() => transcript(conversationId).items.find((item) => item.kind === 'permission'));
    expect(request.kind === 'permission' && request.options.map((option) => option.name)).toEqual(['Allow once', 'Always allow', 'Reject']);

    // Nothing is approved on the person's behalf: the turn stays open.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(transcript(conversationId).turns[turnId]?.status).toBe('running');

    const answer = await host.handle('answerPermission', {
      conversationId,
      requestId: request.kind === 'permission' ? request.requestId : '',
      optionId: 'allow-always',
    });
    expect(answer.ok).toBe(true);
    await host.turns.idle();
    const state = transcript(conversationId);
    expect(state.turns[turnId]?.status).toBe('completed');
    expect(state.items.find((item) => item.kind === 'agent')).toMatchObject({ text: 'Permission granted (allow-always).' });
    expect(state.items.find((item) => item.kind === 'tool')).toMatchObject({ status: 'completed' });
  });

  it('refuses an option the agent did not offer', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    await host.turns.send(conversationId, 'permission please');
    const request = await until(() => transcript(conversationId).items.find((item) => item.kind === 'permission'));
    const requestId = request.kind === 'permission' ? request.requestId : '';
    const bad = await host.handle('answerPermission', { conversationId, requestId, optionId: 'sudo' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'InvalidRequest' } });
    await host.handle('answerPermission', { conversationId, requestId, optionId: 'reject' });
    await host.turns.idle();
    expect(transcript(conversationId).items.find((item) => item.kind === 'agent')).toMatchObject({ text: 'Permission denied.' });
  });

  it('Stop cancels the running turn through session/cancel and withdraws open questions', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const { turnId } = await host.turns.send(conversationId, 'be slow');
    await until(() =>
      transcript(conversationId).items.some((item) => item.kind === 'agent' && item.text.includes('word2')) ? true : undefined,
    );
    expect(await host.turns.cancel(conversationId)).toBe(true);
    await host.turns.idle();
    const state = transcript(conversationId);
    expect(state.turns[turnId]?.status).toBe('cancelled');
    expect(state.items.find((item) => item.kind === 'agent' && item.text.includes('word5999'))).toBeUndefined();
    expect(await host.turns.cancel(conversationId)).toBe(false);
  });

  it('an agent that dies mid-turn fails the turn with its stderr, and the next message starts it again', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const { turnId } = await host.turns.send(conversationId, 'crash now');
    await host.turns.idle();
    let state = transcript(conversationId);
    expect(state.turns[turnId]?.status).toBe('failed');
    const failure = state.items.find((item) => item.kind === 'notice' && item.severity === 'error');
    expect(failure && failure.kind === 'notice' ? failure.error : undefined).toMatchObject({
      code: 'AgentExited',
      details: { stderrTail: expect.stringContaining('simulated crash') },
    });

    const next = await host.turns.send(conversationId, 'are you back?');
    await host.turns.idle();
    state = transcript(conversationId);
    expect(state.turns[next.turnId]?.status).toBe('completed');
    expect(state.items.at(-1)).toMatchObject({ kind: 'agent', text: 'Fake reply: are you back?' });
  });

  it('a line of garbage or an unknown update from the agent is skipped; the turn completes', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const first = await host.turns.send(conversationId, 'garbage please');
    await host.turns.idle();
    const second = await host.turns.send(conversationId, 'unknown please');
    await host.turns.idle();
    const state = transcript(conversationId);
    expect(state.turns[first.turnId]?.status).toBe('completed');
    expect(state.turns[second.turnId]?.status).toBe('completed');
    expect(state.items.filter((item) => item.kind === 'agent').map((item) => item.kind === 'agent' && item.text)).toEqual([
      'Fine after garbage.',
      'Fine after an unknown update.',
    ]);
  });

  it('a 50 MiB message fails the turn as a protocol error, ends that agent, and the next message works', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const { turnId } = await host.turns.send(conversationId, 'huge please');
    await host.turns.idle();
    let state = transcript(conversationId);
    expect(state.turns[turnId]?.status).toBe('failed');
    expect(state.items.at(-1)).toMatchObject({
      kind: 'notice',
      error: { code: 'ProtocolError', message: expect.stringContaining('byte limit') },
    });
    await expect.poll(() => fakeAgentProcesses(dataDir).length, { timeout: 5_000 }).toBe(0);
    const next = await host.turns.send(conversationId, 'hello again');
    await host.turns.idle();
    state = transcript(conversationId);
    expect(state.turns[next.turnId]?.status).toBe('completed');
  }, 60_000);

  it('the agent reads and writes files in the session folder through Baton, and nowhere else', async () => {
    const work = tempDir('work');
    const outside = tempDir('outside');
    writeFileSync(path.join(work, 'inside.txt'), 'hello from inside');
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    const reply = async (text: string): Promise<string> => {
      await host.turns.send(conversationId, text);
      await host.turns.idle();
      const last = transcript(conversationId).items.at(-1);
      return last?.kind === 'agent' ? last.text : '';
    };
    expect(await reply(`read:${path.join(work, 'inside.txt')}`)).toBe('Read: hello from inside');
    expect(await reply(`read:${path.join(outside, 'secret.txt')}`)).toMatch(/^Refused \(-32602\): .*outside the session's folder/);
    expect(await reply(`write:${path.join(work, 'out', 'new.txt')}`)).toBe('Wrote it.');
    expect(readFileSync(path.join(work, 'out', 'new.txt'), 'utf8')).toBe('written by the fake agent');
    expect(await reply(`write:${path.join(outside, 'new.txt')}`)).toMatch(/^Refused \(-32602\)/);
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
  });

  it('Stop while the agent is still opening its session ends the turn at once, and lets the stuck agent go', async () => {
    const stuckData = tempDir('turns-hang-new');
    registerFakeAgent(stuckData, { extraArgs: ['--hang-new'] });
    const stuck = new Host({ dataDir: stuckData, env: definedEnv(process.env) });
    try {
      const { conversationId } = stuck.conversations.create(FAKE_AGENT_ID, tempDir('work'));
      const { turnId } = await stuck.turns.send(conversationId, 'hello');
      // Its process runs and has been asked for a session it never opens.
      await expect.poll(() => fakeAgentProcesses(stuckData).length, { timeout: 10_000 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pressed = Date.now();
      expect(await stuck.turns.cancel(conversationId)).toBe(true);
      await stuck.turns.idle();
      expect(Date.now() - pressed).toBeLessThan(STOP_GRACE_MS);
      const state = reduceAll(emptyTranscript(conversationId), stuck.store.readEvents(conversationId).events);
      expect(state.turns[turnId]?.status).toBe('cancelled');
      expect(state.items.find((item) => item.kind === 'notice')).toMatchObject({
        text: 'Stopped before Fake had opened its session; nothing was sent to it.',
      });
      // The process no one else used is ended with the request it never answered.
      await expect.poll(() => fakeAgentProcesses(stuckData), { timeout: 10_000 }).toEqual([]);
    } finally {
      await stuck.dispose();
    }
  }, 40_000);

  it('Baton closing while the agent is still opening its session says so after the restart, and the turn can be retried', async () => {
    const stuckData = tempDir('turns-hang-new-close');
    registerFakeAgent(stuckData, { extraArgs: ['--hang-new'] });
    let stuck = new Host({ dataDir: stuckData, env: definedEnv(process.env) });
    try {
      const { conversationId } = stuck.conversations.create(FAKE_AGENT_ID, tempDir('work'));
      const { turnId } = await stuck.turns.send(conversationId, 'hello');
      await expect.poll(() => fakeAgentProcesses(stuckData).length, { timeout: 10_000 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await stuck.dispose();
      stuck = new Host({ dataDir: stuckData, env: definedEnv(process.env) });
      const state = reduceAll(emptyTranscript(conversationId), stuck.store.readEvents(conversationId).events);
      // Not "exited unexpectedly", not the person's Stop: what happened, and a turn that can be retried.
      expect(state.turns[turnId]?.status).toBe('interrupted');
      expect(state.items.find((item) => item.kind === 'notice')).toMatchObject({
        text: 'Baton closed while Fake was still opening its session (it had not answered session/new), so Baton ended it; nothing was sent to it.',
      });
      expect(fakeAgentProcesses(stuckData)).toEqual([]);
    } finally {
      await stuck.dispose();
    }
  }, 40_000);

  it('an agent that ignores Stop is ended within a few seconds; the turn is cancelled and the next message works', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const { turnId } = await host.turns.send(conversationId, 'hang');
    await until(() => (transcript(conversationId).turns[turnId]?.status === 'running' ? true : undefined));
    expect(fakeAgentProcesses(dataDir)).toHaveLength(1);
    const pressed = Date.now();
    expect(await host.turns.cancel(conversationId)).toBe(true);
    await host.turns.idle();
    const took = Date.now() - pressed;
    expect(took).toBeGreaterThanOrEqual(STOP_GRACE_MS);
    expect(took).toBeLessThan(STOP_GRACE_MS + 4_000);
    const state = transcript(conversationId);
    expect(state.turns[turnId]?.status).toBe('cancelled');
    expect(state.items.find((item) => item.kind === 'notice' && item.severity === 'warning')).toMatchObject({
      text: expect.stringContaining('did not stop'),
    });
    await expect.poll(() => fakeAgentProcesses(dataDir), { timeout: 5_000 }).toEqual([]);

    const next = await host.turns.send(conversationId, 'hello again');
    await host.turns.idle();
    expect(transcript(conversationId).turns[next.turnId]?.status).toBe('completed');
    expect(transcript(conversationId).items.at(-1)).toMatchObject({ kind: 'agent', text: 'Fake reply: hello again' });
  }, 30_000);

  it('a second message while a reply is being written is refused, not queued silently', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    await host.turns.send(conversationId, 'slow please');
    const second = await host.handle('sendMessage', { conversationId, text: 'me again' });
    expect(second).toMatchObject({ ok: false, error: { code: 'TurnInProgress' } });
    await host.turns.cancel(conversationId);
    await host.turns.idle();
  });

  it('pushes each event only after it is committed, in commit order', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    // What was readable from the store at the moment each event was pushed; asserted after the turn
    // (a listener that throws is caught by the service, so asserting inside it could never fail).
    const seen: Array<{ seq: number; storedAtPush: boolean }> = [];
    host.subscribe((event) => {
      if (event.name === 'transcript') {
        const stored = host.store.readEnvelopes(conversationId).map((envelope) => envelope.seq);
        seen.push(...event.payload.events.map(({ seq }) => ({ seq, storedAtPush: stored.includes(seq) })));
      }
    });
    await host.turns.send(conversationId, 'hello');
    await host.turns.idle();
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.filter((entry) => !entry.storedAtPush)).toEqual([]);
    const seqs = seen.map((entry) => entry.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('shutting down mid-reply records the turn as cancelled and leaves no agent running', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const { turnId } = await host.turns.send(conversationId, 'slow again');
    await until(() => (transcript(conversationId).items.some((item) => item.kind === 'agent') ? true : undefined));
    const store = host.store;
    await host.stopAgents();
    const state = reduceAll(emptyTranscript(conversationId), store.readEvents(conversationId).events);
    expect(state.turns[turnId]?.status).toBe('cancelled');
    expect(fakeAgentProcesses(dataDir)).toEqual([]);
  });

  it('a turn left running by a dead host shows as interrupted after a restart', async () => {
    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
    const lastSeq = host.store.getSummary(conversationId).lastSeq;
    // What a host killed mid-turn leaves behind: a started turn and an unanswered question.
    host.store.append(conversationId, lastSeq, [
      { type: 'turn.started', payload: { turnId: 't1', agentId: FAKE_AGENT_ID, agentName: 'Fake', text: 'hi' } },
      {
        type: 'permission.requested',
        payload: { turnId: 't1', requestId: 'r1', title: 'Run it?', options: [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }] },
      },
    ]);
    await host.dispose();

    host = new Host({ dataDir, env: definedEnv(process.env) });
    const state = transcript(conversationId);
    expect(state.turns.t1?.status).toBe('interrupted');
    expect(state.activeTurnId).toBeNull();
    expect(state.items.find((item) => item.kind === 'permission')).toMatchObject({ decision: { optionId: null, by: 'turn-cancelled' } });
    expect(host.store.getSummary(conversationId).running).toBe(false);
  });
});

describe('logging in', () => {
  it('a turn that needs a log-in says how; logging in lets the next message through', async () => {
    const dataDir = tempDir('auth');
    registerFakeAgent(dataDir, { requireAuth: true });
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    try {
      const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('work'));
      const first = await host.turns.send(conversationId, 'hello');
      await host.turns.idle();
      let state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
      expect(state.turns[first.turnId]?.status).toBe('failed');
      expect(state.items.at(-1)).toMatchObject({
        kind: 'notice',
        error: {
          code: 'AuthRequired',
          details: {
            methods: [
              { id: 'token', name: 'Token', description: 'Log in with a token' },
              { id: 'login-shell', name: 'Terminal login', terminal: true },
            ],
          },
        },
      });
      // A terminal method is not run through authenticate: it has a terminal of its own (below).
      expect(await host.handle('authenticateAgent', { agentId: FAKE_AGENT_ID, methodId: 'login-shell' })).toMatchObject({
        ok: false,
        error: { code: 'InvalidRequest', message: expect.stringContaining('runs in a terminal') },
      });
      expect(await host.handle('authenticateAgent', { agentId: FAKE_AGENT_ID, methodId: 'nope' })).toMatchObject({
        ok: false,
        error: { code: 'InvalidRequest' },
      });
      expect(await host.handle('authenticateAgent', { agentId: FAKE_AGENT_ID, methodId: 'token' })).toMatchObject({ ok: true });
      const second = await host.turns.send(conversationId, 'hello again');
      await host.turns.idle();
      state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
      expect(state.turns[second.turnId]?.status).toBe('completed');

      // Logging out (offered by this agent) makes the agent forget it: the next turn needs a log-in again.
      expect(await host.handle('describeAgent', { agentId: FAKE_AGENT_ID })).toMatchObject({
        ok: true,
        result: { card: { logout: true } },
      });
      expect(await host.handle('logoutAgent', { agentId: FAKE_AGENT_ID })).toMatchObject({ ok: true });
      await host.turns.release(conversationId);
      const third = await host.turns.send(conversationId, 'after logging out');
      await host.turns.idle();
      state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
      expect(state.turns[third.turnId]?.status).toBe('failed');
    } finally {
      await host.dispose();
    }
  });

  it("a terminal log-in runs the agent with the method's arguments in a real terminal the person types into", async () => {
    const dataDir = tempDir('terminal-login');
    registerFakeAgent(dataDir, { requireAuth: true });
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    const events: Array<{ data?: string; exit?: { code: number | null } }> = [];
    host.subscribe((event) => {
      if (event.name === 'loginTerminal') {
        events.push(event.payload);
      }
    });
    const output = (): string => events.map((event) => event.data ?? '').join('');
    try {
      expect(await host.handle('getHostInfo', {})).toMatchObject({ ok: true, result: { terminalLogin: true } });
      const started = await host.handle('startLoginTerminal', { agentId: FAKE_AGENT_ID, methodId: 'login-shell', cols: 90, rows: 20 });
      expect(started.ok, JSON.stringify(started)).toBe(true);
      const { terminalId } = (started.ok ? started.result : {}) as { terminalId: string };
      // The fake agent's log-in refuses to run without a terminal, and reports the size it got.
      await until(() => (output().includes('Paste your token:') ? true : undefined));
      expect(output()).toContain('Fake agent log-in (90x20)');
      expect(await host.handle('loginTerminalInput', { terminalId, data: 'secret\r' })).toMatchObject({ ok: true });
      const exit = await until(() => events.find((event) => event.exit)?.exit);
      expect(exit).toMatchObject({ code: 0 });
      expect(output()).toContain('Logged in as tester.');
      expect(existsSync(path.join(dataDir, 'fake-agent-logged-in'))).toBe(true);
      expect(await host.handle('loginTerminalInput', { terminalId, data: 'x' })).toMatchObject({ ok: false, error: { code: 'NotFound' } });
    } finally {
      await host.dispose();
    }
  });

  it('a terminal log-in can be cancelled: its process group ends and the page hears how', async () => {
    const dataDir = tempDir('terminal-login-cancel');
    registerFakeAgent(dataDir, { requireAuth: true });
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    const events: Array<{ data?: string; exit?: { code: number | null; signal: string | null } }> = [];
    host.subscribe((event) => {
      if (event.name === 'loginTerminal') {
        events.push(event.payload);
      }
    });
    try {
      const started = await host.handle('startLoginTerminal', { agentId: FAKE_AGENT_ID, methodId: 'login-shell', cols: 80, rows: 24 });
      const { terminalId } = (started.ok ? started.result : {}) as { terminalId: string };
      await until(() => (events.some((event) => event.data?.includes('Paste your token:')) ? true : undefined));
      // A second log-in to the same agent while one is open is refused.
      expect(
        await host.handle('startLoginTerminal', { agentId: FAKE_AGENT_ID, methodId: 'login-shell', cols: 80, rows: 24 }),
      ).toMatchObject({ ok: false, error: { code: 'InvalidRequest' } });
      expect(await host.handle('closeLoginTerminal', { terminalId })).toMatchObject({ ok: true });
      const exit = await until(() => events.find((event) => event.exit)?.exit);
      expect(exit.code === 0).toBe(false);
      expect(existsSync(path.join(dataDir, 'fake-agent-logged-in'))).toBe(false);
      // The log-in's processes are gone; what is left is the agent's own process that was lent to
      // read the method, idle and waiting a while for the next use.
      expect(fakeAgentProcesses(dataDir)).toHaveLength(1);
      expect(host.pool.table()).toMatchObject([{ agentId: FAKE_AGENT_ID, state: 'idle', users: 0 }]);
    } finally {
      await host.dispose();
    }
  });

  it('logging out of an agent that does not offer it is refused plainly', async () => {
    const dataDir = tempDir('no-logout');
    registerFakeAgent(dataDir);
    const host = new Host({ dataDir, env: definedEnv(process.env) });
    try {
      expect(await host.handle('logoutAgent', { agentId: FAKE_AGENT_ID })).toMatchObject({
        ok: false,
        error: { code: 'UnsupportedInput', message: expect.stringContaining('Fake') },
      });
    } finally {
      await host.dispose();
    }
  });
});

describe('host API validation', () => {
  it('answers unknown methods, bad params and bad folders with typed errors', async () => {
    const host = new Host({ dataDir: tempDir('api'), env: definedEnv(process.env) });
    try {
      expect(await host.handle('dropTables', {})).toMatchObject({ ok: false, error: { code: 'InvalidRequest' } });
      expect(await host.handle('sendMessage', { conversationId: 42 })).toMatchObject({ ok: false, error: { code: 'InvalidRequest' } });
      expect(await host.handle('newConversation', { agentId: 'claude', cwd: 'relative/path' })).toMatchObject({
        ok: false,
        error: { code: 'InvalidRequest', message: expect.stringContaining('absolute') },
      });
      expect(await host.handle('newConversation', { agentId: 'nobody', cwd: '/' })).toMatchObject({
        ok: false,
        error: { code: 'NotFound' },
      });
      expect(await host.handle('openConversation', { conversationId: 'missing' })).toMatchObject({
        ok: false,
        error: { code: 'NotFound' },
      });
    } finally {
      await host.dispose();
    }
  });

  it('a conversation whose agent is not installed fails its turn with AgentNotInstalled', async () => {
    const host = new Host({ dataDir: tempDir('api'), env: { PATH: tempDir('empty-path') } });
    try {
      const { conversationId } = host.conversations.create('claude', tempDir('work'));
      const { turnId } = await host.turns.send(conversationId, 'hello');
      await host.turns.idle();
      const state = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events);
      expect(state.turns[turnId]?.status).toBe('failed');
      expect(state.items.at(-1)).toMatchObject({
        kind: 'notice',
        error: { code: 'AgentNotInstalled', message: expect.stringContaining('npm i -g @agentclientprotocol/claude-agent-acp') },
      });
    } finally {
      await host.dispose();
    }
  });
});
