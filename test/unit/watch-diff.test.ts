import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/store/schema.js';
import { diffSnapshots, fieldChanges, snapshotOf } from '../../src/core/watch/watch-diff.js';
import { normalize, replay, type StreamEvent, type TaskRecord } from '../helpers/replay.js';

const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('diffSnapshots', () => {
  it('reports nothing for equal snapshots, whatever the key order', () => {
    const a = snapshotOf([task('1', { metadata: { a: 1, b: [1, 2] } })]);
    const reordered = {
      metadata: { b: [1, 2], a: 1 },
      blockedBy: [],
      blocks: [],
      status: 'pending',
      description: '',
      subject: 'task 1',
      id: '1',
    } as Task;
    expect(diffSnapshots(a, snapshotOf([reordered]))).toEqual([]);
  });

  it('reports created, updated and deleted in id order', () => {
    const before = snapshotOf([task('2'), task('10'), task('3')]);
    const after = snapshotOf([task('2', { status: 'in_progress' }), task('4'), task('10')]);
    const events = diffSnapshots(before, after);
    expect(events.map((e) => [e.type, e.type === 'list-cleared' ? '' : e.task.id])).toEqual([
      ['updated', '2'],
      ['deleted', '3'],
      ['created', '4'],
    ]);
    expect(events[0]).toMatchObject({ changes: { status: { old: 'pending', new: 'in_progress' } } });
  });

  it('tells an added or removed optional field from a changed one', () => {
    expect(fieldChanges(task('1'), task('1', { owner: 'amy' }))).toEqual({ owner: { new: 'amy' } });
    expect(fieldChanges(task('1', { owner: 'amy' }), task('1'))).toEqual({ owner: { old: 'amy' } });
    expect(fieldChanges(task('1', { owner: '' }), task('1', { owner: 'bob' }))).toEqual({ owner: { old: '', new: 'bob' } });
    expect(fieldChanges(task('1', { blockedBy: ['2'] }), task('1', { blockedBy: ['2', '3'] }))).toEqual({
      blockedBy: { old: ['2'], new: ['2', '3'] },
    });
  });

  it('reports every task vanishing at once as one list-cleared', () => {
    const events = diffSnapshots(snapshotOf([task('2'), task('1')]), new Map());
    expect(events).toEqual([{ type: 'list-cleared', tasks: [task('1'), task('2')] }]);
  });

  it('keeps the deletion of the only task a deleted event', () => {
    expect(diffSnapshots(snapshotOf([task('1')]), new Map())).toEqual([{ type: 'deleted', task: task('1') }]);
  });

  it('does not call it a reset when a task remains or appears', () => {
    const events = diffSnapshots(snapshotOf([task('1'), task('2')]), snapshotOf([task('3')]));
    expect(events.map((e) => e.type)).toEqual(['deleted', 'deleted', 'created']);
  });

  it('replays to the later snapshot, for random pairs of snapshots', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const randomTask = (id: string): Task => {
      const t = task(id, { status: (['pending', 'in_progress', 'completed'] as const)[rand(3)], subject: `s${rand(3)}` });
      if (rand(2)) t.owner = `o${rand(2)}`;
      if (rand(2)) t.metadata = { k: rand(3) };
      if (rand(3) === 0) t.blockedBy = [String(rand(5) + 1)];
      return t;
    };
    const randomSnapshot = () =>
      snapshotOf(
        Array.from({ length: 6 }, (_, i) => String(i + 1))
          .filter(() => rand(3) > 0)
          .map(randomTask),
      );
    for (let round = 0; round < 300; round++) {
      const a = randomSnapshot();
      const b = randomSnapshot();
      const stream: StreamEvent[] = [
        { event: 'snapshot', at: '', tasks: [...a.values()] as TaskRecord[] },
        ...diffSnapshots(a, b).map((e) =>
          e.type === 'list-cleared'
            ? { event: e.type, at: '', tasks: e.tasks as TaskRecord[] }
            : { event: e.type, at: '', task: e.task as TaskRecord, ...(e.type === 'updated' ? { changes: e.changes } : {}) },
        ),
      ];
      expect(normalize(replay(stream).values())).toEqual(normalize([...b.values()] as TaskRecord[]));
    }
  });
});
