'use strict';
// Stands in for node:assert inside the CLI bundle, for signal-exit only (which
// proper-lockfile loads to release its locks on exit): it calls assert.equal and nothing
// else. Loading node:assert builds process.stderr for its colours, and with it the
// streams: about 4 ms of every command that locks. The real module is loaded to make the
// error, if a check ever fails.
exports.equal = (actual, expected, message) => {
  // biome-ignore lint/suspicious/noDoubleEquals: assert.equal is loose equality
  if (actual != expected) {
    const { AssertionError } = require('node:assert');
    throw new AssertionError({ actual, expected, operator: '==', message });
  }
};
