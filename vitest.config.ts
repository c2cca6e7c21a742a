import { defineConfig } from 'vitest/config';

// The interop suite runs the real Claude Code (slow, needs its binary): left out of
// `npm test`, run by naming it: `npx vitest run test/interop/<file>`.
const interopAsked = process.argv.some((arg) => arg.replace(/\\/g, '/').includes('test/interop'));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: interopAsked ? ['node_modules/**'] : ['test/interop/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
