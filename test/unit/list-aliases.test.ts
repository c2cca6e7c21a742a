import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listAliases } from '../../src/core/store/list-aliases.js';

function config(): { dir: string; tasks: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'list-aliases-'));
  const tasks = path.join(dir, 'tasks');
  fs.mkdirSync(tasks);
  return { dir, tasks };
}

describe('listAliases: the other names of one list folder', () => {
  it('a chain of links is one list, under the folder; a link to nothing or a loop is alone', () => {
    const { dir, tasks } = config();
    fs.mkdirSync(path.join(tasks, 'real'));
    fs.symlinkSync('real', path.join(tasks, 'b'));
    fs.symlinkSync('b', path.join(tasks, 'a'));
    fs.symlinkSync(path.join(dir, 'nowhere'), path.join(tasks, 'dangling'));
    fs.symlinkSync('loop2', path.join(tasks, 'loop1'));
    fs.symlinkSync('loop1', path.join(tasks, 'loop2'));
    fs.mkdirSync(path.join(tasks, 'other'));
    const names = ['a', 'b', 'dangling', 'loop1', 'loop2', 'other', 'real'];
    expect([...listAliases(dir, names)].sort()).toEqual([
      ['a', 'real'],
      ['b', 'real'],
    ]);
  });

  it('no link: nothing, whatever the names', () => {
    const { dir, tasks } = config();
    for (const n of ['x', 'y']) fs.mkdirSync(path.join(tasks, n));
    expect(listAliases(dir, ['x', 'y']).size).toBe(0);
  });

  it('a config folder reached through a link itself: the same answer', () => {
    const { dir, tasks } = config();
    fs.mkdirSync(path.join(tasks, 'real'));
    fs.symlinkSync(path.join(tasks, 'real'), path.join(tasks, 'abs'));
    const via = `${dir}-link`;
    fs.symlinkSync(dir, via);
    expect([...listAliases(via, ['abs', 'real'])]).toEqual([['abs', 'real']]);
  });
});
