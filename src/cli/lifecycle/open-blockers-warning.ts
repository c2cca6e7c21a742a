import { blockerState, indexTasks } from '../../core/graph/blockers.js';
import { readTasks } from '../../core/store/list-read.js';
import type { Task } from '../../core/store/schema.js';
import { renderStillBlocked } from '../../render/refs.js';
import type { Context } from '../runtime/context.js';

/**
 * Agents may start or complete a task whose blockers are still open, so `tasks` allows
 * it too; but a person should hear that the order was skipped. Reads only the blockers,
 * after the write: "warning: #3 is still blocked by #1 (pending), #2 (in progress)".
 */
export function warnOpenBlockers(ctx: Context, dir: string, task: Task): void {
  if (task.blockedBy.length === 0) return;
  const index = indexTasks([task, ...readTasks(dir, task.blockedBy)]);
  const { open } = blockerState(task, index);
  if (open.length === 0) return;
  ctx.io.warn(renderStillBlocked(task, open, index), 'still_blocked', { id: task.id, openBlockers: [...open] });
}
