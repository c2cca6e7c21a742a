import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, FIXTURES } from '../helpers/cli.js';
import { type SshHost, sshAvailable, startSshd } from '../helpers/sshd.js';

/**
 * The read commands on a host answer byte for byte as they do here on the same lists, at
 * the same terminal width, colour and time zone: a terminal here (a real pseudo-terminal,
 * util-linux `script`) with stderr apart or on it, a pipe, a pipe with FORCE_COLOR, and
 * `--json` (which adds the host). Both runs read the same folder (the host user's, named
 * by --config-dir) with the same HOME and working folder, so only where the command runs
 * differs. The binary is run because terminals and ssh are the point. The local time zone
 * is not the host's, as across machines it often is not.
 */
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!sshAvailable() || !hasScript)('tasks -H renders as a run here does', () => {
  let host: SshHost;
  let work: string;
  const LIST = ['-l', 'refactor-auth'];

  beforeAll(async () => {
    host = await startSshd();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-remote-render-'));
    // The real agent's list and session files, as they came, in the host user's ~/.claude.
    fs.cpSync(FIXTURES, host.claudeDir, { recursive: true, preserveTimestamps: true });
    execFileSync('chown', ['-R', `${host.user}:`, host.claudeDir]);
    // The first run copies tasks there and says so; the runs compared are the later ones.
    // Changes made there, by tasks, for log to show (each with its time, shown in the local zone).
    for (const change of [
      ['create', 'Ship the release', '--blocked-by', '4'],
      ['claim', '5', '--as', 'writer'],
      ['done', '5', '--as', 'writer'],
    ]) {
      expect(once(['-H', 'box', ...LIST, ...change], { mode: 'pipe' }).code).toBe(0);
    }
  });

  afterAll(() => {
    host?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  type Mode = 'pty' | 'pty-stderr' | 'pipe';
  interface Run {
    code: number;
    stdout: string;
    stderr: string;
  }

  /** One run, with the config folder, HOME and working folder of the host user, from a terminal or a pipe. */
  function once(args: string[], o: { mode: Mode; columns?: number; env?: Record<string, string>; configDir?: string }): Run {
    const env = baseEnv(host.claudeDir, {
      ...host.env,
      HOME: host.home,
      TZ: 'Asia/Tokyo',
      TASKS_NOW: '2026-12-01T12:00:00Z',
      TERM: 'xterm-256color',
      ...o.env,
    });
    const argv = [process.execPath, BIN, '--config-dir', o.configDir ?? host.claudeDir, ...args];
    if (o.mode === 'pipe') {
      const r = spawnSync(argv[0] as string, argv.slice(1), { env, cwd: host.home, encoding: 'utf8', timeout: 60_000 });
      return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    }
    // A pseudo-terminal of this width for stdout (and stderr, for pty-stderr), as a person's shell gives.
    const errFile = path.join(work, 'stderr');
    fs.rmSync(errFile, { force: true });
    const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const inner = `stty cols ${o.columns ?? 80} rows 40; exec ${quoted}${o.mode === 'pty' ? ` 2>'${errFile}'` : ''}`;
    const r = spawnSync('script', ['-qec', inner, '/dev/null'], { env, cwd: host.home, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: o.mode === 'pty' ? fs.readFileSync(errFile, 'utf8') : '' };
  }

  /** The same command here and on the host. */
  function both(args: string[], o: Parameters<typeof once>[1]): { here: Run; there: Run } {
    return { here: once(args, o), there: once(['-H', 'box', ...args], o) };
  }

  const READS: string[][] = [
    [...LIST, 'list'],
    [...LIST, 'list', '--sort', 'status', '--cost'],
    [...LIST, 'get', '4'],
    ['lists', '--all'],
    [...LIST, 'log'],
    ['log', '--all'],
    ['doctor'],
    [...LIST, 'graph'],
    [...LIST, 'cost'],
  ];

  it.each(READS.map((a) => [a.join(' '), a]))('%s: on a terminal, narrow and coloured, stderr apart', (_, args) => {
    const { here, there } = both(args as string[], { mode: 'pty', columns: 72 });
    if (here.stdout !== '') expect(here.stdout).toContain('\u001b[');
    expect(there).toEqual(here);
  });

  it.each(READS.map((a) => [a.join(' '), a]))('%s: on a wide terminal without colour, stderr on it too', (_, args) => {
    const { here, there } = both(args as string[], { mode: 'pty-stderr', columns: 160, env: { NO_COLOR: '1' } });
    expect(here.stdout).not.toContain('\u001b[');
    expect(there).toEqual(here);
  });

  it.each(READS.map((a) => [a.join(' '), a]))('%s: piped, plain and with FORCE_COLOR', (_, args) => {
    const plain = both(args as string[], { mode: 'pipe' });
    expect(plain.here.stdout.length + plain.here.stderr.length).toBeGreaterThan(0);
    expect(plain.there).toEqual(plain.here);
    const forced = both(args as string[], { mode: 'pipe', env: { FORCE_COLOR: '1' } });
    expect(forced.there).toEqual(forced.here);
  });

  it.each(READS.map((a) => [a.join(' '), a]))('%s --json: the same document, with the host where it names lists', (_, args) => {
    const { here, there } = both([...(args as string[]), '--json'], { mode: 'pipe' });
    expect(there.code).toBe(here.code);
    expect(there.stderr).toBe(here.stderr);
    const unhosted = (doc: unknown): unknown =>
      Array.isArray(doc)
        ? doc.map(unhosted)
        : doc !== null && typeof doc === 'object'
          ? Object.fromEntries(Object.entries(doc).filter(([k]) => k !== 'host'))
          : doc;
    expect(unhosted(JSON.parse(there.stdout))).toEqual(JSON.parse(here.stdout));
  });

  it("an error is the host's, named, with the host's exit code; --json carries the host", () => {
    const { here, there } = both(['-l', 'nope', 'list'], { mode: 'pty', columns: 80 });
    expect(here.code).toBe(3);
    expect(there.code).toBe(3);
    expect(there.stdout).toBe(here.stdout);
    expect(there.stderr).toBe(here.stderr.replace(/^error: /, 'error: host box: '));
    const json = both(['-l', 'nope', 'list', '--json'], { mode: 'pipe' });
    expect(json.there.code).toBe(3);
    expect(JSON.parse(json.there.stderr).error).toEqual({
      ...JSON.parse(json.here.stderr).error,
      message: expect.any(String),
      host: 'box',
    });
    expect(JSON.parse(json.there.stderr).error.message).toBe(`host box: ${JSON.parse(json.here.stderr).error.message}`);
  });

  it('changes made there answer as the same changes made here, on two copies of one list', () => {
    // The same list twice: the host user's, and a copy here (a change must not be made twice on one list).
    const here = path.join(work, 'claude');
    fs.cpSync(path.join(FIXTURES, 'tasks'), path.join(here, 'tasks'), { recursive: true, preserveTimestamps: true });
    fs.cpSync(path.join(FIXTURES, 'tasks', 'refactor-auth'), path.join(host.claudeDir, 'tasks', 'twin'), {
      recursive: true,
      preserveTimestamps: true,
    });
    fs.renameSync(path.join(here, 'tasks', 'refactor-auth'), path.join(here, 'tasks', 'twin'));
    execFileSync('chown', ['-R', `${host.user}:`, host.claudeDir]);
    const twin = ['-l', 'twin'];
    for (const [change, mode] of [
      [['create', 'Write the notes', '--blocked-by', '2'], 'pty'],
      [['update', '6', '--subject', 'Write the release notes', '--as', 'writer'], 'pipe'],
      [['start', '2', '--as', 'writer'], 'pty'],
      [['done', '2', '--as', 'writer'], 'pty-stderr'],
      [['block', '5', '--by', '6'], 'pipe'],
      [['unblock', '5', '--by', '6'], 'pty'],
      // A usage error known here is refused here, before ssh: the line a run here gives, no host named.
      [['unblock', '5', '--from', '6'], 'pty'],
      [['undo'], 'pty'],
      [['redo'], 'pipe'],
      [['check'], 'pty'],
      [['release', '9', '--as', 'writer'], 'pty'],
      [['list'], 'pty'],
      // A person at a terminal claims for themself; piped, a claim must say who.
      [['claim', '5'], 'pipe'],
      [['claim', '4'], 'pty-stderr'],
    ] as const) {
      const args = [...twin, ...change];
      const o = { mode, columns: 90 } as const;
      const local = once(args, { ...o, configDir: here });
      const there = once(['-H', 'box', ...args], o);
      const refusedHere = local.code === 2 && /unknown option/.test(local.stderr);
      const named = (s: string) =>
        refusedHere ? s : s.replace(/^error: /gm, 'error: host box: ').replace(/"message":"/g, '"message":"host box: ');
      // A person's change there is made by the user ssh logs in as, as a change made there by hand would be.
      const person = (s: string) => s.replaceAll(host.user, os.userInfo().username);
      expect({ ...there, stdout: person(there.stdout), stderr: person(there.stderr) }, args.join(' ')).toEqual({
        ...local,
        stderr: named(local.stderr),
      });
    }
  });
});
