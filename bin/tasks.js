#!/usr/bin/env node
'use strict';
// CommonJS (bin/package.json), so that a TAB does not start the ES module loader:
// shell completion runs `tasks __complete ...` on every TAB, and the build makes it one
// CommonJS file that loads nothing else (dist/complete.cjs, see src/cli/completion/).
// Everything else is the ES module CLI.
if (process.argv[2] === '__complete') {
  try {
    require('../dist/complete.cjs');
  } catch (err) {
    // Built by plain tsc: the same code, unbundled.
    if (err.code !== 'MODULE_NOT_FOUND') throw err;
    import('../dist/cli/completion/complete.js');
  }
} else {
  // The CLI as one bundle (scripts/build-cli.mjs), else the same code unbundled.
  import('../dist/bundle/main.js').catch((err) => {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    return import('../dist/cli/main.js');
  });
}
