import type { TaskPatch } from '../store/patch.js';
import type { Task } from '../store/schema.js';

/**
 * Releasing a task (docs/task-store.md section 6.6, "unassign an agent", as Claude Code
 * does when a teammate exits): the owner is removed and the status set to pending.
 * Finished work is left alone: a completed task keeps its owner, which records who did
 * it.
 */
export type ReleaseDecision = { ok: true; patch: TaskPatch } | { ok: false; reason: 'already_resolved' };

export function decideRelease(task: Task): ReleaseDecision {
  if (task.status === 'completed') return { ok: false, reason: 'already_resolved' };
  return { ok: true, patch: { owner: null, status: 'pending' } };
}

/** The tasks an agent holds and would lose on exit: owned by it and not completed, in the given order. */
export function heldBy(agent: string, tasks: readonly Task[]): Task[] {
  return tasks.filter((t) => t.owner === agent && t.status !== 'completed');
}
