import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['app/**/*.test.ts', 'main/**/*.test.ts', 'renderer/**/*.test.ts', 'renderer/**/*.test.tsx', 'scripts/**/*.test.ts'],
    // `*.kit.test.ts`: helpers of tests (they may use the test fixtures), not tests.
    exclude: ['node_modules/**', 'dist/**', 'e2e/**', '**/*.kit.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two at once even on two cores (vitest's default there is one): the integration tests mostly
    // wait on the agents and processes they start, so a second file runs in those waits.
    maxWorkers: 2,
    setupFiles: ['e2e/fixtures/vitestSetup.ts'],
  },
});
