import { describe, expect, it } from 'vitest';
import { stalledTasks } from '../../src/core/progress/stalled-work.js';
import { nudgeAfterCompletion, verificationNudge } from '../../src/core/progress/verification-nudge.js';
import { assignTodoIds, NO_TODO_IDS } from '../../src/core/runs/todo-ids.js';
import type { Task } from '../../src/core/store/schema.js';

const t = (id: string, subject: string, status: Task['status'] = 'completed', extra: Partial<Task> = {}): Task => ({
  id,
  subject,
  description: '',
  status,
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('verificationNudge', () => {
  it('three or more, all completed, none a verification step', () => {
    expect(verificationNudge([t('1', 'A'), t('2', 'B'), t('3', 'C')])).toMatchObject({ code: 'verification_missing', completed: 3 });
    expect(verificationNudge([t('1', 'A'), t('2', 'B')])).toBeUndefined();
    expect(verificationNudge([t('1', 'A'), t('2', 'B'), t('3', 'C', 'in_progress')])).toBeUndefined();
    for (const subject of ['Verify the fix', 'VERIFICATION', 'run verifier', 'Re-verify']) {
      expect(verificationNudge([t('1', 'A'), t('2', 'B'), t('3', subject)])).toBeUndefined();
    }
  });

  it('internal tasks count neither way', () => {
    const hidden = t('4', 'Verify', 'pending', { metadata: { _internal: true } });
    expect(verificationNudge([t('1', 'A'), t('2', 'B'), t('3', 'C'), hidden])).toBeDefined();
    expect(verificationNudge([t('1', 'A'), t('2', 'B'), hidden])).toBeUndefined();
  });

  it('after a completion: only when something was open before', () => {
    const after = [t('1', 'A'), t('2', 'B'), t('3', 'C')];
    expect(nudgeAfterCompletion([t('1', 'A'), t('2', 'B'), t('3', 'C', 'in_progress')], after)).toBeDefined();
    expect(nudgeAfterCompletion(after, after)).toBeUndefined();
  });
});

describe('stalledTasks', () => {
  const tasks = [t('1', 'A', 'in_progress'), t('2', 'B', 'in_progress'), t('3', 'C', 'pending'), t('4', 'D', 'in_progress')];
  // A time of 0 would be the epoch, a file whose time was not kept: times here start at 1000.
  const times = new Map([
    ['1', 1000],
    ['2', 1050],
    ['3', 1000],
  ]);
  it('in progress, unchanged for at least the threshold, unknown times never', () => {
    expect(stalledTasks(tasks, (id) => times.get(id), 1100, 60, undefined).map((s) => [s.id, s.idleMs])).toEqual([['1', 100]]);
    expect(stalledTasks(tasks, (id) => times.get(id), 1100, 50, false).map((s) => s.id)).toEqual(['1', '2']);
  });
  it('a time not kept (the epoch: a file unpacked from a tar without times) never', () => {
    expect(stalledTasks(tasks, (id) => (id === '1' ? 0 : times.get(id)), 1100, 50, false).map((s) => s.id)).toEqual(['2']);
  });
  it('nothing while a session of the list is busy', () => {
    expect(stalledTasks(tasks, (id) => times.get(id), 1100, 10, true)).toEqual([]);
  });
});

describe('assignTodoIds', () => {
  it('an item keeps its id while its text stays, wherever it moves; new text gets a new id; ids are not reused', () => {
    const a = assignTodoIds(NO_TODO_IDS, ['Read', 'Fix', 'Test']);
    expect(a.ids).toEqual(['1', '2', '3']);
    const b = assignTodoIds(a.state, ['Test', 'Read', 'Document']);
    expect(b.ids).toEqual(['3', '1', '4']);
    const c = assignTodoIds(b.state, ['Fix']);
    expect(c.ids).toEqual(['5']);
  });
  it('repeated texts are matched in order', () => {
    const a = assignTodoIds(NO_TODO_IDS, ['Run', 'Run']);
    expect(assignTodoIds(a.state, ['Run', 'Other', 'Run']).ids).toEqual(['1', '3', '2']);
  });
});
