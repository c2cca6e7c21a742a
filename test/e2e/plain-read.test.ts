/**
 * A plain `list` or `get` runs without commander's program (src/cli/read-path): its
 * output, errors, warnings, notes and exit status must be byte for byte what the program
 * gives. Each command line is run through the built binary twice: as typed (the plain
 * read), and with a trailing `--`, which commander reads as nothing more but which the
 * plain read leaves to the program. Spawned, not in process: which bundle runs, and
 * whether stdout is a pipe or a terminal, are the process's.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { plainRead } from '../../src/cli/read-path/plain-read.js';
import { BIN, baseEnv, run, tempConfig, writeTask } from '../helpers/cli.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const hasScript = spawnSync('script', ['--version']).status === 0;

/** Lists with what a read has to say: blockers (one missing), an owner, a task in progress long untouched, an internal task, a damaged file. */
function world() {
  const config = tempConfig();
  const old = new Date(NOW - 3 * 3600_000);
  const plan = path.join(config, 'tasks', 'plan');
  writeTask(plan, {
    id: '1',
    subject: 'Write the parser',
    description: 'Parse it',
    activeForm: 'Writing',
    status: 'in_progress',
    owner: 'builder',
    blocks: ['2'],
    blockedBy: [],
  });
  writeTask(plan, { id: '2', subject: 'Test the parser', description: '', status: 'pending', blocks: [], blockedBy: ['1', '9'] });
  writeTask(plan, {
    id: '3',
    subject: 'Ship',
    description: 'auth release',
    status: 'completed',
    blocks: [],
    blockedBy: [],
    metadata: { priority: 'high' },
  });
  writeTask(plan, {
    id: '4',
    subject: 'internal',
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    metadata: { _internal: true },
  });
  writeTask(plan, { id: '5', subject: 'Docs', description: '', status: 'pending', owner: 'writer', blocks: [], blockedBy: [] });
  for (const f of fs.readdirSync(plan)) fs.utimesSync(path.join(plan, f), old, old);
  fs.writeFileSync(path.join(plan, '6.json'), '{ not json');
  writeTask(path.join(config, 'tasks', 'other'), {
    id: '1',
    subject: 'Elsewhere',
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
  });
  // A project bound to a list (what `tasks use plan` writes), and a folder bound to none.
  const bound = path.join(config, 'home', 'bound');
  const loose = path.join(config, 'home', 'loose');
  fs.mkdirSync(bound, { recursive: true });
  fs.mkdirSync(loose, { recursive: true });
  const use = run(config, ['use', 'plan'], { cwd: bound, env: { TASKS_NOW: String(NOW) } });
  expect(use.code, use.stderr).toBe(0);
  return { config, bound, loose };
}

type Env = Record<string, string | undefined>;

/** The command lines of the matrix: [where, argv, env]. */
const LINES: Array<[string, string[], Env?]> = [
  ['loose', ['-l', 'plan', 'list']],
  ['loose', ['--list', 'plan', 'ls']],
  ['loose', ['list', '-l', 'plan']],
  ['loose', ['-l', 'plan', 'list', '--json']],
  ['loose', ['--json', '-l', 'plan', 'list', '-q']],
  ['loose', ['-l', 'plan', 'list', '--no-color']],
  ['loose', ['-l', 'plan', 'list'], { FORCE_COLOR: '1' }],
  ['loose', ['-l', 'plan', 'list'], { NO_COLOR: '1' }],
  ['loose', ['-l', 'plan', 'list', '--no-color'], { FORCE_COLOR: '1' }],
  ['loose', ['-l', 'plan', 'list', '--status', 'pending']],
  ['loose', ['-l', 'plan', 'list', '-s', 'pending', '-s', 'completed', '--json']],
  ['loose', ['-l', 'plan', 'list', '--status', 'pending,in_progress', '--sort', 'status']],
  ['loose', ['-l', 'plan', 'list', '--owner', 'builder']],
  ['loose', ['-l', 'plan', 'list', '-o', 'nobody-here']],
  ['loose', ['-l', 'plan', 'list', '--unowned', '--all']],
  ['loose', ['-l', 'plan', 'list', '--ready']],
  ['loose', ['-l', 'plan', 'list', '--blocked', '--json']],
  ['loose', ['-l', 'plan', 'list', '--search', 'AUTH', '--meta', 'priority=high']],
  ['loose', ['-l', 'plan', 'list', '--sort', 'updated', '--limit', '2']],
  ['loose', ['-l', 'plan', 'list', '--limit', '0']],
  ['loose', ['-l', 'plan', 'list', '--ready', '--blocked']],
  ['loose', ['-l', 'plan', 'list', '--status', 'nonsense']],
  ['loose', ['-l', 'plan', 'list', '--owner', 'x', '--unowned', '--json']],
  ['loose', ['-l', 'nope', 'list']],
  ['loose', ['-l', 'nope', 'list', '--json']],
  ['loose', ['-l', 'plan', 'get', '1']],
  ['loose', ['get', '2', '-l', 'plan']],
  ['loose', ['-l', 'plan', 'get', '1', '--json']],
  ['loose', ['-l', 'plan', 'get', '3'], { FORCE_COLOR: '1' }],
  ['loose', ['-l', 'plan', 'get', '42']],
  ['loose', ['-l', 'plan', 'get', '42', '--json']],
  ['loose', ['-l', 'plan', 'get', 'abc']],
  ['loose', ['-l', 'plan', 'get', '6']],
  ['loose', ['-l', 'nope', 'get', '1']],
  ['loose', ['-l', 'other', 'get', '1']],
  // Chosen, not named: by the project's binding, by the environment, or (reads only) the most recently changed.
  ['bound', ['list']],
  ['bound', ['list', '--json']],
  ['bound', ['get', '2']],
  ['loose', ['list']],
  ['loose', ['get', '1', '--json']],
  ['loose', ['list'], { CLAUDE_CODE_TASK_LIST_ID: 'other' }],
  ['loose', ['list'], { CLAUDE_CODE_TASK_LIST_ID: 'nope' }],
];

function runBoth(config: string, cwd: string, argv: string[], env: Env = {}) {
  const opts = { cwd, env: { TASKS_NOW: String(NOW), ...env } };
  return { plain: run(config, argv, opts), program: run(config, [...argv, '--'], opts) };
}

describe('a plain read is the program read, byte for byte', () => {
  it('reads each line of the matrix itself (none falls through), and a trailing -- makes each fall through', () => {
    for (const [, argv] of LINES) {
      expect({ argv, plain: plainRead(['node', 'tasks', ...argv]) !== undefined }).toEqual({ argv, plain: true });
      expect({ argv, plain: plainRead(['node', 'tasks', ...argv, '--']) !== undefined }).toEqual({ argv, plain: false });
    }
  });

  it('prints the same stdout and stderr and exits with the same status, piped', () => {
    const w = world();
    const codes = new Set<number>();
    for (const [where, argv, env] of LINES) {
      const { plain, program } = runBoth(w.config, where === 'bound' ? w.bound : w.loose, argv, env);
      expect({ argv, env, ...plain }).toEqual({ argv, env, ...program });
      codes.add(plain.code);
    }
    // The matrix holds successes, a damaged task file, usage errors and lists or tasks not found.
    expect([...codes].sort()).toEqual([0, 1, 2, 3]);
  });

  it.skipIf(!hasScript)('prints the same table and detail on a terminal, with and without colour', () => {
    const w = world();
    for (const [argv, env] of [
      [['-l', 'plan', 'list'], {}],
      [['-l', 'plan', 'list'], { NO_COLOR: '1' }],
      [['-l', 'plan', 'list', '--limit', '1', '--ready'], {}],
      [['-l', 'plan', 'get', '1'], {}],
      [['-l', 'plan', 'get', '99'], {}],
    ] as Array<[string[], Env]>) {
      const onTerminal = (args: string[]) => {
        const line = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
        const r = spawnSync('script', ['-qec', `stty cols 100; ${line}`, '/dev/null'], {
          cwd: w.loose,
          env: baseEnv(w.config, { TASKS_NOW: String(NOW), TERM: 'xterm-256color', ...env }),
          encoding: 'utf8',
        });
        return { code: r.status, out: r.stdout };
      };
      const plain = onTerminal(argv);
      expect(plain.out.length).toBeGreaterThan(0);
      expect({ argv, ...plain }).toEqual({ argv, ...onTerminal([...argv, '--']) });
    }
  });

  it('prints no deprecation warning, and the same change times, where Node is asked to warn of pending deprecations', () => {
    const w = world();
    const argv = ['-l', 'plan', 'list', '--json'];
    const quiet = run(w.config, argv, { cwd: w.loose, env: { TASKS_NOW: String(NOW) } });
    expect(quiet.code).toBe(0);
    expect(JSON.parse(quiet.stdout)).toHaveLength(4);
    for (const env of [{ NODE_OPTIONS: '--pending-deprecation' }, { NODE_PENDING_DEPRECATION: '1' }]) {
      const warned = run(w.config, argv, { cwd: w.loose, env: { TASKS_NOW: String(NOW), ...env } });
      expect({ env, ...warned }).toEqual({ env, ...quiet });
    }
    const flagged = spawnSync(process.execPath, ['--pending_deprecation', BIN, ...argv], {
      cwd: w.loose,
      env: baseEnv(w.config, { TASKS_NOW: String(NOW) }),
      encoding: 'utf8',
    });
    expect({ code: flagged.status, stdout: flagged.stdout, stderr: flagged.stderr }).toEqual(quiet);
    // Set in a Node config file (Node 22.23 and 24), with warnings made errors: still no warning, no error.
    if (process.allowedNodeEnvironmentFlags.has('--experimental-config-file')) {
      const config = path.join(w.config, 'node.config.json');
      fs.writeFileSync(config, JSON.stringify({ nodeOptions: { 'pending-deprecation': true, 'throw-deprecation': true } }));
      const configured = spawnSync(process.execPath, [`--experimental-config-file=${config}`, BIN, ...argv], {
        cwd: w.loose,
        env: baseEnv(w.config, { TASKS_NOW: String(NOW) }),
        encoding: 'utf8',
      });
      expect({ code: configured.status, stdout: configured.stdout }).toEqual({ code: 0, stdout: quiet.stdout });
      expect(configured.stderr).not.toMatch(/Deprecation/);
    }
  });

  it('lists the same under the permission model, where the fs binding is refused to it', () => {
    const w = world();
    const argv = ['-l', 'plan', 'list', '--json'];
    const free = run(w.config, argv, { cwd: w.loose, env: { TASKS_NOW: String(NOW) } });
    expect(free.code).toBe(0);
    const flag = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
    const limited = spawnSync(process.execPath, [flag, '--allow-fs-read=*', BIN, ...argv], {
      cwd: w.loose,
      env: baseEnv(w.config, { TASKS_NOW: String(NOW) }),
      encoding: 'utf8',
    });
    expect({ code: limited.status, stdout: limited.stdout }).toEqual({ code: 0, stdout: free.stdout });
    // Node's own note that the model is experimental aside, the same warnings.
    const own = /^\(node:\d+\) ExperimentalWarning: .*\n\(Use `node --trace-warnings.*\n/;
    expect(limited.stderr.replace(own, '')).toBe(free.stderr);
    // Reads allowed of the install and the config folder alone: no code cache (the user's
    // cache folder is refused), the same list, never a stack trace.
    const install = path.resolve(path.dirname(BIN), '..');
    const narrow = spawnSync(process.execPath, [flag, `--allow-fs-read=${install}`, `--allow-fs-read=${w.config}`, BIN, ...argv], {
      cwd: w.loose,
      env: baseEnv(w.config, { TASKS_NOW: String(NOW) }),
      encoding: 'utf8',
    });
    expect({ code: narrow.status, stdout: narrow.stdout }).toEqual({ code: 0, stdout: free.stdout });
    expect(narrow.stderr.replace(own, '')).not.toMatch(/ERR_ACCESS_DENIED|\n\s+at /);
  });

  it('leaves to the program what it does not read whole', () => {
    for (const argv of [
      ['list', '--help'],
      ['-h'],
      ['--version'],
      ['list', '--list=plan'],
      ['list', '-qa'],
      ['list', '--sort', 'size'],
      ['list', '--limit', '1', '--limit', '2'],
      ['list', '--owner', '--json'],
      ['list', '--stalled'],
      ['list', '--cost'],
      ['list', 'extra'],
      ['-l', 'a', '-l', 'b', 'list'],
      ['-l', '', 'list'],
      ['get'],
      ['get', '1', '2'],
      ['get', '-1'],
      ['--ready', 'list'],
      ['lists'],
      ['create', 'x'],
      ['--session', 'abc', 'list'],
      ['--config-dir', '/tmp', 'list'],
      ['-H', 'box', 'list'],
      ['help', 'list'],
    ]) {
      expect({ argv, plain: plainRead(['node', 'tasks', ...argv]) }).toEqual({ argv, plain: undefined });
    }
  });
});
