/**
 * Importing a 5,000-turn JSONL export through the page (the file chosen in "Import conversation
 * (JSONL)…" until the copy is shown at its last reply), against the store's own import of the same
 * envelopes, in the same run. Goal: under 1 s end to end. Needs Chromium and a build (`npm run
 * bench` builds).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { toJsonl } from '../app/transcript/exportFormats.js';
import { EventStore } from '../main/host/store/EventStore.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../e2e/fixtures/chromium.js';
import { startHost } from './ui.js';
import { median, report, syntheticEnvelopes } from './util.js';

const TURNS = 5_000;
const ROUNDS = 5;

// What the page's own code below uses (this file compiles for Node, without the DOM's types).
declare const window: { importTook?: number };
declare const document: {
  addEventListener(type: string, listener: () => void, options: object): void;
  querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null; textContent: string | null }>;
  body: unknown;
};
declare function requestAnimationFrame(callback: () => void): number;
declare const MutationObserver: new (callback: () => void) => { observe(target: unknown, options: object): void; disconnect(): void };

/**
 * Runs in the page: times the import as the person sees it, from the file input's change (the file
 * chosen) to the first frame that shows the copy with its last reply. Timed in the page, so the
 * test harness's polling adds nothing.
 */
function watchImport({ title, last }: { title: string; last: string }): void {
  let chosen: number | undefined;
  document.addEventListener('change', () => (chosen ??= performance.now()), { capture: true });
  const shown = (): boolean =>
    Array.from(document.querySelectorAll('main')).some(
      (main) => main.getAttribute('aria-label') === title && (main.textContent ?? '').includes(last),
    );
  const observer = new MutationObserver(() => {
    if (chosen !== undefined && shown()) {
      observer.disconnect();
      requestAnimationFrame(() => (window.importTook = performance.now() - chosen!));
    }
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
}

/** Runs the benchmark and prints its figures. */
export async function importJsonlBenchmark(): Promise<void> {
  const envelopes = syntheticEnvelopes(TURNS, (turn, role) =>
    role === 'user'
      ? `Question ${turn}: how does part ${turn % 97} of the parser work?`
      : `Answer ${turn}: with a stack of open blocks, each closed when its indentation drops.`,
  );
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-import-'));
  const file = path.join(scratch, 'export.jsonl');
  const text = toJsonl(envelopes);
  writeFileSync(file, text);
  const store: number[] = [];
  const page: number[] = [];
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const storeDir = path.join(scratch, `store-${round}`);
      const events = new EventStore(storeDir);
      const started = performance.now();
      events.importEnvelopes(`bench-${round}`, envelopes);
      store.push(performance.now() - started);
      events.close();

      const dataDir = path.join(scratch, `host-${round}`);
      const host = await startHost(dataDir);
      try {
        const tab = await browser.newPage();
        await tab.goto(host.url);
        await tab.getByRole('button', { name: 'New conversation' }).waitFor();
        await tab.evaluate(watchImport, { title: 'Benchmark (imported)', last: `Answer ${TURNS - 1}:` });
        await tab.getByLabel('Import a transcript file').setInputFiles(file);
        await tab
          .getByRole('main', { name: 'Benchmark (imported)' })
          .getByText(`Answer ${TURNS - 1}:`)
          .waitFor();
        page.push(await tab.waitForFunction(() => window.importTook).then((took) => took.jsonValue() as Promise<number>));
        await tab.close();
      } finally {
        host.child.kill('SIGTERM');
        await new Promise((resolve) => host.child.once('exit', resolve));
      }
    }
  } finally {
    await browser.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(
    `\nimport: a ${TURNS}-turn JSONL export (${envelopes.length} events, ${(text.length / 1e6).toFixed(1)} MB); median of ${ROUNDS} rounds, each in a web host just started`,
  );
  report('the store imports the envelopes (baseline)', `${median(store).toFixed(0)} ms`);
  report(
    'in the page: file chosen → copy shown at its last reply (goal < 1 s)',
    `${median(page).toFixed(0)} ms  ratio ${(median(page) / median(store)).toFixed(2)}x  (rounds ${page.map((ms) => ms.toFixed(0)).join(', ')})`,
  );
}
