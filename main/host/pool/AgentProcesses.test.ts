/** The pool's bookkeeping without an agent: an ended process says so to whoever waits for it. */
import { describe, expect, it } from 'vitest';
import { PooledAgent } from './AgentProcesses.js';

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
