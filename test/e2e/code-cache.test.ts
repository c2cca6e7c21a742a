import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { BIN, fixtureConfig, run } from '../helpers/cli.js';

const bundle = path.join(path.dirname(BIN), '..', 'dist', 'tasks.cjs');

describe('the CLI bundle and its code cache', () => {
  it('the build leaves a code cache that this Node accepts for the bundle', () => {
    const source = fs.readFileSync(bundle, 'utf8');
    const cache = fs.readFileSync(`${bundle}.cache`);
    // The cache starts with the bundle's first line, which names the build.
    const build = source.slice(0, source.indexOf('\n') + 1);
    expect(build).toMatch(/^\/\/ tasks build [0-9a-f-]{36}\n$/);
    expect(cache.toString('latin1', 0, build.length)).toBe(build);
    // What bin/tasks.js compiles: the bundle in the CommonJS wrapper, under its own name.
    const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cache.subarray(build.length) });
    expect(script.cachedDataRejected).toBe(false);
  });

  it('the bundle has no import() left: bin/tasks.js runs it as a script, where one needs a loader', () => {
    expect(fs.readFileSync(bundle, 'utf8')).not.toMatch(/[^\w$.]import\(/);
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
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
