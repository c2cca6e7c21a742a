import { describe, expect, it } from 'vitest';
import { blockerAnswers, indexTasks } from '../../src/core/graph/blockers.js';
import type { Task } from '../../src/core/store/schema.js';
import { PLAIN } from '../../src/render/style.js';
import { renderTaskTable } from '../../src/render/task-table.js';

const NOW = Date.parse('2026-12-06T12:00:00Z');
const task = (id: string, extra: Partial<Task> = {}): Task =>
  ({ id, subject: `Subject of task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...extra }) as Task;

describe('tasks list in a narrow terminal (a split pane)', () => {
  it('no line runs past the width: a long owner is cut first, then UPDATED goes; ID, STATUS, SUBJECT and BLOCKED BY stay', () => {
    const tasks = [task('1', { owner: 'an-owner-with-a-very-long-name-indeed', status: 'in_progress' }), task('2', { blockedBy: ['1'] })];
    const blockers = blockerAnswers(tasks, indexTasks(tasks));
    for (const width of [50, 60, 70]) {
      const table = renderTaskTable(tasks, blockers, {
        style: PLAIN,
        width,
        now: NOW,
        updated: new Map([
          ['1', NOW - 5 * 60_000],
          ['2', NOW - 5 * 60_000],
        ]),
      });
      const lines = table.split('\n');
      for (const line of lines) expect([...line].length, `${width}:\n${table}`).toBeLessThanOrEqual(width);
      expect(lines[0]).toMatch(/^ID\s+STATUS\s+SUBJECT\s+OWNER\s+.*BLOCKED BY$/);
      expect(lines[2]).toMatch(/#1$/);
      if (width >= 70) expect(lines[0]).toContain('UPDATED');
    }
  });
});
