import { stalledInList, stalledTodos } from '../progress/stalled-work.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { readList } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { tasksOfTodos } from './chosen-tasks.js';
import type { ListOverview } from './list-summary.js';

/**
 * Stalled work across lists (`tasks lists --stalled`): for each row of `tasks lists`, the
 * tasks in progress that stalled (progress/stalled-work.ts), by their files' times for a
 * list folder, by their TodoWrite calls' times for a session that keeps todos. Only rows
 * with work in progress are read; lists without stalled work are left out.
 */
export interface StalledRow {
  row: ListOverview;
  /** Id order. */
  stalled: Array<{ task: Task; idleMs: number }>;
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
    const { tasks, stalled, untimed } = stalledOf(index, row, opts);
    const items = tasks.flatMap((task) => {
      const idleMs = stalled.get(task.id);
      return idleMs === undefined ? [] : [{ task, idleMs }];
    });
    if (items.length > 0 || untimed.length > 0) found.push({ row, stalled: items, untimed });
  }
  return found;
}

function stalledOf(
  index: SessionIndex,
  row: ListOverview,
  opts: { afterMs: number; now: number },
): { tasks: Task[]; stalled: Map<string, number>; untimed: string[] } {
  const session = row.sessions[0];
  if (row.kind === 'todowrite' && row.todos !== undefined && session !== undefined) {
    const tasks = tasksOfTodos(row.todos);
    return { tasks, ...stalledTodos(index, session, tasks, opts) };
  }
  if (row.kind !== 'tasks') return { tasks: [], stalled: new Map(), untimed: [] };
  try {
    const { tasks, times } = readList(row.dir, { times: true });
    return { tasks, stalled: stalledInList(row.dir, row.id, tasks, { ...opts, sessions: index, times }), untimed: [] };
  } catch {
    // Gone or unreadable meanwhile: `tasks lists` says so for its own rows.
    return { tasks: [], stalled: new Map(), untimed: [] };
  }
}
