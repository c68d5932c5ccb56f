import { defineConfig } from '@playwright/test';

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
    // A failed test keeps its trace: every action with the page's DOM before and after it. Without
    // the screencast, which cost about 15% of the CPU of a spec here (the two-core CI machine runs
    // Playwright CPU-bound); re-run a failing spec with --trace on to get the film too.
    trace: { mode: 'retain-on-failure', screenshots: false },
    launchOptions: {
      executablePath: process.env.BATON_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
