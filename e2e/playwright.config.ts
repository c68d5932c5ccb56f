import { defineConfig } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from './fixtures/chromium.js';

/**
 * End-to-end tests in Debian's Chromium against `npm run web`'s host (built output in dist/),
 * plus the Electron shell where an Electron binary exists. Never downloads a browser.
 */
export default defineConfig({
  testDir: './specs',
  timeout: 120_000,
  // How long a failing expectation waits before it is reported; a passing one returns at once. A
  // real agent's first reply is a cold start of a large Node CLI, which on a busy two-core CI
  // machine (two specs at once, each with its agents and a browser) has taken over 20 s.
  expect: { timeout: 45_000 },
  // Two at once on two cores: most of a spec's time is spent waiting on agents and the host.
  workers: 2,
  retries: 0,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  outputDir: '../test-results',
  use: {
    browserName: 'chromium',
    // Locally, a failed test keeps its trace: every action with the page's DOM before and after it
    // (no screencast: that cost about 15% of a spec's CPU). On CI, none: a run there is read from its
    // output alone and its clone is thrown away, and recording cost about a fifth of the CPU of a
    // spec (requests.spec.ts, 103 against 83 CPU-seconds), the two-core machine running Playwright
    // CPU-bound. Re-run a failing spec with --trace on to get one.
    trace: process.env.CI ? 'off' : { mode: 'retain-on-failure', screenshots: false },
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
  },
});
