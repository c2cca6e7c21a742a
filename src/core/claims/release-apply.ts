import { TasksError } from '../base/errors.js';
import { refuseUnusableTaskLocks, withListLock } from '../locks/locks.js';
import { readList } from '../store/list-read.js';
import { isMissing } from '../store/not-a-folder.js';
import { applyPatch } from '../store/patch.js';
import type { Task } from '../store/schema.js';
import { changeTasksLocked, type Guard, patchTask } from '../writes/task-writes.js';
import { decideRelease, heldBy } from './release-rule.js';

/**
 * Releasing tasks (docs/task-store.md section 6.6, "unassign an agent"): each one is a
 * task-locked read-merge-write of `{owner: undefined, status: "pending"}`, the very
 * update Claude Code makes when a teammate exits. One task: its lock alone, as there; an
 * agent's every task (releaseOwner): one write under the list lock, all or nothing.
 */

export interface ReleaseResult {
  id: string;
  /** False when there was nothing to release (no owner, already pending). */
  released: boolean;
  previousOwner?: string;
  previousStatus: Task['status'];
  task: Task;
}

/**
 * Release one task: conflict (exit 4) when it is completed (its owner records who did
 * it; `update --no-owner` removes that on purpose); not_found when missing.
 */
export async function releaseTask(listDir: string, id: string, guard?: Guard): Promise<ReleaseResult> {
  const result = await patchTask(listDir, id, { owner: null, status: 'pending' }, (current) => {
    guard?.(current);
    const decision = decideRelease(current);
    if (!decision.ok) {
      throw new TasksError(
        'conflict',
        `task #${id} is completed; release leaves finished work alone (update --no-owner removes its owner)`,
        {
          details: { id, reason: decision.reason },
        },
      );
    }
  });
  return report(id, result.before, result.task, result.changed.length > 0);
}

function report(id: string, before: Task, task: Task, released: boolean): ReleaseResult {
  return {
    id,
    released,
    ...(before.owner !== undefined ? { previousOwner: before.owner } : {}),
    previousStatus: before.status,
    task,
  };
}

/**
 * Release every unfinished task `agent` owns, as Claude Code does when a teammate exits.
 * As one write (the list lock, then every task's lock in id order: changeTasksLocked), so
 * that a lock that cannot be had (busy, exit 5) leaves every task as it was and a retry is
 * safe. Each task is re-checked under its lock: one completed or passed to someone else
 * meanwhile is left alone (and not reported); one deleted meanwhile, passed over.
 */
export async function releaseOwner(listDir: string, agent: string): Promise<ReleaseResult[]> {
  if (heldBy(agent, readList(listDir).tasks).length === 0) return [];
  return withListLock(listDir, async () => {
    const ids = heldBy(agent, readList(listDir).tasks).map((t) => t.id);
    refuseUnusableTaskLocks(listDir, ids);
    const release = (t: Task): Task => (heldBy(agent, [t]).length === 0 ? t : applyPatch(t, { owner: null, status: 'pending' }).task);
    const results = await changeTasksLocked(
      listDir,
      ids.map((id) => ({ id, rewrite: release, skipIf: isMissing })),
    );
    return results.flatMap((r, i) => (r === undefined || r.changed.length === 0 ? [] : [report(ids[i] as string, r.before, r.task, true)]));
  });
}
