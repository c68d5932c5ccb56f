import { defineConfig } from 'vitest/config';

/** Every test file; `*.kit.test.ts` are helpers of tests (they may use the test fixtures), not tests. */
const TESTS = ['app/**/*.test.ts', 'main/**/*.test.ts', 'renderer/**/*.test.ts', 'renderer/**/*.test.tsx', 'scripts/**/*.test.ts'];
/** Integration tests: those that start real processes and hosts. */
const INTEGRATION = '**/*.int.test.ts';
const INTEGRATION_TESTS = ['app', 'main', 'renderer', 'scripts'].map((folder) => `${folder}/${INTEGRATION}`);

export default defineConfig({
  test: {
    exclude: ['node_modules/**', 'dist/**', 'e2e/**', '**/*.kit.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // `expect.poll` waits for what another process does (an agent's answer, a process's end); its
    // own default of one second is shorter than an agent's start on a busy machine.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // Two at once even on two cores (vitest's default there is one): the integration tests mostly
    // wait on the agents and processes they start, so a second file runs in those waits.
    maxWorkers: 2,
    setupFiles: ['e2e/fixtures/vitestSetup.ts'],
    projects: [
      // The unit tests share their workers' modules: a fresh process and module graph for each of
      // their 78 files took 70 CPU-seconds, and 37 without (the CI machine runs vitest CPU-bound).
      { extends: true, test: { name: 'unit', include: TESTS, exclude: [INTEGRATION], isolate: false } },
      // So do the integration tests: each file ends what it starts (hosts, agents, servers, and its
      // temp folders, e2e/fixtures/vitestSetup.ts), and changes nothing of its process's own that it
      // does not put back (no module mocks, no environment). A fresh process for each of their 84
      // files spent 92 s importing modules (vitest's own import time), and 11 s without: vitest took 625 s
      // against 710 s, back to back on two cores.
      { extends: true, test: { name: 'integration', include: INTEGRATION_TESTS, isolate: false } },
    ],
  },
});
