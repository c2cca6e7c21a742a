import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, runAsync, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

/** What list, lists and claim --next say must be what is on disk, and what agents would do. */

const task = (id: string, subject: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('list: a task is named by its file', () => {
  it('shows the file name as the id when the id inside differs (no two rows "#2")', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, task('1', 'one'));
    writeTask(list, task('2', 'two'));
    // 3.json says it is #2: agents address it as 3 (the file), and their next write says so.
    fs.writeFileSync(path.join(list, '3.json'), JSON.stringify(task('2', 'three'), null, 2));
    const r = await runInProcess(config, ['-l', 'l', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tpending\t-\t-\tone\n2\tpending\t-\t-\ttwo\n3\tpending\t-\t-\tthree\n');
    const json = JSON.parse((await runInProcess(config, ['-l', 'l', 'list', '--json'])).stdout) as Array<{ id: string }>;
    expect(json.map((t) => t.id)).toEqual(['1', '2', '3']);
    expect((await runInProcess(config, ['-l', 'l', 'get', '3', '--json'])).stdout).toContain('"subject": "three"');
  });
});

describe('lists: only folders agents can use', () => {
  it('leaves out a folder whose name is not a sanitized list id, and says why, instead of "0 tasks, 1970"', async () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'good'), task('1', 'one'));
    writeTask(path.join(config, 'tasks', 'we ird'), task('1', 'hidden'));
    const r = await runInProcess(config, ['lists', '--json']);
    expect(r.code).toBe(0);
    const lists = JSON.parse(r.stdout) as Array<{ id: string; changedAt: string }>;
    expect(lists.map((l) => l.id)).toEqual(['good']);
    expect(lists.every((l) => !l.changedAt.startsWith('1970'))).toBe(true);
    expect(stderrText(r.stderr)).toBe(
      'warning: skipped tasks/we ird: not a list agents can use (a list id is sanitized to [a-zA-Z0-9_-], so no list id names this folder)\n',
    );
    // And it is not "the only list" that a command would pick.
    expect((await runInProcess(config, ['list'])).stdout).toBe('1\tpending\t-\t-\tone\n');
  });
});

// A lock nobody can take (a file where its folder belongs), on a list of each test's own.
describe.concurrent('claim --next: a ready task whose lock cannot be had is passed over', () => {
  it('claims the next ready task when the lowest one has an unusable lock, and says so', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, task('1', 'one'));
    writeTask(list, task('2', 'two'));
    fs.writeFileSync(path.join(list, '1.json.lock'), ''); // a file: nobody can take or break it
    // The binary: claims that wait on locks run side by side, each in a process.
    const r = await runAsync(config, ['-l', 'l', 'claim', '--next', '--as', 'w']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('2\n');
    expect(r.stderr).toMatch(/^warning: passed over task #1: .*1\.json\.lock is not a folder.*\n$/);
    expect(readJson(path.join(list, '2.json'))).toMatchObject({ owner: 'w' });
    expect(readJson(path.join(list, '1.json'))).not.toHaveProperty('owner');
  });

  it('exits 1 when every ready task has a lock nobody can take: a retry cannot help (not 5, busy)', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, task('1', 'one'));
    fs.writeFileSync(path.join(list, '1.json.lock'), '');
    // The binary: claims that wait on locks run side by side, each in a process.
    const r = await runAsync(config, ['-l', 'l', 'claim', '--next', '--as', 'w']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: task #1 cannot be locked: .*1\.json\.lock is not a folder, .*; remove it by hand/);
  });
});
