/**
 * The conversation UI in Chromium against the web host, with the fake agent scripted to stream.
 * Every figure is printed with its ratio against a 50-turn conversation measured in the same run:
 *   - long thread: open a 5 000-turn conversation (text, code, tool calls, diffs) — time to the
 *     latest turn painted; reading back to its first turn ("Show earlier" until there is no more,
 *     then scrolling to the top) — the longest frame; JS heap after a collection; CPU over 10 s idle;
 *   - streaming: 2 000 chunks/s for 10 s — delay from the agent sending a chunk to the frame that
 *     paints it (median, p99), and the longest task.
 * Needs Debian's Chromium (BATON_CHROMIUM, its headless shell or /usr/bin/chromium: e2e/fixtures/chromium.ts)
 * and a build (`npm run bench` builds).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import type { Envelope } from '../app/events/index.js';
import { toJsonl } from '../app/transcript/exportFormats.js';
import { EventStore } from '../main/host/store/EventStore.js';
import { atLoad, LOADS, median, report } from './util.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../e2e/fixtures/chromium.js';

// The page's globals, for the functions this file runs in the page (kept local: Node code has no DOM).
declare const window: unknown;
declare const document: {
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
  querySelector(selector: string): unknown;
  body: unknown;
};
declare function requestAnimationFrame(callback: (now: number) => void): number;
declare const PerformanceObserver: new (callback: (list: { getEntries(): Array<{ duration: number }> }) => void) => {
  observe(options: object): void;
};
declare const MutationObserver: new (callback: () => void) => { observe(target: unknown, options: object): void };

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const FAKE_AGENT = path.join(root, 'e2e', 'fixtures', 'fakeAgent.mjs');
const IDLE_MS = 10_000;
/** Rounds of reading a long thread back against importing it (each figure their median). */
const READ_BACK_ROUNDS = 3;

/** A conversation of `turns` turns mixing prose, code, tool calls and diffs. */
function richConversation(conversationId: string, turns: number): Envelope[] {
  const envelopes: Envelope[] = [];
  const push = (type: string, payload: unknown): void => {
    const seq = envelopes.length + 1;
    envelopes.push({ conversationId, seq, at: new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(), v: 1, type, payload });
  };
  push('conversation.created', { title: `Long ${turns}`, agentId: 'custom:fake', agentName: 'Fake', cwd: '/' });
  for (let turn = 0; turn < turns; turn += 1) {
    const turnId = `t${turn}`;
    push('turn.started', {
      turnId,
      agentId: 'custom:fake',
      agentName: 'Fake',
      text: `Question ${turn}: how does part ${turn % 97} of the parser handle nested blocks?`,
    });
    push('turn.running', { turnId });
    if (turn % 4 === 0) {
      push('tool.call', {
        turnId,
        toolCallId: `tool-${turn}`,
        title: `Edit src/part${turn % 97}.ts`,
        kind: 'edit',
        status: 'completed',
        content: [
          {
            type: 'diff',
            path: `src/part${turn % 97}.ts`,
            oldText: 'const a = 1;\nconst b = 2;\n',
            newText: 'const a = 1;\nconst b = 3;\nconst c = a + b;\n',
          },
        ],
      });
    }
    const code =
      turn % 3 === 0
        ? `\n\n\`\`\`ts\nexport function part${turn}(input: string): number {\n  return input.length * ${turn};\n}\n\`\`\`\n`
        : '';
    push('message.chunk', {
      turnId,
      text: `Answer ${turn}. The parser reads **nested** blocks with a stack; each level keeps its own indentation and closes when it drops.${code}`,
    });
    push('turn.ended', { turnId, outcome: 'completed', stopReason: 'end_turn' });
  }
  return envelopes;
}

/** Starts the web host (the built one) on a free port in `dataDir`; resolves with its address. */
export async function startHost(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(root, 'dist/main/web/cli.js'), '--port', '0', '--data-dir', dataDir, '--no-open'], {
    cwd: root,
    env: { ...process.env, HOME: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL from the web host:\n${output}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^Baton is running at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
  return { url, child };
}

/** Milliseconds of main-thread work in the page (CDP Performance.TaskDuration). */
async function taskSeconds(page: Page): Promise<number> {
  const session = await page.context().newCDPSession(page);
  await session.send('Performance.enable');
  const { metrics } = await session.send('Performance.getMetrics');
  return metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0;
}

async function heapMb(page: Page): Promise<number> {
  const session = await page.context().newCDPSession(page);
  await session.send('HeapProfiler.collectGarbage');
  await session.send('Performance.enable');
  const { metrics } = await session.send('Performance.getMetrics');
  return (metrics.find((metric) => metric.name === 'JSHeapUsedSize')?.value ?? 0) / 1024 / 1024;
}

/** Records the longest gap between animation frames from now on; `stop()` returns it. */
async function watchFrames(page: Page): Promise<() => Promise<number>> {
  await page.evaluate(() => {
    const probe = { longest: 0, last: performance.now(), running: true };
    (window as { frameProbe: typeof probe }).frameProbe = probe;
    const tick = (now: number): void => {
      probe.longest = Math.max(probe.longest, now - probe.last);
      probe.last = now;
      if (probe.running) {
        requestAnimationFrame(tick);
      }
    };
    requestAnimationFrame(tick);
  });
  return () =>
    page.evaluate(() => {
      const probe = (window as { frameProbe: { longest: number; running: boolean } }).frameProbe;
      probe.running = false;
      return probe.longest;
    });
}

type LongFigures = { firstPaintMs: number; longestFrameMs: number; heapMb: number; idleCpu: number };

async function openLong(browser: Browser, url: string, turns: number): Promise<LongFigures> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  const item = page
    .getByRole('list', { name: 'Conversations' })
    .getByRole('button', { name: new RegExp(`^Long ${turns}\\b(?! \\(imported)`) });
  await item.waitFor();
  const started = Date.now();
  await item.click();
  await page.getByText(`Answer ${turns - 1}.`).waitFor();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const firstPaintMs = Date.now() - started;
  const stop = await watchFrames(page);
  // BATON_BENCH_PROFILE=<file>: a CPU profile of the read-back of the long thread (DevTools' format).
  const stopProfile = await profilePage(page, turns > 50 ? process.env.BATON_BENCH_PROFILE : undefined, 200);
  // "Show earlier" doubles what is shown, until the first turn is there.
  for (;;) {
    // How many entries are loaded (a virtualized transcript renders only those in view).
    const shown = Number(await page.getByRole('region', { name: 'Transcript' }).getAttribute('data-entries'));
    const more = await page.evaluate(() => {
      const button = document.querySelector('.show-earlier') as { click(): void } | null;
      button?.click();
      return button !== null;
    });
    if (!more) {
      break;
    }
    await page.waitForFunction(
      (before) =>
        Number((document.querySelector('section.transcript') as { dataset: { entries?: string } } | null)?.dataset.entries) > before ||
        document.querySelector('.show-earlier') === null,
      shown,
      { timeout: 300_000 },
    );
  }
  await page.getByRole('region', { name: 'Transcript' }).evaluate((node) => node.scrollTo({ top: 0 }));
  await page.getByText('Question 0:').waitFor();
  const longestFrameMs = await stop();
  await stopProfile();
  const heap = await heapMb(page);
  const before = await taskSeconds(page);
  await page.waitForTimeout(IDLE_MS);
  const idleCpu = ((await taskSeconds(page)) - before) / (IDLE_MS / 1000);
  await page.close();
  return { firstPaintMs, longestFrameMs, heapMb: heap, idleCpu };
}

/** A new page with the seeded `Long <turns>` conversation open at its latest turns. */
async function openSeeded(browser: Browser, url: string, turns: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page
    .getByRole('list', { name: 'Conversations' })
    .getByRole('button', { name: new RegExp(`^Long ${turns}\\b(?! \\(imported)`) })
    .click();
  // After a stream the thread's last answer is also quoted in the next turn's handoff: the first is the thread's.
  await page
    .getByText(`Answer ${turns - 1}.`)
    .first()
    .waitFor();
  return page;
}

/**
 * Reading a thread back to its start, the conversation opened at its latest turns: by dragging the
 * scroll bar to the top again and again (each time, the earlier turns read come in above), or by
 * Ctrl+Home in the transcript; milliseconds from the first move to its first question painted.
 */
async function readBack(browser: Browser, url: string, turns: number, how: 'scroll' | 'key'): Promise<number> {
  const page = await openSeeded(browser, url, turns);
  const transcript = page.getByRole('region', { name: 'Transcript' });
  const first = page.getByText('Question 0:');
  // BATON_BENCH_PROFILE=<file>: a CPU profile of the Ctrl+Home read (DevTools' format).
  const stopProfile = await profilePage(page, how === 'key' ? process.env.BATON_BENCH_PROFILE : undefined, 200);
  const started = Date.now();
  if (how === 'key') {
    await transcript.focus();
    await page.keyboard.press('Control+Home');
    await shown(first);
  } else {
    while (!(await first.isVisible())) {
      await transcript.evaluate((node) => node.scrollTo({ top: 0 }));
      await page.waitForTimeout(POLL_MS);
    }
  }
  const took = Date.now() - started;
  await stopProfile();
  await page.close();
  return took;
}

/** How often a timed wait looks (Playwright's own waits look less and less often: up to every 500 ms). */
const POLL_MS = 20;

/** Resolves once `target` is visible, looking every `POLL_MS`. */
async function shown(target: ReturnType<Page['getByText']>): Promise<void> {
  while (!(await target.isVisible())) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Imports `file` through the page ("Import conversation (JSONL)…"): milliseconds from the file chosen to the copy shown at `last`. */
async function importThrough(browser: Browser, url: string, file: string, title: string, last: string): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.getByRole('button', { name: 'New conversation' }).waitFor();
  const started = Date.now();
  await page.getByLabel('Import a transcript file').setInputFiles(file);
  await shown(page.getByRole('main', { name: title }).getByText(last));
  const took = Date.now() - started;
  await page.close();
  return took;
}

/**
 * Starts a CPU profile of the page (sampling every `intervalUs` µs) when `file` is given; the
 * function returned stops it and writes it there (DevTools' format), or does nothing.
 */
async function profilePage(page: Page, file: string | undefined, intervalUs: number): Promise<() => Promise<void>> {
  if (!file) {
    return async () => {};
  }
  const profiler = await page.context().newCDPSession(page);
  await profiler.send('Profiler.enable');
  await profiler.send('Profiler.setSamplingInterval', { interval: intervalUs });
  await profiler.send('Profiler.start');
  return async () => {
    const { profile } = await profiler.send('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
  };
}

type StreamFigures = { medianMs: number; p99Ms: number; longestTaskMs: number; chunksPainted: number };

async function stream(browser: Browser, url: string, turns: number, perSecond: number, seconds: number): Promise<StreamFigures> {
  const page = await openSeeded(browser, url, turns);
  await page.evaluate(() => {
    const probe = { delays: [] as number[], seen: 0, longTasks: [] as number[] };
    (window as { streamProbe: typeof probe }).streamProbe = probe;
    new PerformanceObserver((list) => list.getEntries().forEach((entry) => probe.longTasks.push(entry.duration))).observe({
      type: 'longtask',
      buffered: false,
    });
    let pending = false;
    new MutationObserver(() => {
      if (pending) {
        return;
      }
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        const now = Date.now();
        const articles = document.querySelectorAll('article.message-agent');
        const text = articles[articles.length - 1]?.textContent ?? '';
        const stamps = [...text.matchAll(/\[t:(\d+)\]/g)].map((match) => Number(match[1]));
        for (const stamp of stamps.slice(probe.seen)) {
          probe.delays.push(now - stamp);
        }
        probe.seen = Math.max(probe.seen, stamps.length);
      });
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  // BATON_BENCH_STREAM_PROFILE=<file>: a CPU profile of the page while the long thread streams (DevTools' format).
  const stopProfile = await profilePage(page, turns > 50 ? process.env.BATON_BENCH_STREAM_PROFILE : undefined, 500);
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(`flood ${perSecond} ${seconds}`);
  await composer.press('Enter');
  await page
    .getByTestId('reply-announcer')
    .filter({ hasText: 'Fake replied' })
    .waitFor({ timeout: (seconds + 120) * 1000 });
  await stopProfile();
  const probe = await page.evaluate(() => (window as { streamProbe: { delays: number[]; longTasks: number[] } }).streamProbe);
  await page.close();
  const sorted = [...probe.delays].sort((a, b) => a - b);
  return {
    medianMs: median(sorted),
    p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN,
    longestTaskMs: Math.max(0, ...probe.longTasks),
    chunksPainted: sorted.length * 20,
  };
}

const ratio = (value: number, baseline: number): string => `ratio ${(value / baseline).toFixed(2)}x`;

/** The UI benchmark. */
export async function uiBenchmark(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`ui: skipped: no Chromium at ${CHROMIUM} (set BATON_CHROMIUM)`);
    return;
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-ui-'));
  let host: ChildProcess | undefined;
  let browser: Browser | undefined;
  try {
    const store = new EventStore(dataDir);
    store.importEnvelopes('long-50', richConversation('long-50', 50));
    const long = richConversation('long-5000', 5000);
    store.importEnvelopes('long-5000', long);
    store.close();
    const exported = path.join(dataDir, 'long-5000.jsonl');
    writeFileSync(exported, toJsonl(long));
    writeFileSync(
      path.join(dataDir, 'agents.json'),
      JSON.stringify({ agents: [{ name: 'Fake', command: process.execPath, args: [FAKE_AGENT, dataDir] }] }),
    );
    const started = await startHost(dataDir);
    host = started.child;
    const launched = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    browser = launched;

    // BATON_BENCH_UI_PART=long, =readback or =stream runs only that part (while working on one of them).
    const part = process.env.BATON_BENCH_UI_PART;
    if (part !== 'stream' && part !== 'readback') {
      console.log('\nui: Chromium against the web host; long thread of 5000 turns vs 50 turns (baseline)');
      const small = await openLong(browser, started.url, 50);
      const large = await openLong(browser, started.url, 5000);
      report('open 50 turns: latest turns painted (baseline)', `${small.firstPaintMs.toFixed(0)} ms`);
      report(
        'open 5000 turns: latest turns painted (goal < 300 ms)',
        `${large.firstPaintMs.toFixed(0)} ms  ${ratio(large.firstPaintMs, small.firstPaintMs)}`,
      );
      report('read back to turn 1, 50 turns: longest frame (baseline)', `${small.longestFrameMs.toFixed(0)} ms`);
      report(
        'read back to turn 1, 5000 turns: longest frame (goal < 50 ms)',
        `${large.longestFrameMs.toFixed(0)} ms  ${ratio(large.longestFrameMs, small.longestFrameMs)}`,
      );
      report('JS heap, 50 turns shown (baseline)', `${small.heapMb.toFixed(1)} MB`);
      report('JS heap, 5000 turns shown (goal < 150 MB)', `${large.heapMb.toFixed(1)} MB  ${ratio(large.heapMb, small.heapMb)}`);
      report('CPU over 10 s idle, 50 turns (baseline)', `${(small.idleCpu * 100).toFixed(2)} %`);
      report(
        'CPU over 10 s idle, 5000 turns (goal: near zero)',
        `${(large.idleCpu * 100).toFixed(2)} %  ${ratio(large.idleCpu || 1e-6, small.idleCpu || 1e-6)}`,
      );
    }
    if (part !== 'stream' && part !== 'long') {
      // Reading the 5,000 turns back to the first against importing the same thread through the page
      // (both read every event), idle and with one CPU-bound process beside it.
      console.log('\nui: reading a 5000-turn thread back to its first turn against importing it through the page');
      for (const load of LOADS) {
        await atLoad(load, async () => {
          const figures = { imported: [] as number[], scrolled: [] as number[], keyed: [] as number[] };
          // Rounds in turn, after one of each that is not counted (the host's and the page's first run of each path).
          for (let round = 0; round <= READ_BACK_ROUNDS; round += 1) {
            const imported = await importThrough(launched, started.url, exported, 'Long 5000 (imported)', 'Answer 4999.');
            const scrolled = await readBack(launched, started.url, 5000, 'scroll');
            const keyed = await readBack(launched, started.url, 5000, 'key');
            if (round > 0) {
              figures.imported.push(imported);
              figures.scrolled.push(scrolled);
              figures.keyed.push(keyed);
            }
          }
          const imported = median(figures.imported);
          const rounds = (values: number[]): string => `(rounds ${values.map((value) => value.toFixed(0)).join(', ')})`;
          report(
            `import of the same 5000 turns through the page, ${load} (baseline)`,
            `${imported.toFixed(0)} ms  ${rounds(figures.imported)}`,
          );
          for (const [label, values] of [
            ['scroll bar dragged to the top', figures.scrolled],
            ['Ctrl+Home', figures.keyed],
          ] as const) {
            const value = median(values);
            report(
              `to turn 1 of 5000, ${label}, ${load} (goal <= 1.0x)`,
              `${value.toFixed(0)} ms  ${ratio(value, imported)}  ${rounds(values)}`,
            );
          }
        });
      }
    }
    if (part === 'long' || part === 'readback') {
      return;
    }

    console.log('\nui: streaming 2000 chunks/s for 10 s into a 5000-turn conversation vs a 50-turn one (baseline)');
    const streamSmall = await stream(browser, started.url, 50, 2000, 10);
    const streamLarge = await stream(browser, started.url, 5000, 2000, 10);
    report(
      'chunk sent → painted, 50 turns: median / p99 (baseline)',
      `${streamSmall.medianMs.toFixed(0)} / ${streamSmall.p99Ms.toFixed(0)} ms  longest task ${streamSmall.longestTaskMs.toFixed(0)} ms`,
    );
    report(
      'chunk sent → painted, 5000 turns: median / p99 (goal p99 < 50 ms)',
      `${streamLarge.medianMs.toFixed(0)} / ${streamLarge.p99Ms.toFixed(0)} ms  ${ratio(streamLarge.p99Ms, streamSmall.p99Ms)}`,
    );
    report(
      'longest task while streaming, 5000 turns (goal < 100 ms)',
      `${streamLarge.longestTaskMs.toFixed(0)} ms  ${ratio(streamLarge.longestTaskMs || 1, streamSmall.longestTaskMs || 1)}`,
    );
    // The same with one CPU-bound process beside it (a person's machine is rarely idle).
    await atLoad('busy', async () => {
      const busy = await stream(launched, started.url, 5000, 2000, 10);
      report(
        'chunk sent → painted, 5000 turns, busy: median / p99',
        `${busy.medianMs.toFixed(0)} / ${busy.p99Ms.toFixed(0)} ms  ${ratio(busy.p99Ms, streamLarge.p99Ms)} (of idle)`,
      );
      report(
        'longest task while streaming, 5000 turns, busy (goal < 100 ms)',
        `${busy.longestTaskMs.toFixed(0)} ms  ${ratio(busy.longestTaskMs || 1, streamLarge.longestTaskMs || 1)} (of idle)`,
      );
    });
  } finally {
    await browser?.close();
    host?.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
