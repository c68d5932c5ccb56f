/** The pool's bookkeeping without an agent: an ended process says so to whoever waits for it. */
import { describe, expect, it } from 'vitest';
import type { InitializeResponse } from '../acp/AgentConnection.js';
import { AgentProcesses, PooledAgent } from './AgentProcesses.js';

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
