import { pushAll } from '../core/base/many-items.js';
import type { BlockerAnswers, ListCounts } from '../core/graph/blockers.js';
import type { WaitingSession } from '../core/progress/stalled-work.js';
import type { GoneHeld } from '../core/sessions/gone-owners.js';
import type { FileProblem } from '../core/store/list-read.js';
import type { Task } from '../core/store/schema.js';
import type { ChangeEvent } from '../core/watch/watch-diff.js';
import { formatDuration } from './duration.js';
import { ago } from './elapsed.js';
import { fitStyled } from './fit.js';
import { renderProgressBar } from './progress-bar.js';
import { paintStatus } from './status.js';
import type { Style } from './style.js';
import { displayWidth, oneLine, truncate } from './text.js';
import { describeEvents } from './watch-change.js';
import { pickRows, renderRestLine, renderTaskRows, spinnerFrame } from './watch-rows.js';

export { SPINNER, SPINNER_INTERVAL_MS } from './watch-rows.js';

/** How long a changed task's id stays highlighted. */
const RECENT_MS = 5000;

/** Everything one frame of `tasks watch` shows; built by the command from the watcher's state. */
export interface WatchFrameModel {
  listId: string;
  dir: string;
  exists: boolean;
  /** The list named does not exist, said once the wait has gone on a while: `list "build-9" does not exist yet (did you mean build-99?)`. */
  missing?: string | undefined;
  /** A run's list is not known yet: none was named, and its agent has not said its session (whose own list it then is). */
  listUnknown?: boolean | undefined;
  /** The tasks shown (after the filters), in id order. */
  tasks: readonly Task[];
  /** The shown tasks' blockers, judged against every task of the list. */
  blockers: BlockerAnswers;
  /** The shown tasks by status, and how many wait on a blocker. */
  counts: ListCounts;
  /** How many tasks the filters hide. */
  hidden: number;
  /** "status pending, owner amy", when filters are on. */
  filterLabel?: string | undefined;
  problems: readonly FileProblem[];
  /** A warning that does not stop the watch ("cannot watch …; checking every 2s"). */
  notice?: string | undefined;
  /** The verification nudge, while it applies. */
  nudge?: string | undefined;
  /** Tasks in progress that wait for a person (id -> its session): marked on their rows. */
  waiting?: ReadonlyMap<string, WaitingSession> | undefined;
  /** Tasks in progress whose agent is gone (id -> why; history/list-owners.ts goneHeldInProgress): marked on their rows, no spinner. */
  gone?: ReadonlyMap<string, GoneHeld> | undefined;
  /** A session of the list waits for a person: "session proj-w1 (66666666) waits for a person (permission prompt): #1 waits on it". */
  personNote?: string | undefined;
  /** The session was cleared: "session 1a2b3c4d cleared: now following list 5e6f7a8b". */
  followNote?: string | undefined;
  /** What a run's watch reads ("the stream on stdin"); undefined for a list folder. */
  following?: string | undefined;
  lastChange?: { at: number; events: readonly ChangeEvent[] } | undefined;
  /** `--until`, as typed. */
  until?: string | undefined;
  /** When `--timeout` ends the watch (ms since the epoch). */
  deadline?: number | undefined;
  /**
   * The first task row shown, in id order, once the person has scrolled; undefined:
   * the view picks what fits (work in progress first).
   */
  scroll?: number | undefined;
  /** The `/` filter: its text, and whether it is still being typed. */
  search?: { text: string; typing: boolean } | undefined;
}

export interface FrameOptions {
  style: Style;
  /** Terminal size. */
  width: number;
  height: number;
  now: number;
  /**
   * The frame printed once the watch has ended, on the normal screen: no spinner, no
   * key help, every task (no height limit).
   */
  final?: boolean;
}

/** Does this frame need the spinner ticking? */
export function frameHasSpinner(tasks: readonly Task[], exists: boolean): boolean {
  return !exists || tasks.some((t) => t.status === 'in_progress');
}

function headerLine(m: WatchFrameModel, counts: ListCounts, o: FrameOptions, width: number): string {
  const { style } = o;
  const name = truncate(oneLine(m.listId), Math.max(8, Math.floor(width / 3)));
  const done = `${counts.completed}/${counts.total} done`;
  const blocked = (n: number) => (n > 0 ? ` (${paintStatus(style, 'blocked', `${n} blocked`)})` : '');
  const parts = [
    counts.in_progress > 0
      ? paintStatus(style, 'in_progress', `${counts.in_progress} in progress`) + blocked(counts.blockedInProgress)
      : '',
    counts.pending > 0 ? `${counts.pending} pending${blocked(counts.blockedPending)}` : '',
  ].filter(Boolean);
  const details = parts.length > 0 ? `  ${parts.join(style.dim(' · '))}` : '';
  const fixed = displayWidth(name) + 2 + 2 + displayWidth(done);
  let barWidth = Math.min(40, width - fixed - displayWidth(details.replace(/\u001b\[[0-9;]*m/g, '')));
  let tail = details;
  if (barWidth < 10) {
    tail = '';
    barWidth = Math.min(40, width - fixed);
  }
  const bar = barWidth >= 5 ? `  ${renderProgressBar(counts.completed, counts.total, barWidth, style)}` : '';
  return `${style.bold(name)}${bar}  ${style.bold(done)}${tail}`;
}

function bodyLines(m: WatchFrameModel, o: FrameOptions, width: number, rows: number): string[] {
  const { style } = o;
  if (!m.exists && m.listUnknown === true) {
    if (o.final) return [style.dim('No list: none was named, and the agent never said its session.')];
    return [
      `${style.cyan(spinnerFrame(o.now))} Waiting for the agent to say its session: the run's list is its session's own`,
      style.dim('  (or name one: -l <list>, CLAUDE_CODE_TASK_LIST_ID)'),
    ];
  }
  if (!m.exists && m.missing !== undefined) {
    return [
      o.final ? m.missing : `${style.cyan(spinnerFrame(o.now))} ${m.missing}; waiting for it`,
      style.dim(`  ${oneLine(m.dir)} (agents create it on first use)`),
    ];
  }
  if (!m.exists) {
    return [
      `${style.cyan(spinnerFrame(o.now))} Waiting for the list to appear: ${style.dim(oneLine(m.dir))}`,
      style.dim('  (agents create it on first use)'),
    ];
  }
  if (m.tasks.length === 0) {
    return [m.hidden > 0 ? style.dim(`No tasks match the filter (${m.hidden} hidden).`) : style.dim('No tasks yet.')];
  }
  const recent = new Set<string>();
  if (m.lastChange && o.now - m.lastChange.at < RECENT_MS && !o.final) {
    for (const e of m.lastChange.events) if (e.type !== 'list-cleared') recent.add(e.task.id);
  }
  const rowOptions = { style, width, now: o.now, final: Boolean(o.final), recent, waiting: m.waiting, gone: m.gone };
  if (!o.final && m.scroll !== undefined && m.tasks.length > rows) {
    // Scrolled: a window of the list in id order, and one line saying what lies beyond it.
    const room = Math.max(1, rows - 1);
    const start = Math.min(Math.max(0, m.scroll), m.tasks.length - room);
    const lines = renderTaskRows(m.tasks.slice(start, start + room), m.blockers, rowOptions);
    const below = m.tasks.length - start - room;
    lines.push(style.dim(`↑ ${start} above · ↓ ${below} below`));
    return lines;
  }
  const { shown, rest } = o.final ? { shown: [...m.tasks], rest: [] } : pickRows(m.tasks, m.blockers, rows);
  const lines = renderTaskRows(shown, m.blockers, rowOptions);
  if (rest.length > 0) lines.push(renderRestLine(rest, style));
  return lines;
}

function changeLine(m: WatchFrameModel, o: FrameOptions): string {
  const { style } = o;
  if (!m.lastChange) return style.dim('No changes yet.');
  const when = o.now - m.lastChange.at < 1000 ? 'just now' : ago(m.lastChange.at, o.now);
  return `${style.dim(`Last change ${when}:`)} ${describeEvents(m.lastChange.events, style)}`;
}

function problemLine(m: WatchFrameModel, style: Style): string | undefined {
  const first = m.problems[0];
  if (!first) return undefined;
  if (m.problems.length === 1) return style.yellow(`⚠ ${oneLine(first.file)} is unreadable (agents skip it too): ${oneLine(first.reason)}`);
  const names = m.problems.map((p) => oneLine(p.file)).join(', ');
  return style.yellow(`⚠ ${m.problems.length} files are unreadable (agents skip them too): ${names}`);
}

function footerLine(m: WatchFrameModel, o: FrameOptions): string {
  if (m.search?.typing) return `/${oneLine(m.search.text)}▏ ${o.style.dim('Enter keeps the filter · Esc clears it')}`;
  const parts = ['q quit'];
  if (m.tasks.length > taskRowsFor(m, o)) parts.push('↑↓ PgUp PgDn scroll');
  if (m.following) parts.push(`following ${m.following}`);
  if (m.until) parts.push(`until ${m.until}`);
  if (m.deadline !== undefined) parts.push(`timeout in ${formatDuration(m.deadline - o.now)}`);
  if (m.filterLabel) parts.push(`filter: ${m.filterLabel}`);
  if (m.hidden > 0) parts.push(`${m.hidden} hidden`);
  parts.push(m.search ? `/${oneLine(m.search.text)} (Esc clears)` : '/ filter');
  return o.style.dim(parts.join(' · '));
}

/**
 * One frame of the live view, as rows that each fit the width (one column is left
 * free: a character in the last column of the last row makes some terminals scroll):
 *
 *   refactor-auth  ██████████░░░░░░░░░░  2/5 done  1 in progress · 2 pending (1 blocked)
 *
 *   ✔ #1  Analyse code                               @researcher
 *   ⠹ #2  Refactoring auth module                    @coder
 *   ○ #4  Run tests                                               blocked by #2
 *   ○ #5  Write changelog
 *
 *   Last change 3s ago: #2 Refactor auth module: status pending → in progress
 *   q quit · until all-completed · timeout in 4m 03s
 */
function noticeLines(m: WatchFrameModel, style: Style): string[] {
  return [
    m.followNote ? style.cyan(`↪ ${oneLine(m.followNote)}`) : undefined,
    m.personNote ? style.yellow(`⚠ ${oneLine(m.personNote)}`) : undefined,
    problemLine(m, style),
    m.notice ? style.yellow(`⚠ ${oneLine(m.notice)}`) : undefined,
  ].filter((x) => x !== undefined);
}

/** How many rows the frame has for tasks: the height less the header, change line, notices and footer. */
export function taskRowsFor(m: WatchFrameModel, o: Pick<FrameOptions, 'height' | 'final' | 'style'>): number {
  const nudge = m.nudge === undefined ? 0 : 1;
  const chrome = o.final ? 2 + 2 * nudge : 5 + noticeLines(m, o.style).length + nudge;
  return Math.max(1, o.height - chrome);
}

/** The furthest a person can scroll: the last task on the last row, under the "above/below" line. */
export function maxScroll(m: WatchFrameModel, o: Pick<FrameOptions, 'height' | 'final' | 'style'>): number {
  return Math.max(0, m.tasks.length - Math.max(1, taskRowsFor(m, o) - 1));
}

export function renderWatchFrame(m: WatchFrameModel, o: FrameOptions): string[] {
  // One column for the left margin, one left free at the right edge.
  const width = Math.max(8, o.width - 2);
  const { counts } = m;
  const notices = noticeLines(m, o.style);
  const nudge = m.nudge ? o.style.yellow(`⚑ ${oneLine(m.nudge)}`) : undefined;
  const rows = taskRowsFor(m, o);
  const lines = [headerLine(m, counts, o, width), '', ...bodyLines(m, o, width, rows)];
  if (!o.final) {
    lines.push('', changeLine(m, o));
    if (nudge) lines.push(nudge);
    pushAll(lines, notices);
    lines.push(footerLine(m, o));
  } else {
    if (nudge) lines.push('', nudge);
    if (m.followNote) lines.push('', o.style.cyan(`↪ ${oneLine(m.followNote)}`));
    if (m.personNote) lines.push('', o.style.yellow(`⚠ ${oneLine(m.personNote)}`));
  }
  const fitted = lines.map((l) => (l === '' ? '' : fitStyled(` ${l}`, width + 1)));
  return o.final ? fitted : fitted.slice(0, Math.max(1, o.height));
}
