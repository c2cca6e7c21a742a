import type { WaitingSession } from '../core/progress/stalled-work.js';
import type { Task } from '../core/store/schema.js';
import type { ChangeEvent } from '../core/watch/watch-diff.js';
import type { EndReason } from '../core/watch/watch-session.js';
import { renderJsonLine } from './json.js';
import { type CountsJson, personWaitJson, type TaskJson, taskJson, type WaitingJson, withWaiting } from './task-json.js';

/**
 * The `watch --json` stream: NDJSON, one event per line, each with `event` and `at`
 * (ISO 8601, UTC). Tasks are printed exactly in the shape of their files, with
 * `waiting` beside a task in progress whose session waits for a person (as `list --json`).
 *
 *   {"event":"snapshot","at":…,"list":"x","exists":true,"tasks":[…]}
 *   {"event":"created","at":…,"task":{…}}
 *   {"event":"updated","at":…,"task":{…},"changes":{"status":{"old":"pending","new":"completed"}}}
 *   {"event":"deleted","at":…,"task":{…last known version…}}
 *   {"event":"list-cleared","at":…,"tasks":[…every task that vanished…]}
 *   {"event":"waiting","at":…,"until":"all-completed","sessions":[{"session":…,"pid":…,"state":"busy"|"starting"}]}
 *   {"event":"needs-you","at":…,"waiting":{"for":"permission prompt","session":…,"name":…,"since":…,"ids":[…]}|null}
 *   {"event":"session-cleared","at":…,"session":…,"newSession":…,"from":…,"to":…,"followed":true,"exists":…,"tasks":[…]}
 *   {"event":"end","at":…,"reason":"condition-met"|"timeout"|"stopped"|"run-ended"|…,…,"counts":{…},"tasks":[…]}
 *
 * In `changes`, a missing `old` (or `new`) means the field was absent on that side.
 */

function stamp(at: number): string {
  return new Date(at).toISOString();
}

export function renderSnapshotEvent(at: number, list: string | null, exists: boolean, tasks: readonly TaskJson[]): string {
  return renderJsonLine({ event: 'snapshot', at: stamp(at), list, exists, tasks });
}

/**
 * `timeOf`: each task's change time (the one task shape's `updatedAt`); `waitingOf`: the
 * session a task waits on, when it waits for a person (a task gone waits on nobody).
 */
export function renderChangeEvent(
  at: number,
  e: ChangeEvent,
  timeOf: (id: string) => number | undefined,
  waitingOf: (id: string) => WaitingSession | undefined = () => undefined,
): string {
  const json = (t: Task) =>
    e.type === 'created' || e.type === 'updated' ? withWaiting(taskJson(t, timeOf(t.id)), waitingOf(t.id)) : taskJson(t, timeOf(t.id));
  switch (e.type) {
    case 'list-cleared':
      return renderJsonLine({ event: e.type, at: stamp(at), tasks: e.tasks.map(json) });
    case 'updated':
      return renderJsonLine({ event: e.type, at: stamp(at), task: json(e.task), changes: e.changes });
    default:
      return renderJsonLine({ event: e.type, at: stamp(at), task: json(e.task) });
  }
}

/**
 * condition-met, timeout, stopped: as always. run-ended: the followed run's `result`
 * event; input-ended: its input ended without one; session-ended: a followed
 * transcript's session stopped running (or every session of the list is over);
 * session-died: a session of the list died holding work in progress; task-deleted: the task
 * `--until task:<id>:…` names was deleted; stalled: --fail-if-stalled.
 */

export interface EndView {
  at: number;
  /** The list watched, as it ended (a run's may have been found on the way); null: never known. */
  list: string | null;
  reason: EndReason;
  until?: string | undefined;
  /** Whether the --until condition held at the end (only with --until). */
  met?: boolean | undefined;
  exists: boolean;
  counts: CountsJson;
  tasks: readonly TaskJson[];
  /** A followed run's end: its result's subtype and is_error (null when it had none). */
  run?: { result: string | null; isError: boolean | null } | undefined;
  /** --fail-if-stalled: the tasks in progress that stopped changing, and for how long. */
  stalled?: ReadonlyArray<{ id: string; idleMs: number }> | undefined;
  /** A followed run that stalled: how long it was silent with no task changing. */
  idleMs?: number | undefined;
  /** Every session of the list ended: the owners of unfinished tasks, gone with them. */
  gone?: readonly string[] | undefined;
  /** Sessions of the list that died holding work in progress: each with its pid and the ids it held. */
  died?:
    | ReadonlyArray<{
        sessionId: string;
        state: string;
        pid: number | null;
        /** A run's agent under `tasks run`: how its process ended. */
        exit?: { code: number | null; signal: string | null };
        tasks: readonly string[];
      }>
    | undefined;
  /** Every task completed, none a verification step: Claude Code's nudge. */
  nudge?: { code: string; message: string } | undefined;
  /** The lists the followed session left behind (`/clear`), each with the ids of the work still there. */
  left?: ReadonlyArray<{ list: string; unfinished: readonly string[] }> | undefined;
  /** Reason session-cleared (`--no-follow`): the session that was cleared, and where its process went. */
  cleared?: { session: string; newSession: string; sure: boolean; to: string } | undefined;
  /** The task `--until task:<id>:…` names was deleted: its id. */
  deleted?: string | undefined;
  /** A followed run: whether it changed its list itself. */
  runChanged?: boolean | undefined;
  /** A session of the list waits for a person as the watch ends, with the ids of the tasks shown that wait on it. */
  waiting?: (WaitingJson & { ids: string[] }) | undefined;
}

/**
 * The session whose own list was watched was cleared (`/clear`). Followed: `exists` and
 * `tasks` are the new list's first state (as a snapshot's), and the events after it are
 * that list's.
 */
export function renderSessionClearedEvent(
  at: number,
  change: {
    sessionId: string;
    newSessionId: string;
    sure: boolean;
    from: string;
    to: string;
    followed: boolean;
    before?: boolean | undefined;
  },
  list?: { exists: boolean; tasks: readonly TaskJson[] },
): string {
  return renderJsonLine({
    event: 'session-cleared',
    at: stamp(at),
    session: change.sessionId,
    newSession: change.newSessionId,
    sure: change.sure,
    from: change.from,
    to: change.to,
    followed: change.followed,
    before: change.before === true,
    ...(list === undefined ? {} : { exists: list.exists, tasks: list.tasks }),
  });
}

/**
 * The condition holds, but sessions of the list are at work on it (busy on a turn, or just
 * started): the watch waits for them to go idle or end. Said again when who it waits for changes.
 */
export function renderWaitingEvent(
  at: number,
  until: string | undefined,
  sessions: ReadonlyArray<{ sessionId?: string | undefined; pid?: number | undefined; state: string }>,
): string {
  return renderJsonLine({
    event: 'waiting',
    at: stamp(at),
    until: until ?? null,
    sessions: sessions.map((s) => ({ session: s.sessionId ?? null, pid: s.pid ?? null, state: s.state })),
  });
}

/**
 * A session of the list began to wait for a person (a permission prompt), waits for
 * something else now, or (null) no longer waits: after it, the tasks in `ids` wait on it
 * and no other task does.
 */
export function renderNeedsYouEvent(at: number, on: WaitingSession | undefined, ids: readonly string[]): string {
  return renderJsonLine({ event: 'needs-you', at: stamp(at), waiting: on === undefined ? null : personWaitJson(on, ids) });
}

/** The last line: why the watch ended, and where the list stands. */
export function renderEndEvent(end: EndView): string {
  return renderJsonLine({
    event: 'end',
    at: stamp(end.at),
    list: end.list,
    reason: end.reason,
    ...(end.until === undefined ? {} : { until: end.until, met: Boolean(end.met) }),
    ...(end.run === undefined ? {} : { run: end.run }),
    ...(end.stalled === undefined ? {} : { stalled: end.stalled }),
    ...(end.idleMs === undefined ? {} : { idleMs: end.idleMs }),
    ...(end.gone === undefined ? {} : { gone: end.gone }),
    ...(end.died === undefined ? {} : { died: end.died }),
    ...(end.nudge === undefined ? {} : { nudge: end.nudge }),
    ...(end.left === undefined ? {} : { left: end.left }),
    ...(end.cleared === undefined ? {} : { cleared: end.cleared }),
    ...(end.deleted === undefined ? {} : { deleted: end.deleted }),
    ...(end.runChanged === undefined ? {} : { runChanged: end.runChanged }),
    ...(end.waiting === undefined ? {} : { waiting: end.waiting }),
    exists: end.exists,
    counts: end.counts,
    tasks: end.tasks,
  });
}
