import { describe, expect, it } from 'vitest';
import { TasksError } from '../../src/core/base/errors.js';
import type { Task } from '../../src/core/store/schema.js';
import { failedPrecondition, preconditionGuard } from '../../src/core/writes/preconditions.js';

const task: Task = { id: '4', subject: 's', description: '', status: 'in_progress', owner: 'amy', blocks: [], blockedBy: [] };

describe('preconditions', () => {
  it('pass when every condition holds', () => {
    expect(failedPrecondition(task, { status: ['pending', 'in_progress'], owner: 'amy' })).toBeUndefined();
    expect(failedPrecondition({ ...task, owner: '' }, { unowned: true })).toBeUndefined();
  });
  it('name the first that fails, with what was expected and found', () => {
    expect(failedPrecondition(task, { status: ['pending'], owner: 'bob' })).toMatchObject({
      precondition: 'if-status',
      expected: 'pending',
      actual: 'in_progress',
      message: 'task #4 is in_progress, not pending',
    });
    expect(failedPrecondition(task, { owner: 'bob' })).toMatchObject({
      precondition: 'if-owner',
      actual: 'amy',
      message: 'task #4 is owned by amy, not bob',
    });
    const { owner: _owner, ...unowned } = task;
    expect(failedPrecondition(unowned, { owner: 'bob' })?.message).toBe('task #4 is owned by nobody, not bob');
    expect(failedPrecondition(task, { unowned: true })?.message).toBe('task #4 is owned by amy');
  });
  it('the guard throws a conflict, and is absent without conditions', () => {
    expect(preconditionGuard(undefined)).toBeUndefined();
    expect(preconditionGuard({})).toBeUndefined();
    const guard = preconditionGuard({ owner: 'bob' })!;
    expect(() => guard(task)).toThrow(TasksError);
    try {
      guard(task);
    } catch (err) {
      expect((err as TasksError).code).toBe('conflict');
      expect((err as TasksError).details).toMatchObject({ id: '4', precondition: 'if-owner' });
    }
    expect(() => preconditionGuard({ owner: 'amy' })!(task)).not.toThrow();
  });
});
