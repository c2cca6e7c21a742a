import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, run } from '../helpers/cli.js';
import { parseNdjson, type StreamEvent } from '../helpers/replay.js';
import { descendantsOf, pidsOf, type SshHost, sshAvailable, startSshd } from '../helpers/sshd.js';
import { startInTmux } from '../helpers/tmux.js';

/** fish, where it is installed: a login shell that reads quotes its own way. */
const fish = spawnSync('sh', ['-c', 'command -v fish'], { encoding: 'utf8' }).stdout.trim();

/**
 * `tasks -H` against a real OpenSSH server on loopback, as a second local user whose home
 * holds the host's ~/.claude and no tasks (test/helpers/sshd.ts). The binary is run
 * because ssh, its exit status and signals are the point. The local config folder is
 * never made: every run must leave it so (nothing is read or written here).
 */
describe.skipIf(!sshAvailable())('tasks -H over ssh', () => {
  let host: SshHost;
  let local: string;
  const tasksDir = () => path.join(host.claudeDir, 'tasks', 'L');
  const taskFile = (id: number) => JSON.parse(fs.readFileSync(path.join(tasksDir(), `${id}.json`), 'utf8'));
  const remote = (args: string[], env: Record<string, string> = {}) =>
    run(local, args, { env: { ...host.env, ...env }, timeoutMs: 60_000 });

  beforeAll(async () => {
    host = await startSshd();
    local = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-remote-')), 'claude');
    fs.mkdirSync(tasksDir(), { recursive: true });
    for (const [id, subject] of [
      [1, 'Set up the box'],
      [2, 'Run the migration'],
    ] as const) {
      fs.writeFileSync(
        path.join(tasksDir(), `${id}.json`),
        JSON.stringify({ id: String(id), subject, description: '', status: 'pending', blocks: [], blockedBy: [] }, null, 2),
      );
    }
    execFileSync('chown', ['-R', `${host.user}:`, host.claudeDir]);
  });

  afterAll(() => {
    host?.stop();
  });

  const nothingLocal = () => expect(fs.existsSync(local)).toBe(false);

  it("copies itself to the host once, runs there, and reads the host's list", () => {
    const first = remote(['-H', 'box', '-l', 'L', 'list', '--json']);
    expect(first.stderr).toMatch(/copied to box, into ~\/\.cache\/tasks\/remote\/0\.\d+\.\d+-[0-9a-f]{16}/);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).map((t: { subject: string }) => t.subject)).toEqual(['Set up the box', 'Run the migration']);
    const installed = fs.readdirSync(path.join(host.home, '.cache', 'tasks', 'remote'));
    expect(installed).toHaveLength(1);
    const folder = path.join(host.home, '.cache', 'tasks', 'remote', installed[0] as string);
    expect(fs.statSync(path.join(folder, 'dist', 'tasks.cjs')).uid).toBe(
      Number(execFileSync('id', ['-u', host.user], { encoding: 'utf8' })),
    );
    // The same build again: no copy, nothing said.
    const second = remote(['-H', 'box', '-l', 'L', 'list', '--json']);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('');
    expect(second.stdout).toBe(first.stdout);
    nothingLocal();
  });

  it('runs a command on a host with one ssh call once tasks is there (no check or copy first)', () => {
    const calls = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-ssh-calls-')), 'calls');
    // The user's ssh command, counting its calls.
    const counting = `sh -c 'echo call >> ${calls}; exec ${host.env.TASKS_SSH_COMMAND} "$@"' ssh`;
    expect(remote(['-H', 'box', '-l', 'L', 'list']).code).toBe(0);
    for (const args of [
      ['-l', 'L', 'list'],
      ['-l', 'L', 'get', '1'],
      ['lists'],
      ['-l', 'L', 'log'],
      ['-l', 'L', 'claim', '1', '--as', 'counter'],
    ]) {
      fs.rmSync(calls, { force: true });
      // Without the kept connection (remote-kept.test.ts), which needs no ssh call at all.
      const r = remote(['-H', 'box', ...args], { TASKS_SSH_COMMAND: counting, TASKS_HOST_PERSIST: '0' });
      expect(r.code, r.stderr).toBe(0);
      expect(fs.readFileSync(calls, 'utf8'), args.join(' ')).toBe('call\n');
    }
    expect(remote(['-H', 'box', '-l', 'L', 'release', '1', '--as', 'counter']).code).toBe(0);
  });

  it('creates, claims and undoes on the host, with its exit codes', () => {
    const created = remote(['-H', 'box', '-l', 'L', 'create', 'Made from afar', '--json']);
    expect(created.code).toBe(0);
    expect(taskFile(3).subject).toBe('Made from afar');
    const claimed = remote(['-H', 'box', '-l', 'L', 'claim', '3', '--as', 'worker-1']);
    expect(claimed.code).toBe(0);
    expect(taskFile(3).owner).toBe('worker-1');
    // The host's refusal is the host's exit code.
    const refused = remote(['-H', 'box', '-l', 'L', 'claim', '3', '--as', 'worker-2']);
    expect(refused.code).toBe(4);
    // An error made there names the host first.
    expect(refused.stderr).toMatch(/^error: host box: cannot claim task #3: .*worker-1/);
    const undone = remote(['-H', 'box', '-l', 'L', 'undo']);
    expect(undone.code).toBe(0);
    expect(taskFile(3).owner).toBeUndefined();
    const missing = remote(['-H', 'box', '-l', 'nope', 'list']);
    expect(missing.code).toBe(3);
    nothingLocal();
  });

  it('takes a word after an option that takes a value as that value on the host, even one like -Hx or --help', () => {
    const created = remote(['-H', 'box', '-l', 'L', 'create', 'To rename', '--json']);
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).id as string;
    const renamed = remote(['-H', 'box', '-l', 'L', 'update', id, '--subject', '-Hotfix the box', '-d', '--host=x']);
    expect(renamed.stderr).toBe('');
    expect(renamed.code).toBe(0);
    expect(taskFile(Number(id))).toMatchObject({ subject: '-Hotfix the box', description: '--host=x' });
    // With TASKS_HOST, a subject "--help" is a change made there, not help answered here.
    const help = remote(['-l', 'L', 'update', id, '--subject', '--help'], { TASKS_HOST: 'box' });
    expect(help.code).toBe(0);
    expect(taskFile(Number(id)).subject).toBe('--help');
    nothingLocal();
  });

  it('gives the host the local stdin (import), whole, even when the first run there copies tasks over', () => {
    fs.rmSync(path.join(host.home, '.cache', 'tasks', 'remote'), { recursive: true, force: true });
    const plan = JSON.stringify([{ content: 'From stdin', status: 'pending', activeForm: 'Reading stdin' }]);
    const r = run(local, ['-H', 'box', '-l', 'In', 'import', '-'], { env: host.env, input: plan, cwd: os.tmpdir() });
    expect(r.stderr).toMatch(/copied to box/);
    expect(r.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(host.claudeDir, 'tasks', 'In', '1.json'), 'utf8')).subject).toBe('From stdin');
    nothingLocal();
  });

  it("names the folder the copy went into on the host: its XDG_CACHE_HOME's when that is set there", () => {
    const cache = path.join(host.dir, 'xdg-cache');
    fs.mkdirSync(cache);
    execFileSync('chown', [`${host.user}:`, cache]);
    // A connection of its own: ssh sends SetEnv when it opens a connection, not on one it shares.
    const sshCommand = `${host.env.TASKS_SSH_COMMAND} -o ControlPath=none -o SetEnv=XDG_CACHE_HOME=${cache}`;
    const r = remote(['-H', 'box', '-l', 'L', 'list', '--json'], { TASKS_SSH_COMMAND: sshCommand, TASKS_HOST_PERSIST: '0' });
    expect(r.code, r.stderr).toBe(0);
    const installed = fs.readdirSync(path.join(cache, 'tasks', 'remote'));
    expect(installed).toHaveLength(1);
    expect(r.stderr).toContain(`copied to box, into ${path.join(cache, 'tasks', 'remote', installed[0] as string)} (once for this build)`);
  });

  it('leaves the local stdin alone for a command that does not read it, whatever its words (a list named import, in a while-read loop)', () => {
    const loop = `while read t; do "${process.execPath}" "${BIN}" -H box -l import create "$t" || exit 1; done`;
    const r = spawnSync('sh', ['-c', loop], {
      env: baseEnv(local, host.env),
      input: 'one\ntwo\nthree\n',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const dir = path.join(host.claudeDir, 'tasks', 'import');
    const subjects = fs
      .readdirSync(dir)
      .filter((f) => /^\d+\.json$/.test(f))
      .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).subject)
      .sort();
    expect(subjects).toEqual(['one', 'three', 'two']);
    fs.rmSync(dir, { recursive: true });
    // A read over ssh of its own (no kept connection; a first command has none either): the loop goes round each line.
    const reads = `while read l; do "${process.execPath}" "${BIN}" -H box -l "$l" get 1 --json >/dev/null || exit 1; echo "read $l"; done`;
    const read = spawnSync('sh', ['-c', reads], {
      env: baseEnv(local, { ...host.env, TASKS_HOST_PERSIST: '0' }),
      input: 'L\nL\nL\n',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(read.stdout.split('\n').filter(Boolean), read.stderr).toEqual(['read L', 'read L', 'read L']);
  });

  it('takes the host from TASKS_HOST, and names it in lists --json', () => {
    const lists = remote(['lists', '--json'], { TASKS_HOST: 'box' });
    expect(lists.code).toBe(0);
    const rows = JSON.parse(lists.stdout) as Array<{ host: string; id: string }>;
    expect(rows.map((r) => [r.host, r.id])).toEqual([
      ['box', 'In'],
      ['box', 'L'],
    ]);
    expect(Object.keys(rows[0] as object)[0]).toBe('host');
  });

  it('shows several hosts in one lists, each row with its host; an unreachable one is named, exit 8', () => {
    const both = remote(['lists', '-H', 'box', '-H', 'box-down', '--json']);
    expect(both.code).toBe(8);
    expect(JSON.parse(both.stdout).map((r: { host: string; id: string }) => `${r.host}:${r.id}`)).toEqual(['box:In', 'box:L']);
    expect(JSON.parse(both.stderr.trim()).error).toMatchObject({ code: 'unreachable', host: 'box-down' });
    const piped = remote(['lists', '-H', 'box', '-H', 'box']);
    expect(piped.code).toBe(0);
    expect(
      piped.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t').slice(0, 2).join(' ')),
    ).toEqual(['box In', 'box L']);
    // Each line is the host, then the very line `tasks lists` prints there, every field in
    // its place: a script that cuts a field of one reads the same field of the other.
    const one = remote(['-H', 'box', 'lists']);
    expect(one.code).toBe(0);
    const lines = (out: string) => out.split('\n').filter(Boolean);
    expect(lines(piped.stdout)).toEqual(lines(one.stdout).map((l) => `box\t${l}`));
    expect(lines(one.stdout)[0]?.split('\t')).toHaveLength(16);
  });

  it('takes the hosts of the hosts file (--hosts), with -H; a bad line is named with its file and line, exit 2', () => {
    const xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-hosts-'));
    fs.mkdirSync(path.join(xdg, 'tasks'));
    fs.writeFileSync(path.join(xdg, 'tasks', 'hosts'), '# the fleet\nbox-down   # off for now\n\n');
    const fleet = remote(['lists', '--hosts', '-H', 'box'], { XDG_CONFIG_HOME: xdg });
    expect(fleet.code).toBe(8);
    expect(
      fleet.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t').slice(0, 2).join(' ')),
    ).toEqual(['box In', 'box L']);
    expect(fleet.stderr.trim().split('\n')).toEqual(['error: host box-down: connection refused (no SSH server on that port?)']);
    const other = path.join(xdg, 'other-hosts');
    fs.writeFileSync(other, 'box\n-oProxyCommand=x\n');
    const bad = remote(['lists', `--hosts=${other}`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--hosts: ${other} line 2: -H "-oProxyCommand=x": a host name does not start with "-"`);
    const none = remote(['lists', '--hosts'], { XDG_CONFIG_HOME: path.join(xdg, 'nowhere') });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`--hosts: cannot read ${path.join(xdg, 'nowhere', 'tasks', 'hosts')} (ENOENT)`);
    const unnamed = remote(['lists', '--hosts=']);
    expect([unnamed.code, unnamed.stderr.trim()]).toEqual([2, 'error: --hosts=: no file named']);
    nothingLocal();
  });

  it("doctor on a host says when the host's clock is off this machine's, and not when it agrees", () => {
    const warnings = (stderr: string) =>
      stderr
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { warning?: { code: string; host: string; aheadMs: number } })
        .flatMap((o) => (o.warning === undefined ? [] : [o.warning]));
    const agrees = remote(['-H', 'box', '-l', 'L', 'doctor', '--json']);
    const skewed = remote(['-H', 'box-skew', '-l', 'L', 'doctor', '--json']);
    expect(skewed.code).toBe(agrees.code);
    expect(warnings(agrees.stderr)).toEqual([]);
    const [skew, ...more] = warnings(skewed.stderr);
    expect(more).toEqual([]);
    expect(skew).toMatchObject({ code: 'host_clock_skew', host: 'box-skew' });
    expect(Math.abs((skew?.aheadMs ?? 0) - 120_000)).toBeLessThan(5_000);
    // --json that names lists names the host first.
    expect(Object.entries(JSON.parse(skewed.stdout)).slice(0, 1)).toEqual([['host', 'box-skew']]);
    expect(JSON.parse(skewed.stdout).lists).toEqual(['L']);
    const log = JSON.parse(remote(['-H', 'box', '-l', 'L', 'log', '--json']).stdout) as Array<{ host: string; list: string }>;
    expect(log.length).toBeGreaterThan(0);
    expect(log.every((e) => e.host === 'box' && e.list === 'L')).toBe(true);
    const text = remote(['-H', 'box-skew', '-l', 'L', 'doctor']);
    expect(text.stderr).toMatch(
      /^warning: host box-skew: its clock is 1[12]\ds ahead of this machine's; keep the machines' clocks in step/m,
    );
    nothingLocal();
  });

  it.skipIf(spawnSync('sshfs', ['--version']).error !== undefined || !fs.existsSync('/dev/fuse'))(
    "doctor says when a list is on a network filesystem (the host's lists mounted here with sshfs)",
    () => {
      const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-sshfs-'));
      execFileSync('sshfs', ['-F', path.join(host.dir, 'ssh_config'), `box:${host.claudeDir}`, mount]);
      try {
        const r = run(local, ['--config-dir', mount, '-l', 'L', 'doctor', '--json'], { timeoutMs: 60_000 });
        expect(JSON.parse(r.stdout).networkLists).toEqual([{ list: 'L', filesystem: expect.stringMatching(/^fuse/) }]);
        const notes = r.stderr
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).note)
          .filter((n) => n?.code === 'list_on_network_fs');
        expect(notes).toEqual([expect.objectContaining({ list: 'L', filesystem: expect.stringMatching(/^fuse/) })]);
        // The same list read on the host itself, on its local disk, is not said to be.
        const there = remote(['-H', 'box', '-l', 'L', 'doctor', '--json']);
        expect(JSON.parse(there.stdout).networkLists).toEqual([]);
      } finally {
        spawnSync('fusermount', ['-u', mount]);
        spawnSync('umount', [mount]);
      }
    },
  );

  it('streams a watch live from the host, and stopping it stops the command there', async () => {
    const w = watchOnHost();
    await w.waitFor((e) => e.event === 'snapshot', 'the first state');
    expect(remote(['-H', 'box', '-l', 'L', 'create', 'Seen live']).code).toBe(0);
    await w.waitFor((e) => JSON.stringify(e).includes('Seen live'), 'the task made on the host');
    const before = watchersOnHost();
    expect(before.length).toBeGreaterThan(0);
    const done = await w.stop('SIGINT');
    expect([0, 130]).toContain(done.code);
    await eventually(() => watchersOnHost().length === 0, 'the watch on the host to stop');
  });

  it('a watch --json stopped here (SIGTERM) ends as one stopped here does: its end event and its exit status, from the host', async () => {
    const w = watchOnHost(['--until', 'all-completed']);
    await w.waitFor((e) => e.event === 'snapshot', 'the first state');
    const done = await w.stop('SIGTERM');
    const events = parseNdjson(w.stdout());
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'stopped', until: 'all-completed', met: false });
    // The last line (a first run there says first that it copied tasks over).
    const error = JSON.parse(done.stderr.trim().split('\n').at(-1) as string).error;
    expect(error).toMatchObject({ code: 'interrupted', host: 'box' });
    expect(error.message).toMatch(/^host box: stopped before all-completed held/);
    expect(done.code).toBe(130);
  });

  it('a watch whose reader goes away (| head -1) ends at once, as one here does, and the watch there with it', async () => {
    // A shell's pipeline: the reader is a pipe (a spawned child's stdout would be a socket).
    const child = spawn('sh', ['-c', `{ "${process.execPath}" "${BIN}" -H box -l L watch --json; echo "tasks: $?" >&2; } | head -1`], {
      env: baseEnv(local, host.env),
      cwd: path.dirname(local),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const ended = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    // The list stays as it is: after its first event, the watch there has nothing more to write.
    const outcome = await Promise.race([ended, new Promise<string>((r) => setTimeout(() => r('still running'), 8_000))]);
    child.kill('SIGKILL');
    expect(outcome, stderr).toBe(0);
    expect(JSON.parse(stdout).event).toBe('snapshot');
    expect(stderr).toMatch(/^tasks: 0$/m);
    await eventually(() => watchersOnHost().length === 0, 'the watch on the host to stop');
  });

  it('on a terminal, the host gets one of the same size: the table, the live watch, Ctrl-C there', async () => {
    // tmux keeps its socket in the folder it is given: one of its own, not the local config folder.
    const term = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-remote-tty-'));
    const list = startInTmux(term, ['-H', 'box', '-l', 'L', 'list'], { width: 90, height: 20 }, host.env);
    const shown = await list.waitFor((s) => /EXIT=\d+/.test(s), 'list to end');
    list.kill();
    expect(shown).toMatch(/EXIT=0/);
    // The table a terminal gets (piped, it would be tab-separated lines).
    expect(shown).toMatch(/ID\s+STATUS\s+SUBJECT/);
    expect(shown).toMatch(/#1\s+○ pending\s+Set up the box/);
    const watch = startInTmux(term, ['-H', 'box', '-l', 'L', 'watch'], { width: 90, height: 20 }, host.env);
    await watch.waitFor((s) => /q quit/.test(s), 'the live view');
    await eventually(() => watchersOnHost().length === 1, 'the watch on the host');
    watch.key('C-c');
    const ended = await watch.waitFor((s) => /EXIT=\d+/.test(s), 'watch to end');
    watch.kill();
    expect(ended).toMatch(/EXIT=0/);
    await eventually(() => watchersOnHost().length === 0, 'the watch on the host to stop');
    nothingLocal();
  });

  function watchersOnHost(): number[] {
    return pidsOf((p) => p.user === host.user).filter((pid) => {
      try {
        // node itself, not the shells around it (whose script names the launcher too).
        const [program, launcher, ...args] = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        // Not the tasks a kept connection keeps there (remote-kept.test.ts).
        return path.basename(program ?? '') === 'node' && (launcher ?? '').endsWith('tasks-remote.cjs') && !args.includes('__host-serve');
      } catch {
        return false;
      }
    });
  }

  it.each([
    ['box-down', /^error: host box-down: connection refused/],
    ['box-badkey', /^error: host box-badkey: the key was refused \(Permission denied: publickey\)/],
    ['box-mismatch', /^error: host box-mismatch: host key (mismatch|not verified)/],
    ['box-nonode', /^error: host box-nonode: no Node\.js there/],
    ['box-oldnode', /^error: host box-oldnode: Node\.js v18\.19\.0 there; tasks needs Node\.js 20 or later/],
    ['box-rocache', /^error: host box-rocache: cannot write tasks' cache folder there \(.*ro-cache\/tasks\/remote: EACCES\)/],
  ])('%s: one line naming the host and the cause, exit 8, nothing written here', (alias, message) => {
    const started = Date.now();
    // A socket folder of its own: a shared connection already made with the good key would be used.
    const r = remote(['-H', alias, '-l', 'L', 'create', 'Never made'], { XDG_RUNTIME_DIR: fs.mkdtempSync('/tmp/tsshc-') });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    nothingLocal();
  });

  it('a connection dropped mid-watch: one line naming the host, exit 8', async () => {
    const w = watchOnHost();
    await w.waitFor((e) => e.event === 'snapshot', 'the first state');
    // The server's side of every connection: what the test's own sshd started.
    // Each one may have ended between the listing and the kill (a child its parent's end took).
    for (const pid of descendantsOf(host.sshdPid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    const done = await w.exited;
    expect(done.code).toBe(8);
    expect(done.stderr.trim().split('\n'), done.stderr).toHaveLength(1);
    const error = JSON.parse(done.stderr.trim()).error;
    expect(error).toMatchObject({ code: 'unreachable', host: 'box' });
    expect(error.message).toMatch(/^host box: the connection was lost while the command ran there .*tasks -H box log/);
  });

  it.skipIf(!fish)('gives a host whose login shell is fish every word as typed: a backslash ends no quote, nothing runs there', () => {
    const pwned = path.join(host.home, 'pwned');
    execFileSync('usermod', ['-s', fish, host.user]);
    try {
      // A connection of its own: one shared since before would keep the old shell.
      const env = { TASKS_SSH_COMMAND: `${host.env.TASKS_SSH_COMMAND} -o ControlPath=none`, TASKS_HOST_PERSIST: '0' };
      const text = `C:\\work\\ $(id) 'it' ;touch ${pwned};echo \\`;
      const r = remote(['-H', 'box', '-l', 'Fish', 'create', 'a\\', '--description', text], env);
      expect(r.stderr).not.toMatch(/error/);
      expect(r.code).toBe(0);
      const made = JSON.parse(fs.readFileSync(path.join(host.claudeDir, 'tasks', 'Fish', '1.json'), 'utf8'));
      expect([made.subject, made.description]).toEqual(['a\\', text]);
      expect(fs.existsSync(pwned)).toBe(false);
    } finally {
      execFileSync('usermod', ['-s', '/bin/sh', host.user]);
    }
  });

  it("gives a host's answer alone when its login shell greets on stdout (a .bashrc that echoes): the JSON still parses", () => {
    const bashrc = path.join(host.home, '.bashrc');
    fs.writeFileSync(bashrc, 'echo "Welcome to the box"\necho "a note from .bashrc" >&2\n');
    execFileSync('usermod', ['-s', '/bin/bash', host.user]);
    try {
      // A connection of its own each time (one shared since before would keep the old shell), and no kept one.
      const env = { TASKS_SSH_COMMAND: `${host.env.TASKS_SSH_COMMAND} -o ControlPath=none`, TASKS_HOST_PERSIST: '0' };
      const got = remote(['-H', 'box', '-l', 'L', 'get', '1', '--json'], env);
      expect(got.code).toBe(0);
      expect(JSON.parse(got.stdout).subject).toBe('Set up the box');
      const lists = remote(['-H', 'box', 'lists', '--json'], env);
      expect(lists.code).toBe(0);
      expect((JSON.parse(lists.stdout) as Array<{ host: string }>).every((row) => row.host === 'box')).toBe(true);
      const watched = remote(['-H', 'box', '-l', 'L', 'watch', '--json', '--timeout', '1'], env);
      expect(watched.code).toBe(0);
      expect(parseNdjson(watched.stdout).map((e) => e.event)).toEqual(['snapshot', 'end']);
      const plain = remote(['-H', 'box', '-l', 'L', 'list'], env);
      expect(plain.stdout).not.toMatch(/Welcome/);
      expect(plain.stderr).not.toMatch(/bashrc/);
    } finally {
      execFileSync('usermod', ['-s', '/bin/sh', host.user]);
      fs.rmSync(bashrc);
    }
  });

  it('a change stopped here (SIGTERM) while it waits there: the exit status says whether the host made it', async () => {
    // A lock its holder left (never refreshed): the change there waits it out, about 10 s, then takes it.
    const lock = path.join(tasksDir(), '2.json.lock');
    fs.mkdirSync(lock);
    try {
      const child = spawn(process.execPath, [BIN, '-H', 'box', '-l', 'L', 'update', '2', '--subject', 'Stopped while waiting'], {
        env: baseEnv(local, { ...host.env, TASKS_HOST_PERSIST: '0' }),
        cwd: path.dirname(local),
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const ended = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
      const until = Date.now() + 20_000;
      while (!stderr.includes('waiting for task #2') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGTERM');
      const code = await ended;
      // Whatever the host did with it, it has done by now (its lock wait ends within 12 s).
      await new Promise((r) => setTimeout(r, 12_000));
      const made = taskFile(2).subject === 'Stopped while waiting';
      expect({ made, code }, stderr).toEqual(made ? { made, code: 0 } : { made, code: 130 });
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }, 60_000);

  it('an import stopped here (SIGTERM) while it waits there for the list: the exit status says whether the host made it', async () => {
    // A list lock its holder left (never refreshed): the import there waits it out, about 10 s, then takes it.
    const lock = path.join(tasksDir(), '.lock.lock');
    fs.mkdirSync(lock);
    try {
      const plan = JSON.stringify([{ content: 'Imported while stopped', status: 'pending', activeForm: 'Importing' }]);
      const child = spawn(process.execPath, [BIN, '-H', 'box', '-l', 'L', 'import', '-'], {
        env: baseEnv(local, { ...host.env, TASKS_HOST_PERSIST: '0' }),
        cwd: path.dirname(local),
      });
      child.stdin.end(plan);
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const ended = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
      const until = Date.now() + 20_000;
      while (!stderr.includes('waiting for the list') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGTERM');
      const code = await ended;
      // Whatever the host did with it, it has done by now (its lock wait ends within 12 s).
      await new Promise((r) => setTimeout(r, 12_000));
      const made = fs
        .readdirSync(tasksDir())
        .filter((f) => /^\d+\.json$/.test(f))
        .some((f) => JSON.parse(fs.readFileSync(path.join(tasksDir(), f), 'utf8')).subject === 'Imported while stopped');
      expect({ made, code }, stderr).toEqual(made ? { made, code: 0 } : { made, code: 130 });
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }, 60_000);

  it('board --host is refused with the new name of the option', () => {
    const r = remote(['board', '--host', '0.0.0.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--host is now --listen/);
  });

  /** `tasks -H box -l L watch --json` in the background, its events read as they come (from a folder that exists: the local config folder must not). */
  function watchOnHost(extra: string[] = []) {
    const child = spawn(process.execPath, [BIN, '-H', 'box', '-l', 'L', 'watch', '--json', ...extra], {
      env: baseEnv(local, host.env),
      cwd: path.dirname(local),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<{ code: number; stderr: string }>((resolve) =>
      child.on('close', (code) => resolve({ code: code ?? -1, stderr })),
    );
    let ended = false;
    void exited.then(() => (ended = true));
    return {
      exited,
      stdout: () => stdout,
      async waitFor(match: (e: StreamEvent) => boolean, what: string): Promise<void> {
        const until = Date.now() + 30_000;
        while (!parseNdjson(stdout.slice(0, stdout.lastIndexOf('\n') + 1)).some(match)) {
          if (ended || Date.now() > until) throw new Error(`waiting for ${what}: ${stderr} ${stdout}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      },
      stop(signal: NodeJS.Signals) {
        if (!ended) child.kill(signal);
        return exited;
      },
    };
  }
});

async function eventually(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
