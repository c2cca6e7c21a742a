/**
 * The live view: the alternate screen, redrawn in place. A frame is rendered on every
 * change, on a resize, and on a timer (every 100 ms while a spinner shows, else once a
 * second for the "3s ago" texts); only rows that differ are written, and nothing at all
 * when the frame is unchanged, so it does not flicker and costs little while idle.
 */

import type { Clock } from '../../core/base/clock.js';
import type { WarningCode } from '../../core/base/notices.js';
import { type BlockerAnswers, blockerAnswers, countTasks, type ListCounts } from '../../core/graph/blockers.js';
import type { WaitingSession } from '../../core/progress/stalled-work.js';
import type { GoneHeld } from '../../core/sessions/gone-owners.js';
import type { Task } from '../../core/store/schema.js';
import type { ChangeEvent } from '../../core/watch/watch-diff.js';
import { type BusySession, shownWaiting, type WatchEnd, type WatchSink, type WatchView } from '../../core/watch/watch-session.js';
import type { ListSwitch } from '../../core/watch/watch-source.js';
import { SCREEN, screenPatch } from '../../render/screen.js';
import type { Style } from '../../render/style.js';
import {
  frameHasSpinner,
  maxScroll,
  renderWatchFrame,
  SPINNER_INTERVAL_MS,
  taskRowsFor,
  type WatchFrameModel,
} from '../../render/watch-frame.js';
import { deathWords, renderPersonWaiting, renderSessionCleared, renderWaitingForSessions } from '../../render/watch-outcome.js';
import type { Terminal } from '../runtime/terminal.js';
import { keyActions, type WatchAction } from './watch-keys.js';

export interface LiveOptions {
  listId: string;
  /** No list was named (a run's, or a stream's): until the watch says one, none is known. */
  listUnnamed?: boolean | undefined;
  /** How the header names a list (a session's by its short id). */
  listName?: ((id: string) => string) | undefined;
  /** The folder of the list shown now (after /clear, the one followed), named while it does not exist. */
  dir(): string;
  until?: string | undefined;
  deadline?: number | undefined;
  filterLabel?: string | undefined;
  /** What a run's watch reads: "the stream on stdin", "transcript of session 2d483082". */
  following?: string | undefined;
  style: Style;
  clock: Clock;
  /** Called when the user asks to quit (q, Ctrl-C). */
  onQuit(): void;
  /** Where the final frame goes once the watch ended on its own (stdout). */
  print(text: string): void;
  /**
   * The tasks in progress of list `listId` whose agent is gone, as `list` marks them (history/list-owners.ts
   * goneHeldInProgress, read afresh): looked at every GONE_LOOK_MS, since a death changes no file of the list.
   */
  goneHeld?: ((listId: string, tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>) | undefined;
  /**
   * A list named that does not exist: from `after` (ms since the epoch) on, what is said of
   * list `listId` while it does not (`list "build-9" does not exist yet (did you mean
   * build-99?)`), undefined for a list not named (a session's own, made by its first task).
   */
  missingList?: { after: number; words(listId: string): string | undefined } | undefined;
  /** Called as the view begins, or fails before it could (a line shown until then is erased). */
  beforeView?: (() => void) | undefined;
}

/** How often the live view asks whose agent is gone (a fresh look at the sessions: not every frame). */
const GONE_LOOK_MS = 2000;

/** The same tasks marked gone, for the same reasons: nothing to redraw. */
function sameGone(a: ReadonlyMap<string, GoneHeld>, b: ReadonlyMap<string, GoneHeld>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, h] of a) if (b.get(id)?.why !== h.why) return false;
  return true;
}

/**
 * The tasks a followed run's dead session held, as `list` marks a gone agent's ("agent
 * gone: session 7c0ffee0 was killed by SIGKILL"): the run's own judgement of its death
 * (its end's `died`, run-model.ts held), not a second one. By id.
 */
export function heldByDeaths(died: WatchEnd['died']): Map<string, GoneHeld> {
  const held = new Map<string, GoneHeld>();
  for (const d of died ?? []) {
    const why = `session ${d.sessionId.slice(0, 8)} ${deathWords(d)}`;
    for (const task of d.tasks) held.set(task.id, { task, why, session: undefined, unowned: !task.owner });
  }
  return held;
}

/** The `/` filter: the text anywhere in a task's id, subject, activeForm or owner, any case. */
function matchesText(task: Task, text: string): boolean {
  const needle = text.toLowerCase();
  return [`#${task.id}`, task.subject, task.activeForm ?? '', task.owner ?? ''].some((s) => s.toLowerCase().includes(needle));
}

export class LiveSink implements WatchSink {
  private view: WatchView | undefined;
  private lastChange: { at: number; events: ChangeEvent[] } | undefined;
  private prev: string[] | undefined;
  private notice: string | undefined;
  /** The notice that says the list's path does not read, while it does not. */
  private unreadableNotice: string | undefined;
  /** The notice that says whom --until waits for, while it does. */
  private waitNotice: string | undefined;
  /** The session of the list that waits for a person, while one does. */
  private personOn: WaitingSession | undefined;
  /** That the session was cleared and where the watch went. */
  private followNote: string | undefined;
  /** The tasks in progress whose agent is gone, as last looked at, and when to look again. */
  private gone: ReadonlyMap<string, GoneHeld> = new Map();
  private goneTimer: NodeJS.Timeout | undefined;
  private entered = false;
  private done = false;
  private enterTimer: NodeJS.Immediate | undefined;
  private tickTimer: NodeJS.Timeout | undefined;
  private unsubscribe: Array<() => void> = [];
  private readonly restoreOnExit = () => this.leave();
  /** Where the person scrolled to (undefined: not scrolled), and the `/` filter. */
  private scroll: number | undefined;
  private search: { text: string; typing: boolean } | undefined;
  /** The tasks a frame shows, with their blockers and counts: worked out once a view and filter text, not once a frame. */
  private shown: { view: WatchView; text: string; tasks: readonly Task[]; blockers: BlockerAnswers; counts: ListCounts } | undefined;

  constructor(
    private readonly term: Terminal,
    private readonly opts: LiveOptions,
  ) {}

  begin(view: WatchView): void {
    this.opts.beforeView?.();
    this.view = view;
    // Entered on the next turn: if --until already holds, the view never flashes up.
    this.enterTimer = setImmediate(() => this.enter());
  }

  change(view: WatchView, events: ChangeEvent[]): void {
    // The list reads again: what was said of its path no longer holds.
    if (view.unreadable === undefined && this.notice !== undefined && this.notice === this.unreadableNotice) this.notice = undefined;
    this.view = view;
    if (events.length > 0) this.lastChange = { at: view.at, events };
    if (this.entered) this.draw();
  }

  end(view: WatchView, end: WatchEnd): void {
    this.view = view;
    this.personOn = end.waiting;
    this.leave();
    // The frame left behind says what `list` would, a death seen since the last look included;
    // a followed run's own death (its input ended holding work) marks the tasks it held.
    if (end.reason !== 'stopped') this.lookGone();
    if (end.died !== undefined && end.run !== undefined) this.gone = new Map([...this.gone, ...heldByDeaths(end.died)]);
    // Interrupted: the shell's screen comes back as it was. Ended on its own: leave the
    // final state of the list behind, as `tasks list` would show it.
    if (end.reason !== 'stopped') {
      const { width, height } = this.term.size();
      this.opts.print(
        renderWatchFrame(this.model(), { style: this.opts.style, width, height, now: this.opts.clock.now(), final: true }).join('\n'),
      );
    }
  }

  abort(): void {
    this.opts.beforeView?.();
    this.leave();
  }

  /** The session was cleared: said on the view, which from now on shows the list followed. */
  switched(view: WatchView, change: ListSwitch): void {
    this.view = view;
    this.lastChange = undefined;
    this.scroll = undefined;
    const name = this.opts.listName ?? ((id: string) => id);
    this.followNote = renderSessionCleared(change, name, view.left?.at(-1)?.unfinished.length ?? 0);
    if (this.entered) this.draw();
  }

  /** The condition holds while an agent works: said on the view, until it is met or no longer holds. */
  waiting(_view: WatchView, busy: readonly BusySession[]): void {
    if (busy.length > 0) {
      this.waitNotice = renderWaitingForSessions(this.opts.until, busy);
      this.warn(this.waitNotice);
    } else if (this.notice === this.waitNotice) {
      this.waitNotice = undefined;
      this.notice = undefined;
      if (this.entered) this.draw();
    }
  }

  /** A session of the list waits for a person (or no longer does): its tasks are marked, and a line names it. */
  personWaiting(view: WatchView, on: WaitingSession | undefined): void {
    this.view = view;
    this.personOn = on;
    if (this.entered) this.draw();
  }

  /** Shown on the view (stderr would scribble over it). */
  warn(message: string, code?: WarningCode): void {
    this.notice = message;
    if (code === 'list_unreadable') this.unreadableNotice = message;
    if (this.entered) this.draw();
  }

  private enter(): void {
    if (this.done) return;
    this.entered = true;
    this.term.write(SCREEN.enter);
    process.once('exit', this.restoreOnExit);
    this.unsubscribe.push(
      this.term.onResize(() => this.redrawAll()),
      this.term.onKey((chunk) => {
        for (const action of keyActions(chunk, Boolean(this.search?.typing))) this.act(action);
      }),
    );
    this.lookGone();
    this.draw();
  }

  /** Whose agent is gone among the tasks in progress: looked at now, then every GONE_LOOK_MS while the view shows. */
  private lookGone(): void {
    const look = this.opts.goneHeld;
    if (look === undefined || !this.view) return;
    if (this.goneTimer) clearTimeout(this.goneTimer);
    const view = this.view;
    const before = this.gone;
    this.gone = view.exists ? look(view.list ?? this.opts.listId, view.all) : new Map();
    if (this.done) return;
    this.goneTimer = setTimeout(() => this.lookGone(), GONE_LOOK_MS);
    if (!sameGone(before, this.gone)) this.draw();
  }

  private act(action: WatchAction): void {
    if (action.type === 'quit') {
      this.opts.onQuit();
      return;
    }
    if (action.type === 'redraw') {
      this.redrawAll();
      return;
    }
    const { height } = this.term.size();
    const frame = { height, style: this.opts.style };
    switch (action.type) {
      case 'scroll': {
        const step = action.by === 'line' ? 1 : Math.max(1, taskRowsFor(this.model(), frame) - 1);
        this.scroll = (this.scroll ?? 0) + step * action.direction;
        break;
      }
      case 'scroll-to':
        this.scroll = action.where === 'top' ? 0 : Number.MAX_SAFE_INTEGER;
        break;
      case 'filter-start':
        this.search = { text: this.search?.text ?? '', typing: true };
        break;
      case 'filter-text':
        if (this.search) this.search = { ...this.search, text: this.search.text + action.text };
        this.scroll = this.scroll === undefined ? undefined : 0;
        break;
      case 'filter-erase':
        if (this.search) this.search = { ...this.search, text: [...this.search.text].slice(0, -1).join('') };
        break;
      case 'filter-done':
        this.search = this.search && this.search.text !== '' ? { ...this.search, typing: false } : undefined;
        break;
      case 'filter-clear':
        this.search = undefined;
        this.scroll = undefined;
        break;
    }
    if (this.scroll !== undefined) this.scroll = Math.min(Math.max(0, this.scroll), maxScroll(this.model(), frame));
    this.draw();
  }

  private leave(): void {
    this.done = true;
    if (this.enterTimer) clearImmediate(this.enterTimer);
    if (this.tickTimer) clearTimeout(this.tickTimer);
    if (this.goneTimer) clearTimeout(this.goneTimer);
    for (const off of this.unsubscribe.splice(0)) off();
    process.off('exit', this.restoreOnExit);
    if (this.entered) {
      this.entered = false;
      this.term.write(SCREEN.leave);
    }
  }

  /** The tasks shown (the `/` filter applied), with their blockers and counts, as core answers them. */
  private shownTasks(view: WatchView): { tasks: readonly Task[]; blockers: BlockerAnswers; counts: ListCounts } {
    const text = this.search?.text ?? '';
    if (this.shown?.view === view && this.shown.text === text) return this.shown;
    const tasks = text !== '' ? view.shown.filter((t) => matchesText(t, text)) : view.shown;
    this.shown = { view, text, tasks, blockers: blockerAnswers(tasks, view.index), counts: countTasks(tasks, view.index) };
    return this.shown;
  }

  private model(): WatchFrameModel {
    const view = this.view as WatchView;
    const { tasks, blockers, counts } = this.shownTasks(view);
    const filtered = this.opts.filterLabel !== undefined || tasks.length !== view.shown.length;
    return {
      listId: (this.opts.listName ?? ((id: string) => id))(view.list ?? this.opts.listId),
      dir: this.opts.dir(),
      missing: this.missingWords(view),
      listUnknown: this.opts.listUnnamed === true && view.list === undefined,
      following: this.opts.following,
      nudge: view.nudge?.message,
      exists: view.exists,
      tasks,
      blockers,
      counts,
      hidden: filtered ? view.all.length - tasks.length : 0,
      filterLabel: this.opts.filterLabel,
      scroll: this.scroll,
      search: this.search,
      problems: view.problems,
      notice: this.notice,
      waiting: view.waiting,
      gone: this.gone,
      personNote: this.personOn && renderPersonWaiting(this.personOn, shownWaiting(view)),
      followNote: this.followNote,
      lastChange: this.lastChange,
      until: this.opts.until,
      deadline: this.opts.deadline,
    };
  }

  /** What is said of a list named that is not there, once it has been waited for a while. */
  private missingWords(view: WatchView): string | undefined {
    const missing = this.opts.missingList;
    if (missing === undefined || view.exists || this.opts.clock.now() < missing.after) return undefined;
    return missing.words(view.list ?? this.opts.listId);
  }

  private redrawAll(): void {
    if (!this.entered) return;
    this.prev = undefined;
    this.term.write(SCREEN.clear);
    this.draw();
  }

  private draw(): void {
    if (!this.entered || !this.view) return;
    if (this.tickTimer) clearTimeout(this.tickTimer);
    const now = this.opts.clock.now();
    const { width, height } = this.term.size();
    const lines = renderWatchFrame(this.model(), { style: this.opts.style, width, height, now });
    const patch = screenPatch(this.prev, lines);
    if (patch !== '') this.term.write(patch);
    this.prev = lines;
    const period = frameHasSpinner(this.view.shown, this.view.exists) ? SPINNER_INTERVAL_MS : 1000;
    this.tickTimer = setTimeout(() => this.draw(), period - (now % period) + 1);
  }
}
