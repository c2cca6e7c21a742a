import { describe, expect, it } from 'vitest';
import { busyWith, decideClaim, nextCandidates } from '../../src/core/claims/claim-rule.js';
import { indexTasks } from '../../src/core/graph/blockers.js';
import type { Task } from '../../src/core/store/schema.js';

const t = (id: string, over: Partial<Task> = {}): Task => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...over,
});

describe("decideClaim: the agents' checks, in their order", () => {
  it('task_not_found when there is no task', () => {
    expect(decideClaim(undefined, 'a', indexTasks([]))).toEqual({ ok: false, reason: 'task_not_found' });
  });

  it('already_claimed when someone else owns it, before any other reason', () => {
    // Completed, blocked and owned by another: the owner is checked first.
    const task = t('2', { owner: 'bob', status: 'completed', blockedBy: ['1'] });
    const index = indexTasks([t('1'), task]);
    expect(decideClaim(task, 'amy', index)).toEqual({ ok: false, reason: 'already_claimed' });
  });

  it('already_resolved for a completed task, before blocked', () => {
    const task = t('2', { status: 'completed', blockedBy: ['1'] });
    expect(decideClaim(task, 'amy', indexTasks([t('1'), task]))).toEqual({ ok: false, reason: 'already_resolved' });
  });

  it('blocked by an existing unfinished blocker, naming the open ones', () => {
    const task = t('4', { blockedBy: ['1', '2', '3', '9'] });
    const index = indexTasks([t('1', { status: 'completed' }), t('2', { status: 'in_progress' }), t('3'), task]);
    expect(decideClaim(task, 'amy', index)).toEqual({ ok: false, reason: 'blocked', openBlockers: ['2', '3'] });
  });

  it('a missing or completed blocker does not block', () => {
    const task = t('4', { blockedBy: ['1', '9'] });
    const decision = decideClaim(task, 'amy', indexTasks([t('1', { status: 'completed' }), task]));
    expect(decision).toEqual({ ok: true, patch: { owner: 'amy' } });
  });

  it('agent_busy only with the busy check, after blocked', () => {
    const task = t('5');
    const index = indexTasks([t('1', { owner: 'amy', status: 'in_progress' }), t('2', { owner: 'amy', status: 'completed' }), task]);
    expect(decideClaim(task, 'amy', index)).toEqual({ ok: true, patch: { owner: 'amy' } });
    expect(decideClaim(task, 'amy', index, { busyCheck: true })).toEqual({ ok: false, reason: 'agent_busy', busyWith: ['1'] });
    const blocked = t('6', { blockedBy: ['7'] });
    const both = indexTasks([t('1', { owner: 'amy' }), t('7'), blocked]);
    expect(decideClaim(blocked, 'amy', both, { busyCheck: true })).toMatchObject({ reason: 'blocked' });
  });

  it('claiming your own task again succeeds, even with the busy check', () => {
    const task = t('3', { owner: 'amy', status: 'in_progress' });
    const index = indexTasks([task]);
    expect(decideClaim(task, 'amy', index, { busyCheck: true })).toEqual({ ok: true, patch: { owner: 'amy' } });
  });

  it('an empty owner counts as none, as for agents', () => {
    const task = t('3', { owner: '' });
    expect(decideClaim(task, 'amy', indexTasks([task]))).toEqual({ ok: true, patch: { owner: 'amy' } });
  });

  it('start also sets in_progress; status is otherwise left alone', () => {
    const task = t('3', { status: 'in_progress' });
    expect(decideClaim(task, 'amy', indexTasks([task]), { start: true })).toEqual({
      ok: true,
      patch: { owner: 'amy', status: 'in_progress' },
    });
    expect(decideClaim(task, 'amy', indexTasks([task]))).toEqual({ ok: true, patch: { owner: 'amy' } });
  });

  it('a task blocked by itself is blocked', () => {
    const task = t('3', { blockedBy: ['3'] });
    expect(decideClaim(task, 'amy', indexTasks([task]))).toMatchObject({ ok: false, reason: 'blocked' });
  });
});

describe('busyWith and nextCandidates', () => {
  it("busyWith lists the agent's unfinished tasks but the one being claimed, in id order", () => {
    const index = indexTasks([
      t('10', { owner: 'a' }),
      t('9', { owner: 'a', status: 'in_progress' }),
      t('3', { owner: 'a', status: 'completed' }),
      t('4', { owner: 'b' }),
    ]);
    expect(busyWith('a', index)).toEqual(['9', '10']);
    expect(busyWith('a', index, '9')).toEqual(['10']);
    expect(busyWith('c', index)).toEqual([]);
  });

  it('ready: pending, unowned, no open blocker, not internal; lowest id first', () => {
    const tasks = [
      t('10'),
      t('2', { status: 'in_progress' }),
      t('3', { owner: 'x' }),
      t('4', { blockedBy: ['2'] }),
      t('5', { blockedBy: ['99'] }), // missing blocker: ready
      t('6', { blockedBy: ['7'] }),
      t('7', { status: 'completed' }),
      t('8', { metadata: { _internal: true } }),
      t('9', { owner: '' }),
      t('1', { status: 'completed' }),
    ];
    expect(nextCandidates(tasks, indexTasks(tasks)).map((x) => x.id)).toEqual(['5', '6', '9', '10']);
  });
});
