import { describe, expect, it } from 'vitest';
import { indexTasks } from '../../src/core/graph/blockers.js';
import type { Task } from '../../src/core/store/schema.js';
import { formatUntil, parseUntil, type UntilCondition, untilHolds, untilHoldsAcross } from '../../src/core/watch/watch-condition.js';

const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});
const holds = (c: string, tasks: Task[], shown: Task[] = tasks) => untilHolds(parseUntil(c), shown, indexTasks(tasks));

describe('parseUntil', () => {
  it.each([
    ['all-completed', { kind: 'all-completed' }],
    ['ready', { kind: 'ready' }],
    [' EMPTY ', { kind: 'empty' }],
    ['task:4:completed', { kind: 'task-status', id: '4', status: 'completed' }],
    ['task:#12:in-progress', { kind: 'task-status', id: '12', status: 'in_progress' }],
    ['task:3:done', { kind: 'task-status', id: '3', status: 'completed' }],
  ])('%s', (raw, expected) => {
    expect(parseUntil(raw)).toEqual(expected);
    expect(parseUntil(formatUntil(expected as UntilCondition))).toEqual(expected);
  });

  it.each(['done', 'task:x:completed', 'task:0:completed', 'task:4:finished', 'task:4', ''])('refuses %j with a usage error', (raw) => {
    expect(() => parseUntil(raw)).toThrow(expect.objectContaining({ code: 'usage', message: expect.stringContaining('--until') }));
  });
});

describe('untilHolds', () => {
  it('all-completed: every task completed, and at least one task', () => {
    expect(holds('all-completed', [task('1', { status: 'completed' }), task('2', { status: 'completed' })])).toBe(true);
    expect(holds('all-completed', [task('1', { status: 'completed' }), task('2', { status: 'in_progress' })])).toBe(false);
    expect(holds('all-completed', [])).toBe(false);
  });

  it('all-completed speaks of the filtered tasks', () => {
    const all = [task('1', { status: 'completed', owner: 'amy' }), task('2', { owner: 'bob' })];
    expect(
      holds(
        'all-completed',
        all,
        all.filter((t) => t.owner === 'amy'),
      ),
    ).toBe(true);
  });

  it('ready: pending, unowned, no open blocker (judged against every task)', () => {
    expect(holds('ready', [task('1', { owner: 'amy' })])).toBe(false);
    expect(holds('ready', [task('1', { status: 'in_progress' })])).toBe(false);
    const blocked = [task('1', { status: 'in_progress', owner: 'a', blocks: ['2'] }), task('2', { blockedBy: ['1'] })];
    expect(holds('ready', blocked)).toBe(false);
    const unblocked = [task('1', { status: 'completed', owner: 'a', blocks: ['2'] }), task('2', { blockedBy: ['1'] })];
    expect(holds('ready', unblocked)).toBe(true);
    // The blocker is hidden by a filter, and still blocks.
    expect(holds('ready', blocked, [blocked[1] as Task])).toBe(false);
    // A missing blocker does not block (docs/task-store.md section 6.5: ids of missing
    // tasks do not block).
    expect(holds('ready', [task('2', { blockedBy: ['9'] })])).toBe(true);
  });

  it('empty: no tasks', () => {
    expect(holds('empty', [])).toBe(true);
    expect(holds('empty', [task('1')])).toBe(false);
  });

  it('task:<id>:<status> looks at that task among all of them', () => {
    const all = [task('4', { status: 'completed' }), task('5')];
    expect(holds('task:4:completed', all, [])).toBe(true);
    expect(holds('task:5:completed', all)).toBe(false);
    expect(holds('task:6:completed', all)).toBe(false);
    expect(holds('task:5:pending', all)).toBe(true);
  });
});

describe("untilHoldsAcross: after /clear, the session's work on the list it left and the one it uses now", () => {
  const on = (tasks: Task[]) => ({ tasks, index: indexTasks(tasks) });
  const across = (c: string, now: Task[], left: Task[]) => untilHoldsAcross(parseUntil(c), on(now), [on(left)]);
  const done = (id: string) => task(id, { status: 'completed' });
  const carried = (id: string) => task(id, { metadata: { carriedTo: { list: 'new', id: '1' } } });

  it('nothing left behind: as on one list', () => {
    expect(untilHoldsAcross(parseUntil('empty'), on([]), [])).toBe(true);
    expect(untilHoldsAcross(parseUntil('all-completed'), on([done('1')]), [])).toBe(true);
  });

  it('all-completed: not while work is unfinished on the list left behind, however done the new list is', () => {
    expect(across('all-completed', [done('1')], [done('1'), task('2', { status: 'in_progress' })])).toBe(false);
    expect(across('all-completed', [], [done('1')])).toBe(true);
    expect(across('all-completed', [done('1')], [done('1'), done('2')])).toBe(true);
    // Carried on: it counts where it went (here, not done yet).
    expect(across('all-completed', [task('1')], [done('1'), carried('2')])).toBe(false);
    expect(across('all-completed', [done('1')], [done('1'), carried('2')])).toBe(true);
  });

  it('empty: the empty new list alone does not meet it', () => {
    expect(across('empty', [], [task('1')])).toBe(false);
    expect(across('empty', [], [carried('1')])).toBe(true);
    expect(across('empty', [], [])).toBe(true);
  });

  it('ready: on either list', () => {
    expect(across('ready', [], [task('1')])).toBe(true);
    expect(across('ready', [task('1')], [done('1')])).toBe(true);
    expect(across('ready', [], [task('1', { status: 'in_progress' })])).toBe(false);
  });

  it('task:<id>: the list the watch began on, never the new list that numbers from 1 again', () => {
    expect(across('task:1:completed', [done('1')], [task('1')])).toBe(false);
    expect(across('task:1:completed', [task('1')], [done('1')])).toBe(true);
  });
});
