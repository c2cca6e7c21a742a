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
  /** Only tasks whose subject or description holds this text (case folded). */
  search?: string | undefined;
  /** Only tasks whose metadata has each key with this value (a string, or JSON text for other values). */
  meta?: Readonly<Record<string, string>> | undefined;
}

function metaMatches(task: Task, meta: Readonly<Record<string, string>>): boolean {
  const data = task.metadata ?? {};
  return Object.entries(meta).every(([key, want]) => {
    if (!Object.hasOwn(data, key)) return false;
    const value = data[key];
    return typeof value === 'string' ? value === want : JSON.stringify(value) === want;
  });
}

export function matchesFilter(task: Task, filter: TaskFilter, index: TaskIndex): boolean {
  if (!filter.includeInternal && isInternal(task)) return false;
  if (filter.statuses && !filter.statuses.includes(task.status)) return false;
  if (filter.owner !== undefined && task.owner !== filter.owner) return false;
  if (filter.unowned && task.owner) return false;
  if (filter.ready && !isReady(task, index)) return false;
  if (filter.blocked && !isBlocked(task, index)) return false;
  if (filter.search !== undefined) {
    const needle = filter.search.toLowerCase();
    if (!task.subject.toLowerCase().includes(needle) && !task.description.toLowerCase().includes(needle)) return false;
  }
  if (filter.meta !== undefined && !metaMatches(task, filter.meta)) return false;
  return true;
}

export function filterTasks(tasks: readonly Task[], filter: TaskFilter, index: TaskIndex): Task[] {
  return tasks.filter((t) => matchesFilter(t, filter, index));
}
