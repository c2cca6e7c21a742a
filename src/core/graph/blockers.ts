import type { Task } from '../store/schema.js';

/**
 * How a task's `blockedBy` stands, by the agents' rules (docs/task-store.md section 6.5):
 * an id that names an existing task that is not completed blocks; a completed one does
 * not; an id of a missing task does not block either (it is reported as missing).
 */
export interface BlockerState {
  readonly open: readonly string[];
  readonly done: readonly string[];
  readonly missing: readonly string[];
}

/** Most tasks wait on nothing: one shared answer for them, not three new arrays each. */
const UNBLOCKED: BlockerState = Object.freeze({ open: Object.freeze([]), done: Object.freeze([]), missing: Object.freeze([]) });

export type TaskIndex = ReadonlyMap<string, Task>;

export function indexTasks(tasks: readonly Task[]): Map<string, Task> {
  return new Map(tasks.map((t) => [t.id, t]));
}

/** Each blocker once: an agent that recorded an edge twice (`#4, #4`) waits for #4 once. */
export function blockerState(task: Task, index: TaskIndex): BlockerState {
  if (task.blockedBy.length === 0) return UNBLOCKED;
  const open: string[] = [];
  const done: string[] = [];
  const missing: string[] = [];
  const ids = task.blockedBy.length === 1 ? task.blockedBy : new Set(task.blockedBy);
  for (const id of ids) {
    const blocker = index.get(id);
    if (!blocker) missing.push(id);
    else if (blocker.status === 'completed') done.push(id);
    else open.push(id);
  }
  return { open, done, missing };
}

export function isBlocked(task: Task, index: TaskIndex): boolean {
  return (
    task.status !== 'completed' &&
    task.blockedBy.some((id) => {
      const b = index.get(id);
      return b !== undefined && b.status !== 'completed';
    })
  );
}

/** Ready to claim: pending, unowned, no open blocker. */
export function isReady(task: Task, index: TaskIndex): boolean {
  return task.status === 'pending' && !task.owner && !isBlocked(task, index);
}

/**
 * Tasks by status; `blocked` counts the unfinished ones waiting for an open blocker, a
 * second fact beside their status, so it is also split by status: a task in progress can
 * wait on a blocker too (agents may start it), and the parts must add up.
 */
export interface ListCounts {
  total: number;
  completed: number;
  in_progress: number;
  pending: number;
  blocked: number;
  blockedInProgress: number;
  blockedPending: number;
}

export function countTasks(tasks: readonly Task[], index: TaskIndex): ListCounts {
  const counts: ListCounts = {
    total: tasks.length,
    completed: 0,
    in_progress: 0,
    pending: 0,
    blocked: 0,
    blockedInProgress: 0,
    blockedPending: 0,
  };
  for (const t of tasks) {
    counts[t.status]++;
    if (!isBlocked(t, index)) continue;
    counts.blocked++;
    if (t.status === 'in_progress') counts.blockedInProgress++;
    else counts.blockedPending++;
  }
  return counts;
}

/** Unfinished tasks whose blockedBy names tasks that do not exist (those do not block), in list order, by their blocker answers. */
export function missingBlockers(tasks: readonly Task[], answers: BlockerAnswers): Array<{ id: string; missing: string[] }> {
  const out: Array<{ id: string; missing: string[] }> = [];
  for (const t of tasks) {
    if (t.status === 'completed') continue;
    const missing = answers.get(t.id)?.missing ?? [];
    if (missing.length > 0) out.push({ id: t.id, missing: [...missing] });
  }
  return out;
}

/** A task's blockers as a view shows them: how they stand, and whether it waits on an open one (isBlocked). */
export interface TaskBlockers extends BlockerState {
  /** Unfinished, and waiting on an open blocker. */
  readonly blocked: boolean;
}

/**
 * The blockers of tasks, by id, judged against a whole list: the answers a view shows,
 * worked out here so that renderers ask no rule of their own (docs/design.md, "Layers").
 */
export type BlockerAnswers = ReadonlyMap<string, TaskBlockers>;

/** The answer for every task that waits on nothing: shared, as UNBLOCKED is. */
const NOT_BLOCKED: TaskBlockers = Object.freeze({ ...UNBLOCKED, blocked: false });

/** One task's blockers as a view shows them, judged against `index`. */
export function taskBlockers(task: Task, index: TaskIndex): TaskBlockers {
  if (task.blockedBy.length === 0) return NOT_BLOCKED;
  const { open, done, missing } = blockerState(task, index);
  return { open, done, missing, blocked: task.status !== 'completed' && open.length > 0 };
}

/** The blockers of each of `tasks`, judged against `index` (every task of the list, shown or not). */
export function blockerAnswers(tasks: Iterable<Task>, index: TaskIndex): Map<string, TaskBlockers> {
  const answers = new Map<string, TaskBlockers>();
  for (const task of tasks) answers.set(task.id, taskBlockers(task, index));
  return answers;
}
