/**
 * `-l .` and `-l ..` are paths, not list names: Claude Code's rule would turn them into
 * the lists "-" and "--", which nobody meant. They are refused as usage (exit 2) with one
 * line that says so, with no "did you mean" built from one-character names, and nothing
 * on disk changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';

const task = (id: string) => ({ id, subject: `Task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });

describe('a path in the place of a list name', () => {
  for (const name of ['.', '..', './', '../']) {
    it(`-l ${JSON.stringify(name)} is usage: one line, no suggestion, nothing written`, () => {
      const config = tempConfig();
      writeTask(path.join(config, 'tasks', 'L'), task('1'));
      writeTask(path.join(config, 'tasks', 'ab'), task('1'));
      const before = snapshotDir(path.join(config, 'tasks'));
      for (const args of [['list'], ['get', '1'], ['create', 'x'], ['update', '1', '--status', 'completed']]) {
        const r = run(config, ['-l', name, ...args]);
        expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
        expect(r.stderr).toBe(`error: ${JSON.stringify(name)} is a folder's path, not a list name\n`);
        expect(r.stderr).not.toMatch(/did you mean/);
      }
      expect(snapshotDir(path.join(config, 'tasks'))).toEqual(before);
      expect(fs.readdirSync(path.join(config, 'tasks')).sort()).toEqual(['L', 'ab']);
    });
  }

  it('tasks use . binds nothing: the same one line, exit 2, no settings written', () => {
    const config = tempConfig();
    const project = path.join(config, 'proj');
    fs.mkdirSync(project);
    for (const name of ['.', '..']) {
      const r = run(config, ['use', name], { cwd: project });
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: ${JSON.stringify(name)} is a folder's path, not a list name\n`]);
    }
    expect(fs.readdirSync(project)).toEqual([]);
  });

  it('with --json the error is the usage code', () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'L'), task('1'));
    const r = run(config, ['-l', '..', 'list', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'usage' } });
  });
});
