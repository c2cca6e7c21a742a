import { readList } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { taskFileTimes } from '../store/task-times.js';
import { type Preconditions, preconditionGuard } from './preconditions.js';
import { deleteTask, getTask } from './task-writes.js';

/** A delete as a command reports it: the task as it was, when its file last changed, and the tasks whose edges named it. */
export interface Deletion {
  task: Task;
  changedAt: number | undefined;
  references: string[];
}

/**
 * Delete task `id` (deleteTask), or with `dryRun` say what that would do and write
 * nothing. The version deleted keeps its change time: read before it goes.
 */
export async function deleteOne(
  dir: string,
  id: string,
  o: { dryRun?: boolean; preconditions?: Preconditions | undefined },
): Promise<Deletion> {
  const changedAt = taskFileTimes(dir, [id]).get(id);
  const guard = preconditionGuard(o.preconditions);
  if (!o.dryRun) {
    const { task, cleaned } = await deleteTask(dir, id, guard);
    return { task, changedAt, references: cleaned };
  }
  const task = getTask(dir, id);
  guard?.(task);
  const references = readList(dir)
    .tasks.filter((t) => t.id !== id && (t.blocks.includes(id) || t.blockedBy.includes(id)))
    .map((t) => t.id);
  return { task, changedAt, references };
}
