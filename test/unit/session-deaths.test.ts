import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { heldTasks, SessionDeaths } from '../../src/core/sessions/session-deaths.js';
import type { TaskWrite } from '../../src/core/sessions/transcript-tasks.js';
import type { Task } from '../../src/core/store/schema.js';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const task = (id: string, status: Task['status']): Task => ({ id, subject: `T${id}`, description: '', status, blocks: [], blockedBy: [] });
const write = (id: string, at: number, extra: Partial<TaskWrite> = {}): TaskWrite => ({ id, created: false, at, end: at + 10, ...extra });

describe('heldTasks: what a dead session held', () => {
  const tasks = [task('1', 'in_progress'), task('2', 'in_progress'), task('3', 'completed'), task('4', 'pending')];

  it('its tasks in progress that it wrote last, whose files were not written since', () => {
    const mine = [write('1', 100), write('2', 200), write('3', 300), write('4', 400)];
    const held = heldTasks(
      tasks,
      mine,
      [],
      new Map([
        ['1', 105],
        ['2', 205],
      ]),
    );
    expect(held.map((t) => t.id)).toEqual(['1', '2']);
  });

  it('not a task another session wrote after it (it took the work over)', () => {
    const held = heldTasks(tasks, [write('1', 100), write('2', 200)], [[write('2', 250)]], new Map());
    expect(held.map((t) => t.id)).toEqual(['1']);
  });

  it("not a task whose file changed after its last write (a person's change)", () => {
    const held = heldTasks(
      tasks,
      [write('1', 100), write('2', 200)],
      [],
      new Map([
        ['1', 110],
        ['2', 5000],
      ]),
    );
    expect(held.map((t) => t.id)).toEqual(['1']);
  });

  it('not a task it only deleted, nor one it never wrote', () => {
    expect(heldTasks(tasks, [write('1', 100, { deleted: true })], [], new Map())).toEqual([]);
    expect(heldTasks(tasks, [write('9', 100)], [], new Map())).toEqual([]);
  });

  it('its last write counts: one it wrote before and after another session', () => {
    const held = heldTasks(tasks, [write('1', 100), write('1', 400)], [[write('1', 200)]], new Map([['1', 405]]));
    expect(held.map((t) => t.id)).toEqual(['1']);
  });
});

describe('heldTasks: who holds a task is who claimed it', () => {
  const owned = (id: string, owner: string): Task => ({ ...task(id, 'in_progress'), owner });

  it("not a task it only edited after another session claimed it (a lead's edit of a teammate's task)", () => {
    const teammate = [write('1', 100, { started: true, owner: 'worker-1' })];
    const lead = [write('1', 300)];
    expect(heldTasks([owned('1', 'worker-1')], lead, [teammate], new Map([['1', 305]]))).toEqual([]);
    expect(heldTasks([owned('1', 'worker-1')], teammate, [lead], new Map([['1', 305]])).map((t) => t.id)).toEqual(['1']);
  });

  it('the later claim wins: the one who started it after another gave it an owner', () => {
    const lead = [write('1', 100, { owner: 'worker-1' })];
    const teammate = [write('1', 200, { started: true })];
    expect(heldTasks([owned('1', 'worker-1')], teammate, [lead], new Map()).map((t) => t.id)).toEqual(['1']);
    expect(heldTasks([owned('1', 'worker-1')], lead, [teammate], new Map())).toEqual([]);
  });

  it('not a task it claimed for an owner the task no longer has', () => {
    expect(heldTasks([owned('1', 'someone')], [write('1', 100, { started: true, owner: 'worker-1' })], [], new Map())).toEqual([]);
  });

  it("not a task whose file was written after every write seen (an unseen writer's change)", () => {
    const mine = [write('1', 100, { started: true, owner: 'worker-1' })];
    expect(heldTasks([owned('1', 'worker-1')], mine, [[write('1', 300)]], new Map([['1', 9000]]))).toEqual([]);
  });
});

describe('SessionDeaths: a death is told once, with what the list shows of it', () => {
  const SESSION = '44444444-4444-4444-8444-444444444444';
  const PID = 4242;

  /** A session whose own list is its id, live in process PID (the probe says so while `alive`), that started #1. */
  function world() {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    const dir = path.join(config, 'tasks', SESSION);
    const at = Date.now() - 60_000;
    writeTask(dir, { id: '1', subject: 'Part 1', description: '', status: 'in_progress', blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(dir, '1.json'), (at + 5005) / 1000, (at + 5005) / 1000);
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      // Its transcript ends as a finished run's does: once its live-session file goes, it has ended.
      running: false,
      calls: [
        { name: 'TaskCreate', input: { subject: 'Part 1', description: '' }, result: { task: { id: '1', subject: 'Part 1' } }, at },
        {
          name: 'TaskUpdate',
          input: { taskId: '1', status: 'in_progress' },
          result: { success: true, taskId: '1', updatedFields: ['status'] },
          at: at + 5000,
        },
      ],
    });
    writeLiveSession(config, { pid: PID, sessionId: SESSION, cwd, procStartTicks: '100' });
    const state = { alive: true, now: Date.now() };
    const probe = { startTime: (pid: number) => (pid === PID && state.alive ? '100' : undefined), domain: () => undefined };
    const deaths = new SessionDeaths(config, SESSION, dir, { probe }, () => state.now);
    return { deaths, state, config };
  }

  it('the list not yet showing its work when it dies: looked at again, then told with the task it held', () => {
    const { deaths, state, config } = world();
    expect(deaths.look([task('1', 'pending')])).toEqual([]);
    state.alive = false;
    // It ended: its live-session file removed.
    fs.rmSync(path.join(config, 'sessions'), { recursive: true });
    // The watch's view lags the file: #1 still pending there.
    expect(deaths.look([task('1', 'pending')])).toEqual([]);
    state.now += 1000;
    const told = deaths.look([task('1', 'in_progress')]);
    expect(told).toMatchObject([{ sessionId: SESSION, state: 'ended', pid: PID, tasks: [{ id: '1' }] }]);
    expect(deaths.look([task('1', 'in_progress')])).toEqual([]);
  });

  it('holding nothing: told with no task once it has held nothing for a few seconds, then forgotten', () => {
    const { deaths, state } = world();
    expect(deaths.look([task('1', 'completed')])).toEqual([]);
    state.alive = false;
    expect(deaths.look([task('1', 'completed')])).toEqual([]);
    state.now += 3000;
    expect(deaths.look([task('1', 'completed')])).toMatchObject([{ sessionId: SESSION, state: 'crashed', tasks: [] }]);
    expect(deaths.look([task('1', 'completed')])).toEqual([]);
  });
});
