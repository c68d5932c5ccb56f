/**
 * turns: wall time of turns through Baton's host (request in → reply committed and pushed)
 * against a bare ACP SDK client driving the same agent and the same model stub, alternately, in
 * one run; and each agent's initialize / session/new / first-turn times as Baton sees them.
 * Needs the pinned test agents (installed by `npm test`, or `npm ci` in e2e/agents).
 */
import { agentHome, CONFORMANCE_AGENTS, type ConformanceAgent } from '../e2e/fixtures/agentSetups.js';
import { tempDir } from '../e2e/fixtures/agentEnv.js';
import { startModelStub } from '../e2e/fixtures/modelStub.js';
import { builtinAdapters } from '../main/host/agents/AgentCatalog.js';
import type { PushEvent } from '../app/ipc/index.js';
import { AgentProcesses } from '../main/host/pool/AgentProcesses.js';
import { LiveSession } from '../main/host/conversations/LiveSession.js';
import { Host } from '../main/host/Host.js';
import { findExecutable } from '../main/host/machine/findExecutable.js';
import { startDirect } from './directClient.js';
import { median, report } from './util.js';

const TURNS = 40;

async function overhead(agent: ConformanceAgent): Promise<void> {
  const adapter = builtinAdapters.find((candidate) => candidate.agentId === agent)!;
  const stub = await startModelStub();
  const env = agentHome(agent, stub.url);
  const host = new Host({ dataDir: tempDir('bench-turns'), env });
  const ended = new Map<string, () => void>();
  host.subscribe((event: PushEvent) => {
    for (const envelope of event.name === 'transcript' ? event.payload.events : []) {
      if (envelope.type === 'turn.ended') {
        ended.get((envelope.payload as { turnId: string }).turnId)?.();
      }
    }
  });
  const { conversationId } = host.conversations.create(agent, tempDir('bench-work'));
  const hostTurn = async (text: string, checkpoints = true): Promise<number> => {
    host.store.setSetting('checkpoints.off', !checkpoints);
    await host.turnCheckpoints.idle();
    const started = performance.now();
    const response = await host.handle('sendMessage', { conversationId, text });
    if (!response.ok) {
      throw new Error(response.error.message);
    }
    const { turnId } = response.result as { turnId: string };
    await new Promise<void>((resolve) => ended.set(turnId, resolve));
    return performance.now() - started;
  };
  const executable = findExecutable(adapter.command, env)!;
  const direct = await startDirect(executable, [...adapter.args], env, tempDir('bench-direct'));
  const directTurn = async (text: string): Promise<number> => {
    const started = performance.now();
    await direct.prompt(text);
    return performance.now() - started;
  };
  // Warm both: agent start-up and the first request are not per-turn costs.
  await hostTurn('warm up');
  await directTurn('warm up');
  const baton: number[] = [];
  const bare: number[] = [];
  const noCheckpoints: number[] = [];
  // ABBA order, so that drift in the agent's own speed falls on all sides alike.
  for (let turn = 0; turn < TURNS; turn += 1) {
    if (turn % 2 === 0) {
      baton.push(await hostTurn(`turn ${turn}`));
      noCheckpoints.push(await hostTurn(`turn ${turn}, no checkpoints`, false));
      bare.push(await directTurn(`turn ${turn}`));
    } else {
      bare.push(await directTurn(`turn ${turn}`));
      noCheckpoints.push(await hostTurn(`turn ${turn}, no checkpoints`, false));
      baton.push(await hostTurn(`turn ${turn}`));
    }
  }
  direct.close();
  await host.dispose();
  await stub.close();
  const base = median(bare);
  const mine = median(baton);
  const extra = median(baton.map((time, index) => time - bare[index]!));
  console.log(`\nturns: ${TURNS} turns each with ${adapter.displayName}, alternating ABBA, median`);
  report('bare ACP SDK client (baseline)', `${base.toFixed(1)} ms`);
  report(
    'Baton host, checkpoints off: request in → reply committed',
    `${median(noCheckpoints).toFixed(1)} ms  ratio ${(median(noCheckpoints) / base).toFixed(3)}x`,
  );
  report(
    'Baton host: request in → reply committed and pushed',
    `${mine.toFixed(1)} ms  ratio ${(mine / base).toFixed(3)}x  (median extra ${extra.toFixed(2)} ms a turn)`,
  );
  report('checkpoints on against off (goal <= 1.10x)', `ratio ${(mine / median(noCheckpoints)).toFixed(3)}x`);
}

async function startupTimes(): Promise<void> {
  console.log('\nagent start-up as Baton sees it (one run each)');
  for (const agent of CONFORMANCE_AGENTS) {
    const adapter = builtinAdapters.find((candidate) => candidate.agentId === agent)!;
    const stub = await startModelStub();
    const env = agentHome(agent, stub.url);
    const executable = findExecutable(adapter.command, env);
    if (!executable) {
      report(agent, 'not installed');
      await stub.close();
      continue;
    }
    const owner = { commit: () => {}, activeTurnId: () => 't', onExit: () => {}, log: () => {} };
    const pool = new AgentProcesses();
    let started = performance.now();
    const live = await LiveSession.open({ adapter, executable, baseEnv: env, cwd: tempDir(`bench-${agent}`) }, { pool, owner });
    const initialize = performance.now() - started;
    started = performance.now();
    await live.bind(undefined);
    live.start();
    const sessionNew = performance.now() - started;
    started = performance.now();
    await live.prompt('hello');
    const firstTurn = performance.now() - started;
    await live.dispose();
    await stub.close();
    report(
      agent,
      `initialize ${initialize.toFixed(0)} ms · session/new ${sessionNew.toFixed(0)} ms · first turn ${firstTurn.toFixed(0)} ms`,
    );
  }
}

/** Runs the turn benchmark and prints its figures. */
export async function turnsBenchmark(): Promise<void> {
  await overhead('claude');
  await overhead('codex');
  await startupTimes();
}
