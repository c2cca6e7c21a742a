import { type RestingWork, stalledInList, stalledOrGone, stalledTodos, type WaitingSession } from '../progress/stalled-work.js';
import type { GoneHeld } from '../sessions/gone-owners.js';
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
 * apart (`waiting`), whatever its age. Work in progress with no owner whose agent is gone
 * (the session that held it ended or crashed: history/list-owners.ts, asked through
 * `goneHeld` for a list folder with work in progress) is in, marked `gone`, whatever its
 * age and the list's other sessions, as `tasks list --stalled` shows it (stalledOrGone).
 */
export interface StalledRow {
  row: ListOverview;
  /** Id order. `gone`: it has no owner and its agent is gone (the session that held it is over). */
  stalled: Array<{ task: Task; idleMs: number; gone?: GoneHeld | undefined }>;
  /** Tasks in progress whose session waits for a person, id order: not stalled. */
  waiting: Array<{ task: Task; on: WaitingSession }>;
  /** TodoWrite items in progress whose call had no time: not judged. */
  untimed: string[];
  /** Tasks in progress whose file is dated ahead of the clock (id -> by how much, ms): not judged until then. */
  ahead?: ReadonlyMap<string, number> | undefined;
  /** Tasks in progress whose file's time was not kept (dated 1970), id order: not judged. */
  undated?: readonly string[] | undefined;
}

/** What `--stalled` is asked with: the stall rule, and how to find the tasks in progress whose agent is gone. */
export interface StalledAsk {
  afterMs: number;
  now: number;
  /** Of these tasks in progress of a list folder, those with no owner whose agent is gone (it may read every transcript of the list's sessions). */
  goneHeld?: ((listId: string, tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>) | undefined;
}

export function stalledAcrossLists(index: SessionIndex, rows: readonly ListOverview[], opts: StalledAsk): StalledRow[] {
  const found: StalledRow[] = [];
  for (const row of rows) {
    if (row.counts.in_progress === 0) continue;
    const { tasks, times, stalled, waiting, untimed, ahead = new Map<string, number>(), undated = [] } = stalledOf(index, row, opts);
    // A list folder's tasks in progress are asked about (a list with none reads no session for it): work whose agent is
    // gone is shown whatever its age and the list's other sessions, as `tasks list --stalled` shows it (stalledOrGone).
    const working = tasks.filter((t) => t.status === 'in_progress');
    const gone = row.kind === 'tasks' && working.length > 0 && opts.goneHeld !== undefined ? opts.goneHeld(row.id, working) : undefined;
    const shown = stalledOrGone(
      working,
      stalled,
      (id) => gone?.has(id) === true,
      (id) => times?.get(id),
      opts.now,
    );
    const items = tasks.flatMap((task) => {
      const idleMs = shown.get(task.id);
      return idleMs === undefined ? [] : [{ task, idleMs, gone: gone?.get(task.id) }];
    });
    // Work whose agent is gone waits on nobody: shown above, not as waiting.
    const waits = tasks.flatMap((task) => {
      const on = waiting.get(task.id);
      return on === undefined || gone?.has(task.id) ? [] : [{ task, on }];
    });
    // A task shown as gone is not also told as ahead: it is shown whatever its time.
    const notGone = new Map([...ahead].filter(([id]) => !shown.has(id)));
    const undatedNotGone = undated.filter((id) => !shown.has(id));
    if (items.length > 0 || waits.length > 0 || untimed.length > 0 || notGone.size > 0 || undatedNotGone.length > 0)
      found.push({ row, stalled: items, waiting: waits, untimed, ahead: notGone, undated: undatedNotGone });
  }
  return found;
}

function stalledOf(
  index: SessionIndex,
  row: ListOverview,
  opts: StalledAsk,
): RestingWork & { tasks: Task[]; times?: ReadonlyMap<string, number> | undefined; untimed: string[] } {
  const none = { tasks: [], stalled: new Map(), waiting: new Map(), untimed: [] };
  const session = row.sessions[0];
  if (row.kind === 'todowrite' && row.todos !== undefined && session !== undefined) {
    const tasks = tasksOfTodos(row.todos);
    return { tasks, ...stalledTodos(index, session, tasks, { afterMs: opts.afterMs, now: opts.now }) };
  }
  if (row.kind !== 'tasks') return none;
  try {
    const { tasks, times } = readList(row.dir, { times: true });
    return {
      tasks,
      times,
      ...stalledInList(row.dir, row.id, tasks, { afterMs: opts.afterMs, now: opts.now, sessions: index, times }),
      untimed: [],
    };
  } catch {
    // Gone or unreadable meanwhile: `tasks lists` says so for its own rows.
    return none;
  }
}
