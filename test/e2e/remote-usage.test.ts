import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
