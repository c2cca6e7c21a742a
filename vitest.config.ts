import os from 'node:os';
import { defineConfig } from 'vitest/config';

// The interop suite (test/interop, the real Claude Code) has a config of its own:
// `npm run test:interop` (vitest.interop.config.ts). `npm test` stays fast without it.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/interop/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each test file in a process of its own: in-process runs (test/helpers/in-process.ts)
    // share the module state of src, so nothing may carry over from one file to the next.
    isolate: true,
    // One file per core. Most files spend their time waiting on processes they started
    // (the binary, agents, holders of locks) or on lock timings, not computing; vitest's
    // default keeps a core free for its own main process, which on two cores leaves one
    // of them idle while a worker waits.
    maxWorkers: os.availableParallelism(),
  },
});
