import { describe, expect, it } from 'vitest';
import { indexTasks } from '../../src/core/graph/blockers.js';
import type { Task } from '../../src/core/store/schema.js';
import { diffSnapshots, snapshotOf } from '../../src/core/watch/watch-diff.js';
import { filterEvents } from '../../src/core/watch/watch-filter.js';
import { isTaskHint, rescanDueAt } from '../../src/core/watch/watch-hints.js';
import { keepLastGood } from '../../src/core/watch/watch-scan.js';

const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('isTaskHint', () => {
  it.each(['1.json', '42.json', 'notes.json', null, undefined, ''])('%j is worth a rescan', (name) => {
    expect(isTaskHint(name)).toBe(true);
  });
  it.each(['1.json.lock', '.lock', '.lock.lock', '.highwatermark', '.1.json.123.ab.tmp', '.7.json', 'x.txt', '1.json.tmp'])(
    '%j is not a change to any task',
    (name) => {
      expect(isTaskHint(name)).toBe(false);
    },
  );
});

describe('rescanDueAt', () => {
  it('waits for quiet after the last hint', () => {
    expect(rescanDueAt(1000, 1000, 100, 500)).toBe(1100);
    expect(rescanDueAt(1000, 1050, 100, 500)).toBe(1150);
  });
  it('never later than the cap after the first hint of a burst', () => {
    expect(rescanDueAt(1000, 1450, 100, 500)).toBe(1500);
    expect(rescanDueAt(1000, 1700, 100, 500)).toBe(1700);
  });
});

describe('keepLastGood', () => {
  it('keeps the last good version of a file that stays unreadable', () => {
    const previous = snapshotOf([task('1'), task('2', { status: 'in_progress' })]);
    const next = keepLastGood(previous, [task('1', { status: 'completed' })], [{ file: '2.json', reason: 'not valid JSON' }]);
    expect(next.get('2')).toEqual(task('2', { status: 'in_progress' }));
    expect(next.get('1')?.status).toBe('completed');
  });
  it('does not invent a task that was never read', () => {
    const next = keepLastGood(new Map(), [], [{ file: '3.json', reason: 'empty file' }]);
    expect(diffSnapshots(new Map(), next)).toEqual([]);
  });
  it('a vanished file is a deletion even if another file is unreadable', () => {
    const next = keepLastGood(snapshotOf([task('1'), task('2')]), [], [{ file: '2.json', reason: 'empty file' }]);
    expect([...next.keys()]).toEqual(['2']);
  });
});

describe('filterEvents', () => {
  const before = [task('1', { owner: 'amy' }), task('2', { owner: 'bob' })];
  const after = [task('1', { owner: 'amy', status: 'completed' }), task('2', { owner: 'amy' }), task('3', { owner: 'bob' })];
  const events = diffSnapshots(snapshotOf(before), snapshotOf(after));
  const run = (filter: Parameters<typeof filterEvents>[1]) =>
    filterEvents(events, filter, indexTasks(before), indexTasks(after)).map((e) =>
      e.type === 'list-cleared' ? e.type : `${e.type} ${e.task.id}`,
    );

  it('keeps an update whose task matches before or after', () => {
    expect(run({ owner: 'amy' })).toEqual(['updated 1', 'updated 2']);
    expect(run({ owner: 'bob' })).toEqual(['updated 2', 'created 3']);
    expect(run({ statuses: ['pending'] })).toEqual(['updated 1', 'updated 2', 'created 3']);
  });
  it('keeps a list-cleared with the matching tasks it removed', () => {
    const cleared = diffSnapshots(snapshotOf(before), new Map());
    expect(filterEvents(cleared, { owner: 'bob' }, indexTasks(before), new Map())).toEqual([{ type: 'list-cleared', tasks: [before[1]] }]);
  });
});
