// `npm run build`: every step of the build in one process, each step as soon as what it
// reads exists. `npm test` builds first, so this is time every test run pays: one Node and
// one esbuild service instead of five of each, and the board's page bundled while the
// completion spec and the CLI bundles are made (they read dist/, it reads only src/board/page).
//
//   build-dist.mjs          src/ -> dist/ (ES modules, types stripped)
//   build-completion.mjs    dist/ -> spec.json, dist/complete.cjs     } after dist/, the
//   build-cli.mjs           dist/ + spec.json -> the CLI bundles      } two beside
//   build-board-page.mjs    src/board/page -> dist/board-page          } the page
//   build-notices.mjs       the metafiles of all bundles -> THIRD_PARTY_NOTICES (last)
//
// Each step is still a script of its own (importing one runs it), so one can be run alone.
await import('./build-dist.mjs');
await Promise.all([import('./build-completion.mjs').then(() => import('./build-cli.mjs')), import('./build-board-page.mjs')]);
await import('./build-notices.mjs');
