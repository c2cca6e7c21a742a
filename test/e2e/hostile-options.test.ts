import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

/**
 * Empty values where a command needs something: a clear one-line usage error (exit 2),
 * nothing written, never a silent success that did nothing. The built binary is run.
 */
describe('empty ids and keys', () => {
  const files = (config: string) => {
    const dir = path.join(config, 'tasks', 'x');
    return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
  };
  const list = () => {
    const config = tempConfig();
    const r = run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() });
    expect(r.code).toBe(0);
    return config;
  };

  it.each([
    [['delete', ''], /^error: delete needs at least one task id$/],
    [['delete', ','], /^error: delete needs at least one task id$/],
    [['delete', '--yes', ' '], /^error: delete needs at least one task id$/],
    [['update', '1', '--unset-meta', ''], /^error: invalid --unset-meta "": expected a metadata key$/],
    [['update', '1', '--unset-meta', 'k', '--unset-meta', ' '], /^error: invalid --unset-meta " ": expected a metadata key$/],
  ])('tasks %j: exit 2, one line, nothing written', (args, message) => {
    const config = list();
    const before = files(config);
    const r = run(config, ['-l', 'x', ...args], { cwd: os.tmpdir() });
    expect(r.stderr.trim()).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(files(config)).toEqual(before);
  });
});
