#!/usr/bin/env node
// Shell completion runs `tasks __complete ...` on every TAB: it takes a lean path that
// loads none of the CLI's dependencies (dist/cli/completion/complete.js).
if (process.argv[2] === '__complete') await import('../dist/cli/completion/complete.js');
else await import('../dist/cli/main.js');
