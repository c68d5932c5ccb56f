/** Shared helpers of the benchmarks: timing, temporary folders, synthetic transcripts and the load they run at. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Envelope } from '../app/events/index.js';

/** Median of the samples. */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0 ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[middle]!;
}

/** Milliseconds `work` takes. */
export function time(work: () => void): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

/** Runs `work` in a fresh temporary folder that is removed afterwards. */
export function withTempDir<T>(prefix: string, work: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(os.tmpdir(), `baton-bench-${prefix}-`));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A deterministic pseudo-random generator (mulberry32), so every run uses the same data. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The envelopes of a conversation of `turns` finished turns, five events each, plus its creation. */
export function syntheticEnvelopes(
  turns: number,
  text: (turn: number, role: 'user' | 'agent') => string,
  startMs = Date.UTC(2026, 0, 1),
): Envelope[] {
  const envelopes: Envelope[] = [];
  const push = (type: string, payload: unknown): void => {
    const seq = envelopes.length + 1;
    envelopes.push({ conversationId: 'bench', seq, at: new Date(startMs + seq * 1000).toISOString(), v: 1, type, payload });
  };
  push('conversation.created', { title: 'Benchmark', agentId: 'claude', agentName: 'Claude', cwd: '/' });
  for (let turn = 0; turn < turns; turn += 1) {
    const turnId = `t${turn}`;
    push('turn.started', { turnId, agentId: 'claude', agentName: 'Claude', text: text(turn, 'user') });
    push('turn.running', { turnId });
    push('message.chunk', { turnId, text: text(turn, 'agent') });
    push('message.chunk', { turnId, text: ' (end)' });
    push('turn.ended', { turnId, outcome: 'completed', stopReason: 'end_turn' });
  }
  return envelopes;
}

/** Prints one result line. */
export function report(name: string, value: string): void {
  console.log(`${name.padEnd(70)} ${value}`);
}

/**
 * Collects garbage left by seeding, so that reads are timed as in a freshly started host (the
 * bench script runs Node with --expose-gc).
 */
export function settle(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) {
    console.warn('(run with node --expose-gc for figures free of seeding garbage)');
    return;
  }
  collect();
}

/** The two loads a figure is measured at: idle, and busy (one CPU-bound process beside the benchmark). */
export const LOADS = ['idle', 'busy'] as const;

/** Runs `work` at `load`: when busy, with one CPU-bound process running beside it until it ends. */
export async function atLoad<T>(load: (typeof LOADS)[number], work: () => Promise<T>): Promise<T> {
  const burner = load === 'busy' ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }) : undefined;
  try {
    return await work();
  } finally {
    burner?.kill('SIGKILL');
  }
}
