import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

/**
 * `-H` with a host or a command it cannot take: refused before any ssh is started (the
 * runs name hosts that do not exist, and ssh is never asked), exit 2, one line. The
 * hosts themselves are tested against a real sshd in test/slow/remote-host.test.ts.
 */
describe('-H refusals', () => {
  const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-remote-usage-')), 'claude');
  const tasks = (args: string[], env: Record<string, string> = {}) =>
    runInProcessSync(config, args, { env: { TASKS_SSH_COMMAND: 'false', ...env }, cwd: os.tmpdir() });

  it.each([
    [['-H', '', 'list'], /^error: -H "": no host named$/],
    [['-H', '-oProxyCommand=touch /tmp/x', 'list'], /^error: -H "-oProxyCommand=touch \/tmp\/x": a host name holds no spaces/],
    [['--host=-oProxyCommand=x', 'list'], /^error: -H "-oProxyCommand=x": a host name does not start with "-"$/],
    [['-H', 'ssh://box:70000', 'list'], /^error: -H "ssh:\/\/box:70000": port 70000 is not 1-65535$/],
    [['-H', 'a', '-H', 'b', 'create', 'x'], /^error: several hosts \(-H a -H b\) are for tasks lists; name one host for create$/],
    [['board', '--host', '0.0.0.0'], /^error: board: --host is now --listen <address> \(-H, --host names the host a command runs on\)$/],
    [['board', '-H', 'ssh://box:70000'], /^error: -H "ssh:\/\/box:70000": port 70000 is not 1-65535$/],
    [['board', '-H', '-oProxyCommand=x'], /^error: -H "-oProxyCommand=x": a host name does not start with "-"$/],
    [['-H', 'a', '-H', 'b', '--disconnect'], /^error: --disconnect: name one host and nothing else \(tasks -H box --disconnect\)$/],
    [['-H', 'box', '--disconnect', 'list'], /^error: --disconnect: name one host and nothing else/],
    [['--disconnect'], /^error: --disconnect: name the host whose kept connection to close \(tasks -H box --disconnect\)$/],
  ])('tasks %j: exit 2, one line', (args, message) => {
    const r = tasks(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(config)).toBe(false);
  });

  it('tasks --help names --disconnect, which closes the connection kept to a host', () => {
    const r = tasks(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/-H <host> --disconnect/);
  });

  it.each([[['--disconnect', '--help']], [['--disconnect', '-h']], [['--help', '--disconnect']]])(
    'tasks %j with no host named shows the help, as --help does anywhere',
    (args) => {
      const r = tasks(args);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(tasks(['--help']).stdout);
    },
  );

  it.each([
    [' ', /^error: TASKS_HOST=" ": a host name holds no spaces or control characters$/],
    ['-oProxyCommand=x', /^error: TASKS_HOST="-oProxyCommand=x": a host name does not start with "-"$/],
  ])('a TASKS_HOST of %j is refused naming TASKS_HOST, not an -H that was never typed', (host, message) => {
    for (const args of [['list'], ['board']]) {
      const r = tasks(args, { TASKS_HOST: host });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toMatch(message);
    }
  });

  it.each([
    [['-H', 'box', '--disconnect', '--json']],
    [['--json', '-H', 'box', '--disconnect']],
    [['-H', 'box', '--no-color', '--disconnect']],
  ])('tasks %j closes the kept connection (none here), --json and --no-color as anywhere', (args) => {
    const r = tasks(args, { XDG_RUNTIME_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-run-')) });
    expect(r.code).toBe(0);
    const said = args.includes('--json') ? JSON.parse(r.stderr).note : { message: r.stderr.trim() };
    expect(said.message).toBe('no connection kept to box');
  });

  it('tasks --json --disconnect with no host named is the same refusal, as JSON', () => {
    const r = tasks(['--json', '--disconnect']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toBe(
      '--disconnect: name the host whose kept connection to close (tasks -H box --disconnect)',
    );
  });

  it('gives the refusal as a JSON error with --json', () => {
    const r = tasks(['-H', 'a', '-H', 'b', 'get', '1', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'usage' });
  });

  it("shows TASKS_HOST's board, as -H would: a host not reached is exit 8, and nothing listens", () => {
    const r = tasks(['board'], { TASKS_HOST: 'box' });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toMatch(/^error: host box: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/**
 * Help, the version and the completion script are this build's, the same text on any host:
 * they are answered here even with a host named, so `export TASKS_HOST=devbox` does not
 * make `tasks --help` wait for that host, fail when it is down, or make a shell's start
 * (eval "$(tasks completion bash)") an ssh call. The built binary is run: bin/tasks.js
 * chooses the bundle that runs them.
 */
describe('help, version and completion with a host named', () => {
  const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-remote-help-')), 'claude');
  // ssh never answers: were it asked, the run would fail (exit 8).
  const env = { TASKS_SSH_COMMAND: 'false', TASKS_HOST: 'box' };
  const here = (args: string[]) => run(config, args, { env: { TASKS_SSH_COMMAND: 'false' }, cwd: os.tmpdir() });

  it.each([
    [['--help']],
    [['-h']],
    [['help']],
    [['help', 'list']],
    [['--version']],
    [['-V']],
    [['list', '--help']],
    [['-l', 'api', 'claim', '--help']],
    [['completion', 'bash']],
    [['-H', 'box', '--version']],
    [['--host=box', 'watch', '--help']],
  ])('tasks %j answers here, as with no host', (args) => {
    const r = run(config, args, { env, cwd: os.tmpdir() });
    const local = here(args.filter((a, i) => !(a === '-H' || args[i - 1] === '-H' || a.startsWith('--host='))));
    expect(r.stderr).toBe(local.stderr);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(local.stdout);
    expect(r.stdout).not.toBe('');
    expect(fs.existsSync(config)).toBe(false);
  });

  it('still runs a command whose words merely hold such a word on the host (a subject "--help" after --)', () => {
    const r = run(config, ['-l', 'api', 'create', '--', '--help'], { env, cwd: os.tmpdir() });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^error: host box: /);
  });
});

/**
 * A host word that is the value of a command's option (`--subject -Hotfix`): commander gives
 * such an option the next word, whatever it looks like, so no host is named. The built
 * binary is run: bin/tasks.js sends the line to the remote bundle, which declines it.
 */
describe("a host word as a command option's value", () => {
  const env = { TASKS_SSH_COMMAND: 'false' };
  const tasks = (config: string, args: string[], extra: Record<string, string> = {}) =>
    run(config, args, { env: { ...env, ...extra }, cwd: os.tmpdir() });
  const task = (config: string) => JSON.parse(tasks(config, ['-l', 'x', 'get', '1', '--json']).stdout);

  it('is the value: the subject, the description or the owner is set here, and no ssh is started', () => {
    const config = tempConfig();
    expect(tasks(config, ['-l', 'x', 'create', 'Fix', '-d', '-Hotfix']).code).toBe(0);
    expect(task(config)).toMatchObject({ subject: 'Fix', description: '-Hotfix' });
    const r = tasks(config, ['-l', 'x', 'update', '1', '--subject', '-Hotfix', '--owner', '--host=box']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(task(config)).toMatchObject({ subject: '-Hotfix', owner: '--host=box' });
  });

  it('an option the command does not have is the usage error it is with any other value', () => {
    const config = tempConfig();
    const r = tasks(config, ['-l', 'x', 'create', '--subject', '-Hotfix']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(tasks(config, ['-l', 'x', 'create', '--subject', '-xotfix']).stderr.trim());
  });

  it('a help word as a value is a change, which goes to $TASKS_HOST, not help answered here', () => {
    const config = tempConfig();
    expect(tasks(config, ['-l', 'x', 'create', 'Fix']).code).toBe(0);
    const r = tasks(config, ['-l', 'x', 'update', '1', '--subject', '--help'], { TASKS_HOST: 'box' });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^error: host box: /);
    expect(task(config)).toMatchObject({ subject: 'Fix' });
  });

  it('help asked for after -H took "--" as its host is still help, answered here', () => {
    const config = tempConfig();
    const r = tasks(config, ['-H', '--', 'list', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: tasks list/);
  });
});

describe('a host whose copy of tasks cannot be written', () => {
  it('is exit 8 in one line, not a stack trace: its installer ended before reading the copy sent to it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-fake-ssh-'));
    const ssh = path.join(dir, 'ssh');
    // The host has no copy (83); its installer fails at once, its stdin closed unread (a folder it cannot write).
    fs.writeFileSync(
      ssh,
      `#!/bin/sh\ncase "$*" in\n  *"'install'"*) exec 0<&-; echo "cannot make the folder" >&2; exit 1 ;;\n  *) exit 83 ;;\nesac\n`,
      { mode: 0o755 },
    );
    const config = tempConfig();
    const r = run(config, ['-H', 'box', 'list'], { env: { TASKS_SSH_COMMAND: ssh, TASKS_HOST_PERSIST: '0' }, cwd: os.tmpdir() });
    expect(r.stderr).not.toMatch(/EPIPE|node:events/);
    expect(r.stderr.trim()).toMatch(/^error: host box: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.code).toBe(8);
  });
});
