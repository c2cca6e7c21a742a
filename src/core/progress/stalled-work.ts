import { listLife } from '../sessions/gone-owners.js';
import { sessionsOfList } from '../sessions/list-sessions.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { signsOfLife } from '../sessions/signs-of-life.js';
import type { Task } from '../store/schema.js';
import { taskFileTimes } from '../store/task-times.js';
import { busyAndWriting } from './busy-and-writing.js';

/**
 * Stalled work. Claude Code reminds its model after a few rounds without a todo update;
 * the person or job waiting on agents gets the same signal here: a task `in_progress`
 * whose file has not changed for `afterMs`, while its session (where the session index
 * knows it) is not busy on a turn. A busy session may be in a long tool call: that is
 * work, not a stall.
 */

export const DEFAULT_STALLED_MS = 30 * 60_000;

export interface StalledTask {
  id: string;
  task: Task;
  /** How long the task has gone without a change (ms). */
  idleMs: number;
}

/**
 * Pure. `changedAt(id)`: when the task last changed (its file's mtime, or when a watch
 * saw it change); unknown times never count as stalled. `sessionBusy`: true when a
 * session of the list is busy (then nothing is stalled), false or undefined otherwise.
 */
export function stalledTasks(
  tasks: readonly Task[],
  changedAt: (id: string) => number | undefined,
  now: number,
  afterMs: number,
  sessionBusy: boolean | undefined,
): StalledTask[] {
  if (sessionBusy === true) return [];
  const out: StalledTask[] = [];
  for (const task of tasks) {
    if (task.status !== 'in_progress') continue;
    const at = changedAt(task.id);
    if (at === undefined) continue;
    const idleMs = now - at;
    if (idleMs >= afterMs) out.push({ id: task.id, task, idleMs });
  }
  return out;
}

/**
 * Is anyone at work on this list (sessions/signs-of-life.ts: a session busy on a turn, a
 * transcript being written, a Claude Code process naming the list)? true: yes; false: the
 * index knows sessions of the list that could be at work and none is; undefined: it knows
 * none. The cheap signs are asked first; then, of a named list's sessions found by their
 * transcripts, only those that may be live: a session of the past cannot be at work.
 */
export function listSessionBusy(index: SessionIndex, listId: string): boolean | undefined {
  const near = sessionsOfList(index, listId);
  if (signsOfLife(index, listId, near)?.busy) return true;
  // Of a named list's sessions, only those that may be live can be at work: the others' transcripts stay unread.
  const { sessions, life } = listLife(index, listId, { deep: true, mayBeLive: true });
  if (life?.busy) return true;
  return sessions.length === 0 && life === undefined ? undefined : false;
}

/** Is a session of this list busy on a turn and writing its transcript within `withinMs`? (See listSessionBusy.) */
function listSessionWriting(index: SessionIndex, listId: string, withinMs: number, now: number): boolean | undefined {
  const near = sessionsOfList(index, listId);
  if (busyAndWriting(near, withinMs, now)) return true;
  const { sessions } = listLife(index, listId, { deep: true, mayBeLive: true });
  return busyAndWriting([...near, ...sessions], withinMs, now);
}

/**
 * The tasks of a list folder that stalled, with how long (ms), by their files' times.
 * The session index is asked only when some task is old enough: a busy session means
 * its agent is working. `times`: the files' times where the read of the list took them
 * already (each task's that it holds is not looked at again).
 */
export function stalledInList(
  listDir: string,
  listId: string,
  tasks: readonly Task[],
  opts: {
    afterMs: number;
    now: number;
    sessions: SessionIndex;
    times?: ReadonlyMap<string, number> | undefined;
    /**
     * A busy session is at work only while its transcript grows (busy-and-writing.ts), as
     * `watch` judges a stall: an agent busy but silent for as long (waiting on a request
     * that hangs) is stalled too. Else any busy session is at work.
     */
    busyMustWrite?: boolean | undefined;
  },
): Map<string, number> {
  const working = tasks.filter((t) => t.status === 'in_progress');
  if (working.length === 0) return new Map();
  const known = opts.times;
  const times =
    known !== undefined && working.every((t) => known.has(t.id))
      ? known
      : taskFileTimes(
          listDir,
          working.map((t) => t.id),
        );
  const due = stalledTasks(working, (id) => times.get(id), opts.now, opts.afterMs, undefined);
  if (due.length === 0) return new Map();
  const busy = opts.busyMustWrite
    ? listSessionWriting(opts.sessions, listId, opts.afterMs, opts.now)
    : listSessionBusy(opts.sessions, listId);
  const stalled = stalledTasks(working, (id) => times.get(id), opts.now, opts.afterMs, busy);
  return new Map(stalled.map((s) => [s.id, s.idleMs]));
}

/**
 * The todos of a session that keeps TodoWrite todos (no list folder: no file times) that
 * stalled, with how long (ms): an item in progress whose TodoWrite call (the last that
 * changed it, as its transcript records) is older than `afterMs`, while the session is
 * not busy writing its transcript. `tasks`: its todos as tasks (ids 1, 2, ... in order).
 * `untimed`: items in progress whose call had no time, which cannot be judged.
 */
export function stalledTodos(
  index: SessionIndex,
  session: SessionInfo,
  tasks: readonly Task[],
  opts: { afterMs: number; now: number },
): { stalled: Map<string, number>; untimed: string[] } {
  const times = session.transcript === undefined ? [] : (index.transcriptTasks(session.transcript).todoTimes ?? []);
  const changedAt = (id: string) => times[Number(id) - 1] ?? undefined;
  const untimed = tasks.filter((t) => t.status === 'in_progress' && changedAt(t.id) === undefined).map((t) => t.id);
  const due = stalledTasks(tasks, changedAt, opts.now, opts.afterMs, undefined);
  if (due.length === 0) return { stalled: new Map(), untimed };
  const busy = busyAndWriting([session], opts.afterMs, opts.now);
  const stalled = stalledTasks(tasks, changedAt, opts.now, opts.afterMs, busy);
  return { stalled: new Map(stalled.map((s) => [s.id, s.idleMs])), untimed };
}
