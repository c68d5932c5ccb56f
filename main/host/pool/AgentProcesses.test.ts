/** The pool's bookkeeping without an agent: an ended process says so to whoever waits for it. */
import { describe, expect, it } from 'vitest';
import type { AgentConnection, InitializeResponse } from '../acp/AgentConnection.js';
import { AgentProcesses } from './AgentProcesses.js';
import { PooledAgent } from './PooledAgent.js';

describe('PooledAgent', () => {
  it('resolves `ended` once marked (a new process on an exclusive state waits for it)', async () => {
    const agent = new PooledAgent('key', 'codex', 'Codex');
    let ended = false;
    void agent.ended.then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    agent.markEnded();
    await agent.ended;
    expect(ended).toBe(true);
  });
});

describe('updates for sessions with no handler', () => {
  const chunk = (text: string) => ({ sessionUpdate: 'agent_message_chunk' as const, content: { type: 'text' as const, text } });

  it('are bounded in bytes: 400 updates of 1 MiB for an id that never comes keep at most 8 MiB, with one log line', () => {
    const lines: string[] = [];
    const agent = new PooledAgent('key', 'fake', 'Fake', 'key', (line) => lines.push(line));
    const megabyte = 'x'.repeat(1024 * 1024);
    for (let index = 0; index < 400; index += 1) {
      agent.handlers.onUnrouted?.('never-registered', chunk(megabyte));
    }
    expect(agent.waitingBytes).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(agent.waitingBytes).toBeGreaterThan(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('never-registered');
  });

  it('are bounded in ids: an agent naming a thousand ids keeps updates for at most 32 of them', () => {
    const lines: string[] = [];
    const agent = new PooledAgent('key', 'fake', 'Fake', 'key', (line) => lines.push(line));
    for (let index = 0; index < 1000; index += 1) {
      agent.handlers.onUnrouted?.(`id-${index}`, chunk('hello'));
    }
    const delivered: string[] = [];
    for (let index = 0; index < 1000; index += 1) {
      agent.register(`id-${index}`, {
        onUpdate: () => delivered.push(`id-${index}`),
        requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }),
      });
    }
    expect(delivered).toHaveLength(32);
    expect(lines.length).toBe(1000 - 32);
    expect(agent.waitingBytes).toBe(0);
  });

  it('are still delivered, in order, to a session registered a moment later', () => {
    const agent = new PooledAgent('key', 'fake', 'Fake');
    agent.handlers.onUnrouted?.('s1', chunk('one'));
    agent.handlers.onUnrouted?.('s1', chunk('two'));
    const seen: string[] = [];
    agent.register('s1', {
      onUpdate: (update) =>
        seen.push(update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text' ? update.content.text : '?'),
      requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }),
    });
    expect(seen).toEqual(['one', 'two']);
  });
});

describe('the answers the pool remembers', () => {
  it('are an install on one machine: the same path on another machine is not answered for', async () => {
    const pool = new AgentProcesses();
    const answer = { protocolVersion: 1, agentInfo: { name: 'claude', version: '1.0.0' } } as InitializeResponse;
    pool.remember('claude', '/usr/bin/claude-agent-acp', answer, { id: 'ssh:build' });
    expect(pool.knownAnswer('claude', '/usr/bin/claude-agent-acp', { id: 'ssh:build' })).toBe(answer);
    expect(pool.knownAnswer('claude', '/usr/bin/claude-agent-acp')).toBeUndefined();
    pool.forgetAnswers('claude');
    expect(pool.knownAnswer('claude', '/usr/bin/claude-agent-acp', { id: 'ssh:build' })).toBeUndefined();
    await pool.dispose();
  });
});

describe('a lease that lingers', () => {
  /** A pool whose processes are stand-ins that count their starts and ends. */
  function countingPool() {
    const pool = new AgentProcesses();
    const counts = { started: 0, ended: 0 };
    const request = (linger?: number) => ({
      key: 'launch',
      agentId: 'fake',
      agentName: 'Fake',
      executable: '/bin/fake',
      ...(linger ? { linger } : {}),
      start: () => {
        counts.started += 1;
        const connection = {
          initialized: { protocolVersion: 1, agentInfo: { name: 'fake', version: '1.0.0' } },
          usable: true,
          processGroupId: 4242,
          dispose: () => {
            counts.ended += 1;
            return Promise.resolve();
          },
        } as unknown as AgentConnection;
        return Promise.resolve({ connection });
      },
    });
    return { pool, counts, request };
  }

  it('keeps the process for the next lease while it waits, shows it idle, and ends it once the wait is over', async () => {
    const { pool, counts, request } = countingPool();
    const card = await pool.lease(request(100));
    await card.release();
    expect(counts).toEqual({ started: 1, ended: 0 });
    expect(pool.table()).toMatchObject([{ state: 'idle', users: 0 }]);
    // The conversation's first message, a moment later: the same process.
    const conversation = await pool.lease(request());
    expect(conversation.agent).toBe(card.agent);
    expect(pool.table()).toMatchObject([{ state: 'running', users: 1 }]);
    // Its own lease does not linger: released, the process ends at once.
    await conversation.release();
    expect(counts).toEqual({ started: 1, ended: 1 });

    const next = await pool.lease(request(50));
    await next.release();
    await expect.poll(() => counts.ended, { timeout: 2_000 }).toBe(2);
    expect(pool.table()).toEqual([]);
    expect(await pool.running('fake')).toBeUndefined();
    await pool.dispose();
  });

  it('is ended at once when the agent changes (an install, a log-in), and with the pool', async () => {
    const { pool, counts, request } = countingPool();
    await (await pool.lease(request(60_000))).release();
    await pool.endIdle('fake');
    expect(counts).toEqual({ started: 1, ended: 1 });
    await (await pool.lease(request(60_000))).release();
    await pool.dispose();
    expect(counts).toEqual({ started: 2, ended: 2 });
  });
});
