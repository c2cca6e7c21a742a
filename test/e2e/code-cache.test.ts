/**
 * The bundles bin/tasks.js runs and their V8 code caches: about the binary itself, so
 * through it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { commandNameIn, READ_COMMAND_NAMES } from '../../src/cli/commands/index.js';
import { BIN, fixtureConfig, run } from '../helpers/cli.js';

const bundle = path.join(path.dirname(BIN), '..', 'dist', 'tasks.cjs');
/** The second line of a code cache: the Node it is for. */
const NODE_LINE = `// node ${process.version} ${process.platform}-${process.arch}\n`;
const readBundle = path.join(path.dirname(BIN), '..', 'dist', 'tasks-read.cjs');
/** The read bundle's commands, each with a code cache of its own (`ls` is `list`'s). */
const READ_COMMANDS = ['list', 'get', 'lists'];
const plainBundle = path.join(path.dirname(BIN), '..', 'dist', 'tasks-plain.cjs');
/** The plain bundle's commands, each with a code cache of its own. */
const PLAIN_COMMANDS = ['list', 'get'];

/**
 * The package's bin and read bundle copied into `copy`, with no cache beside the bundle:
 * as under a Node the build's cache is not for.
 */
function copyWithoutCache(copy: string): void {
  fs.cpSync(path.join(path.dirname(BIN), '..', 'bin'), path.join(copy, 'bin'), { recursive: true });
  fs.mkdirSync(path.join(copy, 'dist'));
  fs.copyFileSync(readBundle, path.join(copy, 'dist', 'tasks-read.cjs'));
}

describe('the CLI bundles and their code caches', () => {
  it.each([
    [bundle, '', `${bundle}.cache`],
    ...READ_COMMANDS.map((command) => [readBundle, ' read', `${readBundle}.${command}.cache`]),
    ...PLAIN_COMMANDS.map((command) => [plainBundle, ' plain', `${plainBundle}.${command}.cache`]),
  ])('the build leaves a code cache that this Node accepts for %s (%s)', (file, kind, cacheFile) => {
    const source = fs.readFileSync(file, 'utf8');
    const cache = fs.readFileSync(cacheFile);
    // The cache starts with the bundle's first line, which names the build (and the bundle),
    // and a line naming the Node it was made for: this one.
    const build = source.slice(0, source.indexOf('\n') + 1);
    expect(build).toMatch(new RegExp(`^// tasks build [0-9a-f-]{36}${kind}\\n$`));
    const header = `${build}${NODE_LINE}`;
    expect(cache.toString('latin1', 0, header.length)).toBe(header);
    // What bin/tasks.js compiles: the bundle in the CommonJS wrapper, under its own name.
    const script = new vm.Script(Module.wrap(source), { filename: file, cachedData: cache.subarray(header.length) });
    expect(script.cachedDataRejected).toBe(false);
  });

  it('the bundles have no import() left: bin/tasks.js runs them as scripts, where one needs a loader', () => {
    expect(fs.readFileSync(bundle, 'utf8')).not.toMatch(/[^\w$.]import\(/);
    expect(fs.readFileSync(readBundle, 'utf8')).not.toMatch(/[^\w$.]import\(/);
    expect(fs.readFileSync(plainBundle, 'utf8')).not.toMatch(/[^\w$.]import\(/);
  });

  it('the plain bundle holds the plain reads and none of commander, the program, the other commands or the hosts', () => {
    const meta = JSON.parse(fs.readFileSync(path.join(path.dirname(BIN), '..', 'dist', 'meta', 'tasks-plain.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
    };
    // What the bundle holds: the inputs with code in its output (a module whose imports are all left out is read, but has none).
    const inputs = Object.values(meta.outputs).flatMap((out) =>
      Object.entries(out.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([file]) => file),
    );
    expect(inputs).toEqual(
      expect.arrayContaining(['dist/cli/read-path/plain-read.js', 'dist/cli/commands/list.js', 'dist/cli/commands/get.js']),
    );
    const unwanted = inputs.filter((f) =>
      /node_modules\/commander\/|cli\/commands\/(program|lists|create)\.js|cli\/remote\/remote-run|cli\/board-hosts\//.test(f),
    );
    expect(unwanted).toEqual([]);
    // A third smaller than the read bundle, or it is not worth its place.
    expect(fs.statSync(plainBundle).size).toBeLessThan(fs.statSync(readBundle).size * 0.75);
  });

  it('a plain list or get runs from the plain bundle; any other command line is declined before it runs and runs from the read bundle', () => {
    const { config } = fixtureConfig();
    const lines = [
      ['list'],
      ['ls', '--json'],
      ['get', '1'],
      ['list', '--stalled'],
      ['list', '--help'],
      ['get', '1', '2'],
      ['list', '--sort=id'],
    ];
    const expected = lines.map((words) => run(config, words));
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-'));
    try {
      copyWithoutCache(copy);
      fs.copyFileSync(plainBundle, path.join(copy, 'dist', 'tasks-plain.cjs'));
      const bin = path.join(copy, 'bin', 'tasks.js');
      const cacheHome = path.join(copy, 'cache');
      const env = { XDG_CACHE_HOME: cacheHome };
      const idOf = (file: string) => /^\/\/ tasks build ([0-9a-f-]{36}) \w+$/.exec(fs.readFileSync(file, 'utf8').split('\n')[0] ?? '')?.[1];
      const own = (kind: string) =>
        path.join(
          cacheHome,
          'tasks',
          'code-cache',
          `${idOf(readBundle)}-${kind}-${process.version}-${process.platform}-${process.arch}.cache`,
        );
      // Each bundle trains a cache of its own on its first run: which were written says which bundle ran.
      const written = () => (fs.existsSync(path.dirname(own('x'))) ? fs.readdirSync(path.dirname(own('x'))).sort() : []);
      const name = (kind: string) => path.basename(own(kind));

      // Declined: the read bundle runs them, with the same output, and the plain bundle wrote no cache.
      for (const i of [3, 4, 5, 6]) expect(run(config, lines[i] as string[], { bin, env }), lines[i]?.join(' ')).toEqual(expected[i]);
      expect(written()).toEqual([name('read-list'), name('read-get')].sort());
      // Taken: the plain bundle runs them.
      for (const i of [0, 1, 2]) expect(run(config, lines[i] as string[], { bin, env }), lines[i]?.join(' ')).toEqual(expected[i]);
      expect(written()).toEqual([name('plain-get'), name('plain-list'), name('read-get'), name('read-list')].sort());
      expect(idOf(plainBundle)).toBe(idOf(readBundle));
      // A host named by $TASKS_HOST (bin/tasks.js sends such a line to the remote bundle, not here): declined too.
      const onHost = { TASKS_HOST: 'nohost.invalid' };
      const there = run(config, ['list'], { env: onHost });
      expect(there.stderr).toMatch(/^error: host nohost\.invalid: /);
      fs.copyFileSync(bundle, path.join(copy, 'dist', 'tasks.cjs'));
      expect(run(config, ['list'], { bin, env: { ...env, ...onHost } })).toEqual(there);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('the caches beside a bundle are opened only under the Node its second line names', () => {
    const { config } = fixtureConfig();
    const expected = run(config, ['lists']);
    const source = fs.readFileSync(readBundle, 'utf8');
    const lines = source.split('\n');
    expect(`${lines[1]}\n`).toBe(NODE_LINE);
    const ownFile = (cacheHome: string) =>
      path.join(
        cacheHome,
        'tasks',
        'code-cache',
        `${/^\/\/ tasks build ([0-9a-f-]{36}) read$/.exec(lines[0] ?? '')?.[1]}-read-lists-${process.version}-${process.platform}-${process.arch}.cache`,
      );
    for (const [nodeNamed, opened] of [
      [process.version, true],
      // Another Node, named in as many characters: V8 would take the cache with this source, were it opened.
      [process.version.replace(/\d/g, (d) => (d === '9' ? '8' : '9')), false],
    ] as const) {
      const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-'));
      try {
        fs.cpSync(path.join(path.dirname(BIN), '..', 'bin'), path.join(copy, 'bin'), { recursive: true });
        fs.mkdirSync(path.join(copy, 'dist'));
        fs.writeFileSync(
          path.join(copy, 'dist', 'tasks-read.cjs'),
          source.replace(NODE_LINE, NODE_LINE.replace(process.version, nodeNamed)),
        );
        fs.copyFileSync(`${readBundle}.lists.cache`, path.join(copy, 'dist', 'tasks-read.cjs.lists.cache'));
        const cacheHome = path.join(copy, 'cache');
        expect(run(config, ['lists'], { bin: path.join(copy, 'bin', 'tasks.js'), env: { XDG_CACHE_HOME: cacheHome } })).toEqual(expected);
        // The build's cache taken: nothing of this Node's own is written; not opened: this Node trains its own.
        expect(fs.existsSync(ownFile(cacheHome)), nodeNamed).toBe(!opened);
      } finally {
        fs.rmSync(copy, { recursive: true, force: true });
      }
    }
  });

  it('bin/tasks.js sends the read bundle the commands it holds, found as the program finds them', () => {
    const source = fs.readFileSync(BIN, 'utf8');
    const names = /const READ_COMMANDS = new Set\((\[[^\]]*\])\)/.exec(source)?.[1];
    expect(JSON.parse(String(names).replace(/'/g, '"'))).toEqual([...READ_COMMAND_NAMES]);
    // bin's own commandName, as it is in the file, against the program's commandNameIn.
    const fn = /function commandName\(argv\) \{[\s\S]*?\n\}/.exec(source)?.[0] as string;
    const globals = /const GLOBAL_WITH_VALUE = new Set\((\[[^\]]*\])\)/.exec(source)?.[1] as string;
    const binCommandName = vm.runInNewContext(`const GLOBAL_WITH_VALUE = new Set(${globals}); ${fn}; commandName`) as (
      a: string[],
    ) => string;
    for (const words of [
      ['list'],
      ['-l', 'list', 'create', 'x'],
      ['--list', 'get', 'update', '1'],
      ['--session', 'lists', 'get', '1'],
      ['--config-dir', 'ls', 'ls'],
      ['--json', 'lists'],
      ['--', 'get'],
      ['-lget', 'list'],
      ['--list=get', 'create'],
      [],
      ['--version'],
    ]) {
      const argv = ['node', 'tasks', ...words];
      expect(binCommandName(argv)).toBe(commandNameIn(argv));
    }
    const read = fs.readFileSync(readBundle, 'utf8');
    expect(read.length).toBeLessThan(fs.readFileSync(bundle, 'utf8').length * 0.7);
  });

  it('a list named like a read command does not send a change to the read bundle', () => {
    const { config } = fixtureConfig();
    for (const list of ['list', 'get', 'lists']) {
      const made = run(config, ['-l', list, 'create', 'Write it', '--json']);
      expect(made.stderr).toBe('');
      expect(made.code).toBe(0);
      expect(run(config, ['--list', list, 'update', '1', '--owner', 'a', '--json']).code).toBe(0);
      expect(JSON.parse(run(config, ['-l', list, 'get', '1', '--json']).stdout)).toMatchObject({ id: '1', owner: 'a' });
    }
    expect(JSON.parse(run(config, ['lists', '--json']).stdout).map((l: { id: string }) => l.id)).toEqual(
      expect.arrayContaining(['list', 'get', 'lists']),
    );
  });

  it('a command runs the same with the cache of another build, or a damaged one, beside the bundle', () => {
    const { config } = fixtureConfig();
    const before = run(config, ['list', '--json']);
    expect(before.code).toBe(0);
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-'));
    try {
      // A copy of the package whose cache names another build.
      fs.cpSync(path.join(path.dirname(BIN), '..', 'bin'), path.join(copy, 'bin'), { recursive: true });
      fs.mkdirSync(path.join(copy, 'dist'));
      fs.copyFileSync(bundle, path.join(copy, 'dist', 'tasks.cjs'));
      const cache = fs.readFileSync(`${bundle}.cache`);
      fs.writeFileSync(
        path.join(copy, 'dist', 'tasks.cjs.cache'),
        Buffer.concat([Buffer.from('// tasks build 00000000-0000-0000-0000-000000000000\n'), cache.subarray(52)]),
      );
      const bin = path.join(copy, 'bin', 'tasks.js');
      expect(run(config, ['list', '--json'], { bin })).toEqual(before);
      // This build's name, then bytes that are not a code cache: V8 rejects them.
      const build = fs.readFileSync(bundle, 'utf8').split('\n')[0];
      fs.writeFileSync(path.join(copy, 'dist', 'tasks.cjs.cache'), `${build}\n${NODE_LINE}${'x'.repeat(4096)}`);
      expect(run(config, ['list', '--json'], { bin })).toEqual(before);
      // With the read bundle beside it (list runs from that one): its cache of another build, then damaged.
      fs.copyFileSync(readBundle, path.join(copy, 'dist', 'tasks-read.cjs'));
      const readCache = fs.readFileSync(`${readBundle}.list.cache`);
      fs.writeFileSync(
        path.join(copy, 'dist', 'tasks-read.cjs.list.cache'),
        Buffer.concat([Buffer.from('// tasks build 00000000-0000-0000-0000-000000000000 read\n'), readCache.subarray(57)]),
      );
      expect(run(config, ['list', '--json'], { bin })).toEqual(before);
      const readBuild = fs.readFileSync(readBundle, 'utf8').split('\n')[0];
      fs.writeFileSync(path.join(copy, 'dist', 'tasks-read.cjs.list.cache'), `${readBuild}\n${NODE_LINE}${'x'.repeat(4096)}`);
      expect(run(config, ['list', '--json'], { bin })).toEqual(before);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("under a Node the build's cache is not for, the first run trains one in the user's cache folder and the next runs use it", () => {
    const { config } = fixtureConfig();
    const before = run(config, ['list', '--json']);
    expect(before.code).toBe(0);
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-'));
    try {
      fs.cpSync(path.join(path.dirname(BIN), '..', 'bin'), path.join(copy, 'bin'), { recursive: true });
      fs.mkdirSync(path.join(copy, 'dist'));
      fs.copyFileSync(readBundle, path.join(copy, 'dist', 'tasks-read.cjs'));
      // The build's cache, as another Node made it: its header names that Node.
      const readCache = fs.readFileSync(`${readBundle}.list.cache`);
      const build = `${fs.readFileSync(readBundle, 'utf8').split('\n')[0]}\n`;
      fs.writeFileSync(
        path.join(copy, 'dist', 'tasks-read.cjs.list.cache'),
        Buffer.concat([
          Buffer.from(`${build}// node v0.0.1 ${process.platform}-${process.arch}\n`),
          readCache.subarray(build.length + NODE_LINE.length),
        ]),
      );
      const bin = path.join(copy, 'bin', 'tasks.js');
      const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-code-cache-'));
      const env = { XDG_CACHE_HOME: cacheHome };
      const id = /^\/\/ tasks build ([0-9a-f-]{36}) read$/.exec(build.trim())?.[1];
      const own = path.join(
        cacheHome,
        'tasks',
        'code-cache',
        `${id}-read-list-${process.version}-${process.platform}-${process.arch}.cache`,
      );
      // Other builds' caches in the same folder: the two written last stay (two installs used
      // in turn must not remove each other's), an older one goes when this build writes its own;
      // so does a temporary file a dead run left, once a minute old, and not a younger one.
      fs.mkdirSync(path.dirname(own), { recursive: true });
      const other = (n: number, minutesAgo: number) => {
        const file = path.join(
          path.dirname(own),
          `0000000${n}-0000-0000-0000-000000000000-read-list-${process.version}-${process.platform}-${process.arch}.cache`,
        );
        fs.writeFileSync(file, 'old');
        const at = new Date(Date.now() - minutesAgo * 60_000);
        fs.utimesSync(file, at, at);
        return file;
      };
      const [oldest, older, newer] = [other(1, 30), other(2, 20), other(3, 10)];
      const deadTemp = path.join(path.dirname(own), `.${path.basename(own)}.99999.tmp`);
      fs.writeFileSync(deadTemp, 'half');
      fs.utimesSync(deadTemp, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
      const youngTemp = path.join(path.dirname(own), `.${path.basename(own)}.99998.tmp`);
      fs.writeFileSync(youngTemp, 'half');

      expect(run(config, ['list', '--json'], { bin, env })).toEqual(before);
      const first = fs.readFileSync(own);
      expect(first.toString('latin1', 0, build.length + NODE_LINE.length)).toBe(`${build}${NODE_LINE}`);
      expect([oldest, older, newer, deadTemp, youngTemp].map((f) => fs.existsSync(f))).toEqual([false, true, true, false, true]);
      const source = fs.readFileSync(readBundle, 'utf8');
      // After the header, V8's data.
      const accepted = new vm.Script(Module.wrap(source), {
        filename: path.join(copy, 'dist', 'tasks-read.cjs'),
        cachedData: first.subarray(build.length + NODE_LINE.length),
      });
      expect(accepted.cachedDataRejected).toBe(false);
      // It holds what the command ran, not only what compiles up front: more than a cache made before running.
      const upFront = new vm.Script(Module.wrap(source), { filename: 'x.cjs' }).createCachedData();
      expect(first.length).toBeGreaterThan(upFront.length * 1.5);

      // The next run takes it and writes nothing.
      const stamp = fs.statSync(own).mtimeMs;
      fs.utimesSync(own, new Date(stamp - 60_000), new Date(stamp - 60_000));
      const mtime = fs.statSync(own).mtimeMs;
      expect(run(config, ['list', '--json'], { bin, env })).toEqual(before);
      expect(fs.statSync(own).mtimeMs).toBe(mtime);

      // A damaged one is rejected by V8, and written again.
      fs.writeFileSync(own, Buffer.concat([Buffer.from(`${build}${NODE_LINE}`), Buffer.alloc(4096, 120)]));
      expect(run(config, ['list', '--json'], { bin, env })).toEqual(before);
      expect(fs.readFileSync(own).length).toBeGreaterThan(first.length / 2);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("each read command trains a Node's own cache of its own, once, holding that command's functions and not the others'", () => {
    const { config } = fixtureConfig();
    const expected = { list: run(config, ['list']), get: run(config, ['get', '1']) };
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-'));
    try {
      copyWithoutCache(copy);
      const bin = path.join(copy, 'bin', 'tasks.js');
      const cacheHome = path.join(copy, 'cache');
      const env = { XDG_CACHE_HOME: cacheHome };
      const build = `${fs.readFileSync(readBundle, 'utf8').split('\n')[0]}\n`;
      const id = /^\/\/ tasks build ([0-9a-f-]{36}) read$/.exec(build.trim())?.[1];
      const own = (command: string) =>
        path.join(cacheHome, 'tasks', 'code-cache', `${id}-read-${command}-${process.version}-${process.platform}-${process.arch}.cache`);
      /** A cache's time set back a minute, so that a rewrite shows; its time then. */
      const setBack = (file: string): number => {
        const past = new Date(Date.now() - 60_000);
        fs.utimesSync(file, past, past);
        return fs.statSync(file).mtimeMs;
      };
      const accepted = (file: string) =>
        !new vm.Script(Module.wrap(fs.readFileSync(readBundle, 'utf8')), {
          filename: path.join(copy, 'dist', 'tasks-read.cjs'),
          cachedData: fs.readFileSync(file).subarray(build.length + NODE_LINE.length),
        }).cachedDataRejected;

      expect(run(config, ['get', '1'], { bin, env })).toEqual(expected.get);
      expect(fs.existsSync(own('list'))).toBe(false);
      const getAt = setBack(own('get'));

      // The first list writes a cache of its own and leaves get's as it was.
      expect(run(config, ['list'], { bin, env })).toEqual(expected.list);
      const listAt = setBack(own('list'));
      expect(fs.statSync(own('get')).mtimeMs).toBe(getAt);
      expect(accepted(own('get'))).toBe(true);
      expect(accepted(own('list'))).toBe(true);
      // Each holds its own command's functions: the two differ.
      expect(fs.readFileSync(own('list')).equals(fs.readFileSync(own('get')))).toBe(false);

      // Then neither command, nor ls (the list's other name), writes one again.
      expect(run(config, ['list'], { bin, env })).toEqual(expected.list);
      expect(run(config, ['ls'], { bin, env })).toEqual(expected.list);
      expect(run(config, ['get', '1'], { bin, env })).toEqual(expected.get);
      expect(fs.statSync(own('list')).mtimeMs).toBe(listAt);
      expect(fs.statSync(own('get')).mtimeMs).toBe(getAt);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("a Node's own cache is the user's alone (0600); one others can write, or another user's, is not run but written again", () => {
    const { config } = fixtureConfig();
    const before = run(config, ['list', '--json']);
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-'));
    try {
      copyWithoutCache(copy);
      const bin = path.join(copy, 'bin', 'tasks.js');
      const env = { XDG_CACHE_HOME: path.join(copy, 'cache') };
      const id = /^\/\/ tasks build ([0-9a-f-]{36}) read$/.exec(fs.readFileSync(readBundle, 'utf8').split('\n')[0] ?? '')?.[1];
      const own = path.join(
        copy,
        'cache',
        'tasks',
        'code-cache',
        `${id}-read-list-${process.version}-${process.platform}-${process.arch}.cache`,
      );
      /** The cache's time set back a minute, so that a rewrite shows; its time then. */
      const setBack = (): number => {
        const past = new Date(Date.now() - 60_000);
        fs.utimesSync(own, past, past);
        return fs.statSync(own).mtimeMs;
      };

      expect(run(config, ['list', '--json'], { bin, env })).toEqual(before);
      expect(fs.statSync(own).mode & 0o777).toBe(0o600);
      // Taken as it is: not written again.
      let at = setBack();
      expect(run(config, ['list', '--json'], { bin, env })).toEqual(before);
      expect(fs.statSync(own).mtimeMs).toBe(at);

      // Writable by others: not taken, and made again, the user's alone.
      fs.chmodSync(own, 0o666);
      at = setBack();
      expect(run(config, ['list', '--json'], { bin, env })).toEqual(before);
      expect(fs.statSync(own).mtimeMs).not.toBe(at);
      expect(fs.statSync(own).mode & 0o777).toBe(0o600);

      // Another user's (only root can make one here).
      const uid = process.getuid?.();
      if (uid === 0) {
        fs.chownSync(own, 65534, 65534);
        fs.chmodSync(own, 0o644);
        at = setBack();
        expect(run(config, ['list', '--json'], { bin, env })).toEqual(before);
        expect(fs.statSync(own).mtimeMs).not.toBe(at);
        expect(fs.statSync(own).uid).toBe(0);
      }
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("under V8 flags the build's cache was not made with, the first run writes the user's own, named by those options, and later runs take it", () => {
    const { config } = fixtureConfig();
    const before = run(config, ['list', '--json']);
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-code-cache-'));
    const folder = path.join(cacheHome, 'tasks', 'code-cache');
    const id = /^\/\/ tasks build ([0-9a-f-]{36}) plain$/.exec(fs.readFileSync(plainBundle, 'utf8').split('\n')[0] ?? '')?.[1];
    const name = new RegExp(`^${id}-plain-list-${process.version}-${process.platform}-${process.arch}-([0-9a-f]{8})\\.cache$`);
    const under = (options: string | undefined) => ({ XDG_CACHE_HOME: cacheHome, NODE_OPTIONS: options });
    const timesNow = (): number[] => fs.readdirSync(folder).map((f) => fs.statSync(path.join(folder, f)).mtimeMs);
    /** Each cache's time set back a minute, so that a rewrite shows; their times then. */
    const setBack = (): number[] => {
      const past = new Date(Date.now() - 60_000);
      for (const f of fs.readdirSync(folder)) fs.utimesSync(path.join(folder, f), past, past);
      return timesNow();
    };
    try {
      // V8 refuses the build's cache under a V8 flag of the user's (as Node 20 and 22 do under
      // --max-old-space-size, which Node 24 no longer counts).
      const refused = spawnSync(
        process.execPath,
        [
          '--expose-gc',
          '-e',
          `const fs = require('fs'), vm = require('vm'), m = require('module');
           const src = fs.readFileSync(${JSON.stringify(plainBundle)}, 'utf8'), cache = fs.readFileSync(${JSON.stringify(`${plainBundle}.list.cache`)});
           const skip = src.indexOf('\\n') + 1 + ${JSON.stringify(NODE_LINE)}.length;
           process.stdout.write(String(new vm.Script(m.wrap(src), { filename: ${JSON.stringify(plainBundle)}, cachedData: cache.subarray(skip) }).cachedDataRejected));`,
        ],
        { encoding: 'utf8' },
      );
      expect(refused.stdout).toBe('true');

      expect(run(config, ['list', '--json'], { env: under('--expose-gc') })).toEqual(before);
      const [first] = fs.readdirSync(folder);
      expect(first).toMatch(name);
      // Taken by the next runs under the same options: not written again.
      let times = setBack();
      expect(run(config, ['list', '--json'], { env: under('--expose-gc') })).toEqual(before);
      expect(run(config, ['list', '--json'], { env: under('--expose-gc') })).toEqual(before);
      expect(timesNow()).toEqual(times);

      // Other options: a cache of their own beside it, neither written over.
      expect(run(config, ['list', '--json'], { env: under('--expose-gc --stack-trace-limit=20') })).toEqual(before);
      const both = fs.readdirSync(folder);
      expect(both).toHaveLength(2);
      expect(both).toContain(first);
      for (const f of both) expect(f).toMatch(name);
      times = setBack();
      expect(run(config, ['list', '--json'], { env: under('--expose-gc') })).toEqual(before);
      expect(run(config, ['list', '--json'], { env: under('--expose-gc --stack-trace-limit=20') })).toEqual(before);
      // None: the build's cache, and nothing written.
      expect(run(config, ['list', '--json'], { env: under(undefined) })).toEqual(before);
      expect(timesNow()).toEqual(times);
      expect(fs.readdirSync(folder)).toHaveLength(2);

      // Options that change on every run (a preload at a new path) keep the 8 written last, not one a run.
      for (let i = 0; i < 10; i++) {
        const old = path.join(folder, (first as string).replace(/-[0-9a-f]{8}\.cache$/, `-${String(i).padStart(8, '0')}.cache`));
        fs.writeFileSync(old, 'old');
        const at = new Date(Date.now() - (20 - i) * 60_000);
        fs.utimesSync(old, at, at);
      }
      expect(run(config, ['list', '--json'], { env: under('--expose-gc --stack-trace-limit=21') })).toEqual(before);
      const left = fs.readdirSync(folder);
      expect(left).toHaveLength(8);
      expect(left.some((f) => f.endsWith('-00000000.cache'))).toBe(false);
    } finally {
      fs.rmSync(cacheHome, { recursive: true, force: true });
    }
  });

  it("with no $XDG_CACHE_HOME a Node's own cache goes under $HOME/.cache, and a read with $HOME and $USER set never loads node:os", () => {
    const { config } = fixtureConfig();
    const before = run(config, ['list', '--json']);
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-'));
    try {
      copyWithoutCache(copy);
      const home = path.join(copy, 'home');
      // Which built-in modules the run loaded, written at exit (stdout and stderr are the command's).
      const loaded = path.join(copy, 'loaded.json');
      const hook = path.join(copy, 'loaded.cjs');
      fs.writeFileSync(
        hook,
        `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));\n`,
      );
      const env = { HOME: home, XDG_CACHE_HOME: undefined, USER: 'someone', NODE_OPTIONS: `--require ${hook}` };
      const bin = path.join(copy, 'bin', 'tasks.js');

      expect(run(config, ['list', '--json'], { bin, env })).toEqual(before);
      const id = /^\/\/ tasks build ([0-9a-f-]{36}) read$/.exec(fs.readFileSync(readBundle, 'utf8').split('\n')[0] ?? '')?.[1];
      // Named by the options Node was started with too (NODE_OPTIONS here).
      expect(fs.readdirSync(path.join(home, '.cache', 'tasks', 'code-cache'))).toEqual([
        expect.stringMatching(new RegExp(`^${id}-read-list-${process.version}-${process.platform}-${process.arch}-[0-9a-f]{8}\\.cache$`)),
      ]);
      // The next run starts from it; neither it nor the list needs the account's home or name.
      expect(run(config, ['list'], { bin, env }).code).toBe(0);
      const modules = JSON.parse(fs.readFileSync(loaded, 'utf8')) as string[];
      expect(modules).toContain('NativeModule vm');
      expect(modules).not.toContain('NativeModule os');
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
