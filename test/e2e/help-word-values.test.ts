import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

/**
 * A command option that takes a value gets the next word, whatever it looks like: a help
 * or version word there is the value (a subject "-V"), never a request for help or the
 * version. Commander itself reads the program's -V / --version first, anywhere on the line
 * (the root program does not know the command's options), so `update 1 --subject -V`
 * printed the version and changed nothing. The built binary is run: bin/tasks.js chooses
 * the bundle (plain, read, remote or the whole CLI), and each must read the line alike.
 */
describe('a help or version word as an option value', () => {
  const env = { TASKS_SSH_COMMAND: 'false' };
  const tasks = (config: string, args: string[], extra: Record<string, string> = {}) =>
    run(config, ['-l', 'x', ...args], { env: { ...env, ...extra }, cwd: os.tmpdir() });
  const task = (config: string) => JSON.parse(tasks(config, ['get', '1', '--json']).stdout);
  const words = ['-V', '--version', '-Vx', '-h', '--help'];

  it.each(words)('update 1 --subject %s sets the subject, as --subject=<word> does', (word) => {
    const config = tempConfig();
    expect(tasks(config, ['create', 'Fix']).code).toBe(0);
    for (const args of [
      ['update', '1', '--subject', word],
      ['update', '1', '-d', word],
      ['update', '1', '--owner', word],
      ['create', 'Other', '--description', word],
    ]) {
      const r = tasks(config, args);
      expect(r.stdout, args.join(' ')).not.toMatch(/^\d+\.\d+\.\d+\n$|^Usage:/);
      expect(r.code, args.join(' ')).toBe(0);
    }
    expect(task(config)).toMatchObject({ subject: word, description: word, owner: word });
    expect(JSON.parse(tasks(config, ['get', '2', '--json']).stdout)).toMatchObject({ subject: 'Other', description: word });
  });

  it.each(words)('list and lists read %s after an option as its value, as they read --opt=<word>', (word) => {
    const config = tempConfig();
    expect(tasks(config, ['create', 'Fix']).code).toBe(0);
    for (const [option, rest] of [
      ['--search', []],
      ['--owner', []],
      ['-o', ['--json']],
    ] as const) {
      const split = tasks(config, ['list', option, word, ...rest]);
      const joined = tasks(config, ['list', option.startsWith('--') ? `${option}=${word}` : `${option}${word}`, ...rest]);
      expect(split, `list ${option} ${word}`).toEqual(joined);
    }
    const lists = tasks(config, ['lists', '--format', word]);
    expect(lists).toEqual(tasks(config, ['lists', `--format=${word}`]));
    expect(lists.code).toBe(2);
  });

  it('still answers a help or version word that is no value', () => {
    const config = tempConfig();
    expect(tasks(config, ['update', '1', '-V']).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(tasks(config, ['update', '1', '--subject', 'x', '--version']).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(tasks(config, ['list', '--search', 'x', '-V']).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(tasks(config, ['update', '1', '--subject', 'x', '--help']).stdout).toMatch(/^Usage: tasks update/);
  });

  it.each([[['update', '1', '--subject', '-V']], [['update', '1', '--subject', '--version']], [['update', '1', '-d', '-Vx']]])(
    'with a host named, tasks %j is a change sent there (exit 8 here: no ssh), not the version answered here',
    (args) => {
      const config = tempConfig();
      for (const r of [tasks(config, args, { TASKS_HOST: 'box' }), tasks(config, ['-H', 'box', ...args])]) {
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(/^error: host box: /);
        expect(r.code).toBe(8);
      }
    },
  );
});
