#!/usr/bin/env node
'use strict';
// CommonJS (bin/package.json), so that no command starts the ES module loader: start-up
// is most of what a command costs. Shell completion runs `tasks __complete ...` on every
// TAB and gets its own small file that loads nothing else (dist/complete.cjs, see
// src/cli/completion/); the most-run reads (list, get, lists) run from a bundle of those
// commands alone (dist/tasks-read.cjs, half the size), and a `list` or `get` with a plain
// command line from a bundle of those reads alone (dist/tasks-plain.cjs, which declines any
// other command line before it runs anything); everything else is the CLI as one
// file (dist/tasks.cjs, see scripts/build-cli.mjs). Built by plain tsc instead, the same
// code runs unbundled.
const path = require('node:path');

/** The commands of dist/tasks-read.cjs (READ_COMMAND_NAMES in src/cli/commands/index.ts). */
const READ_COMMANDS = new Set(['list', 'ls', 'get', 'lists']);
/** The commands dist/tasks-plain.cjs may run (src/cli/read-path/plain-read.ts). */
const PLAIN_COMMANDS = new Set(['list', 'ls', 'get']);
/** Global options that take a value (GLOBAL_WITH_VALUE there): the word after them is not the command. */
const GLOBAL_WITH_VALUE = new Set(['-l', '--list', '--session', '--config-dir', '-H', '--host']);

/** The words that ask for help or the version (HELP_WORDS in src/cli/remote/host-argv.ts). */
const HELP_WORDS = new Set(['--help', '-h', '--version', '-V']);

if (process.argv[2] === '__complete') {
  if (!requireIfBuilt('../dist/complete.cjs')) import('../dist/cli/completion/complete.js');
} else if (
  namesHost(process.argv, process.env) &&
  commandName(process.argv) !== 'board' &&
  !answeredHere(process.argv) &&
  runWithCodeCache(path.join(__dirname, '..', 'dist', 'tasks-remote.cjs'))
) {
  // A command on a host (-H, $TASKS_HOST): the small bundle that sends it there. Not the
  // board: it runs here, and shows the hosts' boards (src/cli/board-hosts). The bundle
  // declines a line that names no host after all (a host word that is an option's value,
  // as in update 4 --subject -Hotfix): the whole CLI below runs it.
} else if (!runRead(commandName(process.argv)) && !runWithCodeCache(path.join(__dirname, '..', 'dist', 'tasks.cjs'))) {
  import('../dist/cli/main.js');
}

/** A read command, from the plain bundle if it takes the command line, else from the read bundle; false for any other command. */
function runRead(command) {
  if (!READ_COMMANDS.has(command)) return false;
  const name = command === 'ls' ? 'list' : command;
  return (
    (PLAIN_COMMANDS.has(command) && runWithCodeCache(path.join(__dirname, '..', 'dist', 'tasks-plain.cjs'), name)) ||
    runWithCodeCache(path.join(__dirname, '..', 'dist', 'tasks-read.cjs'), name)
  );
}

/**
 * May the command line name a host to run on? Wherever hostArgv (src/cli/remote/host-argv.ts)
 * finds one, and more: this knows no command's options, so a host word that is one's value
 * (update 4 --subject -Hotfix) counts here, and the remote bundle declines it.
 */
function namesHost(argv, env) {
  for (let i = 2; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') break;
    if (word === '-H' || word === '--host' || word.startsWith('--host=') || (word.startsWith('-H') && !word.startsWith('--'))) return true;
    if (word === '--hosts' || word.startsWith('--hosts=')) return true;
    // A global option's value, wherever it is (-l -H is a list named "-H", as commander reads it).
    if (GLOBAL_WITH_VALUE.has(word)) i++;
  }
  return Boolean(env.TASKS_HOST);
}

/** Help, the version, the completion script: this build's own text, answered here even with a host named, as hostArgv decides (or a help word that is an option's value: the whole CLI then finds the host). */
function answeredHere(argv) {
  const command = commandName(argv);
  if (command === 'help' || command === 'completion') return true;
  for (let i = 2; i < argv.length && argv[i] !== '--'; i++) {
    // A global option's value (-H --help names a host "--help"), as hostArgv skips it.
    if (GLOBAL_WITH_VALUE.has(argv[i])) i++;
    else if (HELP_WORDS.has(argv[i])) return true;
  }
  return false;
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
 * Run a CommonJS bundle as require() would, but compiled with a V8 code cache, which
 * saves compiling the bundle on every start (12-17 ms) and holds the functions the common
 * commands run, not only those compiled up front. A code cache is good for one V8 alone:
 * the build trains one beside the bundle (scripts/train-code-cache.cjs) for the Node that
 * built it, and names that Node in its header. Under any other Node, tasks trains its own
 * on the first run there and keeps it in the user's cache folder (never Claude Code's),
 * by build, Node version and platform: the first run compiles, every later one starts
 * from the cache. Node's own compile cache (module.enableCompileCache) keeps only what is
 * compiled up front (measured on Node 24: 85 KB against 305 KB; a 20-task list 2.05x
 * `node -e 0` in CPU time against 1.55x), so tasks keeps its own. A cache V8 rejects (a
 * flag of its own, a damaged file) is written again; a missing or rejected cache is only
 * slower, never wrong. False when the bundle is not built, or declined the command line
 * (the plain bundle: it then ran nothing, and wrote no cache).
 *
 * V8 also rejects a cache made under other V8 flags: `NODE_OPTIONS=--max-old-space-size=8192`,
 * common in developers' shells, made Node 20 and 22 refuse the build's cache on every start (the whole
 * bundle compiled each time, 12-17 ms, and a cache written at exit that no run read). The
 * user's own cache is therefore looked for first, and named by the options Node was
 * started with as well (`startOptions`): the first run under them compiles and writes it,
 * every later one takes it, and shells with other options each keep their own.
 *
 * The read bundle has a cache per command (`command`: list, get, lists), beside it and in
 * the user's folder: each holds what its command runs and no more. One cache trained by
 * all three was 463 KB on Node 24 against 322 KB for `list`'s alone, and V8 reads all of
 * it on every start (0.5 ms more a `list`); one trained by `get` alone left a 20-task
 * list 0.2x slower than `node -e 0` in CPU time.
 */
function runWithCodeCache(file, command) {
  const fs = require('node:fs');
  let source;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return false;
    throw err;
  }
  // "// tasks build <id>[ read]\n", then "// node <version> <platform>-<arch>\n" in the cache.
  const build = source.slice(0, source.indexOf('\n') + 1);
  const nodeLine = `// node ${process.version} ${process.platform}-${process.arch}\n`;
  const header = `${build}${nodeLine}`;
  const buildId = /^\/\/ tasks build ([0-9a-f-]{36})( read| remote| plain)?\n$/.exec(build);
  const kind = [buildId?.[2]?.trim(), command].filter(Boolean).join('-');
  const options = startOptions();
  const ownCache =
    buildId === null
      ? undefined
      : userCacheFile(
          `${buildId[1]}${kind === '' ? '' : `-${kind}`}-${process.version}-${process.platform}-${process.arch}${options === '' ? '' : `-${options}`}`,
        );
  // The user's own first: there is one only where the build's cache is not for this Node or
  // V8 refused it (other V8 flags), and then it is the one V8 takes.
  let cachedData = ownCache === undefined ? undefined : cacheAfter(ownCache, header, true);
  // The bundle's second line names the Node the build trained the caches beside it for: under
  // another, they are not opened (0.2 ms a start).
  if (cachedData === undefined && source.startsWith(nodeLine, build.length)) {
    cachedData = cacheAfter(command === undefined ? `${file}.cache` : `${file}.${command}.cache`, header);
  }
  // The CommonJS loader's Module, which require('node:module') is too, without loading that
  // module's public face (0.3-0.8 ms a start).
  const Module = module.constructor;
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
  // The plain bundle, given a command line that is not a plain read, has run nothing: another bundle will.
  if (mod.exports.declined === true) return false;
  if (cachedData === undefined || script.cachedDataRejected) {
    // Once the command has run: the functions it compiled are in the cache too.
    if (ownCache !== undefined) process.once('exit', () => writeCache(ownCache, header, script));
  }
  return true;
}

/**
 * A code cache file's data, if its header names this build and this Node. The header is
 * read first: under any Node but the build's, the build's cache is someone else's, and
 * reading all of it only to drop it cost 0.3 ms a start (Node 24).
 *
 * A cache is code that V8 runs. One in the user's cache folder (`mine`) is taken only
 * when it is the user's own file and neither group nor others can write it, as tasks'
 * other cache files are (src/core/cache/cache-trust.ts): a cache folder shared with, or
 * made first by, another user must not run their code. Where there are no uids
 * (Windows), nothing is checked. The build's cache, beside the bundle, is as trusted as
 * the bundle.
 */
function cacheAfter(file, header, mine) {
  const fs = require('node:fs');
  let fd;
  try {
    // Most starts have no cache of the user's: asked without an exception (a first failed
    // open costs 0.1-0.7 ms, the error and its stack made; this, 20-40 us). Under Node's
    // permission model, a folder not allowed throws even here: then there is no cache.
    if (mine && !fs.existsSync(file)) return undefined;
    fd = fs.openSync(file, 'r');
    const head = Buffer.allocUnsafe(header.length);
    if (fs.readSync(fd, head, 0, head.length, 0) !== head.length || head.toString('latin1') !== header) return undefined;
    const stat = fs.fstatSync(fd);
    const uid = process.getuid?.();
    if (mine && uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) return undefined;
    const data = Buffer.allocUnsafe(Math.max(0, stat.size - header.length));
    let got = 0;
    for (let n; got < data.length && (n = fs.readSync(fd, data, got, data.length - got, header.length + got)) > 0; ) got += n;
    return data.subarray(0, got);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The options Node was started with (its command line's and NODE_OPTIONS), as eight hex
 * digits (FNV-1a), or '' for none: a code cache is good only under the V8 flags it was made
 * with, and which of the options are V8's is for V8 to say. Without node:crypto, whose
 * loading would cost every start more than the hash.
 */
function startOptions() {
  const given = `${process.execArgv.join('\n')}\n\n${process.env.NODE_OPTIONS ?? ''}`;
  if (given.trim() === '') return '';
  let hash = 0x811c9dc5;
  for (let i = 0; i < given.length; i++) hash = Math.imul(hash ^ given.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * Where this Node keeps its code cache of a bundle: `$XDG_CACHE_HOME/tasks/code-cache/`
 * when that is absolute, else `~/.cache/tasks/code-cache/` (the folder of tasks' other
 * cache, src/core/cache/cache-location.ts); undefined when neither is known.
 */
function userCacheFile(name) {
  const xdg = process.env.XDG_CACHE_HOME;
  let root;
  if (xdg !== undefined && path.isAbsolute(xdg)) root = path.join(xdg, 'tasks');
  else {
    // What os.homedir() answers when $HOME is set, without loading node:os for it.
    const home = process.env.HOME ?? require('node:os').homedir();
    if (home === '' || !path.isAbsolute(home)) return undefined;
    root = path.join(home, '.cache', 'tasks');
  }
  return path.join(root, 'code-cache', `${name}.cache`);
}

/**
 * Written whole (a temporary file, the user's alone, renamed), with the caches of old
 * builds removed (pruneCaches); any failure is only a slower next start. The temporary file is made
 * new (never through a file or link already there) and 0600 whatever the umask: a
 * group-writable cache would be refused on the next start (cacheAfter).
 */
function writeCache(file, header, script) {
  const fs = require('node:fs');
  try {
    const dir = path.dirname(file);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
    const data = Buffer.concat([Buffer.from(header, 'latin1'), script.createCachedData()]);
    try {
      fs.writeFileSync(temp, data, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // Left by a run of the same pid that died before renaming it: made again.
      fs.rmSync(temp, { force: true });
      fs.writeFileSync(temp, data, { flag: 'wx', mode: 0o600 });
    }
    fs.renameSync(temp, file);
    pruneCaches(dir, path.basename(file).slice(0, 36));
  } catch {
    // No cache: the next start compiles.
  }
}

/** How many builds keep their caches in the folder: this one and the ones written last. */
const KEPT_BUILDS = 3;

/**
 * Other builds' caches are removed, but for those of the builds written last: two installs
 * used in turn (a global one and a project's, of other versions) would otherwise remove
 * each other's caches, and each compile on every start. A temporary file a run left when
 * it died before renaming it goes once it is a minute old (a younger one may be another
 * run's, being written).
 */
function pruneCaches(dir, build) {
  const fs = require('node:fs');
  const newest = new Map([[build, Number.POSITIVE_INFINITY]]);
  const caches = [];
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    let stat;
    try {
      stat = fs.lstatSync(file);
    } catch {
      continue;
    }
    if (name.startsWith('.') && name.endsWith('.tmp')) {
      if (Date.now() - stat.mtimeMs > 60_000) fs.rmSync(file, { force: true });
    } else if (name.endsWith('.cache')) {
      const id = name.slice(0, 36);
      caches.push({ file, id });
      newest.set(id, Math.max(newest.get(id) ?? 0, stat.mtimeMs));
    }
  }
  const kept = new Set(
    [...newest]
      .sort((a, b) => b[1] - a[1])
      .slice(0, KEPT_BUILDS)
      .map(([id]) => id),
  );
  for (const { file, id } of caches) if (!kept.has(id)) fs.rmSync(file, { force: true });
  // This build's caches for start options of the user's: the ones written last (a tool that
  // sets NODE_OPTIONS anew on each run would otherwise leave one a run).
  const optioned = caches
    .filter((c) => c.id === build && /-[0-9a-f]{8}\.cache$/.test(c.file))
    .map((c) => ({ ...c, at: statTime(c.file) }))
    .sort((a, b) => b.at - a.at);
  for (const { file } of optioned.slice(KEPT_OPTION_CACHES)) fs.rmSync(file, { force: true });
}

/** How many caches for start options of the user's a build keeps (NODE_OPTIONS of a few shells). */
const KEPT_OPTION_CACHES = 8;

function statTime(file) {
  try {
    return require('node:fs').lstatSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
