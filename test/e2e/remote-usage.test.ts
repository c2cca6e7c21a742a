import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
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
