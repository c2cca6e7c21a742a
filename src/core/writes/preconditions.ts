import { TasksError } from '../base/errors.js';
import type { Status, Task } from '../store/schema.js';

/**
 * Conditions a person puts on a change (`--if-status`, `--if-owner`, `--if-unowned`):
 * checked inside the task lock against the fresh file, so "reassign only if it is
 * still alice's" cannot race an agent. A failed one refuses the change (conflict).
 */
export interface Preconditions {
  /** The status must be one of these. */
  status?: readonly Status[] | undefined;
  /** The owner must be exactly this. */
  owner?: string | undefined;
  /** There must be no owner (an empty owner counts as none, as for agents). */
  unowned?: boolean | undefined;
}

export interface PreconditionFailure {
  precondition: 'if-status' | 'if-owner' | 'if-unowned';
  expected: string | null;
  actual: string | null;
  message: string;
}

function hasPreconditions(pre: Preconditions | undefined): boolean {
  return Boolean(pre && (pre.status !== undefined || pre.owner !== undefined || pre.unowned));
}

/** The first precondition `task` fails, or undefined when all hold. Pure. */
export function failedPrecondition(task: Task, pre: Preconditions): PreconditionFailure | undefined {
  const owner = task.owner ? task.owner : null;
  if (pre.status !== undefined && !pre.status.includes(task.status)) {
    const expected = pre.status.join(' or ');
    return { precondition: 'if-status', expected, actual: task.status, message: `task #${task.id} is ${task.status}, not ${expected}` };
  }
  if (pre.owner !== undefined && task.owner !== pre.owner) {
    const who = owner === null ? 'owned by nobody' : `owned by ${owner}`;
    return { precondition: 'if-owner', expected: pre.owner, actual: owner, message: `task #${task.id} is ${who}, not ${pre.owner}` };
  }
  if (pre.unowned && owner !== null) {
    return { precondition: 'if-unowned', expected: null, actual: owner, message: `task #${task.id} is owned by ${owner}` };
  }
  return undefined;
}

/** A store Guard (checked in the task lock) that throws a conflict when a precondition fails. */
export function preconditionGuard(pre: Preconditions | undefined): ((current: Task) => void) | undefined {
  if (!pre || !hasPreconditions(pre)) return undefined;
  return (current: Task) => {
    const failure = failedPrecondition(current, pre);
    if (failure) {
      throw new TasksError('conflict', `precondition failed: ${failure.message}; nothing changed`, {
        details: { id: current.id, precondition: failure.precondition, expected: failure.expected, actual: failure.actual },
      });
    }
  };
}
