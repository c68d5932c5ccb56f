/**
 * pool: what sharing one agent process among conversations saves, with the real Claude adapter
 * against the model stub, in one run. Ten conversations, each answered once, through the host's
 * pool (one process per launch, idle sessions closed) against one process per conversation (the
 * baseline: each session in a pool of its own); processes and resident memory just after use and
 * after the idle time (set short here). Then the time from "send" in a second conversation to its
 * first chunk: on the running pooled process against a freshly started one.
 */
import { execFileSync } from 'node:child_process';
import { agentHome, agentUnavailable } from '../e2e/fixtures/agentSetups.js';
import { tempDir } from '../e2e/fixtures/agentEnv.js';
import { startModelStub } from '../e2e/fixtures/modelStub.js';
import type { EventDraft } from '../app/events/index.js';
import { builtinAdapters } from '../main/host/agents/AgentCatalog.js';
import { LiveSession } from '../main/host/conversations/LiveSession.js';
import { Host } from '../main/host/Host.js';
import { AgentProcesses } from '../main/host/pool/AgentProcesses.js';
import { findExecutable } from '../main/host/machine/findExecutable.js';
import { earlySessionBenchmark } from './early.js';
import { median, report } from './util.js';

const CONVERSATIONS = 10;
const IDLE_MS = 3_000;
const ROUNDS = 5;

/** Processes and resident memory (MiB) of the given process groups. */
function footprint(groups: Iterable<number>): { processes: number; mib: number } {
  const wanted = new Set([...groups].map(String));
  let processes = 0;
  let kib = 0;
  for (const line of execFileSync('ps', ['-eo', 'pgid=,rss=,stat='], { encoding: 'utf8' }).split('\n')) {
    const [group, rss, stat] = line.trim().split(/\s+/);
    if (group && wanted.has(group) && !stat?.startsWith('Z')) {
      processes += 1;
      kib += Number(rss) || 0;
    }
  }
  return { processes, mib: kib / 1024 };
}

const owner = (chunks?: (text: string) => void) => ({
  commit: (drafts: EventDraft[]) => {
    for (const draft of drafts) {
      if (draft.type === 'message.chunk') {
        chunks?.(draft.payload.text);
      }
    }
  },
  activeTurnId: () => 't',
  onExit: () => {},
  log: () => {},
});

export async function poolBenchmark(): Promise<void> {
  const unavailable = agentUnavailable('claude');
  if (unavailable) {
    console.log(`\npool: ${unavailable}`);
    return;
  }
  const adapter = builtinAdapters.find((candidate) => candidate.agentId === 'claude')!;
  const stub = await startModelStub();
  const env = { ...agentHome('claude', stub.url), BATON_AGENT_IDLE_MS: String(IDLE_MS) };
  const executable = findExecutable(adapter.command, env)!;

  // Baseline: one process per conversation.
  const own: Array<{ pool: AgentProcesses; live: LiveSession }> = [];
  for (let index = 0; index < CONVERSATIONS; index += 1) {
    const pool = new AgentProcesses();
    const live = await LiveSession.open({ adapter, executable, baseEnv: env, cwd: tempDir('bench-pool-own') }, { pool, owner: owner() });
    await live.bind(undefined);
    live.start();
    await live.prompt(`hello ${index}`);
    own.push({ pool, live });
  }
  const separate = footprint(own.map(({ live }) => live.processGroupId!));
  await Promise.all(own.map(async ({ pool, live }) => (await live.dispose(), pool.dispose())));

  // Baton: the host's pool.
  const host = new Host({ dataDir: tempDir('bench-pool'), env });
  // In one folder: conversations share a process per working folder (the default since the trust review).
  const work = tempDir('bench-pool-work');
  const ids = Array.from({ length: CONVERSATIONS }, () => host.conversations.create('claude', work).conversationId);
  for (const [index, conversationId] of ids.entries()) {
    await host.turns.send(conversationId, `hello ${index}`);
  }
  await host.turns.idle();
  const groups = host.pool.table().map((row) => row.pid!);
  const pooled = footprint(groups);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 2_000));
  const idle = footprint(groups);
  await host.dispose();

  console.log(`\npool: ${CONVERSATIONS} conversations with Claude, each answered once; idle time ${IDLE_MS / 1000} s`);
  report('one process per conversation (baseline)', `${separate.processes} processes, ${separate.mib.toFixed(0)} MiB`);
  report(
    'pooled, just used',
    `${pooled.processes} processes, ${pooled.mib.toFixed(0)} MiB  ratio ${(pooled.mib / separate.mib).toFixed(2)}x`,
  );
  report(
    'pooled, idle past the idle time (goal <= 0.3x)',
    `${idle.processes} processes, ${idle.mib.toFixed(0)} MiB  ratio ${(idle.mib / separate.mib).toFixed(2)}x`,
  );

  // Send → first chunk in a second conversation: on the running process, against a fresh one.
  const firstChunk = async (pool: AgentProcesses): Promise<number> => {
    let resolveChunk: () => void = () => {};
    const chunk = new Promise<void>((resolve) => (resolveChunk = resolve));
    const started = performance.now();
    const live = await LiveSession.open(
      { adapter, executable, baseEnv: env, cwd: tempDir('bench-pool-first') },
      { pool, owner: owner(() => resolveChunk()) },
    );
    await live.bind(undefined);
    live.start();
    const reply = live.prompt('first chunk please');
    await chunk;
    const elapsed = performance.now() - started;
    await reply;
    await live.dispose();
    return elapsed;
  };
  const shared = new AgentProcesses();
  const keeper = await LiveSession.open(
    { adapter, executable, baseEnv: env, cwd: tempDir('bench-pool-keep') },
    { pool: shared, owner: owner() },
  );
  await keeper.bind(undefined);
  const pooledTimes: number[] = [];
  const freshTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    pooledTimes.push(await firstChunk(shared));
    const fresh = new AgentProcesses();
    fresh.remember('claude', executable, keeper.initialized);
    freshTimes.push(await firstChunk(fresh));
    await fresh.dispose();
  }
  await keeper.dispose();
  await shared.dispose();
  await stub.close();
  const fresh = median(freshTimes);
  const onPool = median(pooledTimes);
  console.log(`\npool: send → first chunk in a second Claude conversation, median of ${ROUNDS}`);
  report('a freshly started process (baseline)', `${fresh.toFixed(0)} ms`);
  report('the running pooled process (goal <= 0.5x)', `${onPool.toFixed(0)} ms  ratio ${(onPool / fresh).toFixed(2)}x`);

  await earlySessionBenchmark();
}
