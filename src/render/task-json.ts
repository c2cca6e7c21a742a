import type { ListCounts } from '../core/graph/blockers.js';
import type { WaitingSession } from '../core/progress/stalled-work.js';
import type { GoneHeld } from '../core/sessions/gone-owners.js';
import type { Task } from '../core/store/schema.js';
import { isoTime } from './iso-text.js';

/**
 * The one task shape of every `--json` output: the task exactly as its file holds it (the
 * same keys, in the file's order, unknown keys included), then `updatedAt`, its change
 * time in ISO 8601: the file's mtime (or, for a task known only from a run's stream, when
 * the stream last changed it); null when no time is known. `updatedAt` is ours: a file's
 * own key of that name is shown as ours, and `import` leaves it out.
 */
export type TaskJson = Task & { updatedAt: string | null };

export function taskJson(task: Task, changedAt: number | undefined): TaskJson {
  return { ...task, updatedAt: changedAt === undefined ? null : isoTime(changedAt) };
}

export function tasksJson(tasks: readonly Task[], times: ReadonlyMap<string, number> | undefined): TaskJson[] {
  return tasks.map((t) => taskJson(t, times?.get(t.id)));
}

/**
 * tasksJson for tasks nobody else holds (a listing's own, read for this output alone):
 * each task gains its `updatedAt` in place, the same keys in the same order as
 * taskJson's copy (a key the file has keeps its place either way), without a copy of
 * each of thousands of tasks.
 */
export function ownTasksJson(tasks: Task[], times: ReadonlyMap<string, number> | undefined): TaskJson[] {
  for (const t of tasks) {
    const changedAt = times?.get(t.id);
    (t as TaskJson).updatedAt = changedAt === undefined ? null : isoTime(changedAt);
  }
  return tasks as TaskJson[];
}

/**
 * `waiting`, beside a task in progress whose session waits for a person (`list --json`):
 * what for in Claude Code's words, the session, its name, since when. Such a task is
 * never stalled. Absent on every other task.
 */
export interface WaitingJson {
  for: string | null;
  session: string;
  name: string | null;
  since: string | null;
}

export function waitingJson(on: WaitingSession): WaitingJson {
  return {
    for: on.waitingFor ?? null,
    session: on.session,
    name: on.name ?? null,
    since: on.since === undefined ? null : isoTime(on.since),
  };
}

/** A task with `waiting` beside it when it waits for a person: a `watch --json` task, as `list --json` gives it. */
export type WatchTaskJson = TaskJson & { waiting?: WaitingJson };

/** tasksJson, with `waiting` on each task that waits for a person (`waiting`: id -> its session). */
export function watchTasksJson(
  tasks: readonly Task[],
  times: ReadonlyMap<string, number> | undefined,
  waiting: ReadonlyMap<string, WaitingSession>,
): WatchTaskJson[] {
  return tasks.map((t) => withWaiting(taskJson(t, times?.get(t.id)), waiting.get(t.id)));
}

export function withWaiting(task: TaskJson, on: WaitingSession | undefined): WatchTaskJson {
  return on === undefined ? task : { ...task, waiting: waitingJson(on) };
}

/**
 * A watch's session at a permission prompt: `list --json`'s `waiting` object, with the ids
 * of the tasks shown that wait on it (`needs-you` events, the `end` event, a timeout's error),
 * and how many more sessions of the list wait (`others`), where more do.
 */
export function personWaitJson(on: WaitingSession, ids: readonly string[]): WaitingJson & { ids: string[]; others?: number } {
  return { ...waitingJson(on), ids: [...ids], ...(on.others !== undefined && on.others > 0 ? { others: on.others } : {}) };
}

/**
 * `gone`, beside a task in progress whose agent is gone (`list --json`, `get --json`):
 * the session that held it and is over (ended, crashed, or cleared while its process went
 * on elsewhere), when it was last seen at work, and why, in the words `release --gone`
 * uses. `release --gone` gives such a task back. Absent on every other task.
 */
export interface GoneJson {
  /** The session over (its id; null: no one session is known, the owner's sessions are all over). */
  session: string | null;
  name: string | null;
  /** ended or crashed, as the session index says (`why` says "was cleared" where the `/clear` is known). */
  state: 'ended' | 'crashed' | null;
  /** When it was last seen at work: its transcript's last entry, or its live-session file's last change. */
  since: string | null;
  /** "session 4aa21e64 crashed". */
  why: string;
  /** It has no owner (it goes back to pending): always so where `list` and `get` give it (a task with an owner is judged by its owner). */
  unowned: boolean;
}

export function goneJson(h: GoneHeld): GoneJson {
  const s = h.session;
  const state = s?.state === 'ended' || s?.state === 'crashed' ? s.state : null;
  return {
    session: s?.sessionId ?? null,
    name: s?.name ?? null,
    state,
    since: s?.lastActivity === undefined ? null : isoTime(s.lastActivity),
    why: h.why,
    unowned: h.unowned,
  };
}

/** Task counts, camelCase as every key: `{total, completed, inProgress, pending, blocked, blockedInProgress, blockedPending}`. */
export interface CountsJson {
  total: number;
  completed: number;
  inProgress: number;
  pending: number;
  blocked: number;
  blockedInProgress: number;
  blockedPending: number;
}

export function countsJson(c: ListCounts): CountsJson {
  return {
    total: c.total,
    completed: c.completed,
    inProgress: c.in_progress,
    pending: c.pending,
    blocked: c.blocked,
    blockedInProgress: c.blockedInProgress,
    blockedPending: c.blockedPending,
  };
}
