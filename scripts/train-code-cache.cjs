'use strict';
// Writes dist/tasks.cjs.cache: V8's code cache for the CLI bundle, which bin/tasks.js
// hands to V8 with the bundle's source so that it does not compile it again on every
// start. Measured: it took `get` from 80 to 60 ms (25 interleaved runs, before the bundle
// was minified); compiling the bundle takes 12-17 ms, reading the cache ~3.5 ms.
//
// The cache holds the functions compiled so far, so it is made after a training run:
// typical commands, one after another in this one process, against a scratch list in a
// temporary config folder (never the user's). Their output goes nowhere.
//
// V8 rejects a cache made by another V8 version or with other flags, and bin/tasks.js
// then compiles as if there were none: a stale cache is slower, never wrong. V8 knows
// the source only by its length, so the cache starts with the bundle's first line, which
// names its build, and a line naming this Node, and bin/tasks.js uses it only for that
// build on that Node (on another, it trains its own in the user's cache folder).
//
// Usage (run by scripts/build-cli.mjs): node scripts/train-code-cache.cjs <bundle> <cache> [all|read:<command>|plain:<command>]
// (read:list: the bundle of the read commands, which has no create, update or block, for
// `list` alone; each read command has a cache of its own; plain:list, the same runs for the
// bundle of plain reads, whose command lines they all are).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const [bundle, cacheFile] = process.argv.slice(2, 4).map((p) => path.resolve(p));
/** read:<command> (or plain:<command>): the read (or plain) bundle's cache for that command alone (bin/tasks.js says why). */
const readCommand = /^(read|plain):/.test(process.argv[4] ?? '') ? process.argv[4].replace(/^[a-z]+:/, '') : undefined;
const readOnly = readCommand !== undefined;

/**
 * A run as in a terminal: tables and colour, the output people in a shell see. Their
 * renderers are a good part of what such a run compiles (a 20-task list in a terminal on
 * Node 24: 142.8 M instructions with a cache trained piped, 135.8 M with one trained in a
 * terminal). The build gives this process /dev/zero as stdout, a character device that
 * takes any write; it is made to answer as a terminal would.
 */
const TERMINAL = Symbol('terminal');

// The commands people and scripts run most. Each one trained grows the cache, and V8
// reads all of it on every start (measured: ~1 ms per 30 KB); the rest compile on use.
const TRAINING = [
  ['create', 'Write the parser', '--description', 'Parse the config file', '--active-form', 'Writing the parser'],
  ['create', 'Test the parser', '--description', 'Cover the edge cases'],
  ['block', '2', '--by', '1'],
  ['list', '--json'],
  ['get', '1', '--json'],
  ['update', '1', '--status', 'in_progress', '--owner', 'builder'],
  ['list', TERMINAL],
  ['get', '2', TERMINAL],
];
/** The read bundle's: the same list, written as those commands would have left it, then the reads. */
const READ_TRAINING = [
  ['list', '--json'],
  ['get', '1', '--json'],
  ['lists', '--json'],
  ['list'],
  ['get', '2'],
  ['lists'],
  ['list', TERMINAL],
  ['get', '2', TERMINAL],
  ['lists', TERMINAL],
];
const READ_LIST = [
  {
    id: '1',
    subject: 'Write the parser',
    description: 'Parse the config file',
    activeForm: 'Writing the parser',
    status: 'in_progress',
    owner: 'builder',
    blocks: ['2'],
    blockedBy: [],
  },
  { id: '2', subject: 'Test the parser', description: 'Cover the edge cases', status: 'pending', blocks: [], blockedBy: ['1'] },
];

async function main() {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-train-'));
  const source = fs.readFileSync(bundle, 'utf8');
  const build = source.slice(0, source.indexOf('\n') + 1);
  if (!build.startsWith('// tasks build ')) throw new Error('the bundle does not name its build on its first line');
  const script = new vm.Script(Module.wrap(source), { filename: bundle });
  const run = script.runInThisContext();
  const saved = { argv: process.argv, env: process.env, cwd: process.cwd() };
  try {
    // The project folder is the working folder: run there, so that no project settings
    // (hooks) of wherever the build runs are read.
    process.chdir(config);
    if (readOnly) {
      const list = path.join(config, 'tasks', 'training');
      fs.mkdirSync(list, { recursive: true });
      for (const task of READ_LIST) fs.writeFileSync(path.join(list, `${task.id}.json`), JSON.stringify(task, null, 2));
    }
    process.env = {
      ...saved.env,
      CLAUDE_CONFIG_DIR: config,
      XDG_CACHE_HOME: path.join(config, 'cache'),
      CLAUDE_CODE_TASK_LIST_ID: 'training',
      NO_COLOR: '1',
    };
    const training = readOnly ? READ_TRAINING.filter(([name]) => name === readCommand) : TRAINING;
    if (training.length === 0) throw new Error(`no training for ${process.argv[4]}`);
    for (const entry of training) {
      const words = entry.filter((word) => word !== TERMINAL);
      if (entry.includes(TERMINAL)) asTerminal();
      process.argv = [process.execPath, bundle, ...words];
      process.exitCode = undefined;
      const mod = new Module(bundle, module);
      run(mod.exports, Module.createRequire(bundle), mod, bundle, path.dirname(bundle));
      // The CLI's main sets process.exitCode once its command is done.
      while (process.exitCode === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      if (process.exitCode !== 0) throw new Error(`training run \`tasks ${words.join(' ')}\` exited ${process.exitCode}`);
    }
  } finally {
    process.argv = saved.argv;
    process.env = saved.env;
    process.chdir(saved.cwd);
    fs.rmSync(config, { recursive: true, force: true });
  }
  // The header names the build and the Node it was made for: another Node would reject it.
  const header = `${build}// node ${process.version} ${process.platform}-${process.arch}\n`;
  fs.writeFileSync(cacheFile, Buffer.concat([Buffer.from(header, 'latin1'), script.createCachedData()]));
  process.exitCode = 0;
}

/** From here on, stdout answers as a terminal (where it is /dev/zero: elsewhere the runs stay piped). */
function asTerminal() {
  delete process.env.NO_COLOR;
  process.env.FORCE_COLOR = '1';
  const tty = require('node:tty');
  const isatty = tty.isatty;
  tty.isatty = (fd) => fd === 1 || isatty(fd);
  Object.assign(process.stdout, { isTTY: true, columns: 120, rows: 40 });
}

main().catch((err) => {
  // No cache is only slower: say so, and let the build go on.
  fs.rmSync(cacheFile, { force: true });
  process.stderr.write(`build: no code cache for ${path.basename(bundle)}: ${err.message}\n`);
  process.exitCode = 0;
});
