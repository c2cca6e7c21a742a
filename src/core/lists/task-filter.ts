import { isBlocked, isReady, type TaskIndex } from '../graph/blockers.js';
import { isInternal, type Status, type Task } from '../store/schema.js';

/** What `list` (and later `watch`) can narrow a list down to. */
export interface TaskFilter {
  statuses?: Status[] | undefined;
  owner?: string | undefined;
  unowned?: boolean;
  /** Show metadata._internal tasks, which agents' TaskList hides. */
  includeInternal?: boolean;
  /** Only tasks an agent could claim now: pending, unowned, no open blocker. */
  ready?: boolean;
  /** Only unfinished tasks with at least one open blocker (missing tasks do not block). */
  blocked?: boolean;
}

export function matchesFilter(task: Task, filter: TaskFilter, index: TaskIndex): boolean {
  if (!filter.includeInternal && isInternal(task)) return false;
  if (filter.statuses && !filter.statuses.includes(task.status)) return false;
  if (filter.owner !== undefined && task.owner !== filter.owner) return false;
  if (filter.unowned && task.owner) return false;
  if (filter.ready && !isReady(task, index)) return false;
  if (filter.blocked && !isBlocked(task, index)) return false;
  return true;
}

export function filterTasks(tasks: readonly Task[], filter: TaskFilter, index: TaskIndex): Task[] {
  return tasks.filter((t) => matchesFilter(t, filter, index));
}
