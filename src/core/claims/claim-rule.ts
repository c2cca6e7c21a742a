/**
 * Claims: who may take a task and giving it back (docs/task-store.md sections 6.5 and
 * 6.6: "claim" and "unassign an agent"). Each has its pure rule (claim-rule.ts,
 * release-rule.ts: the agents' checks, in their order, with their reason names) beside
 * its locked application (claim-apply.ts, release-apply.ts: which locks, re-read, apply
 * the rule, write).
 */
import { blockerState, isReady, type TaskIndex } from '../graph/blockers.js';
import { compareIds } from '../store/ids.js';
import type { TaskPatch } from '../store/patch.js';
import { isInternal, type Task } from '../store/schema.js';

/**
 * The agents' claim rule (docs/task-store.md section 6.5, checked against Claude Code
 * 2.1.328's claimTask / claimTaskWithBusyCheck): the same checks, in the same order, with
 * the same reason names. Pure: the caller reads under the right locks and writes the
 * patch.
 */
export const CLAIM_REASONS = ['task_not_found', 'already_claimed', 'already_resolved', 'blocked', 'agent_busy'] as const;
export type ClaimReason = (typeof CLAIM_REASONS)[number];

export interface ClaimOptions {
  /** Refuse when the agent already owns another unfinished task (agent_busy). */
  busyCheck?: boolean;
  /** Also set status in_progress, in the same write. */
  start?: boolean;
}

export type ClaimDecision =
  | { ok: true; patch: TaskPatch }
  | { ok: false; reason: ClaimReason; openBlockers?: string[]; busyWith?: string[] };

/**
 * May `agent` claim `task`? `index` holds every task of the list (for blockers and the
 * busy check). An empty owner ("") counts as no owner, as it does for agents.
 * On success the patch sets the owner (and, with `start`, the status) and nothing else.
 */
export function decideClaim(task: Task | undefined, agent: string, index: TaskIndex, opts: ClaimOptions = {}): ClaimDecision {
  if (!task) return { ok: false, reason: 'task_not_found' };
  if (task.owner && task.owner !== agent) return { ok: false, reason: 'already_claimed' };
  if (task.status === 'completed') return { ok: false, reason: 'already_resolved' };
  // Ids of missing tasks do not block; completed blockers do not either.
  const open = blockerState(task, index).open;
  if (open.length > 0) return { ok: false, reason: 'blocked', openBlockers: [...open] };
  if (opts.busyCheck) {
    const busy = busyWith(agent, index, task.id);
    if (busy.length > 0) return { ok: false, reason: 'agent_busy', busyWith: busy };
  }
  const patch: TaskPatch = { owner: agent };
  if (opts.start) patch.status = 'in_progress';
  return { ok: true, patch };
}

/** The unfinished tasks `agent` owns, other than `except`, in id order. */
export function busyWith(agent: string, index: TaskIndex, except?: string): string[] {
  const ids: string[] = [];
  for (const t of index.values()) {
    if (t.id !== except && t.owner === agent && t.status !== 'completed') ids.push(t.id);
  }
  return ids.sort(compareIds);
}

/**
 * What `claim --next` may take, best first: ready tasks (pending, unowned, no open
 * blocker) in id order. Internal tasks are left out: agents' TaskList hides them, so no
 * agent would pick one either.
 */
export function nextCandidates(tasks: readonly Task[], index: TaskIndex): Task[] {
  return tasks.filter((t) => isReady(t, index) && !isInternal(t)).sort((a, b) => compareIds(a.id, b.id));
}
