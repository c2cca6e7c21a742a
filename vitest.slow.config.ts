import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The slow tier (`npm run test:slow`, test/slow): what takes seconds a test by its
 * nature, and would push `npm test` past two minutes. Stress (many real processes at
 * once), faults (SIGKILL, SIGINT and SIGTERM mid-write, locks held and refreshed, locks
 * dated in the future waited out), the board in a real browser, and inputs at scale.
 * `.ci/run` runs it beside `npm test`; nothing here is checked anywhere else.
 */
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    isolate: true,
    maxWorkers: os.availableParallelism(),
  },
});
