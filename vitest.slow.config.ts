import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The slow tier (`npm run test:slow`, test/slow): what takes seconds a test by its
 * nature, and would push `npm test` past two minutes. Stress (many real processes at
 * once), faults (SIGKILL, SIGINT and SIGTERM mid-write, locks left behind, held and
 * refreshed, or dated in the future, waited out; agents killed under a watch), the board
 * in a real browser, whole files of terminal sessions (tmux) and real shells completing,
 * inputs at scale, and the package as it ships (the tarball installed, every command
 * through each bundle). `.ci/run` runs it beside `npm test`; nothing here is checked anywhere else.
 */
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    // .ci/run: a failure is run once more (see vitest.config.ts).
    retry: Number(process.env.TASKS_TEST_RETRY ?? 0),
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    isolate: true,
    maxWorkers: os.availableParallelism(),
  },
});
