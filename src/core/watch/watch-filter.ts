import type { TaskIndex } from '../graph/blockers.js';
import { matchesFilter, type TaskFilter } from '../lists/task-filter.js';
import type { ChangeEvent } from './watch-diff.js';

/**
 * Pure: the events a filtered watch reports. An event is kept when its task matches
 * the filter before or after the change, so a task leaving the filter (`--status
 * pending` and it starts) is reported as the update that made it leave, not as a
 * deletion. A list-cleared event is always kept, with the matching tasks it removed.
 */
export function filterEvents(events: readonly ChangeEvent[], filter: TaskFilter, before: TaskIndex, after: TaskIndex): ChangeEvent[] {
  const out: ChangeEvent[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'list-cleared':
        out.push({ type: 'list-cleared', tasks: e.tasks.filter((t) => matchesFilter(t, filter, before)) });
        break;
      case 'created':
        if (matchesFilter(e.task, filter, after)) out.push(e);
        break;
      case 'deleted':
        if (matchesFilter(e.task, filter, before)) out.push(e);
        break;
      case 'updated':
        if (matchesFilter(e.before, filter, before) || matchesFilter(e.task, filter, after)) out.push(e);
        break;
    }
  }
  return out;
}
