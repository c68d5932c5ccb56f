/**
 * Early sessions (part of `pool`): Send → first chunk in a new conversation, through the host as a
 * window drives it, with real agents against the model stub, in one run. Three ways, each from a
 * host just started: nothing running yet (today's fresh-process path, the baseline); the agent's
 * process already running for another conversation in the folder (the pooled path); and the
 * session opened while the person typed for two seconds (`openEarlySession`), then Send. The
 * time is to the first chunk of the model's reply (not a banner an agent writes at its start).
 */
import { agentHome, agentUnavailable, type ConformanceAgent } from '../e2e/fixtures/agentSetups.js';
import { tempDir } from '../e2e/fixtures/agentEnv.js';
import { isSideRequest, startModelStub } from '../e2e/fixtures/modelStub.js';
import { Host } from '../main/host/Host.js';
import { median, report } from './util.js';

const ROUNDS = 3;
/** The first words of the model's reply (the stub's script for these turns). */
const REPLY = 'REPLY-STARTS';
/** How long the person types before Send. */
const TYPING_MS = 2_000;

/** Calls the host as a window does. */
async function call<T>(host: Host, method: string, params: unknown): Promise<T> {
  const answer = await host.handle(method, params);
  if (!answer.ok) {
    throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  }
  return answer.result as T;
}

/** Milliseconds from Send in `conversationId` to its first chunk of reply; the turn is let end. */
async function sendToFirstChunk(host: Host, conversationId: string): Promise<number> {
  let resolveChunk: () => void = () => {};
  const chunk = new Promise<void>((resolve) => (resolveChunk = resolve));
  const unsubscribe = host.subscribe((event) => {
    // The model's reply, not a banner the agent writes as text when its session starts (pi's).
    if (
      event.name === 'transcript' &&
      event.payload.events.some(
        (envelope) =>
          envelope.conversationId === conversationId &&
          envelope.type === 'message.chunk' &&
          JSON.stringify(envelope.payload).includes(REPLY),
      )
    ) {
      resolveChunk();
    }
  });
  const started = performance.now();
  await call(host, 'sendMessage', { conversationId, text: 'first chunk please' });
  await chunk;
  const elapsed = performance.now() - started;
  unsubscribe();
  await host.turns.idle();
  return elapsed;
}

/** One round of one way for `agent`: a host started for it, measured, disposed. */
async function round(agent: ConformanceAgent, env: Record<string, string>, way: 'fresh' | 'pooled' | 'early'): Promise<number> {
  const host = new Host({ dataDir: tempDir('bench-early'), env });
  const cwd = tempDir('bench-early-work');
  try {
    if (way === 'pooled') {
      const { conversation } = await call<{ conversation: { conversationId: string } }>(host, 'newConversation', { agentId: agent, cwd });
      await call(host, 'sendMessage', { conversationId: conversation.conversationId, text: 'warm up' });
      await host.turns.idle();
    }
    let reserved: string | undefined;
    if (way === 'early') {
      reserved = (await call<{ conversationId: string }>(host, 'openEarlySession', { agentId: agent, cwd, chosen: {} })).conversationId;
      await new Promise((resolve) => setTimeout(resolve, TYPING_MS));
    }
    const { conversation } = await call<{ conversation: { conversationId: string } }>(host, 'newConversation', {
      agentId: agent,
      cwd,
      ...(reserved ? { conversationId: reserved } : {}),
    });
    return await sendToFirstChunk(host, conversation.conversationId);
  } finally {
    await host.dispose();
  }
}

export async function earlySessionBenchmark(agents: readonly ConformanceAgent[] = ['claude', 'pi', 'opencode']): Promise<void> {
  const stub = await startModelStub({
    reply: (request) => (isSideRequest(request) ? undefined : { chunks: [`${REPLY} `, 'and goes on.'] }),
  });
  try {
    for (const agent of agents) {
      const unavailable = agentUnavailable(agent);
      if (unavailable) {
        console.log(`\npool (early sessions): ${unavailable}`);
        continue;
      }
      const env = agentHome(agent, stub.url);
      const times = { fresh: [] as number[], pooled: [] as number[], early: [] as number[] };
      for (let index = 0; index < ROUNDS; index += 1) {
        for (const way of ['fresh', 'pooled', 'early'] as const) {
          times[way].push(await round(agent, env, way));
        }
      }
      const [fresh, pooled, early] = [median(times.fresh), median(times.pooled), median(times.early)];
      console.log(`\npool: send → first chunk in a new ${agent} conversation, median of ${ROUNDS}`);
      report('nothing running yet (baseline)', `${fresh.toFixed(0)} ms`);
      report('its process running for another conversation', `${pooled.toFixed(0)} ms  ratio ${(pooled / fresh).toFixed(2)}x`);
      report(
        `session opened while typing for ${TYPING_MS / 1000} s (goal <= 0.3x fresh, <= 0.5x pooled)`,
        `${early.toFixed(0)} ms  ratio ${(early / fresh).toFixed(2)}x fresh, ${(early / pooled).toFixed(2)}x pooled`,
      );
    }
  } finally {
    await stub.close();
  }
}
