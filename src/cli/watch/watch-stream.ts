import type { NoteCode, WarningCode } from '../../core/base/notices.js';
import { countTasks } from '../../core/graph/blockers.js';
import type { WaitingSession } from '../../core/progress/stalled-work.js';
import type { FileProblem } from '../../core/store/list-read.js';
import type { ChangeEvent } from '../../core/watch/watch-diff.js';
import { type BusySession, shownWaiting, type WatchEnd, type WatchSink, type WatchView } from '../../core/watch/watch-session.js';
import type { ListSwitch } from '../../core/watch/watch-source.js';
import { renderSkippedWhileWatching } from '../../render/list-notes.js';
import { renderNote } from '../../render/note.js';
import { countsJson, personWaitJson, watchTasksJson } from '../../render/task-json.js';
import {
  type EndView,
  renderChangeEvent,
  renderEndEvent,
  renderNeedsYouEvent,
  renderSessionClearedEvent,
  renderSnapshotEvent,
  renderWaitingEvent,
} from '../../render/watch-events.js';
import { renderPersonWaiting, renderSessionCleared, renderWaitingForSessions } from '../../render/watch-outcome.js';
import type { Context } from '../runtime/context.js';

/** The end event's facts beyond the list: a run's end, stalled tasks, the nudge. */
function endExtras(
  view: WatchView,
  end: WatchEnd,
): Pick<EndView, 'run' | 'stalled' | 'idleMs' | 'gone' | 'died' | 'nudge' | 'left' | 'cleared' | 'deleted' | 'runChanged' | 'waiting'> {
  return {
    run: end.run && { result: end.run.subtype ?? null, isError: end.run.isError ?? null },
    stalled: end.stalled?.map((s) => ({ id: s.id, idleMs: Math.round(s.idleMs) })),
    idleMs: end.idleMs === undefined ? undefined : Math.round(end.idleMs),
    gone: end.gone,
    died: end.died?.map((d) => ({
      sessionId: d.sessionId,
      state: d.state,
      pid: d.pid ?? null,
      ...(d.exit === undefined ? {} : { exit: d.exit }),
      tasks: d.tasks.map((t) => t.id),
    })),
    nudge: view.nudge && { code: view.nudge.code, message: view.nudge.message },
    left: view.left?.map((l) => ({ list: l.list, unfinished: l.unfinished.map((t) => t.id) })),
    cleared: end.cleared && {
      session: end.cleared.sessionId,
      newSession: end.cleared.newSessionId,
      sure: end.cleared.sure,
      to: end.cleared.to,
    },
    deleted: end.deleted,
    runChanged: end.runChanged,
    waiting: end.waiting && personWaitJson(end.waiting, shownWaiting(view)),
  };
}

/**
 * `watch --json`, or a watch whose stdout is not a terminal: NDJSON on stdout, one event
 * per line, written as soon as it is known. Unreadable files are warned about on stderr,
 * once each until they read again; so is the verification nudge, when it comes due.
 */
export class StreamSink implements WatchSink {
  private warned = new Set<string>();
  private nudged = false;

  constructor(
    private readonly ctx: Context,
    private readonly listId: string | undefined,
    private readonly until: string | undefined,
  ) {}

  private stopFollowing: (() => void) | undefined;
  /** The change times of the last view: a deleted task keeps its own. */
  private lastTimes: ReadonlyMap<string, number> = new Map();

  begin(view: WatchView): void {
    this.lastTimes = view.times;
    this.ctx.io.out(
      renderSnapshotEvent(view.at, view.list ?? this.listId ?? null, view.exists, watchTasksJson(view.shown, view.times, view.waiting)),
    );
    // Between changes nothing is written, so a reader that went away would go unnoticed.
    this.stopFollowing = this.ctx.io.followReader();
    this.warnProblems(view.problems);
    this.tellNudge(view);
  }

  change(view: WatchView, events: ChangeEvent[]): void {
    const before = this.lastTimes;
    for (const e of events) {
      this.ctx.io.out(
        renderChangeEvent(
          view.at,
          e,
          (id) => view.times.get(id) ?? before.get(id),
          (id) => view.waiting.get(id),
        ),
      );
    }
    this.lastTimes = view.times;
    this.warnProblems(view.problems);
    this.tellNudge(view);
  }

  end(view: WatchView, end: WatchEnd): void {
    this.stopFollowing?.();
    this.ctx.io.out(
      renderEndEvent({
        at: view.at,
        list: view.list ?? this.listId ?? null,
        reason: end.reason,
        until: this.until,
        met: end.met,
        exists: view.exists,
        counts: countsJson(countTasks(view.shown, view.index)),
        tasks: watchTasksJson(view.shown, view.times, view.waiting),
        ...endExtras(view, end),
      }),
    );
  }

  switched(view: WatchView, change: ListSwitch): void {
    const list = change.followed ? { exists: view.exists, tasks: watchTasksJson(view.shown, view.times, view.waiting) } : undefined;
    this.ctx.io.out(renderSessionClearedEvent(view.at, change, list));
    if (change.followed) this.lastTimes = view.times;
    const unfinished = view.left?.at(-1)?.unfinished.length ?? 0;
    this.ctx.io.note(renderNote(renderSessionCleared(change, (id) => this.ctx.shortId(id), unfinished)), 'session_cleared', {
      sessionId: change.sessionId,
      newSessionId: change.newSessionId,
      sure: change.sure,
      from: change.from,
      to: change.to,
      followed: change.followed,
    });
  }

  /** Written as an event, and said on stderr: a gate's log shows why it has not passed yet. */
  waiting(view: WatchView, busy: readonly BusySession[]): void {
    // The wait is over: what ends it (an end event, or the next change) says enough.
    if (busy.length === 0) return;
    this.ctx.io.out(renderWaitingEvent(view.at, this.until, busy));
    this.ctx.io.note(renderNote(renderWaitingForSessions(this.until, busy)), 'waiting_for_session', {
      until: this.until ?? null,
      sessions: busy.map((b) => ({ session: b.sessionId ?? null, pid: b.pid ?? null, state: b.state })),
    });
  }

  /** Written as an event, and said on stderr when it begins: a log shows that the agent waits for someone. */
  personWaiting(view: WatchView, on: WaitingSession | undefined): void {
    const ids = shownWaiting(view);
    this.ctx.io.out(renderNeedsYouEvent(view.at, on, ids));
    if (on === undefined) return;
    this.ctx.io.note(renderNote(renderPersonWaiting(on, ids)), 'waiting_for_person', {
      ids,
      session: on.session,
      waitingFor: on.waitingFor ?? null,
    });
  }

  warn(message: string, code: WarningCode = 'watch_warning', facts?: Record<string, unknown>): void {
    this.ctx.io.warn(message, code, facts);
  }

  note(message: string, code: NoteCode = 'watch_note', facts?: Record<string, unknown>): void {
    this.ctx.io.note(renderNote(message), code, facts);
  }

  private tellNudge(view: WatchView): void {
    if (view.nudge && !this.nudged) this.ctx.io.note(renderNote(view.nudge.message), view.nudge.code);
    this.nudged = view.nudge !== undefined;
  }

  private warnProblems(problems: readonly FileProblem[]): void {
    const now = new Set<string>();
    for (const p of problems) {
      now.add(p.file);
      if (!this.warned.has(p.file)) this.ctx.io.warn(renderSkippedWhileWatching(p), 'file_skipped', { file: p.file, reason: p.reason });
    }
    this.warned = now;
  }
}
