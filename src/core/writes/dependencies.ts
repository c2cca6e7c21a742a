import { TasksError } from '../base/errors.js';
import { blockersOf, withoutEdges } from '../graph/edges.js';
import { refuseUnusableTaskLocks, withListLock } from '../locks/locks.js';
import { isTaskId } from '../store/ids.js';
import { readList } from '../store/list-read.js';
import { isMissing } from '../store/not-a-folder.js';
import type { Task } from '../store/schema.js';
import { addEdges, changeTasksLocked, type Guard, getTask, taskExists } from './task-writes.js';

/**
 * Adding and removing "blocked by" edges by hand, both sides, safe while agents run:
 * each side is a task-locked read-merge-write; the checks and the writes of one command
 * run under the list lock, so concurrent `tasks` processes never interleave half edges
 * or build a cycle between them.
 */

export interface BlockResult {
  /** The blocked task as it is on disk afterwards. */
  task: Task;
  /** Blockers newly recorded (on either side). */
  added: string[];
  /** Blockers that were already recorded on both sides. */
  already: string[];
}

/**
 * `id` is blocked by each of `blockers`: not_found (exit 3) for a missing task, conflict
 * (exit 4) for a self-block or a cycle (path in details); nothing written then.
 * `guard`: preconditions on `id`, checked in its lock as its side is written.
 */
export async function blockTask(listDir: string, id: string, blockers: readonly string[], guard?: Guard): Promise<BlockResult> {
  const unique = [...new Set(blockers)];
  const report = await addEdges(
    listDir,
    unique.map((b) => [b, id] as const),
    guard === undefined ? undefined : (blocked) => (blocked === id ? guard : undefined),
  );
  return {
    task: getTask(listDir, id),
    added: report.added.map(([b]) => b),
    already: report.already.map(([b]) => b),
  };
}

export interface UnblockResult {
  task: Task;
  /** Blockers whose edge was removed (from every side where it was recorded). */
  removed: string[];
  /** Asked-for ids that exist but did not block `id`. */
  notBlocking: string[];
}

/**
 * Remove "`b` blocks `id`" for each `b` of `only` (default: every blocker of `id`, from
 * either side), on both sides: `id`'s blockedBy first (that is what agents read to decide
 * whether it is blocked), then each blocker's `blocks`. Ids of missing tasks are removed
 * from `id` too. An id in `only` that names no task and no edge is not_found (nothing
 * written); one that names a task that does not block `id` is reported, not an error.
 * `guard`: preconditions on `id`, checked in its lock before its side is written.
 */
export async function unblockTask(listDir: string, id: string, only?: readonly string[], guard?: Guard): Promise<UnblockResult> {
  // Decided first without the lock: a refusal, or nothing to remove, leaves the list untouched.
  const seen = planUnblock(listDir, id, only);
  guard?.(getTask(listDir, id));
  if (seen.removed.length === 0) return { task: getTask(listDir, id), ...seen };
  return withListLock(listDir, async () => {
    const { removed, notBlocking } = planUnblock(listDir, id, only);
    if (removed.length > 0) {
      // None of the sides may be a lock no one can take: refused at once, nothing removed.
      refuseUnusableTaskLocks(listDir, [id, ...removed.filter((b) => isTaskId(b) && taskExists(listDir, b))]);
      // Every lock first, then both sides: a lock that cannot be had (busy) removes nothing.
      // An id written by hand that is no task id (`x/../2`) names no file: nothing on its side to clean.
      await changeTasksLocked(listDir, [
        { id, rewrite: (t) => withoutEdges(t, { blockedBy: removed }), guard },
        ...removed.filter(isTaskId).map((b) => ({
          id: b,
          rewrite: (t: Task) => withoutEdges(t, { blocks: [id] }),
          // A blocker that is gone (or never existed) has no side of its own to clean.
          skipIf: isMissing,
        })),
      ]);
    }
    return { task: getTask(listDir, id), removed, notBlocking };
  });
}

/** Which of the asked-for edges are recorded (to remove) and which ids do not block `id`; not_found for an id that names nothing. */
function planUnblock(listDir: string, id: string, only: readonly string[] | undefined): { removed: string[]; notBlocking: string[] } {
  getTask(listDir, id);
  const recorded = blockersOf(id, readList(listDir).tasks);
  const asked = only === undefined ? recorded : [...new Set(only)];
  const notBlocking: string[] = [];
  for (const b of asked) {
    if (recorded.includes(b)) continue;
    if (!taskExists(listDir, b)) {
      throw new TasksError('not_found', `task #${b} not found (and #${id} does not name it)`, { details: { id: b } });
    }
    notBlocking.push(b);
  }
  return { removed: asked.filter((b) => recorded.includes(b)), notBlocking };
}
