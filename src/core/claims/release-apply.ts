import { TasksError } from '../base/errors.js';
import { readList } from '../store/list-read.js';
import { isMissing } from '../store/not-a-folder.js';
import type { Task } from '../store/schema.js';
import { type Guard, patchTask } from '../writes/task-writes.js';
import { decideRelease, heldBy } from './release-rule.js';

/**
 * Releasing tasks (docs/task-store.md section 6.6, "unassign an agent"): each one is a
 * task-locked read-merge-write of `{owner: undefined, status: "pending"}`, the very
 * update Claude Code makes when a teammate exits. No list lock, as there.
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
 * Each task is re-checked in its lock: one that was completed or passed to someone else
 * meanwhile is left alone (and not reported).
 */
export async function releaseOwner(listDir: string, agent: string): Promise<ReleaseResult[]> {
  const results: ReleaseResult[] = [];
  for (const t of heldBy(agent, readList(listDir).tasks)) {
    let still = true;
    try {
      const r = await patchTask(listDir, t.id, { owner: null, status: 'pending' }, (current) => {
        if (heldBy(agent, [current]).length === 0) {
          still = false;
          throw new TasksError('conflict', 'no longer held');
        }
      });
      results.push(report(t.id, r.before, r.task, true));
    } catch (err) {
      if (!still) continue;
      // Deleted meanwhile: nothing to release.
      if (isMissing(err)) continue;
      throw err;
    }
  }
  return results;
}
