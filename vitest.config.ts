import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm test`: the unit and end-to-end tests a contributor runs, in two minutes or less.
 * Two suites have configs of their own, and `.ci/run` runs all three: the slow tier
 * (`npm run test:slow`, vitest.slow.config.ts: test/slow, stress, faults, the browser,
 * scale) and the interop suite (`npm run test:interop`, vitest.interop.config.ts:
 * test/interop, the real Claude Code).
 */

/**
 * Files that replace a module of src (vi.mock, vi.doMock): the replacement must be what
 * every module they load sees, and must not reach another file, so each runs in a process
 * of its own. Found by reading the files, so that a new one cannot be forgotten here.
 */
const ROOT = path.dirname(fileURLToPath(import.meta.url));
const REPLACES_MODULES = ['test/unit', 'test/e2e'].flatMap((folder) =>
  fs
    .readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.posix.join(folder, name.split(path.sep).join('/')))
    .filter((file) => /\bvi\s*\.\s*(mock|doMock)\s*\(/.test(fs.readFileSync(path.join(ROOT, file), 'utf8'))),
);

export default defineConfig({
  test: {
    exclude: ['node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files per core (at most 16 at once). Most files spend their time waiting on
    // processes they started (the binary, agents, holders of locks) or on the product's own
    // timings (a stall of 3 s, a grace of 1.5 s), not computing: with one file per core,
    // `npm test` on two cores took 160 s of wall time for 127 s of CPU time; with three,
    // 75 s for 118 s, every test passing in three runs in a row.
    maxWorkers: Math.min(16, 3 * os.availableParallelism()),
    // .ci/run sets TASKS_TEST_RETRY=1: a test that fails is run once more, and the report
    // names it as retried. A stray rejection seen once in an in-process run, or a timing
    // on a busy machine, is not a verdict on the change; a test that fails twice fails.
    // Locally a failure is a failure.
    retry: Number(process.env.TASKS_TEST_RETRY ?? 0),
    projects: [
      {
        extends: true,
        test: {
          name: 'tests',
          include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: ['node_modules/**', ...REPLACES_MODULES],
          // The files of a worker share its process, one after another: vitest, src and the
          // in-process runner's thread (test/helpers/in-process.ts) are loaded once a worker,
          // not once a file (that loading was about half of the suite's CPU time). Nothing
          // of a run carries over to the next: whatever a run records or listens to lives in
          // its run scope (src/core/scope), and src keeps no other mutable state at module
          // level (test/unit/layers.test.ts); tests work in folders of their own.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'module-replacing', include: REPLACES_MODULES, isolate: true },
      },
    ],
  },
});
