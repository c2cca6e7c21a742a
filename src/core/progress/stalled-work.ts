import { sessionsOfList } from '../sessions/list-sessions.js';
import { activityOf, readLiveSessionFiles } from '../sessions/live-sessions.js';
import { holdersOf } from '../sessions/session-deaths.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { readList } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { taskFileTimes } from '../store/task-times.js';
import { busyAndWriting } from './busy-and-writing.js';

/**
 * Stalled work. Claude Code reminds its model after a few rounds without a todo update;
 * the person or job waiting on agents gets the same signal here: a task `in_progress`
 * whose file has not changed for `afterMs`, while no session of the list is at work
 * (listAtWork): one busy on a turn counts only while its transcript grows (written within
 * `afterMs`) or it is inside a tool call (a long build writes nothing until it returns); a
 * session busy but silent that long (a request that hangs, a headless run busy all its
 * life) is not at work. A live session of the list waiting for a person (its live-session
 * file says `"status":"waiting"`: a permission prompt, a dialog) is neither: its work in
 * progress waits for that person, however long, and is said to (`waiting`), never stalled,
 * whatever the list's other sessions do (waitersOfList says which work is its).
 * This is the one answer `list`, `lists --stalled`, `watch`, the board and `notify` give.
 * What `--stalled` shows adds the work of agents known gone (stalledOrGone).
 */

export const DEFAULT_STALLED_MS = 30 * 60_000;

/** A live session waiting for a person, as its live-session file says. */
export interface WaitingSession {
  session: string;
  /** Its name in Claude Code ("myproj-e7"), when its file gives one. */
  name: string | undefined;
  /** What for, in Claude Code's words ("permission prompt", "dialog open", ...), when it says. */
  waitingFor: string | undefined;
  /** When it began to wait (the status's time), when the file says: tells one waiting spell from the next. */
  since: number | undefined;
  /**
   * The ids of the tasks in progress it holds, where other live sessions share its list:
   * only those wait on it. Absent: it is the list's one live session, and every task in
   * progress of the list waits on it.
   */
  holds?: readonly string[] | undefined;
  /** How many more sessions of the list wait for a person besides it, where a watch tells of one (listWaitedOn). */
  others?: number | undefined;
}

/** The live sessions among these that wait for a person, once each, in the order given. */
export function waitingSessions(sessions: readonly SessionInfo[]): WaitingSession[] {
  const seen = new Set<string>();
  const out: WaitingSession[] = [];
  for (const s of sessions) {
    if (s.state !== 'live' || s.activity !== 'waiting' || seen.has(s.sessionId)) continue;
    seen.add(s.sessionId);
    out.push({ session: s.sessionId, name: s.name, waitingFor: s.waitingFor, since: s.statusSince });
  }
  return out;
}

/**
 * A list's work in progress that nobody is at: stalled (id -> how long unchanged, ms), or
 * waiting for a person (id -> the session that waits). A task is in one map at most.
 */
export interface RestingWork {
  stalled: Map<string, number>;
  waiting: Map<string, WaitingSession>;
  /**
   * Tasks in progress, not waiting, whose file is dated ahead of `now` (id -> by how much,
   * ms; a second or more): clock skew, a copied file, a VM resumed. By that time they cannot
   * be judged stalled until the clock passes it; a one-shot read says so (its caller warns),
   * where a watch counts from when it first saw the time (watch-session.ts seenSince).
   */
  ahead?: Map<string, number> | undefined;
  /**
   * Tasks in progress, not waiting, whose file's time was not kept (timeNotKept: dated 1970,
   * a copy made without times), id order: when they last changed is unknown, so a one-shot
   * read cannot judge them stalled and says so (its caller warns), as of a time ahead.
   */
  undated?: string[] | undefined;
}

/**
 * A file time that says nothing: the epoch or before, a file whose time was not kept (a
 * tar or zip made without times). When its task last changed is unknown, and an age
 * counted from it would be the clock's (a stall of 56 years).
 */
export const timeNotKept = (fileTime: number): boolean => fileTime <= 0;

/**
 * When a task last changed, for a stall clock that runs on (watch, notify): its file's
 * time, but never later than when it was first seen with that time. A file dated ahead of
 * this machine's clock (clock skew, a file copied from another machine, a VM resumed)
 * would otherwise not stall until the clock passed that time, hours on; counted from when
 * it was first seen, it stalls after the stall time of being seen unchanged. So does a
 * file whose time was not kept (timeNotKept), which would otherwise be stalled since 1970.
 */
export function seenSince(fileTime: number | undefined, seenAt: number): number {
  return fileTime === undefined || fileTime > seenAt || timeNotKept(fileTime) ? seenAt : fileTime;
}

/**
 * `times` with each time ahead of `now`, or not kept (timeNotKept), replaced by when it
 * was first seen so (seenSince), as `firstSeen` (task id and file time -> when) remembers
 * across looks; a time seen no more is forgotten.
 */
export function timesAsSeen(times: ReadonlyMap<string, number>, firstSeen: Map<string, number>, now: number): ReadonlyMap<string, number> {
  const asSeen = (at: number) => at > now || timeNotKept(at);
  if (![...times.values()].some(asSeen) && firstSeen.size === 0) return times;
  const out = new Map(times);
  const seen = new Set<string>();
  for (const [id, at] of times) {
    if (!asSeen(at)) continue;
    const key = `${id}|${at}`;
    seen.add(key);
    const first = firstSeen.get(key) ?? now;
    firstSeen.set(key, first);
    out.set(id, seenSince(at, first));
  }
  for (const key of firstSeen.keys()) if (!seen.has(key)) firstSeen.delete(key);
  return out;
}

/** The tasks among these whose time is a second or more ahead of `now`: id -> by how much (ms). */
export function aheadOfClock(tasks: readonly Task[], changedAt: (id: string) => number | undefined, now: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of tasks) {
    const at = changedAt(t.id);
    if (at !== undefined && at - now >= 1000) out.set(t.id, at - now);
  }
  return out;
}

/** The tasks among these whose file's time was not kept (timeNotKept), in their order. */
function undatedTasks(tasks: readonly Task[], changedAt: (id: string) => number | undefined): string[] {
  return tasks
    .filter((t) => {
      const at = changedAt(t.id);
      return at !== undefined && timeNotKept(at);
    })
    .map((t) => t.id);
}

/** Nothing stalled, nothing waiting: while a session of the list is at work. */
export const noRestingWork = (): RestingWork => ({ stalled: new Map(), waiting: new Map() });

/**
 * Which session one session's tasks in progress wait on: itself, when it waits for a
 * person and is not busy on a turn (a TodoWrite session, a followed session).
 */
export function waitedOn(sessions: readonly SessionInfo[]): WaitingSession | undefined {
  if (sessions.some((s) => s.state === 'live' && s.activity === 'busy')) return undefined;
  return waitingSessions(sessions)[0];
}

/**
 * The sessions of a list (`sessions`) that wait for a person, each with the work that waits
 * on it. A session at a prompt waits whatever the others do: a busy one is at work on its
 * own tasks, not on the waiting one's. Alone live on the list, every task in progress of
 * the list waits on it (which session holds which task is not in the files, and a session's
 * own tasks often have no owner). With other live sessions, only the tasks it holds
 * (session-deaths.ts holdersOf: its transcript's last claim of the task, nothing written
 * since): the others' transcripts are read only then.
 */
export function waitersOfList(
  index: SessionIndex,
  listDir: string,
  working: readonly Task[],
  sessions: readonly SessionInfo[],
): WaitingSession[] {
  const waiters = waitingSessions(sessions);
  if (waiters.length === 0) return waiters;
  const live = new Set(sessions.filter((s) => s.state === 'live').map((s) => s.sessionId));
  if (live.size <= 1) return waiters;
  const inProgress = working.filter((t) => t.status === 'in_progress');
  const holders = holdersOf(
    index,
    sessions.map((s) => s.sessionId),
    inProgress,
    listDir,
  );
  return waiters.map((w) => ({ ...w, holds: inProgress.filter((t) => holders.get(t.id) === w.session).map((t) => t.id) }));
}

/**
 * waitersOfList over a list's sessions: none unless a live session of the list waits (its
 * live-session file, found without a transcript read); then the list's sessions that may be
 * live are all looked at (a headless agent may be known by its transcript alone).
 */
export function listWaiters(
  index: SessionIndex,
  listId: string,
  listDir: string,
  working: readonly Task[] | (() => readonly Task[]),
  near: readonly SessionInfo[] = sessionsOfList(index, listId),
): WaitingSession[] {
  if (waitingSessions(near).length === 0) return [];
  const all = new Map(near.map((s) => [s.sessionId, s]));
  for (const s of sessionsOfList(index, listId, { deep: true, mayBeLive: true })) if (!all.has(s.sessionId)) all.set(s.sessionId, s);
  return waitersOfList(index, listDir, typeof working === 'function' ? working() : working, [...all.values()]);
}

/** Each task in progress that waits, with the session it waits on (the first that holds it). */
function waitingWork(working: readonly Task[], waiters: readonly WaitingSession[]): Map<string, WaitingSession> {
  const out = new Map<string, WaitingSession>();
  for (const w of waiters)
    for (const t of working) if (!out.has(t.id) && (w.holds === undefined || w.holds.includes(t.id))) out.set(t.id, w);
  return out;
}

/**
 * The session a list's work in progress waits on now, if any, for a watch (which tells one
 * at a time): the first that holds some of it, else the first; with how many more of the
 * list's sessions wait too (`others`), so that none goes unsaid. Cheap while nobody waits:
 * the live-session folder alone answers, as it does for `list --json`; asked every second.
 */
export function listWaitedOn(index: SessionIndex, listId: string, listDir: string): WaitingSession | undefined {
  if (!readLiveSessionFiles(index.configDir).some((f) => activityOf(f) === 'waiting')) return undefined;
  const waiters = listWaiters(index, listId, listDir, () => readList(listDir).tasks);
  const first = waiters.find((w) => w.holds === undefined || w.holds.length > 0) ?? waiters[0];
  return first === undefined || waiters.length < 2 ? first : { ...first, others: waiters.length - 1 };
}

function allWaiting(working: readonly Task[], on: WaitingSession): RestingWork {
  return { stalled: new Map(), waiting: new Map(working.map((t) => [t.id, on])) };
}

export interface StalledTask {
  id: string;
  task: Task;
  /** How long the task has gone without a change (ms). */
  idleMs: number;
}

/**
 * Pure. `changedAt(id)`: when the task last changed (its file's mtime, or when a watch
 * saw it change); unknown times never count as stalled, nor do times not kept (a file
 * dated 1970: timeNotKept). `sessionBusy`: true when a
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
    if (at === undefined || timeNotKept(at)) continue;
    const idleMs = now - at;
    if (idleMs >= afterMs) out.push({ id: task.id, task, idleMs });
  }
  return out;
}

/**
 * What `--stalled` shows, the one rule for `tasks list --stalled`, `tasks lists --stalled`
 * and the board's stalled filter: the tasks in progress that stalled (`stalled`, the rule
 * above), and every task in progress whose agent is known gone (`gone`: its session ended
 * or crashed holding it, history/list-owners.ts), whatever the list's other sessions do and
 * however lately it changed: a dead agent's task waits on nobody, and no busy session is at
 * work on it. id -> how long unchanged (ms; 0 where its time is unknown or not kept), in `working`'s order.
 */
export function stalledOrGone(
  working: readonly Task[],
  stalled: ReadonlyMap<string, number>,
  gone: (id: string) => boolean,
  changedAt: (id: string) => number | undefined,
  now: number,
): Map<string, number> {
  const shown = new Map<string, number>();
  for (const t of working) {
    if (t.status !== 'in_progress') continue;
    const idleMs = stalled.get(t.id);
    if (idleMs !== undefined) shown.set(t.id, idleMs);
    else if (gone(t.id)) {
      const at = changedAt(t.id);
      shown.set(t.id, at === undefined || timeNotKept(at) ? 0 : Math.max(0, now - at));
    }
  }
  return shown;
}

/**
 * Is a session of this list at work now: busy on a turn (or live with its turn state
 * unknown), and its transcript written within `afterMs` or ending in a tool call in flight
 * (busy-and-writing.ts)? A headless agent is
 * busy all its life, so busy alone says nothing. Undefined when no session of the list is
 * known. The cheap look first (the list's own sessions), then a named list's sessions that
 * may be live (the others' transcripts stay unread). The one test of "at work" that
 * `list`, `lists --stalled`, `watch --fail-if-stalled`, the board and `notify` make.
 */
export function listAtWork(
  index: SessionIndex,
  listId: string,
  afterMs: number,
  now: number,
  near: readonly SessionInfo[] = sessionsOfList(index, listId),
): boolean | undefined {
  if (busyAndWriting(near, afterMs, now) || resumedWithin(index, near, afterMs, now)) return true;
  // The deeper look asks only the sessions not asked above: a silent transcript's end is read once.
  const asked = new Set(near.map((s) => s.sessionId));
  const deeper = sessionsOfList(index, listId, { deep: true, mayBeLive: true }).filter((s) => !asked.has(s.sessionId));
  if (busyAndWriting(deeper, afterMs, now)) return true;
  return near.length > 0 || deeper.length > 0 ? false : undefined;
}

/**
 * Did a live session of the list that crashed before (its crashed run's live-session file
 * left behind) begin its current run less than the stall time ago? Resumed after its crash
 * (`claude --resume`), at its prompt or on its first request, it finds its tasks and its
 * transcript as the crash left them, long unchanged: it is given the stall time from its
 * start, as any agent that just started is (its transcript's silence is the crashed run's).
 */
function resumedWithin(index: SessionIndex, near: readonly SessionInfo[], afterMs: number, now: number): boolean {
  const live = near.filter((s) => s.state === 'live' && s.pid !== undefined);
  if (live.length === 0) return false;
  const leftover = index.leftoverFiles();
  return live.some((s) => {
    const crashedBefore = leftover.some((f) => f.sessionId === s.sessionId && f.pid !== s.pid);
    const run = index.runningFiles().find((f) => f.pid === s.pid);
    return crashedBefore && run?.startedAt !== undefined && now - run.startedAt < afterMs;
  });
}

/**
 * Which of these tasks in progress of a list wait for a person (id -> the session at a
 * prompt that they wait on): none unless a live-session file says its session waits
 * (cheap, read once a second per index); then waitersOfList's rule, whatever the list's
 * other sessions do.
 */
export function waitingInList(
  index: SessionIndex,
  listId: string,
  listDir: string,
  working: readonly Task[],
  now: number,
  near?: () => readonly SessionInfo[],
): Map<string, WaitingSession> {
  if (working.length === 0 || !someoneWaitsNow(index, now)) return new Map();
  return waitingWork(working, listWaiters(index, listId, listDir, working, near?.()));
}

/**
 * Does a live-session file say its session waits for a person? Read once per index and
 * second (a round of notify's looks at every list in progress asks it for each list): an
 * index a process keeps (the board's, between its renewals) still sees a wait begin.
 */
const waitsByIndex = new WeakMap<SessionIndex, { at: number; waits: boolean }>();
const WAITS_FRESH_MS = 1_000;

function someoneWaitsNow(index: SessionIndex, now: number): boolean {
  const known = waitsByIndex.get(index);
  if (known !== undefined && Math.abs(now - known.at) < WAITS_FRESH_MS) return known.waits;
  const waits = readLiveSessionFiles(index.configDir).some((f) => activityOf(f) === 'waiting');
  waitsByIndex.set(index, { at: now, waits });
  return waits;
}

/**
 * The tasks of a list folder that stalled, with how long (ms), by their files' times, and
 * those that wait for a person instead. The live sessions of the list (its live-session
 * files: cheap) are asked whenever a task is in progress, for the waiting; the deeper
 * session index only when some task is old enough: a session at work (listAtWork) holds
 * every stall back. `times`: the files' times where the read of the list took them already (each
 * task's that it holds is not looked at again).
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
    /** Only which tasks wait for a person (`list --json`, which shows no stall): nothing is judged stalled. */
    waitingOnly?: boolean | undefined;
  },
): RestingWork {
  const working = tasks.filter((t) => t.status === 'in_progress');
  if (working.length === 0) return noRestingWork();
  let near: SessionInfo[] | undefined;
  const nearSessions = () => (near ??= sessionsOfList(opts.sessions, listId));
  // A waiting session's work waits, whatever the others do; the rest may yet be stalled.
  const waiting = waitingInList(opts.sessions, listId, listDir, working, opts.now, nearSessions);
  const resting = (stalled: Map<string, number> = new Map()): RestingWork => ({ stalled, waiting });
  const rest = working.filter((t) => !waiting.has(t.id));
  if (rest.length === 0 || opts.waitingOnly) return resting();
  const known = opts.times;
  const times =
    known !== undefined && rest.every((t) => known.has(t.id))
      ? known
      : taskFileTimes(
          listDir,
          rest.map((t) => t.id),
        );
  const ahead = aheadOfClock(rest, (id) => times.get(id), opts.now);
  const undated = undatedTasks(rest, (id) => times.get(id));
  const due = stalledTasks(rest, (id) => times.get(id), opts.now, opts.afterMs, undefined);
  if (due.length === 0) return { ...resting(), ahead, undated };
  // A session of the list at work now holds every stall back (asked only now that a task is due).
  const busy = listAtWork(opts.sessions, listId, opts.afterMs, opts.now, nearSessions());
  const stalled = stalledTasks(rest, (id) => times.get(id), opts.now, opts.afterMs, busy);
  return { ...resting(new Map(stalled.map((s) => [s.id, s.idleMs]))), ahead, undated };
}

/**
 * The session one task in progress of a list folder waits on, if one waits for a person
 * (`get`): stalledInList's answer for it alone. Nothing else is asked: while nobody waits,
 * the live-session folder answers.
 */
export function taskWaitingOn(
  listDir: string,
  listId: string,
  task: Task,
  sessions: SessionIndex,
  now: number,
): WaitingSession | undefined {
  if (task.status !== 'in_progress') return undefined;
  return stalledInList(listDir, listId, [task], { afterMs: 0, now, sessions, waitingOnly: true }).waiting.get(task.id);
}

/**
 * The todos of a session that keeps TodoWrite todos (no list folder: no file times) that
 * stalled, with how long (ms): an item in progress whose TodoWrite call (the last that
 * changed it, as its transcript records) is older than `afterMs`, while the session is
 * not busy writing its transcript; or, while the session waits for a person, waiting.
 * `tasks`: its todos as tasks (ids 1, 2, ... in order). `untimed`: items in progress
 * whose call had no time, which cannot be judged.
 */
export function stalledTodos(
  index: SessionIndex,
  session: SessionInfo,
  tasks: readonly Task[],
  opts: { afterMs: number; now: number },
): RestingWork & { untimed: string[] } {
  const on = waitedOn([session]);
  if (on !== undefined)
    return {
      ...allWaiting(
        tasks.filter((t) => t.status === 'in_progress'),
        on,
      ),
      untimed: [],
    };
  const times = session.transcript === undefined ? [] : (index.transcriptTasks(session.transcript).todoTimes ?? []);
  const changedAt = (id: string) => times[Number(id) - 1] ?? undefined;
  const untimed = tasks.filter((t) => t.status === 'in_progress' && changedAt(t.id) === undefined).map((t) => t.id);
  const due = stalledTasks(tasks, changedAt, opts.now, opts.afterMs, undefined);
  if (due.length === 0) return { ...noRestingWork(), untimed };
  const busy = busyAndWriting([session], opts.afterMs, opts.now);
  const stalled = stalledTasks(tasks, changedAt, opts.now, opts.afterMs, busy);
  return { stalled: new Map(stalled.map((s) => [s.id, s.idleMs])), waiting: new Map(), untimed };
}
