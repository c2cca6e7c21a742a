/**
 * What stands under `tasks/` in a list's place but is no folder: a symbolic link to
 * nothing (a network share not mounted, a folder removed), a link loop, a file. `lists`
 * says it skipped each, instead of leaving the list out without a word, and a read of
 * one says what is there, not that nothing is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

function world() {
  const config = tempConfig();
  expect(run(config, ['-l', 'good', 'create', 'a task']).code).toBe(0);
  const tasks = path.join(config, 'tasks');
  // Relative, as links often are: said by where it leads.
  fs.symlinkSync(path.join('..', 'unmounted', 'share'), path.join(tasks, 'shared'));
  fs.symlinkSync('loop-b', path.join(tasks, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(tasks, 'loop-b'));
  fs.writeFileSync(path.join(tasks, 'stray'), 'not a list\n');
  return { config, tasks };
}

describe('tasks lists with entries in a list folder place that are no folder', () => {
  it('shows the lists (exit 0) and warns of each entry skipped, saying what it is', () => {
    const { config } = world();
    const r = run(config, ['lists']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]?.split('\t')[0]).toBe('good');
    expect(r.stderr).toContain(
      `warning: skipped tasks/shared: a symbolic link to ${path.join(config, 'unmounted', 'share')}, which does not exist`,
    );
    expect(r.stderr).toContain('warning: skipped tasks/loop-a: a symbolic link loop');
    expect(r.stderr).toContain('warning: skipped tasks/stray: a file, not a list folder');
    // The records tasks keeps beside the lists are no lists, and never warned of.
    expect(r.stderr).not.toContain('.tasks-writes.jsonl');
    const json = run(config, ['lists', '--json']);
    expect(json.code).toBe(0);
    const warnings = json.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { warning?: { code: string; path?: string } });
    expect(
      warnings
        .filter((w) => w.warning?.code === 'list_unusable')
        .map((w) => w.warning?.path)
        .sort(),
    ).toEqual(['loop-a', 'loop-b', 'shared', 'stray']);
  });

  it('a read of a list that is a link to nothing says so, not that the list does not exist', () => {
    const { config } = world();
    const r = run(config, ['-l', 'shared', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `error: list folder ${path.join(config, 'tasks', 'shared')} is a symbolic link to ${path.join(config, 'unmounted', 'share')}, which does not exist`,
    );
    const loop = run(config, ['-l', 'loop-a', 'get', '1']);
    expect(loop.stderr).toContain(`error: list folder ${path.join(config, 'tasks', 'loop-a')} is a symbolic link loop`);
    expect(loop.stderr).not.toContain('ELOOP');
  });
});
