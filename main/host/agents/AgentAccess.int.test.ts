/**
 * The agent outside a conversation, with the fake agent in real processes: a loan of a process a
 * conversation uses gives it back (never ends it), so a terminal log-in started while that
 * conversation streams leaves it streaming; a loan with nothing running starts a process of its
 * own and ends it on release; an import of an agent with one session per process never loads into
 * another's process; an agent that is not installed is said plainly, once, here.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { FAKE_AGENT_ID, fakeAgentProcesses, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { until } from '../../../e2e/fixtures/until.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { Host, definedEnv } from '../Host.js';
import { AgentAccess } from './AgentAccess.js';
import { AgentCatalog } from './AgentCatalog.js';
import { ptyProgram } from '../process/pty.js';
import { AgentProcesses } from '../pool/AgentProcesses.js';

describe('the agent outside a conversation', () => {
  let host: Host;
  let dataDir: string;

  beforeEach(() => {
    dataDir = tempDir('access');
    registerFakeAgent(dataDir, { requireAuth: true });
    host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
  });
  afterEach(async () => {
    await host.dispose();
  });

  const noPty = ptyProgram(definedEnv(process.env)) === undefined;
  it.skipIf(noPty)(
    `a terminal log-in started while a conversation with the same agent streams leaves that conversation streaming${noPty ? ' (skipped: this system has no `script` command for a pseudo-terminal)' : ''}`,
    async () => {
      expect(await host.handle('authenticateAgent', { agentId: FAKE_AGENT_ID, methodId: 'token' })).toMatchObject({ ok: true });
      const { conversationId } = host.conversations.create(FAKE_AGENT_ID, tempDir('access-work'));
      await host.turns.send(conversationId, 'slow');
      const streamed = (): string => {
        const reply = reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events).items.findLast(
          (item) => item.kind === 'agent',
        );
        return reply?.kind === 'agent' ? reply.text : '';
      };
      await until(() => streamed().includes('word3 '));
      const [agentProcess] = fakeAgentProcesses(dataDir);
      expect(agentProcess).toBeDefined();

      const started = await host.handle('startLoginTerminal', { agentId: FAKE_AGENT_ID, methodId: 'login-shell', cols: 80, rows: 24 });
      expect(started.ok, JSON.stringify(started)).toBe(true);
      const { terminalId } = (started.ok ? started.result : {}) as { terminalId: string };

      // The conversation's agent is still there and still streaming, well after the log-in started.
      const before = streamed().length;
      await until(() => streamed().length > before + 60, 5_000);
      expect(host.turns.isRunning(conversationId)).toBe(true);
      expect(fakeAgentProcesses(dataDir)).toContain(agentProcess);

      await host.handle('closeLoginTerminal', { terminalId });
      await host.turns.cancel(conversationId);
      await host.turns.idle();
      expect(
        reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events).items.some(
          (item) => item.kind === 'notice' && item.severity === 'error',
        ),
      ).toBe(false);
    },
  );

  it('a loan with nothing running starts a process of its own, which waits for the next loan once given back, and ends when the agent is forgotten', async () => {
    const pool = new AgentProcesses();
    const access = new AgentAccess(new AgentCatalog(dataDir, definedEnv(process.env)), definedEnv(process.env), pool, tempDir('home'));
    const loan = await access.borrow(FAKE_AGENT_ID);
    expect(loan.connection.initialized.agentInfo?.name).toBe('fake-agent');
    const [started] = fakeAgentProcesses(dataDir);
    expect(fakeAgentProcesses(dataDir)).toHaveLength(1);
    await loan.release();
    // Reading a card, then importing a session: the second loan is the same process.
    const next = await access.borrow(FAKE_AGENT_ID);
    expect(next.connection).toBe(loan.connection);
    await next.release();
    expect(fakeAgentProcesses(dataDir)).toEqual([started]);
    expect(pool.table()).toMatchObject([{ agentId: FAKE_AGENT_ID, state: 'idle', users: 0 }]);
    await pool.endIdle(FAKE_AGENT_ID);
    await until(() => fakeAgentProcesses(dataDir).length === 0, 5_000);
    await pool.dispose();
  });

  it('a loan that loads a session of an agent with one session per process gets a process of its own, never the one another uses', async () => {
    const pool = new AgentProcesses();
    const catalog = new AgentCatalog(dataDir, definedEnv(process.env));
    // As pi-acp 0.0.34 and Qwen 0.24 declare (`quirks/`): each session a process of its own.
    const declared = catalog.get.bind(catalog);
    vi.spyOn(catalog, 'get').mockImplementation((agentId) => ({ ...declared(agentId), processPerSession: () => true }));
    const access = new AgentAccess(catalog, definedEnv(process.env), pool, tempDir('home'));
    // What a conversation's process stands for here: a process of the agent in use.
    const inUse = await access.borrow(FAKE_AGENT_ID);
    const importing = await access.borrow(FAKE_AGENT_ID, { cwd: tempDir('access-import'), loadsSession: true });
    expect(importing.connection).not.toBe(inUse.connection);
    expect(fakeAgentProcesses(dataDir)).toHaveLength(2);
    // A card or a list loads no session: it takes the process that runs.
    const card = await access.borrow(FAKE_AGENT_ID);
    expect([inUse.connection, importing.connection]).toContain(card.connection);
    await Promise.all([inUse.release(), importing.release(), card.release()]);
    await pool.dispose();
  });

  it('an agent that is not installed is said plainly, naming what is missing', () => {
    registerFakeAgent(dataDir);
    const access = new AgentAccess(new AgentCatalog(dataDir, { PATH: '' }), { PATH: '' }, new AgentProcesses(), tempDir('home'));
    expect(() => access.find('claude')).toThrow(expect.objectContaining({ code: 'AgentNotInstalled' }));
    expect(access.installed('claude')).toBe(false);
  });
});
