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

  it('once it is removed, the same write goes through', () => {
    const { config, list, lock } = setup('1.json.lock');
    expect(run(config, ['-l', 'l', 'update', '1', '--owner', 'me']).code).toBe(1);
    fs.rmSync(lock);
    const r = run(config, ['-l', 'l', 'update', '1', '--owner', 'me']);
    expect(r.code).toBe(0);
    expect(readJson(path.join(list, '1.json'))).toMatchObject({ owner: 'me' });
  });
});
