import { compareIds } from '../store/ids.js';
import type { Task } from '../store/schema.js';

/** The orders `list --sort` knows; ids break every tie, so an order is always the same. */
export const SORT_KEYS = ['id', 'status', 'owner', 'updated'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** Work in progress first, then what is still to do, then what is done. */
const STATUS_RANK: Record<Task['status'], number> = { in_progress: 0, pending: 1, completed: 2 };

/**
 * Pure. `updated` is the time each task's file last changed (ms), newest first; a task
 * without one sorts last. `owner`: by name, tasks nobody owns last.
 */
export function sortTasks(tasks: readonly Task[], key: SortKey, updated: ReadonlyMap<string, number> = new Map()): Task[] {
  const byId = (a: Task, b: Task) => compareIds(a.id, b.id);
  const order: Record<SortKey, (a: Task, b: Task) => number> = {
    id: byId,
    status: (a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || byId(a, b),
    owner: (a, b) => {
      if (!a.owner !== !b.owner) return a.owner ? -1 : 1;
      return (a.owner ?? '') < (b.owner ?? '') ? -1 : (a.owner ?? '') > (b.owner ?? '') ? 1 : byId(a, b);
    },
    updated: (a, b) => (updated.get(b.id) ?? -Infinity) - (updated.get(a.id) ?? -Infinity) || byId(a, b),
  };
  return [...tasks].sort(order[key]);
}
