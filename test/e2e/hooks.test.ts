import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, readJson, run, snapshotDir, writeTask } from '../helpers/cli.js';
import {
  type HookWorld,
  hookWorld,
  logLines,
  pidAlive,
  script,
  settingsWith,
  trustFolder,
  waitFor,
  writeSettings,
} from '../helpers/hooks.js';
import { runInProcess } from '../helpers/in-process.js';

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: `about ${id}`,
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

/** `tasks -l l <args>` in the project, in process: hooks are still scripts run in processes of their own. */
async function tasks(world: HookWorld, args: string[], env: Record<string, string | undefined> = {}) {
  return runInProcess(world.config, ['-l', 'l', ...args], { cwd: world.project, env });
}

/** A hook that records its stdin, cwd, env and the list folder's lock dirs, then allows. */
function recorder(world: HookWorld, name = 'record.sh'): { command: string; log: string } {
  const log = path.join(world.root, `${name}.log`);
  const command = script(
    world,
    name,
    `input=$(cat)
locks=$(ls -a "${world.list}" | grep '\\.lock$' | grep -v '^\\.lock$' | tr '\\n' ' ')
printf '{"stdin":%s,"pwd":"%s","projectDir":"%s","listId":"%s","locks":"%s"}\\n' "$input" "$(pwd)" "$CLAUDE_PROJECT_DIR" "$CLAUDE_CODE_TASK_LIST_ID" "$locks" >> "${log}"`,
  );
  return { command, log };
}

describe('TaskCreated hooks on create', () => {
  it('allow: the hook sees the new task, runs in the project with no lock held; the task stays', async () => {
    const world = hookWorld();
    const { command, log } = recorder(world);
    writeSettings(world, 'project', settingsWith({ TaskCreated: [{ command }] }));
    const r = await tasks(world, ['create', 'Run tests', '-d', 'npm test']);
    expect(r).toMatchObject({ code: 0, stdout: '1\n', stderr: 'new list "l"\n' });
    expect(readJson(path.join(world.list, '1.json'))).toMatchObject({ id: '1', subject: 'Run tests', status: 'pending' });
    const [entry] = logLines(log) as Array<Record<string, unknown>>;
    expect(entry?.stdin).toEqual({
      session_id: expect.stringMatching(/^tasks-cli-\d+$/),
      transcript_path: '',
      cwd: world.project,
      hook_event_name: 'TaskCreated',
      task_id: '1',
      task_subject: 'Run tests',
      task_description: 'npm test',
    });
    expect(entry).toMatchObject({ pwd: world.project, projectDir: world.project, listId: 'l', locks: '' });
  });

  it('block by exit 2: the task is removed, its id stays used, exit 4 with the reason', async () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    const gate = script(world, 'gate.sh', 'cat >/dev/null; echo "subjects must start with a verb" >&2; exit 2');
    writeSettings(world, 'user', settingsWith({ TaskCreated: [{ command: gate }] }));
    const r = await tasks(world, ['create', 'Bad subject', '--blocked-by', '1']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: TaskCreated hook blocked creating task #2: subjects must start with a verb\n');
    expect(fs.existsSync(path.join(world.list, '2.json'))).toBe(false);
    expect(fs.readFileSync(path.join(world.list, '.highwatermark'), 'utf8')).toBe('2');
    // The edge the create added to #1 is gone again.
    expect(readJson(path.join(world.list, '1.json'))).toMatchObject({ blocks: [] });
    // Without the hook the next id is 3: ids are never reused.
    expect((await tasks(world, ['create', 'Next', '--no-hooks'])).stdout).toBe('3\n');
  });

  it('block by JSON: {"decision":"block"} on stdout; --json puts the reasons in the error', async () => {
    const world = hookWorld();
    const gate = script(
      world,
      'gate.sh',
      'cat >/dev/null; printf \'%s\\n\' \'{"decision":"block","reason":"no new tasks on Fridays\\nsee policy"}\'',
    );
    writeSettings(world, 'local', settingsWith({ TaskCreated: [{ command: gate }] }));
    const r = await tasks(world, ['create', 'Ship', '--json']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'conflict',
        message: 'TaskCreated hook blocked creating task #1: no new tasks on Fridays',
        reason: 'hook',
        event: 'TaskCreated',
        taskId: '1',
        hooks: [
          {
            command: gate,
            source: path.join(world.project, '.claude', 'settings.local.json'),
            reason: 'no new tasks on Fridays\nsee policy',
          },
        ],
      },
    });
    expect(fs.readdirSync(world.list).filter((n) => n.endsWith('.json'))).toEqual([]);
    // Without --json, the whole reason follows the one-line error.
    const text = await tasks(world, ['create', 'Ship']);
    expect(text.stderr).toBe(
      `error: TaskCreated hook blocked creating task #2: no new tasks on Fridays\n  [${gate}]\n    no new tasks on Fridays\n    see policy\n`,
    );
  });

  it('a hook that puts a file where the list folder was: the create ends cleanly, no stack trace', () => {
    const world = hookWorld();
    fs.mkdirSync(world.list, { recursive: true });
    const moved = `${world.list}.moved`;
    const hook = script(world, 'swap.sh', `mv "${world.list}" "${moved}" && printf x > "${world.list}"`);
    writeSettings(world, 'user', settingsWith({ TaskCreated: [{ command: hook }] }));
    const r = run(world.config, ['-l', 'l', 'create', 'A task'], { cwd: world.project });
    expect(r.stderr).not.toMatch(/\n\s+at |node:fs|Node\.js v/);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('1\n');
    expect(fs.readFileSync(world.list, 'utf8')).toBe('x');
    expect(fs.existsSync(path.join(moved, '1.json'))).toBe(true);
  });

  it('a task created completed must pass TaskCompleted hooks too', async () => {
    const world = hookWorld();
    const created = recorder(world, 'created.sh');
    const gate = script(world, 'gate.sh', 'cat >/dev/null; echo "not done" >&2; exit 2');
    writeSettings(world, 'project', settingsWith({ TaskCreated: [{ command: created.command }], TaskCompleted: [{ command: gate }] }));
    const r = await tasks(world, ['create', 'Done already', '--status', 'completed']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('new list "l"\nerror: TaskCompleted hook blocked completing task #1: not done\n');
    expect(logLines(created.log)).toHaveLength(1);
    expect(fs.existsSync(path.join(world.list, '1.json'))).toBe(false);
  });
});

describe('TaskCompleted hooks on update --status completed', () => {
  it('allow: hooks run before the write, told the task as it was; no lock held meanwhile', async () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    const { command, log } = recorder(world);
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command }] }));
    const r = await tasks(world, ['update', '1', '--status', 'completed', '--subject', 'Renamed']);
    expect(r).toMatchObject({ code: 0, stdout: 'Updated task #1 subject, status\n', stderr: '' });
    expect(readJson(path.join(world.list, '1.json'))).toMatchObject({ subject: 'Renamed', status: 'completed' });
    const [entry] = logLines(log) as Array<{ stdin: Record<string, unknown>; locks: string }>;
    expect(entry?.stdin).toMatchObject({
      hook_event_name: 'TaskCompleted',
      task_id: '1',
      task_subject: 'Task 1',
      task_description: 'about 1',
    });
    expect(entry?.locks).toBe('');
    // Already completed: no hook runs again; other changes run none.
    await tasks(world, ['update', '1', '--status', 'completed']);
    await tasks(world, ['update', '1', '--status', 'pending', '--owner', 'me']);
    expect(logLines(log)).toHaveLength(1);
  });

  it('block by exit 2: nothing at all is written (other changes in the same update neither)', async () => {
    const world = hookWorld();
    writeTask(world.list, task('1', { status: 'in_progress' }));
    const gate = script(world, 'gate.sh', 'cat >/dev/null; echo "3 tests fail" >&2; exit 2');
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: gate }] }));
    const before = snapshotDir(world.list);
    const r = await tasks(world, ['update', '1', '--status', 'completed', '--owner', 'bob', '--meta', 'x=1']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: TaskCompleted hook blocked completing task #1: 3 tests fail\n');
    expect(snapshotDir(world.list)).toEqual(before);
  });

  it('block by JSON, and several hooks: any block wins, every hook runs', async () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    const { command, log } = recorder(world);
    const gate = script(world, 'gate.sh', 'cat >/dev/null; echo \'{"decision":"block"}\'');
    writeSettings(world, 'user', settingsWith({ TaskCompleted: [{ command }] }));
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: gate }] }));
    const before = snapshotDir(world.list);
    const r = await tasks(world, ['update', '1', '--status', 'done']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('error: TaskCompleted hook blocked completing task #1: Blocked by hook\n');
    expect(snapshotDir(world.list)).toEqual(before);
    expect(logLines(log)).toHaveLength(1);
  });

  it('a hook that hangs is killed with its process group at its timeout; not a block', async () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    const pidFile = path.join(world.root, 'sleeper.pid');
    const hang = script(world, 'hang.sh', `cat >/dev/null; sleep 60 & echo $! > "${pidFile}"; wait; echo "never" >&2; exit 2`);
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: hang, timeout: 1 }] }));
    // Through the binary: the hook's process group is stopped by a process of our own.
    const r = run(world.config, ['-l', 'l', 'update', '1', '--status', 'completed'], { cwd: world.project });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Updated task #1 status\n');
    expect(r.stderr).toBe(`warning: TaskCompleted hook "${hang}" timed out after 1 s and was stopped; not a block, carrying on\n`);
    expect(readJson(path.join(world.list, '1.json'))).toMatchObject({ status: 'completed' });
    const sleeper = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(await waitFor(() => !pidAlive(sleeper))).toBe(true);
  });

  it('a hook that is not executable, or whose script is missing, is a warning, not a block', async () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    writeTask(world.list, task('2'));
    const noexec = script(world, 'noexec.sh', 'exit 2', 0o644);
    const missing = `sh ${path.join(world.project, 'hooks', 'missing.sh')}`;
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: noexec }] }));
    const r = await tasks(world, ['update', '1', '--status', 'completed']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(`^warning: TaskCompleted hook "${noexec}" failed \\(exited 126: .*[Pp]ermission denied\\); not a block, carrying on\\n$`),
    );
    expect(readJson(path.join(world.list, '1.json'))).toMatchObject({ status: 'completed' });
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: missing }] }));
    const m = await tasks(world, ['update', '2', '--status', 'completed']);
    expect(m.code).toBe(0);
    expect(m.stderr).toMatch(/failed \(the hook script appears to be missing \(exit 2: .*No such file\)\)/);
    expect(readJson(path.join(world.list, '2.json'))).toMatchObject({ status: 'completed' });
  });

  it('a malformed settings file is a warning; the other files still count', async () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    writeTask(world.list, task('2'));
    writeSettings(world, 'local', '{"hooks": {"TaskCompleted": [');
    expect(await tasks(world, ['update', '1', '--status', 'completed'])).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^warning: ignoring .*settings\.local\.json: not valid JSON/),
    });
    const gate = script(world, 'gate.sh', 'cat >/dev/null; echo "no" >&2; exit 2');
    writeSettings(world, 'user', settingsWith({ TaskCompleted: [{ command: gate }] }));
    const r = await tasks(world, ['update', '2', '--status', 'completed']);
    expect(r.code).toBe(4);
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^warning: ignoring .*settings\.local\.json: not valid JSON/),
      'error: TaskCompleted hook blocked completing task #2: no',
    ]);
    expect(readJson(path.join(world.list, '2.json'))).toMatchObject({ status: 'pending' });
  });

  it('--no-hooks skips them and says so', async () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    const { command, log } = recorder(world);
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command }], TaskCreated: [{ command }] }));
    expect(await tasks(world, ['update', '1', '--status', 'completed', '--no-hooks'])).toMatchObject({
      code: 0,
      stderr: 'skipped 1 TaskCompleted hook for task #1 (--no-hooks)\n',
    });
    expect(await tasks(world, ['create', 'x', '--no-hooks'])).toMatchObject({
      code: 0,
      stderr: 'skipped 1 TaskCreated hook for task #2 (--no-hooks)\n',
    });
    expect(logLines(log)).toEqual([]);
  });

  it("Ctrl-C while a hook runs: exit 130, the hook's group is stopped, nothing written", async () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    const pidFile = path.join(world.root, 'sleeper.pid');
    const hang = script(world, 'hang.sh', `cat >/dev/null; sleep 60 & echo $! > "${pidFile}"; wait`);
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: hang }] }));
    const before = snapshotDir(world.list);
    // The binary: a signal reaches a process.
    const child = spawn(process.execPath, [BIN, '-l', 'l', 'update', '1', '--status', 'completed'], {
      cwd: world.project,
      env: baseEnv(world.config),
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    expect(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '')).toBe(true);
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    expect(stderr).toBe('error: interrupted while TaskCompleted hooks were running for task #1\n');
    expect(snapshotDir(world.list)).toEqual(before);
    expect(await waitFor(() => !pidAlive(Number(fs.readFileSync(pidFile, 'utf8'))))).toBe(true);
  });
});

describe('a command whose directory was deleted', () => {
  it('has no project: user settings count, the config folder is not read as a project, hooks run in the config folder', () => {
    const world = hookWorld();
    writeTask(world.list, task('1'));
    const { command, log } = recorder(world);
    writeSettings(world, 'user', settingsWith({ TaskCompleted: [{ command }] }));
    // Were the config folder taken for the project, its .claude/settings.json would block.
    const blocker = script(world, 'block.sh', 'cat >/dev/null; echo "config folder read as a project" >&2; exit 2');
    fs.mkdirSync(path.join(world.config, '.claude'), { recursive: true });
    fs.writeFileSync(
      path.join(world.config, '.claude', 'settings.json'),
      JSON.stringify(settingsWith({ TaskCompleted: [{ command: blocker }] })),
    );
    trustFolder(world, world.config);
    const gone = path.join(world.root, 'gone');
    fs.mkdirSync(gone);
    // The binary: only a process can stand in a deleted working directory.
    const r = spawnSync('sh', ['-c', 'cd "$1" && rmdir "$1" && exec "$2" "$3" -l l done 1', 'sh', gone, process.execPath, BIN], {
      env: baseEnv(world.config),
      encoding: 'utf8',
    });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(readJson(path.join(world.list, '1.json'))).toMatchObject({ status: 'completed' });
    const [entry] = logLines(log) as Array<Record<string, unknown>>;
    expect(entry).toMatchObject({ pwd: world.config, projectDir: world.config, stdin: expect.objectContaining({ cwd: world.config }) });
  });
});
