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
  },
});
