import { TasksError } from '../base/errors.js';
import { isReady, type TaskIndex } from '../graph/blockers.js';
import { isTaskId } from '../store/ids.js';
import { STATUSES, type Status, type Task } from '../store/schema.js';
import { statusFromWord } from '../store/status-words.js';

/**
 * What `watch --until` waits for. Pure: parsed from the flag, evaluated against each
 * snapshot (the first one included).
 */
export type UntilCondition =
  | { kind: 'all-completed' }
  | { kind: 'ready' }
  | { kind: 'empty' }
  | { kind: 'task-status'; id: string; status: Status };

export const UNTIL_FORMS = ['all-completed', 'ready', 'empty', 'task:<id>:completed'] as const;

export function parseUntil(raw: string): UntilCondition {
  const value = raw.trim().toLowerCase();
  if (value === 'all-completed' || value === 'ready' || value === 'empty') return { kind: value };
  const task = /^task:#?([^:]+):(.+)$/.exec(value);
  if (task) {
    const id = task[1] as string;
    const status = statusFromWord(task[2] as string) ?? (task[2] as string);
    if (!isTaskId(id)) throw new TasksError('usage', `invalid --until "${raw}": "${id}" is not a task id`);
    if (!(STATUSES as readonly string[]).includes(status)) {
      throw new TasksError('usage', `invalid --until "${raw}": expected task:<id>:${STATUSES.join('|')}`);
    }
    return { kind: 'task-status', id, status: status as Status };
  }
  throw new TasksError('usage', `invalid --until "${raw}": expected one of ${UNTIL_FORMS.join(', ')}`);
}

export function formatUntil(c: UntilCondition): string {
  return c.kind === 'task-status' ? `task:${c.id}:${c.status}` : c.kind;
}

/**
 * Does the condition hold?
 * - `tasks`: the tasks being watched (after the filters), whose set the list-wide
 *   conditions speak of: `--owner amy --until all-completed` waits for amy's tasks.
 * - `index`: every task of the list: blockers and `task:<id>` are judged against all.
 *
 * `all-completed` needs at least one task: an empty or not-yet-created list is work
 * not started, not work done (a CI job started before its agents must not pass at once).
 * `empty` holds for a list with no tasks, including one that does not exist (yet, or
 * any more: an agent's reset deletes a finished list's files).
 */
export function untilHolds(c: UntilCondition, tasks: readonly Task[], index: TaskIndex): boolean {
  switch (c.kind) {
    case 'all-completed':
      return tasks.length > 0 && tasks.every((t) => t.status === 'completed');
    case 'ready':
      return tasks.some((t) => isReady(t, index));
    case 'empty':
      return tasks.length === 0;
    case 'task-status':
      return index.get(c.id)?.status === c.status;
  }
}

/** A list a watch left when its session was cleared: its tasks (filtered) and all of them. */
export interface LeftTasks {
  tasks: readonly Task[];
  index: TaskIndex;
}

/**
 * Does the condition hold for a watch that followed its session to another list
 * (`/clear`)? It speaks of the session's work on every list it used since the watch
 * began, so that the switch alone never meets it (an empty new list is no work done):
 *
 * - `all-completed`: there are tasks, and every one is completed, on the new list and on
 *   each list left behind; a task left behind that was carried on (`carriedTo`) counts
 *   where it went;
 * - `empty`: no tasks on any of them (carried ones aside);
 * - `ready`: a task ready to claim on any of them;
 * - `task:<id>:<status>`: ids name the tasks of the list the watch began on (a new list
 *   numbers its tasks from 1 again), so it is judged there alone.
 */
export function untilHoldsAcross(c: UntilCondition, current: LeftTasks, left: readonly LeftTasks[]): boolean {
  const first = left[0];
  if (first === undefined) return untilHolds(c, current.tasks, current.index);
  if (c.kind === 'task-status') return untilHolds(c, first.tasks, first.index);
  if (c.kind === 'ready') return [current, ...left].some((l) => untilHolds(c, l.tasks, l.index));
  const stillThere = left.flatMap((l) => l.tasks.filter((t) => !isCarried(t)));
  const pool = [...stillThere, ...current.tasks];
  return untilHolds(c, pool, current.index);
}

/** Carried into another list by `tasks carry` (its mark, store/schema.ts): it goes on there. */
function isCarried(t: Task): boolean {
  const mark = t.metadata?.carriedTo as { list?: unknown } | undefined;
  return typeof mark?.list === 'string';
}
