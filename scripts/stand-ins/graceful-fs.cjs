'use strict';
// Stands in for graceful-fs, which proper-lockfile requires, inside the CLI bundle
// (scripts/build-cli.mjs). proper-lockfile uses it only as the default of its `fs`
// option, and tasks always passes its own (src/core/locks/lock-activity.ts: Node's fs, with
// the lock calls counted). Loading graceful-fs would still patch Node's fs and load the
// streams and readline for its legacy streams: about 8 ms of every command that locks.
module.exports = require('node:fs');
