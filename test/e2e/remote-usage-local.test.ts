import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

/**
 * A command line with a host (`-H box`) whose usage is wrong in a way this machine can
 * tell (a missing id, an unknown option or command, an option without its value, a value
 * outside an option's choices, a required option left out, update's id or status word):
 * refused here, before ssh is
 * started (it is slow, and needs the host up), with exit 2 and the very line a run here
 * gives. The built binary is run: bin/tasks.js sends it to the remote bundle. The fake ssh
 * leaves a mark when it is started, and fails as an unreachable host does.
 */
describe('usage errors of a command sent to a host', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-fake-ssh-'));
  const mark = path.join(dir, 'started');
  const ssh = path.join(dir, 'ssh');
  fs.writeFileSync(ssh, `#!/bin/sh\necho "$@" >> '${mark}'\nexit 255\n`, { mode: 0o755 });
  const env = { TASKS_SSH_COMMAND: ssh, TASKS_HOST_PERSIST: '0' };
  const tasks = (config: string, args: string[]) => run(config, args, { env, cwd: os.tmpdir() });

  it.each([
    [['update']],
    [['-l', 'x', 'update']],
    [['create']],
    [['update', '1', '--bogus']],
    [['update', '1', '--subjct', 'x']],
    [['update', '1', '--status']],
    [['update', '1', '--subject']],
    [['lists', '--format', 'x']],
    [['block', '1']],
    [['frobnicate']],
    [['updat', '1']],
    [['update', '1', '-x']],
    [['get', '--json']],
    [['--json', 'update', '1', '--bogus']],
    [['list', '--sort', 'size']],
    [['-l']],
    [['update', 'abc']],
    [['update', '1', '--status', 'bogus']],
    [['-l', 'x', 'update', '1', '--owner', 'a', '--status', 'finished', '--json']],
  ])('tasks -H box %j: exit 2 here, the line a run here gives, no ssh', (args) => {
    const config = tempConfig();
    fs.rmSync(mark, { force: true });
    const local = tasks(config, args);
    expect(local.code).toBe(2);
    const r = tasks(config, ['-H', 'box', ...args]);
    expect(fs.existsSync(mark)).toBe(false);
    expect(r.stderr).toBe(local.stderr);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    // $TASKS_HOST alike.
    const h = run(config, args, { env: { ...env, TASKS_HOST: 'box' }, cwd: os.tmpdir() });
    expect(fs.existsSync(mark)).toBe(false);
    expect(h).toEqual({ ...local, stdout: '' });
  });

  it.each([
    [['update', '1', '--subject', 'x']],
    [['update', '1', '--subject', '-V']],
    [['-l', 'x', 'update', '1', '--status', 'done', '--owner', 'a']],
    [['list', '--sort', 'status', '--json']],
    [['lists', '--format', 'markdown', '--stalled']],
    [['block', '1', '--by', '2', '--by', '3']],
    [['update', '1', '2']],
    [['update', '1', '--status', 'bogus', '--if-status', 'nope']],
    [['update', '1', '--owner', 'a', '--owner', 'b']],
    [['list', '--limit', 'x']],
    [['run', '--whatever']],
  ])('tasks -H box %j is left to the host (what it says there is not known here): ssh is started', (args) => {
    const config = tempConfig();
    fs.rmSync(mark, { force: true });
    const r = tasks(config, ['-H', 'box', ...args]);
    expect(fs.existsSync(mark)).toBe(true);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^error: host box: |"message":"host box: /);
  });
});
