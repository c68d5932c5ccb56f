/**
 * An agent whose state one process holds (Codex 2.x and its state database): a new launch on the
 * same state ends the process that holds it while that one is idle (its conversations reopen their
 * sessions on their next message), and is refused, saying why and what to do, only while a turn
 * runs there. An agent that starts alone (OpenCode) has its processes started one at a time. Real
 * processes (the fake agent) in the pool.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UnsupportedInputError } from '../../../app/errors.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { fakeAgentScript } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { until } from '../../../e2e/fixtures/until.js';
import { AgentConnection } from '../acp/AgentConnection.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { definedEnv } from '../process/env.js';
import { AgentProcesses, type ProcessRequest } from './AgentProcesses.js';

const env = definedEnv(process.env);
const machine = new LocalMachine(env);

/** A launch of the fake agent on the one state every launch here shares. */
function launch(key: string): ProcessRequest {
  return {
    key,
    agentId: 'codex',
    agentName: 'Codex',
    executable: process.execPath,
    exclusiveState: { key: 'the-one-state', applies: () => true },
    start: async (handlers) => ({
      connection: await AgentConnection.start({
        agentName: 'Codex',
        machine,
        launch: { command: process.execPath, args: [fakeAgentScript, tempDir('exclusive-data')], env, cwd: tempDir('exclusive-cwd') },
        handlers,
      }),
    }),
  };
}

describe('a launch on a state one process holds', () => {
  let pool: AgentProcesses | undefined;
  afterEach(async () => {
    await pool?.dispose();
  });

  it('ends the idle process that holds it and starts', async () => {
    const lines: string[] = [];
    pool = new AgentProcesses((line) => lines.push(line), machine);
    const card = await pool.lease(launch('bare'));
    const first = card.agent.connection.processGroupId;
    expect(first).toBeGreaterThan(0);
    const replaced = await pool.lease(launch('with-replace-instructions'));
    expect(replaced.agent.connection.processGroupId).not.toBe(first);
    await until(() => card.agent.exited || card.agent.ending, 10_000);
    expect(pool.table().map((row) => row.key)).toEqual(['with-replace-instructions']);
    expect(lines.join('\n')).toContain("ending Codex's idle process (bare)");
    // The old lease lets go without harm.
    await card.release();
  }, 60_000);

  it('is refused while a turn runs on the process that holds it, saying to send again once it ends', async () => {
    pool = new AgentProcesses(() => undefined, machine);
    const busy = await pool.lease(launch('bare'));
    busy.agent.setPrompting('a-session', true);
    const refused = pool.lease(launch('with-replace-instructions'));
    await expect(refused).rejects.toBeInstanceOf(UnsupportedInputError);
    await expect(refused).rejects.toThrow('send again once that turn has ended');
    expect(busy.agent.exited).toBe(false);
    busy.agent.setPrompting('a-session', false);
    await busy.release();
  }, 60_000);

  it('starts the processes of an agent that starts alone one at a time (OpenCode migrates its database at start)', async () => {
    pool = new AgentProcesses(() => undefined, machine);
    const spans: Array<{ key: string; from: number; to: number }> = [];
    const alone = (key: string): ProcessRequest => {
      const { exclusiveState: _state, ...request } = launch(key);
      return {
        ...request,
        agentId: 'opencode',
        agentName: 'OpenCode',
        startsAlone: true,
        start: async (handlers) => {
          const from = performance.now();
          const started = await launch(key).start(handlers);
          spans.push({ key, from, to: performance.now() });
          return started;
        },
      };
    };
    const [card, early] = await Promise.all([pool.lease(alone('card')), pool.lease(alone('early-session'))]);
    expect(spans.map((span) => span.key)).toEqual(['card', 'early-session']);
    // The second began only once the first had answered `initialize`.
    expect(spans[1]!.from).toBeGreaterThanOrEqual(spans[0]!.to);
    await card.release();
    await early.release();
  }, 60_000);
});
