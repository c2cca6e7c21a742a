import { describe, expect, it } from 'vitest';
import { heldTasks } from '../../src/core/sessions/session-deaths.js';
import type { TaskWrite } from '../../src/core/sessions/transcript-tasks.js';
import type { Task } from '../../src/core/store/schema.js';

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
