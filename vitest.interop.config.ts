import { defineConfig } from 'vitest/config';

/**
 * The interop suite: scenarios against the real Claude Code (`npm run test:interop`).
 * Kept out of `npm test`, which stays fast; `.ci/run` runs both.
 * One file at a time: the concurrency scenarios want the machine to themselves, and the
 * agents need CPU to start.
 */
export default defineConfig({
  test: {
    include: ['test/interop/**/*.test.ts'],
    globalSetup: ['test/interop/global-setup.ts'],
    // .ci/run: a failure is run once more (see vitest.config.ts).
    retry: Number(process.env.TASKS_TEST_RETRY ?? 0),
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
