/**
 * One watch, from its first state to its end, with everything from outside passed in:
 * the source it follows, the clock and timers, and an abort signal for "stop" (the CLI
 * ties it to SIGINT, SIGTERM and SIGHUP). Sinks (the NDJSON stream, the live view) are
 * told what it sees; the caller turns the outcome into an exit status.
 */
import type { Clock, Timers } from '../base/clock.js';
import { TasksError } from '../base/errors.js';
import type { NoteCode, WarningCode } from '../base/notices.js';
import { indexTasks, type TaskIndex } from '../graph/blockers.js';
import { filterTasks, type TaskFilter } from '../lists/task-filter.js';
import { type StalledTask, seenSince, stalledTasks, type WaitingSession } from '../progress/stalled-work.js';
import { type VerificationNudge, verificationNudge } from '../progress/verification-nudge.js';
import { compareIds } from '../store/ids.js';
import type { FileProblem } from '../store/list-read.js';
import { isLeftWork, type Task } from '../store/schema.js';
import { GoneWork } from './gone-work.js';
import { type UntilCondition, untilHoldsAcross } from './watch-condition.js';
import type { ChangeEvent } from './watch-diff.js';
import { filterEvents } from './watch-filter.js';
import type { DiedSession, ListSwitch, RunEnd, WatchSource, WatchSourceHandlers, WatchUpdate } from './watch-source.js';

/** Why a watch ended, as its end event says. */
export type EndReason =
  | 'condition-met'
  | 'timeout'
  | 'stopped'
  | 'run-ended'
  | 'input-ended'
  | 'session-ended'
  | 'session-died'
  | 'session-cleared'
  | 'task-deleted'
  | 'stalled';

/** The list as a watch shows it at one moment. */
export interface WatchView {
  at: number;
  /** The list's id, when the source named it (a run's session list). */
  list?: string | undefined;
  exists: boolean;
  /** Every task, id order. */
  all: Task[];
  index: TaskIndex;
  /** The tasks that pass the filters, id order. */
  shown: Task[];
  /** When each task last changed (ms), where known. */
  times: ReadonlyMap<string, number>;
  problems: FileProblem[];
  /** Task files that do not read, with no last good version shown for them (WatchUpdate.unread). */
  unread?: readonly string[] | undefined;
  /** The list's path does not read now (a FIFO, a file, mode 000): what it is; the tasks are as last read. */
  unreadable?: string | undefined;
  /** Every task completed, three or more, none a verification step. */
  nudge?: VerificationNudge | undefined;
  /** The lists the followed session left behind (`/clear`), oldest first, as they are now. */
  left?: LeftView[] | undefined;
  /**
   * The tasks in progress that wait for a person (id -> the session at a permission prompt),
   * as last looked (progress/stalled-work.ts): every one of the list while one of its
   * sessions waits and none is busy. Such a task is waiting, never stalled.
   */
  waiting: ReadonlyMap<string, WaitingSession>;
}

/** A list the followed session left behind, as a watch shows it. */
export interface LeftView {
  list: string;
  exists: boolean;
  /** Its tasks that pass the filters, id order. */
  shown: Task[];
  index: TaskIndex;
  /** Of those, the work still left there: not completed, not carried on (store/schema.ts isLeftWork). */
  unfinished: Task[];
}

/** Why and how a watch ended, as its sinks report it. */
export interface WatchEnd {
  reason: EndReason;
  /** Whether the --until condition was met, as the watch judges it (false without one). */
  met: boolean;
  /** A followed run's end. */
  run?: RunEnd | undefined;
  /** With --fail-if-stalled, the tasks that stalled (for a run: those in progress when it fell silent). */
  stalled?: StalledTask[] | undefined;
  /** A followed run that stalled: how long it had been silent, with no task changing. */
  idleMs?: number | undefined;
  /** Every session of the list is over: the owners of unfinished tasks, gone with them. */
  gone?: string[] | undefined;
  /** Sessions of the list that died holding work in progress (reason session-died), or a followed run's own (input-ended). */
  died?: DiedSession[] | undefined;
  /** The session that used the list was cleared, and the watch stayed on it (reason session-cleared, `--no-follow`). */
  cleared?: ListSwitch | undefined;
  /**
   * The task `--until task:<id>:<status>` names was deleted (reason task-deleted; or, for a
   * run judged at its end, known when it ended): ids are never handed out again.
   */
  deleted?: string | undefined;
  /**
   * A followed run: did it change its list itself (a TaskCreate or TaskUpdate that changed
   * a task)? false: whatever holds held before it (a reused list's finished work).
   */
  runChanged?: boolean | undefined;
  /** A session of the list waits for a person as the watch ends (a permission prompt): what a timeout waited on. */
  waiting?: WaitingSession | undefined;
}

/** A session at work on the watched list, which a condition met waits for (sessions/busy-on-list.ts). */
export interface BusySession {
  sessionId?: string | undefined;
  pid?: number | undefined;
  /** busy on a turn; waiting: in a turn, for a person (a permission prompt); background: at its prompt while a command it ran in the background goes on; starting: its process runs and has no live-session file yet. */
  state: 'busy' | 'waiting' | 'background' | 'starting';
}

/**
 * When the --until condition is judged.
 * - continuously: on the first state and after every change (a list folder, a transcript);
 * - at-run-end: only when the followed run ends with its `result` event, on the list as
 *   it is then; a run whose input ends without one never meets it;
 * - once-run-acted: after every change once the run has made a change of its own (so a
 *   reused list's old tasks cannot meet it before the run begins its work), and at its end.
 */
export type JudgeWhen = 'continuously' | 'at-run-end' | 'once-run-acted';

/** Where a watch sends what it sees: the NDJSON stream or the live view. */
export interface WatchSink {
  begin(view: WatchView): void;
  /** `events` are already filtered; may be empty when only `exists` or `problems` changed. */
  change(view: WatchView, events: ChangeEvent[]): void;
  end(view: WatchView, end: WatchEnd): void;
  /** The watch failed: undo what begin did (restore the screen); the error is reported after. */
  abort?(): void;
  /** Something to tell the user that does not stop the watch; `code` names it for --json. */
  warn(message: string, code?: WarningCode, facts?: Record<string, unknown>): void;
  /** Something worth telling that is not a problem (an input waited for, the run's list found). */
  note?(message: string, code?: NoteCode, facts?: Record<string, unknown>): void;
  /**
   * The session whose own list was watched was cleared: with `followed`, `view` is the
   * list it uses now, from its first state; else the watch stays where it was.
   */
  switched?(view: WatchView, change: ListSwitch): void;
  /**
   * The condition holds, but sessions of the list are at work and may add to it: the
   * watch waits for them (told again whenever who it waits for changes; with none, once
   * the wait is over).
   */
  waiting?(view: WatchView, busy: readonly BusySession[]): void;
  /**
   * A session of the list began to wait for a person (`on`; `view.waiting` holds the tasks
   * that wait on it), waits for something else now, or (undefined) no longer waits.
   */
  personWaiting?(view: WatchView, on: WaitingSession | undefined): void;
}

/**
 * `--fail-if-stalled`: how long, and how to know the tasks' times and the session's
 * activity. A followed run (a source with activityAt) stalls as a whole: nothing in its
 * input and no task changing for that long.
 */
export interface StallWatch {
  afterMs: number;
  /** When each task of the first state last changed (file times); unknown: from now. */
  initialTimes(tasks: readonly Task[]): Map<string, number>;
  /** Is a session of the list busy on a turn (then nothing stalls)? Asked only when a task is due. */
  sessionBusy(): boolean | undefined;
  /**
   * Of these tasks due, the ids of those that wait for a person (a session at a permission
   * prompt holds them): they do not stall, however long (progress/stalled-work.ts). Asked
   * only when a task is due and no session is at work.
   */
  waitingOf?(tasks: readonly Task[]): ReadonlySet<string>;
}

export interface WatchSessionOptions {
  /** What is followed: a list folder, or a run. */
  source(handlers: WatchSourceHandlers): WatchSource;
  filter: TaskFilter;
  until?: UntilCondition | undefined;
  /** When the condition is judged; continuously unless told. */
  judge?: JudgeWhen | undefined;
  timeoutMs?: number | undefined;
  stall?: StallWatch | undefined;
  clock: Clock;
  timers: Timers;
  /** Aborted: the watch stops (reason "stopped"), or fails when the first state has not come yet. */
  stop?: AbortSignal | undefined;
  /**
   * For a list watched for a condition: is every known session of the list over (no sign
   * of life left)? Asked every `everyMs`; true ends the watch as a followed session's end
   * does (session-ended), with the owners it leaves gone.
   */
  sessionsOver?: { check(): boolean; everyMs: number; goneOwners(): string[] } | undefined;
  /**
   * For a list watched for a condition: the sessions of the list that died holding work in
   * progress since the last look (the list as the watch sees it is given). Asked every
   * `everyMs`; any ends the watch (session-died): their work will not finish.
   */
  deaths?: { look(tasks: readonly Task[]): DiedSession[]; everyMs: number } | undefined;
  /**
   * For a list watched for `all-completed` or `empty`: the sessions at work on it now. While
   * any is, the condition is not met (an agent that plans a step at a time has all its
   * tasks so far completed between steps); looked at again every `everyMs` while it holds.
   */
  busy?: { look(): BusySession[]; everyMs: number } | undefined;
  /**
   * For `task:<id>:<status>` on a list folder: do its files show that this id was handed out
   * and its task is gone (the high-water mark reached it, or a higher id has a file;
   * docs/task-store.md section 4)? Asked while the task is absent and was not seen by this watch.
   */
  taskGone?: ((id: string) => boolean) | undefined;
  /**
   * The session the list's work in progress waits on now, if one waits for a person
   * (progress/stalled-work.ts listWaitedOn): looked at every `everyMs`, and once more as the
   * watch ends. Nothing in the list's files changes while it waits, so it is asked, not told.
   */
  personWait?: { look(): WaitingSession | undefined; everyMs: number } | undefined;
}

export interface WatchOutcome extends WatchEnd {
  view: WatchView;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * How long a deadline that passed before the first state was read waits for it: a list's
 * is read at once, and the end then reports it as it is; a run whose first event never
 * comes ends on an empty list after this. A run whose input has brought nothing at all
 * has no first state on its way: its end is not put off (looked at every step).
 */
const FIRST_STATE_GRACE_MS = 2_000;
const FIRST_STATE_STEP_MS = 50;
const RUN_END_REASON: Record<RunEnd['how'], EndReason> = {
  result: 'run-ended',
  'input-ended': 'input-ended',
  'session-ended': 'session-ended',
};

/** The tasks in progress that wait on the session that waits, while one does: those it holds, where it says (stalled-work.ts), else all. */
function waitingIn(all: readonly Task[], on: WaitingSession | undefined): Map<string, WaitingSession> {
  if (on === undefined) return new Map();
  const held = (t: Task) => on.holds === undefined || on.holds.includes(t.id);
  return new Map(all.filter((t) => t.status === 'in_progress' && held(t)).map((t) => [t.id, on]));
}

/** The ids of the tasks shown that wait for a person. */
export function shownWaiting(view: WatchView): string[] {
  return view.shown.filter((t) => view.waiting.has(t.id)).map((t) => t.id);
}

/**
 * One waiting spell, as a key: a new session, a new reason or a new start is a change; so
 * are other tasks waiting on it (a shared list's), which `needs-you` tells as its `ids`,
 * and another session of the list beginning or ending a wait (its `others`).
 */
function spellKey(on: WaitingSession | undefined): string {
  return on === undefined ? '' : `${on.session}|${on.waitingFor ?? ''}|${on.since ?? ''}|${on.holds?.join(',') ?? '*'}|${on.others ?? 0}`;
}

function viewOf(update: WatchUpdate, filter: TaskFilter, on: WaitingSession | undefined): WatchView {
  const all = [...update.snapshot.values()].sort((a, b) => compareIds(a.id, b.id));
  const index = indexTasks(all);
  const left = update.left?.map((l) => {
    const tasks = [...l.snapshot.values()].sort((a, b) => compareIds(a.id, b.id));
    const leftIndex = indexTasks(tasks);
    const shown = filterTasks(tasks, filter, leftIndex);
    return { list: l.list, exists: l.exists, shown, index: leftIndex, unfinished: shown.filter(isLeftWork) };
  });
  return {
    left,
    at: update.at,
    list: update.list,
    exists: update.exists,
    all,
    index,
    shown: filterTasks(all, filter, index),
    times: update.times ?? new Map(),
    problems: update.problems,
    unread: update.unread,
    unreadable: update.unreadable,
    nudge: verificationNudge(all),
    waiting: waitingIn(all, on),
  };
}

/**
 * One watch, from the first snapshot to its end: the condition is checked against the
 * first snapshot and after every change; the deadline, the stop signal, `stop()`, the
 * end of a followed run, or a stalled task (with --fail-if-stalled) end it too.
 */
export class WatchSession {
  private source: WatchSource | undefined;
  private deadlineTimer: unknown;
  /** The deadline passed before the first state was read: the first state ends the watch. */
  private deadlinePassed = false;
  /** Until when a deadline passed before the first state waits for it. */
  private graceEndsAt = 0;
  /** A run's source: when its input last brought anything, as the watch began. */
  private activityAtStart: number | undefined;
  private overTimer: unknown;
  private deathTimer: unknown;
  private stallTimer: unknown;
  /** --fail-if-stalled: a session of the list waited for a person at the last look. */
  private waited = false;
  /** When such a wait was seen to end: nothing stalls sooner than the stall time after. */
  private waitEndedAt: number | undefined;
  private busyTimer: unknown;
  private personTimer: unknown;
  /** The session the list's work waits on (a person to answer it), as last looked. */
  private personOn: WaitingSession | undefined;
  /** The sessions the condition met is waiting for, as last told (a key per session). */
  private waitingFor: string[] = [];
  private view: WatchView | undefined;
  /** When each task last changed, for --fail-if-stalled. */
  private changedAt = new Map<string, number>();
  private finished = false;
  /** Updates that came while the first state was on its way (a run's lines arrive in bursts). */
  private early: WatchUpdate[] = [];
  /** The followed run has made a change of its own. */
  private runActed = false;
  /** When any task last changed (a followed run's stall). */
  private lastChangeAt: number | undefined;
  /** The task a `task:<id>:<status>` condition names was seen by this watch. */
  private conditionTaskSeen = false;
  /** Tasks shown that went away completed: all-completed counts them while no task is left (gone-work.ts). */
  private readonly goneWork = new GoneWork();
  private resolve: ((o: WatchOutcome) => void) | undefined;
  private reject: ((err: unknown) => void) | undefined;
  private readonly onStop = () => {
    // Still waiting for a run's first event: nothing to show, only stop.
    if (!this.view) this.fail(new TasksError('interrupted', 'stopped before the run began'));
    else this.finish({ reason: 'stopped' });
  };

  constructor(
    private readonly opts: WatchSessionOptions,
    private readonly sink: WatchSink,
  ) {}

  run(): Promise<WatchOutcome> {
    return new Promise<WatchOutcome>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      const stop = this.opts.stop;
      if (stop?.aborted) {
        this.finished = true;
        reject(new TasksError('interrupted', 'stopped before the run began'));
        return;
      }
      stop?.addEventListener('abort', this.onStop, { once: true });
      const startedAt = this.opts.clock.now();
      const source = this.opts.source({
        onUpdate: (u) => this.onUpdate(u),
        onError: (err) => this.fail(err),
        onWarning: (message, code, facts) => this.sink.warn(message, code, facts),
        onNote: (message, code, facts) => this.sink.note?.(message, code, facts),
        onRunEnd: (end) => this.finish({ reason: RUN_END_REASON[end.how], run: end, died: end.died }),
      });
      this.source = source;
      this.activityAtStart = source.activityAt?.();
      // The deadline runs from the start: a run whose first event never comes is timed out too.
      // Armed only once the source is kept, so that a deadline already passed (which ends the
      // watch at once) closes it: a source opened after the end would keep the process alive.
      if (this.opts.timeoutMs !== undefined) this.armDeadline(startedAt + this.opts.timeoutMs);
      // So does a stall: an agent that prints nothing at all is as silent as one that stopped.
      if (this.opts.stall && source.activityAt !== undefined) this.armFirstStall(this.opts.stall.afterMs);
      Promise.resolve()
        .then(() => source.start())
        .then(
          (first) => this.begin(first),
          (err: unknown) => {
            this.cleanup();
            reject(err);
          },
        );
    });
  }

  private begin(first: WatchUpdate): void {
    if (this.finished) {
      // Ended while the first state was read (a deadline, a stop): nothing may stay open.
      this.source?.close();
      return;
    }
    this.personOn = this.opts.personWait?.look();
    this.view = viewOf(first, this.opts.filter, this.personOn);
    this.lastChangeAt = first.at;
    // A run that acted before its first state was read (its writes are in it).
    if (first.runActed) this.runActed = true;
    if (this.opts.stall) {
      const known = this.opts.stall.initialTimes(this.view.all);
      for (const t of this.view.all) this.changedAt.set(t.id, seenSince(known.get(t.id), first.at));
    }
    this.sink.begin(this.view);
    if (this.personOn !== undefined) this.sink.personWaiting?.(this.view, this.personOn);
    this.noteConditionTask();
    if (this.judgeCondition()) return;
    if (this.deadlinePassed) {
      this.finish({ reason: 'timeout' });
      return;
    }
    this.checkStalled();
    this.armOverCheck();
    this.armDeathCheck();
    this.armPersonCheck();
    for (const update of this.early.splice(0)) this.onUpdate(update);
  }

  /** Every so often: have the list's sessions all ended? Then nothing will change it. */
  private armOverCheck(): void {
    const over = this.opts.sessionsOver;
    if (over === undefined || this.finished) return;
    if (over.check()) {
      this.finish({ reason: 'session-ended', run: { how: 'session-ended' }, gone: over.goneOwners() });
      return;
    }
    this.overTimer = this.opts.timers.setTimeout(() => this.armOverCheck(), over.everyMs);
  }

  /** Every so often: has a session of the list died holding work? Then that work will not finish. */
  private armDeathCheck(): void {
    const deaths = this.opts.deaths;
    if (deaths === undefined || this.finished || !this.view) return;
    const died = deaths.look(this.view.shown);
    if (died.length > 0) {
      this.finish({ reason: 'session-died', died });
      return;
    }
    this.deathTimer = this.opts.timers.setTimeout(() => this.armDeathCheck(), deaths.everyMs);
  }

  private get judge(): JudgeWhen {
    return this.opts.judge ?? 'continuously';
  }

  /** May the condition end the watch now (before a followed run's end)? */
  private judgedNow(): boolean {
    return this.judge === 'continuously' || (this.judge === 'once-run-acted' && this.runActed);
  }

  /** Every so often: does a session of the list wait for a person now, or no longer? Told when that changes. */
  private armPersonCheck(): void {
    const wait = this.opts.personWait;
    if (wait === undefined || this.finished) return;
    this.personTimer = this.opts.timers.setTimeout(() => {
      if (this.finished || !this.view) return;
      const on = wait.look();
      if (spellKey(on) !== spellKey(this.personOn)) {
        this.personOn = on;
        // The view as of this look: an event told of it carries when the wait was seen to begin or end.
        this.view = { ...this.view, at: this.opts.clock.now(), waiting: waitingIn(this.view.all, on) };
        this.sink.personWaiting?.(this.view, on);
      }
      this.armPersonCheck();
    }, wait.everyMs);
  }

  /** setTimeout cannot wait more than about 24.8 days at once: wait in steps. */
  private armDeadline(at: number): void {
    const now = this.opts.clock.now();
    const left = at - now;
    if (left <= 0) {
      if (!this.view && !this.deadlinePassed) {
        // The first state may be being read (a deadline of 1 ms): the end reports it as it
        // is. Looked at again a step later: a run's input may only be starting to be read.
        this.deadlinePassed = true;
        this.graceEndsAt = now + FIRST_STATE_GRACE_MS;
        this.deadlineTimer = this.opts.timers.setTimeout(() => this.armDeadline(at), FIRST_STATE_STEP_MS);
        return;
      }
      if (!this.view && now < this.graceEndsAt && !this.nothingOnItsWay()) {
        this.deadlineTimer = this.opts.timers.setTimeout(() => this.armDeadline(at), Math.min(FIRST_STATE_STEP_MS, this.graceEndsAt - now));
        return;
      }
      // Nothing known yet (a run's first event never came): the end says so, on an empty list.
      if (!this.view) this.begin({ at: this.opts.clock.now(), events: [], exists: false, snapshot: new Map(), problems: [] });
      this.finish({ reason: 'timeout' });
      return;
    }
    this.deadlineTimer = this.opts.timers.setTimeout(() => this.armDeadline(at), Math.min(left, MAX_TIMER_MS));
  }

  /**
   * A run's input that has brought nothing since the watch began, looked at after its
   * deadline: no first state is on its way (a FIFO no writer opened, a silent pipe). A
   * list's first state always is.
   */
  private nothingOnItsWay(): boolean {
    const activityAt = this.source?.activityAt?.();
    return activityAt !== undefined && activityAt === this.activityAtStart;
  }

  /** --fail-if-stalled before a followed run's first event: once begun, checkStalled takes over. */
  private armFirstStall(inMs: number): void {
    this.stallTimer = this.opts.timers.setTimeout(() => this.checkFirstStall(), Math.min(inMs, MAX_TIMER_MS));
  }

  private checkFirstStall(): void {
    const afterMs = this.opts.stall?.afterMs;
    if (this.view || this.finished || afterMs === undefined) return;
    const now = this.opts.clock.now();
    const idleMs = now - (this.source?.activityAt?.() ?? now);
    if (idleMs < afterMs) {
      this.armFirstStall(afterMs - idleMs + 1);
      return;
    }
    // Nothing known yet: the end says so, on an empty list, as a deadline's does.
    this.begin({ at: now, events: [], exists: false, snapshot: new Map(), problems: [] });
    this.finish({ reason: 'stalled', stalled: [], idleMs });
  }

  /** End the watch as if interrupted (the live view's `q` and Ctrl-C keys). */
  stop(): void {
    this.finish({ reason: 'stopped' });
  }

  /**
   * Judge the condition now: met, the watch ends (true). Met while sessions of the list are
   * at work (`busy`), it waits: said to the sink, looked at again every `everyMs`.
   */
  private judgeCondition(): boolean {
    if (this.finished) return true;
    // A list that cannot be read now is judged when it reads again: its last read is no answer.
    if (this.view?.unreadable !== undefined) {
      this.stopWaiting();
      return false;
    }
    if (!this.judgedNow() || !this.holds()) {
      this.stopWaiting();
      // Ids are never handed out again: a deleted task's condition can no longer be met.
      // A run judged at its end is not cut short: its end says so (deletedTask below).
      const deleted = this.judge === 'continuously' ? this.deletedTask() : undefined;
      if (deleted !== undefined) {
        this.finish({ reason: 'task-deleted', deleted });
        return true;
      }
      return false;
    }
    const busy = this.waitsOnSessions() ? (this.opts.busy?.look() ?? []) : [];
    if (busy.length === 0) {
      if (this.waitingFor.length > 0 && this.source?.rescan !== undefined) {
        // The agent waited for went idle or ended: its last writes, made just before, may
        // not have reached the watch yet. Read the list again; a change is judged as it comes.
        this.stopWaiting();
        this.source.rescan();
        if (this.finished) return true;
        if (!this.holds()) return false;
      }
      this.finish({ reason: 'condition-met' });
      return true;
    }
    const keys = busy.map((b) => `${b.sessionId ?? ''}:${b.pid ?? ''}:${b.state}`).sort();
    if (keys.join(' ') !== this.waitingFor.join(' ') && this.view) this.sink.waiting?.(this.view, busy);
    this.waitingFor = keys;
    if (this.busyTimer !== undefined) this.opts.timers.clearTimeout(this.busyTimer);
    this.busyTimer = this.opts.timers.setTimeout(() => {
      this.busyTimer = undefined;
      if (!this.judgeCondition()) this.checkStalled();
    }, this.opts.busy?.everyMs ?? 1000);
    return false;
  }

  /**
   * Conditions an agent at work can meet too early: all-completed (it completes #1 before
   * it plans #2) and empty (it has not made its first task yet). `ready` and
   * `task:<id>:<status>` speak of what is there now, whoever works on.
   */
  private waitsOnSessions(): boolean {
    const kind = this.opts.until?.kind;
    return this.opts.busy !== undefined && (kind === 'all-completed' || kind === 'empty');
  }

  private stopWaiting(): void {
    if (this.busyTimer !== undefined) this.opts.timers.clearTimeout(this.busyTimer);
    this.busyTimer = undefined;
    // Told with no session: the wait is over (the condition no longer holds, or no one works).
    if (this.waitingFor.length > 0 && this.view) this.sink.waiting?.(this.view, []);
    this.waitingFor = [];
  }

  /**
   * The id a `task:<id>:<status>` condition names, when its task is known to be deleted: it
   * is absent from the list the watch began on, and this watch saw it there, or the list's
   * files show its id was handed out (taskGone). A task not made yet is not deleted.
   */
  private deletedTask(): string | undefined {
    const { until } = this.opts;
    const view = this.view;
    if (until?.kind !== 'task-status' || view === undefined) return undefined;
    // After a /clear the watch follows, ids name the tasks of the list it began on.
    const first = view.left?.[0]?.index ?? view.index;
    if (first.has(until.id)) {
      this.conditionTaskSeen = true;
      return undefined;
    }
    return this.conditionTaskSeen || this.opts.taskGone?.(until.id) === true ? until.id : undefined;
  }

  /** Never while the list cannot be read: a gate does not pass on tasks last read before that (a timeout's end says `met: false`). */
  private holds(): boolean {
    const { until } = this.opts;
    const view = this.view;
    // A task whose file does not read may be pending: every task completed, or none, is not known.
    const unknownTask = (view?.unread?.length ?? 0) > 0 && (until?.kind === 'all-completed' || until?.kind === 'empty');
    if (until === undefined || view === undefined || view.unreadable !== undefined || unknownTask) return false;
    // Every task it saw went away completed and none is left: the list's finished work, cleared by its agent.
    if (until.kind === 'all-completed' && this.goneWork.finished !== undefined && view.shown.length === 0 && (view.left ?? []).length === 0)
      return true;
    return untilHoldsAcross(
      until,
      { tasks: view.shown, index: view.index },
      (view.left ?? []).map((l) => ({ tasks: l.shown, index: l.index })),
    );
  }

  private onUpdate(update: WatchUpdate): void {
    if (this.finished) return;
    if (!this.view) {
      this.early.push(update);
      return;
    }
    const before = this.view;
    const view = viewOf(update, this.opts.filter, this.personOn);
    this.view = view;
    this.noteConditionTask(update.switched === undefined ? update.events : []);
    if (update.switched !== undefined) {
      this.onSwitch(view, update.switched);
      return;
    }
    if (update.runActed) this.runActed = true;
    if (update.events.length > 0) this.lastChangeAt = update.at;
    const shown = new Set(before.shown.map((t) => t.id));
    this.goneWork.note(update.events, (t) => shown.has(t.id));
    for (const e of update.events) {
      if (e.type === 'list-cleared') this.changedAt.clear();
      else if (e.type === 'deleted') this.changedAt.delete(e.task.id);
      else this.changedAt.set(e.task.id, update.at);
    }
    const events = filterEvents(update.events, this.opts.filter, before.index, view.index);
    this.sink.change(view, events);
    if (!this.judgeCondition()) this.checkStalled();
  }

  /**
   * The session was cleared. Followed: the new list's tasks start their stall clocks now,
   * and the condition is judged across the lists (the switch alone never meets it).
   * Not followed (`--no-follow`): a watch with a condition ends, as nothing will work the
   * list any more; one without goes on showing it.
   */
  private onSwitch(view: WatchView, change: ListSwitch): void {
    this.sink.switched?.(view, change);
    if (!change.followed) {
      if (this.opts.until !== undefined) this.finish({ reason: 'session-cleared', cleared: change });
      return;
    }
    this.changedAt.clear();
    for (const t of view.all) this.changedAt.set(t.id, seenSince(view.times.get(t.id), view.at));
    this.lastChangeAt = view.at;
    if (!this.judgeCondition()) this.checkStalled();
  }

  /**
   * --fail-if-stalled: end when a task shown has been in progress, unchanged, for that
   * long, no session is at work and no session at a prompt holds it; else look again when
   * the next one would be due.
   */
  private checkStalled(): void {
    const stall = this.opts.stall;
    if (!stall || !this.view || this.finished) return;
    if (this.stallTimer !== undefined) this.opts.timers.clearTimeout(this.stallTimer);
    // Nothing can be seen to change while the list cannot be read: its reading again is the next look.
    if (this.view.unreadable !== undefined) return;
    const now = this.opts.clock.now();
    const activityAt = this.source?.activityAt?.();
    if (activityAt !== undefined) {
      this.checkRunStalled(stall, now, activityAt);
      return;
    }
    const due = stalledTasks(this.view.shown, (id) => this.changedAt.get(id), now, stall.afterMs, undefined);
    if (due.length > 0) {
      // The rule list, lists and notify follow (progress/stalled-work.ts): nothing stalls while a session is at work; work
      // held by a session at a permission prompt waits, whatever the others do; the rest stalled.
      const idle = stalledTasks(this.view.shown, (id) => this.changedAt.get(id), now, stall.afterMs, stall.sessionBusy());
      const waits = idle.length > 0 ? (stall.waitingOf?.(idle.map((s) => s.task)) ?? new Set<string>()) : new Set<string>();
      const stalled = idle.filter((s) => !waits.has(s.id));
      // The wait for a person is not stalled time: the clock starts again when it ends.
      if (stalled.length === 0 && waits.size > 0) this.waited = true;
      else if (stalled.length > 0) {
        if (this.waited) {
          this.waited = false;
          this.waitEndedAt = now;
        }
        if (this.waitEndedAt === undefined || now - this.waitEndedAt >= stall.afterMs) {
          this.finish({ reason: 'stalled', stalled });
          return;
        }
      }
    }
    let next = stall.afterMs;
    for (const t of this.view.shown) {
      const at = this.changedAt.get(t.id);
      if (t.status === 'in_progress' && at !== undefined) next = Math.min(next, at + stall.afterMs - now);
    }
    // A busy or waiting session is asked again a second later; nothing in progress: the next change re-arms.
    this.stallTimer = this.opts.timers.setTimeout(() => this.checkStalled(), Math.min(MAX_TIMER_MS, Math.max(1000, next + 1)));
  }

  /**
   * A followed run stalls as a whole: its input silent, and no task changed, for that long;
   * an agent `tasks run` reads straight from, its output silent alone (activityOnly).
   */
  private checkRunStalled(stall: StallWatch, now: number, activityAt: number): void {
    const quietSince = this.source?.activityOnly === true ? activityAt : Math.max(activityAt, this.lastChangeAt ?? activityAt);
    const idleMs = now - quietSince;
    if (idleMs >= stall.afterMs) {
      const stalled = (this.view?.shown ?? [])
        .filter((t) => t.status === 'in_progress')
        .map((t) => ({ id: t.id, task: t, idleMs: now - (this.changedAt.get(t.id) ?? quietSince) }));
      this.finish({ reason: 'stalled', stalled, idleMs });
      return;
    }
    this.stallTimer = this.opts.timers.setTimeout(() => this.checkStalled(), Math.min(MAX_TIMER_MS, stall.afterMs - idleMs + 1));
  }

  private cleanup(): void {
    this.finished = true;
    this.source?.close();
    if (this.deadlineTimer !== undefined) this.opts.timers.clearTimeout(this.deadlineTimer);
    if (this.stallTimer !== undefined) this.opts.timers.clearTimeout(this.stallTimer);
    if (this.overTimer !== undefined) this.opts.timers.clearTimeout(this.overTimer);
    if (this.deathTimer !== undefined) this.opts.timers.clearTimeout(this.deathTimer);
    if (this.busyTimer !== undefined) this.opts.timers.clearTimeout(this.busyTimer);
    if (this.personTimer !== undefined) this.opts.timers.clearTimeout(this.personTimer);
    this.opts.stop?.removeEventListener('abort', this.onStop);
  }

  /**
   * Has the condition's task been seen (so that its going later is a deletion)? In the view,
   * or in the events that led to it: a run's burst can create and delete it in one update.
   * Events after a /clear the watch followed are the new list's, whose ids are others.
   */
  private noteConditionTask(events: readonly ChangeEvent[] = []): void {
    const { until } = this.opts;
    const view = this.view;
    if (until?.kind !== 'task-status' || view === undefined || this.conditionTaskSeen) return;
    if ((view.left?.[0]?.index ?? view.index).has(until.id)) this.conditionTaskSeen = true;
    else if (
      (view.left ?? []).length === 0 &&
      events.some((e) => (e.type === 'list-cleared' ? e.tasks.some((t) => t.id === until.id) : e.task.id === until.id))
    ) {
      this.conditionTaskSeen = true;
    }
  }

  private finish(end: Omit<WatchEnd, 'met'>): void {
    if (this.finished || !this.view) return;
    const met = this.metAtEnd(end.reason);
    // A followed run's source says when its input last brought anything: only runs have one.
    if (this.source?.activityAt !== undefined) end = { ...end, runChanged: this.runActed };
    // A run judged at its end, or a watch ended otherwise: whether its task was deleted, said with the end.
    if (!met && end.deleted === undefined) {
      const deleted = this.deletedTask();
      if (deleted !== undefined) end = { ...end, deleted };
    }
    // Looked at once more: a timeout's end says what it waited on, as it is now.
    const on = this.opts.personWait?.look();
    if (on !== undefined) end = { ...end, waiting: on };
    this.cleanup();
    const view = { ...this.view, at: this.opts.clock.now(), waiting: waitingIn(this.view.all, on) };
    const outcome: WatchOutcome = { ...end, met, view };
    try {
      this.sink.end(view, outcome);
    } catch (err) {
      this.reject?.(err);
      return;
    }
    this.resolve?.(outcome);
  }

  /** Whether the watch ends with its condition met, as its judging says. */
  private metAtEnd(reason: EndReason): boolean {
    if (!this.holds()) return false;
    // Held while a session still worked: not met, unless every session of the list is over now.
    if (this.waitingFor.length > 0 && reason !== 'condition-met' && reason !== 'session-ended') return false;
    if (this.judge === 'continuously') return true;
    // A run met its gate at its end (its result event), or, where asked, once it acted.
    return reason === 'run-ended' || reason === 'condition-met';
  }

  private fail(err: unknown): void {
    if (this.finished) return;
    this.cleanup();
    this.sink.abort?.();
    this.reject?.(err);
  }
}
