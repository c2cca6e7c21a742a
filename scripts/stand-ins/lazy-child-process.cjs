'use strict';
// Stands in for node:child_process inside the CLI bundle (scripts/build-cli.mjs).
// commander requires it at load time, for subcommands run as separate executables,
// which tasks never uses; loading it pulls in net, dgram and the streams, about 7 ms
// of every start. The real module is loaded on the first property read.
let real;
module.exports = new Proxy(
  {},
  {
    get: (_target, key) => (real ??= require('node:child_process'))[key],
    has: (_target, key) => key in (real ??= require('node:child_process')),
  },
);
