/**
 * The bundles bin/tasks.js runs and their V8 code caches: about the binary itself, so
 * through it.
 */
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { commandNameIn, READ_COMMAND_NAMES } from '../../src/cli/commands/index.js';
import { BIN, fixtureConfig, run } from '../helpers/cli.js';

const bundle = path.join(path.dirname(BIN), '..', 'dist', 'tasks.cjs');
const readBundle = path.join(path.dirname(BIN), '..', 'dist', 'tasks-read.cjs');

describe('the CLI bundles and their code caches', () => {
  it.each([
    [bundle, ''],
    [readBundle, ' read'],
  ])('the build leaves a code cache that this Node accepts for %s', (file, kind) => {
    const source = fs.readFileSync(file, 'utf8');
    const cache = fs.readFileSync(`${file}.cache`);
    // The cache starts with the bundle's first line, which names the build (and the bundle).
    const build = source.slice(0, source.indexOf('\n') + 1);
    expect(build).toMatch(new RegExp(`^// tasks build [0-9a-f-]{36}${kind}\\n$`));
    expect(cache.toString('latin1', 0, build.length)).toBe(build);
    // What bin/tasks.js compiles: the bundle in the CommonJS wrapper, under its own name.
    const script = new vm.Script(Module.wrap(source), { filename: file, cachedData: cache.subarray(build.length) });
    expect(script.cachedDataRejected).toBe(false);
  });

  it('the bundles have no import() left: bin/tasks.js runs them as scripts, where one needs a loader', () => {
    expect(fs.readFileSync(bundle, 'utf8')).not.toMatch(/[^\w$.]import\(/);
    expect(fs.readFileSync(readBundle, 'utf8')).not.toMatch(/[^\w$.]import\(/);
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
      fs.writeFileSync(path.join(copy, 'dist', 'tasks.cjs.cache'), `${build}\n${'x'.repeat(4096)}`);
      expect(run(config, ['list', '--json'], { bin })).toEqual(before);
      // With the read bundle beside it (list runs from that one): its cache of another build, then damaged.
      fs.copyFileSync(readBundle, path.join(copy, 'dist', 'tasks-read.cjs'));
      const readCache = fs.readFileSync(`${readBundle}.cache`);
      fs.writeFileSync(
        path.join(copy, 'dist', 'tasks-read.cjs.cache'),
        Buffer.concat([Buffer.from('// tasks build 00000000-0000-0000-0000-000000000000 read\n'), readCache.subarray(57)]),
      );
      expect(run(config, ['list', '--json'], { bin })).toEqual(before);
      const readBuild = fs.readFileSync(readBundle, 'utf8').split('\n')[0];
      fs.writeFileSync(path.join(copy, 'dist', 'tasks-read.cjs.cache'), `${readBuild}\n${'x'.repeat(4096)}`);
      expect(run(config, ['list', '--json'], { bin })).toEqual(before);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
