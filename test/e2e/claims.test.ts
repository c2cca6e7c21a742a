import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureConfig, readJson, run, snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';

/** The fixture: 1 (completed, researcher) blocks 2; 2 blocks 4; 5 stands alone. */
const file = (list: string, id: string) => readJson(path.join(list, `${id}.json`)) as Record<string, unknown>;

describe('claim', () => {
  it("sets the owner and nothing else, as the agents' claim writes it", () => {
    const { config, list } = fixtureConfig();
    const r = runInProcessSync(config, ['claim', '2', '--as', 'amy']);
    expect(r).toMatchObject({ code: 0, stdout: '2\n', stderr: '' });
    // TaskUpdate's merge: the new owner key lands after the existing ones.
    expect(fs.readFileSync(path.join(list, '2.json'), 'utf8')).toBe(
      JSON.stringify(
        {
          id: '2',
          subject: 'Refactor auth',
          description: 'Split auth.py',
          activeForm: 'Refactoring auth',
          status: 'pending',
          blocks: ['4'],
          blockedBy: ['1'],
          owner: 'amy',
        },
        null,
        2,
      ),
    );
  });

  it.runIf(tmuxAvailable())('at a terminal, without --as, a person claims for themself (@me); a script must say who', async () => {
    const { config, list } = fixtureConfig();
    const pane = startInTmux(config, ['claim', '2'], { width: 100, height: 10 }, { USER: 'amy' });
    try {
      const screen = await pane.waitFor((s) => /EXIT=\d+/.test(s), 'the claim to end');
      expect(screen).toContain('EXIT=0');
    } finally {
      pane.kill();
    }
    expect(readJson(path.join(list, '2.json'))).toMatchObject({ owner: 'amy' });
    const piped = run(config, ['claim', '4'], { env: { USER: 'amy' } });
    expect(piped).toMatchObject({ code: 2, stderr: 'error: --as <agent> is required: who claims the task\n' });
  });

  it('--start sets in_progress in the same write; --json prints the claimed task, as every change prints its task', () => {
    const { config, list } = fixtureConfig();
    const r = runInProcessSync(config, ['claim', '5', '--as', 'amy', '--start', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ...file(list, '5'), updatedAt: expect.any(String) });
    expect(file(list, '5')).toMatchObject({ owner: 'amy', status: 'in_progress' });
  });

  it('claiming your own task again succeeds (with the busy check too)', () => {
    const { config } = fixtureConfig();
    runInProcessSync(config, ['claim', '5', '--as', 'amy']);
    expect(runInProcessSync(config, ['claim', '5', '--as', 'amy', '--busy-check'])).toMatchObject({ code: 0, stdout: '5\n' });
    expect(runInProcessSync(config, ['claim', '5', '--as', 'amy'], { env: { FORCE_COLOR: '0' } }).stdout).toBe('5\n');
  });

  it("each refusal: an error with the agents' reason, exit 4 (3 for task_not_found), the task among its facts", () => {
    const { config, list } = fixtureConfig();
    writeTask(list, { id: '6', subject: 'mine', description: '', status: 'in_progress', owner: 'amy', blocks: [], blockedBy: [] });
    writeTask(list, { id: '7', subject: 'done', description: '', status: 'completed', blocks: [], blockedBy: [] });
    const cases: Array<[string[], number, string, Record<string, unknown>]> = [
      [['claim', '9', '--as', 'amy'], 3, 'task_not_found', { task: null }],
      [['claim', '1', '--as', 'amy'], 4, 'already_claimed', { task: file(list, '1') }],
      [['claim', '6', '--as', 'bob'], 4, 'already_claimed', { task: file(list, '6') }],
      [['claim', '4', '--as', 'amy'], 4, 'blocked', { task: file(list, '4'), openBlockers: ['2'] }],
      [['claim', '7', '--as', 'amy'], 4, 'already_resolved', { task: file(list, '7') }],
      [['claim', '5', '--as', 'amy', '--busy-check'], 4, 'agent_busy', { task: file(list, '5'), busyWith: ['6'] }],
    ];
    for (const [args, code, reason, rest] of cases) {
      const before = snapshotDir(list);
      const json = runInProcessSync(config, [...args, '--json']);
      expect(json.code, args.join(' ')).toBe(code);
      expect(json.stdout).toBe('');
      const facts = Object.fromEntries(
        Object.entries(rest).map(([k, v]) => [k, k === 'task' && v !== null ? { ...(v as object), updatedAt: expect.any(String) } : v]),
      );
      expect(JSON.parse(json.stderr)).toEqual({
        error: expect.objectContaining({ code: code === 3 ? 'not_found' : 'conflict', reason, ...facts }),
      });
      const text = runInProcessSync(config, args);
      expect(text.code).toBe(code);
      expect(text.stdout).toBe('');
      expect(text.stderr).toMatch(new RegExp(`^error: cannot claim task #\\d+: ${reason}.*\\n$`));
      expect(snapshotDir(list)).toEqual(before);
    }
  });

  it('--next takes the lowest-id ready task; exit 4 when none is ready, 3 when the list does not exist', () => {
    const { config, list } = fixtureConfig();
    expect(runInProcessSync(config, ['claim', '--next', '--as', 'a'])).toMatchObject({ code: 0, stdout: '2\n' });
    expect(runInProcessSync(config, ['claim', '--next', '--as', 'b', '--start'])).toMatchObject({ code: 0, stdout: '5\n' });
    expect(file(list, '5')).toMatchObject({ owner: 'b', status: 'in_progress' });
    const before = snapshotDir(list);
    const none = runInProcessSync(config, ['claim', '--next', '--as', 'c']);
    expect(none).toMatchObject({ code: 4, stdout: '', stderr: 'error: no task is ready to claim (pending, unowned, no open blocker)\n' });
    expect(snapshotDir(list)).toEqual(before);
    expect(runInProcessSync(config, ['-l', 'no-such-list', 'claim', '--next', '--as', 'c']).code).toBe(3);
  });

  it('--next --busy-check refuses an agent that already holds a task', () => {
    const { config, list } = fixtureConfig();
    runInProcessSync(config, ['claim', '5', '--as', 'a']);
    const before = snapshotDir(list);
    const r = runInProcessSync(config, ['claim', '--next', '--as', 'a', '--busy-check', '--json']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'conflict', reason: 'agent_busy', task: { id: '2' }, busyWith: ['5'] } });
    expect(snapshotDir(list)).toEqual(before);
  });

  it('--next skips internal tasks, as agents never see them', () => {
    const { config, list } = fixtureConfig();
    writeTask(list, {
      id: '3',
      subject: 'internal',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
      metadata: { _internal: true },
    });
    expect(runInProcessSync(config, ['claim', '--next', '--as', 'a']).stdout).toBe('2\n');
  });
});

describe('release', () => {
  it('removes the owner and puts an in_progress task back to pending', () => {
    const { config, list } = fixtureConfig();
    runInProcessSync(config, ['claim', '2', '--as', 'amy', '--start']);
    const r = runInProcessSync(config, ['release', '2']);
    expect(r).toMatchObject({ code: 0, stdout: 'Released task #2 from amy (in_progress -> pending): Refactor auth\n', stderr: '' });
    expect(fs.readFileSync(path.join(list, '2.json'), 'utf8')).toBe(
      JSON.stringify(
        {
          id: '2',
          subject: 'Refactor auth',
          description: 'Split auth.py',
          activeForm: 'Refactoring auth',
          status: 'pending',
          blocks: ['4'],
          blockedBy: ['1'],
        },
        null,
        2,
      ),
    );
    expect(runInProcessSync(config, ['release', '2']).stdout).toBe(
      'Task #2 has no owner and is pending; nothing to release: Refactor auth\n',
    );
  });

  it('--owner releases every unfinished task of that agent and lists them', () => {
    const { config, list } = fixtureConfig();
    writeTask(list, { id: '6', subject: 'done by w', description: '', status: 'completed', owner: 'w', blocks: [], blockedBy: [] });
    runInProcessSync(config, ['claim', '2', '--as', 'w', '--start']);
    runInProcessSync(config, ['claim', '5', '--as', 'w']);
    runInProcessSync(config, ['claim', '4', '--as', 'other']);
    const r = runInProcessSync(config, ['release', '--owner', 'w', '--json']);
    expect(r.code).toBe(0);
    const released = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(released.map((x) => [x.id, x.previousOwner, x.previousStatus])).toEqual([
      ['2', 'w', 'in_progress'],
      ['5', 'w', 'pending'],
    ]);
    expect(released[0]!.task).toEqual({ ...file(list, '2'), updatedAt: expect.any(String) });
    expect(released.every((x) => x.ok === true)).toBe(true);
    expect(file(list, '5')).not.toHaveProperty('owner');
    expect(file(list, '6')).toMatchObject({ owner: 'w', status: 'completed' });
    expect(runInProcessSync(config, ['release', '--owner', 'w'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'w holds no unfinished task; nothing released\n',
    });
  });

  it('several ids: each reported, the worst exit code', () => {
    const { config } = fixtureConfig();
    runInProcessSync(config, ['claim', '5', '--as', 'a']);
    const r = runInProcessSync(config, ['release', '5', '99', '1']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('Released task #5 from a: Write changelog\n');
    expect(r.stderr).toBe(
      'error: task #99 not found\nerror: task #1 is completed; release leaves finished work alone (update --no-owner removes its owner)\n',
    );
  });
});

describe('preconditions', () => {
  it('update --owner --if-owner reassigns only from the expected owner', () => {
    const { config, list } = fixtureConfig();
    runInProcessSync(config, ['claim', '2', '--as', 'amy', '--start']);
    expect(runInProcessSync(config, ['update', '2', '--owner', 'bob', '--if-owner', 'amy', '--if-status', 'in_progress'])).toMatchObject({
      code: 0,
      stdout: 'Updated task #2 owner\n',
    });
    const before = snapshotDir(list);
    const r = runInProcessSync(config, ['update', '2', '--owner', 'carol', '--if-owner', 'amy', '--json']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'conflict',
        message: 'precondition failed: task #2 is owned by bob, not amy; nothing changed',
        id: '2',
        precondition: 'if-owner',
        expected: 'amy',
        actual: 'bob',
      },
    });
    expect(snapshotDir(list)).toEqual(before);
  });

  it('--if-unowned and --if-status (any of several)', () => {
    const { config, list } = fixtureConfig();
    expect(runInProcessSync(config, ['update', '5', '--owner', 'me', '--if-unowned', '--if-status', 'pending,in_progress']).code).toBe(0);
    expect(file(list, '5')).toMatchObject({ owner: 'me' });
    expect(runInProcessSync(config, ['update', '5', '--owner', 'you', '--if-unowned'])).toMatchObject({
      code: 4,
      stderr: 'error: precondition failed: task #5 is owned by me; nothing changed\n',
    });
  });

  it('apply to claim, release and delete too', () => {
    const { config, list } = fixtureConfig();
    runInProcessSync(config, ['claim', '5', '--as', 'amy']);
    expect(runInProcessSync(config, ['release', '5', '--if-owner', 'bob']).code).toBe(4);
    expect(runInProcessSync(config, ['delete', '5', '--if-unowned']).code).toBe(4);
    expect(runInProcessSync(config, ['update', '5', '--status', 'deleted', '--if-unowned']).code).toBe(4);
    expect(runInProcessSync(config, ['claim', '2', '--as', 'bob', '--if-status', 'in_progress']).code).toBe(4);
    expect(fs.existsSync(path.join(list, '5.json'))).toBe(true);
    expect(runInProcessSync(config, ['release', '5', '--if-owner', 'amy']).code).toBe(0);
    expect(runInProcessSync(config, ['delete', '5', '--if-unowned', '--if-status', 'pending'])).toMatchObject({
      code: 0,
      stdout: 'Deleted task #5: Write changelog\n',
    });
  });
});

describe('claim --next --json: a refusal is an error', () => {
  it('nothing ready: {"error": {"code": "conflict", "reason": "no_task_ready", "task": null}} on stderr, exit 4', () => {
    const { config, list } = fixtureConfig();
    for (const id of ['2', '4', '5']) runInProcessSync(config, ['update', id, '--owner', 'someone']);
    const before = snapshotDir(list);
    const r = runInProcessSync(config, ['claim', '--next', '--as', 'x', '--json']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'conflict', reason: 'no_task_ready', task: null } });
    expect(snapshotDir(list)).toEqual(before);
  });
});

describe('claim --next --min-age: tasks created moments ago are passed over', () => {
  it('a task born less than the age ago is not taken (said on stderr); once old enough it is', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'l');
    const t = (id: string) => ({ id, subject: `T${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });
    // When a task file was made, as claim reads it (core/claims/task-age.ts); a run's clock
    // ($TASKS_NOW) is then set that long after it, instead of waiting.
    const born = (id: string) => {
      const st = fs.statSync(path.join(dir, `${id}.json`));
      return st.birthtimeMs > 0 ? st.birthtimeMs : st.mtimeMs;
    };
    const claimAt = (at: number, as: string) =>
      runInProcessSync(config, ['-l', 'l', 'claim', '--next', '--as', as, '--min-age', '1s'], {
        env: { TASKS_NOW: String(Math.ceil(at)) },
      });
    writeTask(dir, t('1'));
    const young = runInProcessSync(config, ['-l', 'l', 'claim', '--next', '--as', 'w', '--min-age', '1h']);
    expect(young.code).toBe(4);
    expect(young.stderr).toBe(
      'note: passed over #1: created less than 1h ago (--min-age)\nerror: no task is ready to claim (pending, unowned, no open blocker)\n',
    );
    expect(JSON.parse(fs.readFileSync(path.join(dir, '1.json'), 'utf8'))).not.toHaveProperty('owner');
    // 0.9 s after its birth #1 is still too young for 1s; at 1.2 s it is taken.
    expect(claimAt(born('1') + 900, 'w').code).toBe(4);
    expect(claimAt(born('1') + 1200, 'w')).toMatchObject({ code: 0, stdout: '1\n' });
    writeTask(dir, t('2'));
    const next = claimAt(born('2') + 500, 'v');
    expect(next.code).toBe(4);
    expect(next.stderr).toMatch(/^note: passed over #2: created less than 1s ago/);
    expect(runInProcessSync(config, ['-l', 'l', 'claim', '1', '--as', 'w', '--min-age', '1s'])).toMatchObject({
      code: 2,
      stderr: 'error: --min-age goes with --next\n',
    });
  });
});
