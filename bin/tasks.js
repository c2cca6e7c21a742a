#!/usr/bin/env node
'use strict';
// CommonJS (bin/package.json), so that no command starts the ES module loader: start-up
// is most of what a command costs. Shell completion runs `tasks __complete ...` on every
// TAB and gets its own small file that loads nothing else (dist/complete.cjs, see
// src/cli/completion/); the most-run reads (list, get, lists) run from a bundle of those
// commands alone (dist/tasks-read.cjs, half the size); everything else is the CLI as one
// file (dist/tasks.cjs, see scripts/build-cli.mjs). Built by plain tsc instead, the same
// code runs unbundled.
const path = require('node:path');

/** The commands of dist/tasks-read.cjs (READ_COMMAND_NAMES in src/cli/commands/index.ts). */
const READ_COMMANDS = new Set(['list', 'ls', 'get', 'lists']);
/** Global options that take a value (GLOBAL_WITH_VALUE there): the word after them is not the command. */
const GLOBAL_WITH_VALUE = new Set(['-l', '--list', '--session', '--config-dir']);

if (process.argv[2] === '__complete') {
  if (!requireIfBuilt('../dist/complete.cjs')) import('../dist/cli/completion/complete.js');
} else if (
  !(READ_COMMANDS.has(commandName(process.argv)) && runWithCodeCache(path.join(__dirname, '..', 'dist', 'tasks-read.cjs'))) &&
  !runWithCodeCache(path.join(__dirname, '..', 'dist', 'tasks.cjs'))
) {
  import('../dist/cli/main.js');
}

/** The command a command line names, found as commandNameIn (src/cli/commands/index.ts) finds it. */
function commandName(argv) {
  for (let i = 2; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') return argv[i + 1];
    if (GLOBAL_WITH_VALUE.has(word)) i++;
    else if (!word.startsWith('-')) return word;
  }
  return undefined;
}

function requireIfBuilt(file) {
  try {
    require(file);
    return true;
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND' && String(err.message).includes(path.basename(file))) return false;
    throw err;
  }
}

/**
 * Run a CommonJS bundle as require() would, but compiled with the V8 code cache the
 * build made beside it (scripts/train-code-cache.cjs), which saves compiling the bundle
 * on every start (12-17 ms). The cache is used only if it starts with the bundle's first
 * line (the build's name); without it, or when V8 rejects it (another Node), V8 just
 * compiles the source. False when the bundle is not built.
 */
function runWithCodeCache(file) {
  const fs = require('node:fs');
  let source;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return false;
    throw err;
  }
  let cachedData;
  try {
    const cache = fs.readFileSync(`${file}.cache`);
    const build = source.slice(0, source.indexOf('\n') + 1);
    if (build.length > 1 && cache.toString('latin1', 0, build.length) === build) cachedData = cache.subarray(build.length);
  } catch {
    // no cache: compile
  }
  const Module = require('node:module');
  const vm = require('node:vm');
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
    // An import() left in the bundle loads as it would from a file required by Node.
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  return true;
}
