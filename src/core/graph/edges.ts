import type { Task } from '../store/schema.js';

/**
 * Removing dependency edges (what `unblock` does; agents' tools cannot). Pure.
 * "A blocks B" lives on both sides: B in A.blocks, A in B.blockedBy.
 */

/** `task` without the given ids in its `blocks` and `blockedBy`. */
export function withoutEdges(task: Task, remove: { blocks?: readonly string[]; blockedBy?: readonly string[] }): Task {
  const drop = (list: readonly string[], ids: readonly string[] | undefined) =>
    ids && ids.length > 0 ? list.filter((x) => !ids.includes(x)) : [...list];
  return { ...task, blocks: drop(task.blocks, remove.blocks), blockedBy: drop(task.blockedBy, remove.blockedBy) };
}

/**
 * Every task recorded as blocking `id`, from either side: `id`'s own blockedBy, and any
 * task whose `blocks` names it (an edge an interrupted writer left half-mirrored).
 * In the order of `blockedBy`, then the others in list order.
 */
export function blockersOf(id: string, tasks: readonly Task[]): string[] {
  const own = tasks.find((t) => t.id === id)?.blockedBy ?? [];
  const out = [...new Set(own)];
  for (const t of tasks) if (t.blocks.includes(id) && !out.includes(t.id)) out.push(t.id);
  return out;
}
