import { type RestingWork, stalledInList, stalledTodos, type WaitingSession } from '../progress/stalled-work.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { readList } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { tasksOfTodos } from './chosen-tasks.js';
import type { ListOverview } from './list-summary.js';

/**
 * Stalled work across lists (`tasks lists --stalled`): for each row of `tasks lists`, the
 * tasks in progress that stalled (progress/stalled-work.ts), by their files' times for a
 * list folder, by their TodoWrite calls' times for a session that keeps todos. Only rows
 * with work in progress are read; lists without stalled work are left out. Work that
 * waits for a person (its session at a permission prompt) is never stalled: it is given
 * apart (`waiting`), whatever its age.
 */
export interface StalledRow {
  row: ListOverview;
  /** Id order. */
  stalled: Array<{ task: Task; idleMs: number }>;
  /** Tasks in progress whose session waits for a person, id order: not stalled. */
  waiting: Array<{ task: Task; on: WaitingSession }>;
  /** TodoWrite items in progress whose call had no time: not judged. */
  untimed: string[];
}

export function stalledAcrossLists(
  index: SessionIndex,
  rows: readonly ListOverview[],
  opts: { afterMs: number; now: number },
): StalledRow[] {
  const found: StalledRow[] = [];
  for (const row of rows) {
    if (row.counts.in_progress === 0) continue;
    const { tasks, stalled, waiting, untimed } = stalledOf(index, row, opts);
    const items = tasks.flatMap((task) => {
      const idleMs = stalled.get(task.id);
      return idleMs === undefined ? [] : [{ task, idleMs }];
    });
    const waits = tasks.flatMap((task) => {
      const on = waiting.get(task.id);
      return on === undefined ? [] : [{ task, on }];
    });
    if (items.length > 0 || waits.length > 0 || untimed.length > 0) found.push({ row, stalled: items, waiting: waits, untimed });
  }
  return found;
}

function stalledOf(
  index: SessionIndex,
  row: ListOverview,
  opts: { afterMs: number; now: number },
): RestingWork & { tasks: Task[]; untimed: string[] } {
  const none = { tasks: [], stalled: new Map(), waiting: new Map(), untimed: [] };
  const session = row.sessions[0];
  if (row.kind === 'todowrite' && row.todos !== undefined && session !== undefined) {
    const tasks = tasksOfTodos(row.todos);
    return { tasks, ...stalledTodos(index, session, tasks, opts) };
  }
  if (row.kind !== 'tasks') return none;
  try {
    const { tasks, times } = readList(row.dir, { times: true });
    return { tasks, ...stalledInList(row.dir, row.id, tasks, { ...opts, sessions: index, times }), untimed: [] };
  } catch {
    // Gone or unreadable meanwhile: `tasks lists` says so for its own rows.
    return none;
  }
}
