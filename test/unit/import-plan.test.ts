import { describe, expect, it } from 'vitest';
import { TasksError } from '../../src/core/base/errors.js';
import { predictImport } from '../../src/core/snapshots/import-materialize.js';
import { planImport } from '../../src/core/snapshots/import-plan.js';
import type { Snapshot, SnapshotItem } from '../../src/core/snapshots/import-snapshot.js';
import type { Task } from '../../src/core/store/schema.js';

const item = (ref: string, subject: string, blockedBy: string[] = [], extra: Partial<SnapshotItem> = {}): SnapshotItem => ({
  ref,
  subject,
  description: '',
  status: 'pending',
  blockedBy,
  ...extra,
});
const snap = (...items: SnapshotItem[]): Snapshot => ({ format: 'todowrite', found: '', items, warnings: [] });
const task = (id: string, subject: string, extra: Partial<Task> = {}): Task => ({
  id,
  subject,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('planImport', () => {
  it('creates everything in an empty list, in source order, with predicted ids', () => {
    const plan = planImport([], snap(item('1', 'A', [], { status: 'completed', activeForm: 'Aing' }), item('2', 'B')));
    expect(plan.skip).toEqual([]);
    const { tasks } = predictImport(plan, 1);
    expect(tasks).toEqual([
      { id: '1', subject: 'A', description: '', activeForm: 'Aing', status: 'completed', blocks: [], blockedBy: [] },
      { id: '2', subject: 'B', description: '', status: 'pending', blocks: [], blockedBy: [] },
    ]);
    expect(Object.keys(tasks[0]!)).toEqual(['id', 'subject', 'description', 'activeForm', 'status', 'blocks', 'blockedBy']);
  });

  it('skips items whose subject is already a task, one to one', () => {
    const existing = [task('3', 'Run tests'), task('5', 'Deploy ')];
    const plan = planImport(
      existing,
      snap(item('1', 'Run tests', [], { status: 'completed' }), item('2', 'Run tests'), item('3', 'Deploy')),
    );
    expect(plan.skip).toEqual([
      { ref: '1', subject: 'Run tests', existingId: '3', status: 'completed', existingStatus: 'pending' },
      { ref: '3', subject: 'Deploy', existingId: '5', status: 'pending', existingStatus: 'pending' },
    ]);
    expect(plan.create.map((p) => p.subject)).toEqual(['Run tests']);
  });

  it('a second import of the same snapshot plans nothing', () => {
    const s = snap(item('1', 'A'), item('2', 'B', ['1']));
    const first = predictImport(planImport([], s, { chain: true }), 1).tasks;
    const again = planImport(first, s, { chain: true });
    expect(again.create).toEqual([]);
    expect(again.skip.map((x) => x.existingId)).toEqual(['1', '2']);
    expect(predictImport(again, 3).existing).toEqual([]);
  });

  it('--chain: each task blocked by the one before, both sides', () => {
    const { tasks } = predictImport(planImport([], snap(item('1', 'A'), item('2', 'B'), item('3', 'C')), { chain: true }), 7);
    expect(tasks.map((t) => [t.id, t.blockedBy, t.blocks])).toEqual([
      ['7', [], ['8']],
      ['8', ['7'], ['9']],
      ['9', ['8'], []],
    ]);
  });

  it('edges to a skipped item go to the existing task; edges between existing tasks are left alone', () => {
    const existing = [task('10', 'A'), task('11', 'C')];
    const plan = planImport(existing, snap(item('1', 'A'), item('2', 'B', ['1']), item('3', 'C', ['1', '2'])));
    const { tasks, existing: changes } = predictImport(plan, 12);
    expect(tasks).toEqual([task('12', 'B', { blockedBy: ['10'], blocks: ['11'] })]);
    expect(changes).toEqual([
      { id: '10', addBlocks: ['12'], addBlockedBy: [] },
      { id: '11', addBlocks: [], addBlockedBy: ['12'] },
    ]);
  });

  it('creates blockers first when the source names a later item as a blocker', () => {
    const plan = planImport([], snap(item('a', 'Deploy', ['c']), item('b', 'Docs'), item('c', 'Build')));
    expect(plan.create.map((p) => p.subject)).toEqual(['Docs', 'Build', 'Deploy']);
    const { tasks } = predictImport(plan, 1);
    expect(tasks.map((t) => [t.id, t.subject, t.blockedBy])).toEqual([
      ['1', 'Docs', []],
      ['2', 'Build', []],
      ['3', 'Deploy', ['2']],
    ]);
  });

  it('refuses a cycle in the snapshot, naming it', () => {
    expect(() => planImport([], snap(item('1', 'A', ['2']), item('2', 'B', ['1'])))).toThrow(
      'the import would make a dependency cycle: "A" -> "B" -> "A"',
    );
  });

  it("refuses a cycle through the list's own edges", () => {
    const existing = [task('1', 'X', { blocks: ['2'] }), task('2', 'Y', { blockedBy: ['1'] })];
    // New N: blocked by Y (existing 2) and blocking X (existing 1): 1 -> 2 -> N -> 1.
    let caught: unknown;
    try {
      planImport(existing, snap(item('a', 'Y'), item('b', 'N', ['a']), item('c', 'X', ['b'])));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TasksError);
    expect((caught as TasksError).code).toBe('conflict');
    expect((caught as Error).message).toBe('the import would make a dependency cycle: "N" -> #1 -> #2 -> "N"');
  });

  it('carries owner, metadata and unknown keys of exported tasks', () => {
    const { tasks } = predictImport(
      planImport([], snap(item('4', 'A', [], { owner: 'amy', metadata: { k: 1 }, extra: { custom: true } }))),
      1,
    );
    expect(tasks[0]).toEqual({
      id: '1',
      subject: 'A',
      description: '',
      owner: 'amy',
      status: 'pending',
      blocks: [],
      blockedBy: [],
      metadata: { k: 1 },
      custom: true,
    });
    expect(Object.keys(tasks[0]!).at(-1)).toBe('custom');
  });
});
