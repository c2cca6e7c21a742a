import type { ClaimOutcome } from '../core/lifecycle/claim-change.js';
import { formatLimit } from './duration.js';
import { idRefs } from './refs.js';
import type { TaskJson } from './task-json.js';
import { oneLine } from './text.js';

const refs = (ids: readonly string[] | undefined) => idRefs(ids ?? []);

export type Refusal = Extract<ClaimOutcome, { success: false }>;

/** One line for a person: which claim was refused and why, with the agents' reason name first. */
export function describeRefusal(id: string, refusal: Refusal): string {
  switch (refusal.reason) {
    case 'no_task_ready':
      return 'no task is ready to claim (pending, unowned, no open blocker)';
    case 'task_not_found':
      return `cannot claim task #${id}: task_not_found (no task #${id} in the list)`;
    case 'already_claimed':
      return `cannot claim task #${id}: already_claimed by ${oneLine(refusal.task?.owner ?? 'another agent')}`;
    case 'already_resolved':
      return `cannot claim task #${id}: already_resolved (it is completed)`;
    case 'blocked':
      return `cannot claim task #${id}: blocked by ${refs(refusal.openBlockers)}`;
    case 'agent_busy':
      return `cannot claim task #${id}: agent_busy (the agent already owns ${refs(refusal.busyWith)})`;
  }
}

/**
 * The facts of a refused claim, for its error object: the agents' reason, the task as it
 * is (null when there is none), and the ids behind the refusal.
 */
export function refusalFacts(result: Refusal, task: TaskJson | null): Record<string, unknown> {
  return {
    reason: result.reason,
    task,
    ...(result.openBlockers ? { openBlockers: result.openBlockers } : {}),
    ...(result.busyWith ? { busyWith: result.busyWith } : {}),
  };
}

/** A claim that succeeded, for a person: claimed, started, or already theirs. */
export function renderClaimed(result: Extract<ClaimOutcome, { success: true }>, agent: string, start: boolean): string {
  const task = result.task;
  const mine = result.before.owner === agent;
  const subject = oneLine(task.subject);
  const who = oneLine(agent);
  if (!mine) return `Claimed task #${task.id} for ${who}${start && result.changed.includes('status') ? ' and started it' : ''}: ${subject}`;
  if (result.changed.length > 0) return `Started task #${task.id} (already ${who}'s): ${subject}`;
  return `Task #${task.id} is already ${who}'s; nothing changed: ${subject}`;
}

/** `claim --next` passed over a task that looked ready (another agent took it meanwhile, say). */
export function renderPassedOver(passed: { id: string; reason: string }): string {
  return `passed over task #${passed.id}: ${passed.reason}`;
}

/** `claim --next --min-age`: ready tasks passed over for being too new. */
export function renderTooNew(ids: readonly string[], minAgeMs: number): string {
  const which = ids.map((id) => `#${id}`).join(', ');
  return `note: passed over ${which}: created less than ${formatLimit(minAgeMs)} ago (--min-age)`;
}
