'use strict';
// One stage of a start-up, for bench/startup-phases.mjs: what bin/tasks.js does for a
// plain read (dist/tasks-plain.cjs), stopped after `stage` so that each stage's cost can be told from the
// next one's. read: read the plain bundle and its code cache (the build's for this Node,
// else this Node's in $XDG_CACHE_HOME, as bin/tasks.js finds them); compile: and hand
// both to V8 (a rejected or missing cache fails the stage: its figure would mean
// something else); setup: and run the bundle for `tasks -l <a list not there> get 1`,
// a plain read (src/cli/read-path) that stops when the list is chosen (its top level,
// main, the run's set-up, the get command's modules, the choice of the list, the error);
// its exit status 3 is made 0 at exit, so that the stage counts as run.
//
// Usage: node bench/startup-stage.cjs read|compile|setup
const fs = require('node:fs');
const path = require('node:path');

const stage = process.argv[2];
const file = path.join(__dirname, '..', 'dist', 'tasks-plain.cjs');
const source = fs.readFileSync(file, 'utf8');
const build = source.slice(0, source.indexOf('\n') + 1);
const header = `${build}// node ${process.version} ${process.platform}-${process.arch}\n`;
const id = /^\/\/ tasks build ([0-9a-f-]{36}) plain\n$/.exec(build)?.[1];
const own = path.join(
  process.env.XDG_CACHE_HOME ?? '',
  'tasks',
  'code-cache',
  `${id}-plain-list-${process.version}-${process.platform}-${process.arch}${startOptions()}.cache`,
);
let cachedData;
// The list's own cache: each read command has one (bin/tasks.js).
for (const candidate of [`${file}.list.cache`, own]) {
  try {
    const cache = fs.readFileSync(candidate);
    if (cache.toString('latin1', 0, header.length) === header) {
      cachedData = cache.subarray(header.length);
      break;
    }
  } catch {
    // Not there: the next.
  }
}
/** The suffix bin/tasks.js gives a cache made under start options (its startOptions): this script runs under the preloaded CPU hook. */
function startOptions() {
  const given = `${process.execArgv.join('\n')}\n\n${process.env.NODE_OPTIONS ?? ''}`;
  if (given.trim() === '') return '';
  let hash = 0x811c9dc5;
  for (let i = 0; i < given.length; i++) hash = Math.imul(hash ^ given.charCodeAt(i), 0x01000193);
  return `-${(hash >>> 0).toString(16).padStart(8, '0')}`;
}
if (cachedData === undefined) throw new Error(`no code cache for ${process.version}: run tasks once on this Node first`);
if (stage !== 'read') compileAndRun();

function compileAndRun() {
  const Module = require('node:module');
  const vm = require('node:vm');
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (script.cachedDataRejected) throw new Error(`V8 rejected the code cache on ${process.version}`);
  if (stage === 'compile') return;

  process.argv = [process.argv[0], file, '-l', 'no-such-list-here', 'get', '1'];
  process.on('exit', () => {
    process.exitCode = 0;
  });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
}
