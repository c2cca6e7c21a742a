import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, run, snapshotDir, stderrError, tempConfig, writeTask } from '../helpers/cli.js';

/**
 * A file where a lock's folder belongs (`.lock.lock` of the list, `<id>.json.lock` of a task):
 * proper-lockfile can neither take that lock nor break it, so trying again can never help.
 * A write says so in one line, naming the file and what to do, and exits 1 (never 5, "busy:
 * safe to retry"); nothing is written. The built binary is run.
 */
describe('a lock that is a file, not a folder', () => {
  const t = (id: string) => ({ id, subject: `task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });
  const setup = (lockName: string) => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1'));
    fs.writeFileSync(path.join(list, '.lock'), '');
    fs.writeFileSync(path.join(list, lockName), '');
    return { config, list, lock: path.join(list, lockName) };
  };
  const tree = (config: string) => ({ root: snapshotDir(path.join(config, 'tasks')), list: snapshotDir(path.join(config, 'tasks', 'l')) });

  it.each([
    ['.lock.lock', ['create', 'Next'], 'the list'],
    ['1.json.lock', ['update', '1', '--owner', 'me'], 'task #1'],
    ['1.json.lock', ['claim', '1', '--as', 'w'], 'task #1'],
    ['1.json.lock', ['claim', '--next', '--as', 'w'], 'task #1'],
    ['1.json.lock', ['delete', '-y', '1'], 'task #1'],
  ])('%s, then tasks %j: exit 1, one line naming it, nothing written', (lockName, args, what) => {
    const { config, lock } = setup(lockName);
    const before = tree(config);
    const r = run(config, ['-l', 'l', ...args]);
    expect(r.stderr).toBe(
      `error: ${what} cannot be locked: ${lock} is not a folder, so nobody can take or break that lock; remove it by hand (tasks check reports it)\n`,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(tree(config)).toEqual(before);
  });

  it('one dated past the stale time (proper-lockfile tries to break it) is said the same way', () => {
    const { config, list, lock } = setup('1.json.lock');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, past, past);
    const r = run(config, ['-l', 'l', 'update', '1', '--owner', 'me', '--json']);
    expect(r.code).toBe(1);
    expect(stderrError(r.stderr)?.error).toMatchObject({ code: 'corrupt', lock, reason: 'not_a_directory' });
    expect(readJson(path.join(list, '1.json'))).not.toHaveProperty('owner');
  });

  // A write that must change two tasks (an edge's two sides; a delete and the tasks naming the
  // deleted one) looks at both locks first: one side written and the other refused would leave
  // half an edge, or a task waiting on one that is gone, behind a command that failed.
  const linked = () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, { ...t('1'), blocks: ['2'] });
    writeTask(list, { ...t('2'), blockedBy: ['1'] });
    writeTask(list, t('3'));
    fs.writeFileSync(path.join(list, '.lock'), '');
    return { config, list };
  };

  it.each([
    ['2.json.lock', 'a file'],
    ['2.json.lock', 'a symbolic link'],
  ])('delete of a task named by another whose lock (%s) is %s: exit 1, nothing deleted', (lockName, kind) => {
    const { config, list } = linked();
    const lock = path.join(list, lockName);
    if (kind === 'a file') fs.writeFileSync(lock, '');
    else fs.symlinkSync(path.join(list, 'elsewhere'), lock);
    const before = tree(config);
    const r = run(config, ['-l', 'l', 'delete', '-y', '1']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(lockName);
    expect(tree(config)).toEqual(before);
  });

  it.each([
    [['block', '3', '--by', '2'], '3.json.lock'],
    [['block', '3', '--by', '2'], '2.json.lock'],
    [['update', '2', '--add-blocks', '3'], '3.json.lock'],
    [['update', '3', '--add-blocked-by', '2'], '2.json.lock'],
    [['create', 'Next', '--blocked-by', '3'], '3.json.lock'],
    [['create', 'Next', '--blocks', '3'], '3.json.lock'],
    [['unblock', '2'], '1.json.lock'],
    [['unblock', '2', '--by', '1'], '1.json.lock'],
  ])('tasks %j with %s a file: exit 1, no side of the edge written, nothing in the journal', (args, lockName) => {
    const { config, list } = linked();
    const lock = path.join(list, lockName);
    fs.writeFileSync(lock, '');
    const before = tree(config);
    const r = run(config, ['-l', 'l', ...args]);
    expect(r.stderr).toBe(
      `error: task #${lockName.split('.')[0]} cannot be locked: ${lock} is not a folder, so nobody can take or break that lock; remove it by hand (tasks check reports it)\n`,
    );
    expect(r.code).toBe(1);
    expect(tree(config)).toEqual(before);
  });

  it('once it is removed, the same write goes through', () => {
    const { config, list, lock } = setup('1.json.lock');
    expect(run(config, ['-l', 'l', 'update', '1', '--owner', 'me']).code).toBe(1);
    fs.rmSync(lock);
    const r = run(config, ['-l', 'l', 'update', '1', '--owner', 'me']);
    expect(r.code).toBe(0);
    expect(readJson(path.join(list, '1.json'))).toMatchObject({ owner: 'me' });
  });
});
