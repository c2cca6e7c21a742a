import { indexTasks, type TaskIndex } from '../core/graph/blockers.js';
import type { Clock } from '../core/base/clock.js';
import { filterTasks, type TaskFilter } from '../core/lists/task-filter.js';
import { compareIds } from '../core/store/ids.js';
import type { FileProblem } from '../core/store/list-read.js';
import { ListWatcher, type WatchUpdate } from '../core/watch/list-watcher.js';
import type { Task } from '../core/store/schema.js';
import { untilHolds, type UntilCondition } from '../core/watch/watch-condition.js';
import type { ChangeEvent } from '../core/watch/watch-diff.js';
import { filterEvents } from '../core/watch/watch-filter.js';
import type { EndReason } from '../render/watch-events.js';

/** The list as a watch shows it at one moment. */
export interface WatchView {
  at: number;
  exists: boolean;
  /** Every task, id order. */
  all: Task[];
  index: TaskIndex;
  /** The tasks that pass the filters, id order. */
  shown: Task[];
  problems: FileProblem[];
}

/** Where a watch sends what it sees: the NDJSON stream or the live view. */
export interface WatchSink {
  begin(view: WatchView): void;
  /** `events` are already filtered; may be empty when only `exists` or `problems` changed. */
  change(view: WatchView, events: ChangeEvent[]): void;
  end(view: WatchView, reason: EndReason, met: boolean): void;
  /** The watch failed: undo what begin did (restore the screen); the error is reported after. */
  abort?(): void;
  /** Something to tell the user that does not stop the watch. */
  warn(message: string): void;
}

export interface WatchSessionOptions {
  dir: string;
  filter: TaskFilter;
  until?: UntilCondition | undefined;
  timeoutMs?: number | undefined;
  clock: Clock;
}

export interface WatchOutcome {
  reason: EndReason;
  /** Whether the --until condition held at the end (false without one). */
  met: boolean;
  view: WatchView;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const MAX_TIMER_MS = 2 ** 31 - 1;

function viewOf(update: WatchUpdate, filter: TaskFilter): WatchView {
  const all = [...update.snapshot.values()].sort((a, b) => compareIds(a.id, b.id));
  const index = indexTasks(all);
  return { at: update.at, exists: update.exists, all, index, shown: filterTasks(all, filter, index), problems: update.problems };
}

/**
 * One watch, from the first snapshot to its end: the condition is checked against the
 * first snapshot and after every change; the deadline, a signal (SIGINT, SIGTERM,
 * SIGHUP) or `stop()` end it too. The caller turns the outcome into an exit status.
 */
export class WatchSession {
  private watcher: ListWatcher | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private view: WatchView | undefined;
  private finished = false;
  private resolve: ((o: WatchOutcome) => void) | undefined;
  private reject: ((err: unknown) => void) | undefined;
  private readonly onSignal = () => this.finish('stopped');

  constructor(
    private readonly opts: WatchSessionOptions,
    private readonly sink: WatchSink,
  ) {}

  run(): Promise<WatchOutcome> {
    return new Promise<WatchOutcome>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      const watcher = new ListWatcher(
        { dir: this.opts.dir, clock: this.opts.clock },
        {
          onUpdate: (u) => this.onUpdate(u),
          onError: (err) => this.fail(err),
          onWarning: (message) => this.sink.warn(message),
        },
      );
      this.watcher = watcher;
      try {
        this.view = viewOf(watcher.start(), this.opts.filter);
      } catch (err) {
        watcher.close();
        reject(err);
        return;
      }
      for (const s of STOP_SIGNALS) process.on(s, this.onSignal);
      const deadline = this.opts.timeoutMs === undefined ? undefined : this.opts.clock.now() + this.opts.timeoutMs;
      this.sink.begin(this.view);
      if (this.holds()) this.finish('condition-met');
      else if (deadline !== undefined) this.armDeadline(deadline);
    });
  }

  /** setTimeout cannot wait more than about 24.8 days at once: wait in steps. */
  private armDeadline(at: number): void {
    const left = at - this.opts.clock.now();
    if (left <= 0) {
      this.finish('timeout');
      return;
    }
    this.deadlineTimer = setTimeout(() => this.armDeadline(at), Math.min(left, MAX_TIMER_MS));
  }

  /** End the watch as if interrupted (the live view's `q` and Ctrl-C keys). */
  stop(): void {
    this.finish('stopped');
  }

  private holds(): boolean {
    const { until } = this.opts;
    return until !== undefined && this.view !== undefined && untilHolds(until, this.view.shown, this.view.index);
  }

  private onUpdate(update: WatchUpdate): void {
    if (this.finished) return;
    const before = this.view;
    const view = viewOf(update, this.opts.filter);
    this.view = view;
    const events = before ? filterEvents(update.events, this.opts.filter, before.index, view.index) : update.events;
    this.sink.change(view, events);
    if (this.holds()) this.finish('condition-met');
  }

  private cleanup(): void {
    this.finished = true;
    this.watcher?.close();
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    for (const s of STOP_SIGNALS) process.off(s, this.onSignal);
  }

  private finish(reason: EndReason): void {
    if (this.finished || !this.view) return;
    this.cleanup();
    const met = this.holds();
    const view = { ...this.view, at: this.opts.clock.now() };
    try {
      this.sink.end(view, reason, met);
    } catch (err) {
      this.reject?.(err);
      return;
    }
    this.resolve?.({ reason, met, view });
  }

  private fail(err: unknown): void {
    if (this.finished) return;
    this.cleanup();
    this.sink.abort?.();
    this.reject?.(err);
  }
}
