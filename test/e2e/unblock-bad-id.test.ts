/**
 * A blocker id written by hand that is no task id (`x/../2`): the advice `list` and
 * `check` give must work. `unblock <id>` (every blocker) removes it, with exit 0, and
 * `check --fix` drops it; neither fails half way with the file changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

function listWithBadBlocker(): { config: string; file: string } {
  const config = tempConfig();
  expect(run(config, ['-l', 'L', 'create', 'a']).code).toBe(0);
  expect(run(config, ['-l', 'L', 'create', 'b']).code).toBe(0);
  const file = path.join(config, 'tasks', 'L', '1.json');
  const task = JSON.parse(fs.readFileSync(file, 'utf8'));
  task.blockedBy = ['x/../2', '2'];
  fs.writeFileSync(file, JSON.stringify(task, null, 2));
  const two = path.join(config, 'tasks', 'L', '2.json');
  fs.writeFileSync(two, JSON.stringify({ ...JSON.parse(fs.readFileSync(two, 'utf8')), blocks: ['1'] }, null, 2));
  return { config, file };
}

describe('a blocker id that is no task id', () => {
  it('unblock <id> removes every blocker, that one too, and exits 0', () => {
    const { config, file } = listWithBadBlocker();
    const r = run(config, ['-l', 'L', 'unblock', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).blockedBy).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'L', '2.json'), 'utf8')).blocks).toEqual([]);
  });

  it('check --fix drops it, as the advice says', () => {
    const { config, file } = listWithBadBlocker();
    const r = run(config, ['-l', 'L', 'check', '--fix']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).blockedBy).toEqual(['2']);
  });
});
