/**
 * Importing a 5,000-turn JSONL export through the page (the file chosen in "Import conversation
 * (JSONL)…" until the copy is open), against the store's own import of the same envelopes, in
 * the same run. Goal: under 1 s end to end. Needs Chromium and a build (`npm run bench` builds).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { toJsonl } from '../app/transcript/exportFormats.js';
import { EventStore } from '../main/host/store/EventStore.js';
import { CHROMIUM, CHROMIUM_ARGS, startHost } from './ui.js';
import { median, report, syntheticEnvelopes } from './util.js';

const TURNS = 5_000;
const ROUNDS = 3;

/** Runs the benchmark and prints its figures. */
export async function importJsonlBenchmark(): Promise<void> {
  const envelopes = syntheticEnvelopes(TURNS, (turn, role) => (role === 'user' ? `Question ${turn}: how does part ${turn % 97} of the parser work?` : `Answer ${turn}: with a stack of open blocks, each closed when its indentation drops.`));
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-import-'));
  const file = path.join(scratch, 'export.jsonl');
  writeFileSync(file, toJsonl(envelopes));
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
        const begun = performance.now();
        await tab.getByLabel('Import a transcript file').setInputFiles(file);
        await tab.getByRole('main', { name: 'Benchmark (imported)' }).waitFor();
        await tab.getByText(`Answer ${TURNS - 1}:`).waitFor();
        page.push(performance.now() - begun);
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
  console.log(`\nimport: a ${TURNS}-turn JSONL export (${envelopes.length} events); median of ${ROUNDS} rounds`);
  report('the store imports the envelopes (baseline)', `${median(store).toFixed(0)} ms`);
  report('through the page, until the copy is open (goal < 1 s)', `${median(page).toFixed(0)} ms  ratio ${(median(page) / median(store)).toFixed(2)}x`);
}
