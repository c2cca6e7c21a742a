import { blockerState, countTasks, type ListCounts, type TaskIndex } from '../core/blockers.js';
import type { FileProblem } from '../core/list-read.js';
import type { Task } from '../core/schema.js';
import type { ChangeEvent } from '../core/watch-diff.js';
import { formatDuration } from './duration.js';
import { fitStyled } from './fit.js';
import { ago } from './lists-table.js';
import { renderProgressBar } from './progress-bar.js';
import { STATUS_SYMBOL, paintStatus } from './status.js';
import type { Style } from './style.js';
import { displayWidth, oneLine, padEnd, padStart, truncate } from './text.js';
import { describeEvents } from './watch-change.js';

/** Everything one frame of `tasks watch` shows; built by the command from the watcher's state. */
export interface WatchFrameModel {
  listId: string;
  dir: string;
  exists: boolean;
  /** The tasks shown (after the filters), in id order. */
  tasks: readonly Task[];
  /** Every task of the list: blockers are judged against all of them. */
  index: TaskIndex;
  /** How many tasks the filters hide. */
  hidden: number;
  /** "status pending, owner amy", when filters are on. */
  filterLabel?: string | undefined;
  problems: readonly FileProblem[];
  lastChange?: { at: number; events: readonly ChangeEvent[] } | undefined;
  /** `--until`, as typed. */
  until?: string | undefined;
  /** When `--timeout` ends the watch (ms since the epoch). */
  deadline?: number | undefined;
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

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** How often the spinner moves; the live view redraws this often only while one shows. */
export const SPINNER_INTERVAL_MS = 100;
/** How long a changed task's id stays highlighted. */
const RECENT_MS = 5000;

type Shown = Task['status'] | 'blocked';

function shownStatus(task: Task, index: TaskIndex): Shown {
  return task.status !== 'completed' && blockerState(task, index).open.length > 0 ? 'blocked' : task.status;
}

/** Does this frame need the spinner ticking? */
export function frameHasSpinner(tasks: readonly Task[], exists: boolean): boolean {
  return !exists || tasks.some((t) => t.status === 'in_progress');
}

function headerLine(m: WatchFrameModel, counts: ListCounts, o: FrameOptions, width: number): string {
  const { style } = o;
  const name = truncate(oneLine(m.listId), Math.max(8, Math.floor(width / 3)));
  const done = `${counts.completed}/${counts.total} done`;
  const parts = [
    counts.in_progress > 0 ? paintStatus(style, 'in_progress', `${counts.in_progress} in progress`) : '',
    counts.pending > 0 ? `${counts.pending} pending${counts.blocked > 0 ? ` (${paintStatus(style, 'blocked', `${counts.blocked} blocked`)})` : ''}` : '',
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

/** Which tasks fit in `rows`: those in progress first, then pending, blocked, and the latest done. */
function pickRows(tasks: readonly Task[], index: TaskIndex, rows: number): { shown: Task[]; rest: Task[] } {
  if (tasks.length <= rows) return { shown: [...tasks], rest: [] };
  const room = Math.max(0, rows - 1); // one row says what was left out
  const rank = (t: Task): number => {
    const s = shownStatus(t, index);
    return s === 'in_progress' ? 0 : s === 'pending' ? 1 : s === 'blocked' ? 2 : 3;
  };
  const order = [...tasks].sort((a, b) => rank(a) - rank(b) || (rank(a) === 3 ? Number(b.id) - Number(a.id) : Number(a.id) - Number(b.id)));
  const keep = new Set(order.slice(0, room));
  return { shown: tasks.filter((t) => keep.has(t)), rest: tasks.filter((t) => !keep.has(t)) };
}

function restLine(rest: readonly Task[], index: TaskIndex, style: Style): string {
  const counts = countTasks(rest, index);
  const parts = [
    counts.in_progress > 0 ? `${counts.in_progress} in progress` : '',
    counts.pending > 0 ? `${counts.pending} pending` : '',
    counts.completed > 0 ? `${counts.completed} done` : '',
  ].filter(Boolean);
  return style.dim(`… ${rest.length} more: ${parts.join(', ')}`);
}

function taskRows(m: WatchFrameModel, shown: readonly Task[], o: FrameOptions, width: number): string[] {
  const { style } = o;
  const recent = new Set<string>();
  if (m.lastChange && o.now - m.lastChange.at < RECENT_MS && !o.final) {
    for (const e of m.lastChange.events) if (e.type !== 'list-cleared') recent.add(e.task.id);
  }
  const rows = shown.map((t) => {
    const status = shownStatus(t, m.index);
    const { open, missing } = blockerState(t, m.index);
    return {
      task: t,
      status,
      id: `#${t.id}`,
      owner: t.owner ? `@${oneLine(t.owner)}` : '',
      blockers: status === 'blocked' || (t.status !== 'completed' && missing.length > 0) ? `blocked by ${[...open.map((x) => `#${x}`), ...missing.map((x) => `#${x}?`)].join(' ')}` : '',
    };
  });
  const idW = Math.max(2, ...rows.map((r) => r.id.length));
  let ownerW = Math.min(Math.max(20, Math.floor(width / 4)), Math.max(0, ...rows.map((r) => displayWidth(r.owner))));
  let blockW = Math.min(24, Math.max(0, ...rows.map((r) => displayWidth(r.blockers))));
  const fixed = () => 2 + idW + 2 + (ownerW > 0 ? ownerW + 2 : 0) + (blockW > 0 ? blockW + 2 : 0);
  if (width - fixed() < 16) blockW = 0;
  if (width - fixed() < 16) ownerW = 0;
  const labels = rows.map((r) => (r.status === 'in_progress' && r.task.activeForm ? oneLine(r.task.activeForm) : oneLine(r.task.subject)));
  // As wide as the longest label, so owners and blockers sit next to the text.
  const textW = Math.max(8, Math.min(width - fixed(), Math.max(...labels.map(displayWidth))));
  const spin = SPINNER[Math.floor(o.now / SPINNER_INTERVAL_MS) % SPINNER.length] as string;
  return rows.map((r, i) => {
    const t = r.task;
    const symbol = paintStatus(style, r.status, r.status === 'in_progress' && !o.final ? spin : STATUS_SYMBOL[r.status]);
    const id = recent.has(t.id) ? style.yellow(style.bold(padStart(r.id, idW))) : style.dim(padStart(r.id, idW));
    const cut = truncate(labels[i] as string, textW);
    const text = r.status === 'completed' ? style.dim(cut) : r.status === 'in_progress' ? style.cyan(cut) : cut;
    const owner = ownerW > 0 && r.owner ? style.magenta(truncate(r.owner, ownerW)) : '';
    const blockers = blockW > 0 && r.blockers ? style.red(truncate(r.blockers, blockW)) : '';
    // Pad only what has something after it: no trailing blanks to redraw.
    const cells = [`${symbol} ${id}`, text, owner, blockers];
    while (cells.length > 1 && cells[cells.length - 1] === '') cells.pop();
    return cells
      .map((c, k) => (k === cells.length - 1 ? c : k === 1 ? padEnd(c, textW) : k === 2 ? padEnd(c, ownerW) : c))
      .join('  ');
  });
}

function bodyLines(m: WatchFrameModel, o: FrameOptions, width: number, rows: number): string[] {
  const { style } = o;
  if (!m.exists) {
    return [
      `${style.cyan(SPINNER[Math.floor(o.now / SPINNER_INTERVAL_MS) % SPINNER.length] as string)} Waiting for the list to appear: ${style.dim(oneLine(m.dir))}`,
      style.dim('  (agents create it on first use)'),
    ];
  }
  if (m.tasks.length === 0) {
    return [m.hidden > 0 ? style.dim(`No tasks match the filter (${m.hidden} hidden).`) : style.dim('No tasks yet.')];
  }
  const { shown, rest } = o.final ? { shown: [...m.tasks], rest: [] } : pickRows(m.tasks, m.index, rows);
  const lines = taskRows(m, shown, o, width);
  if (rest.length > 0) lines.push(restLine(rest, m.index, style));
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
  const parts = ['q quit'];
  if (m.until) parts.push(`until ${m.until}`);
  if (m.deadline !== undefined) parts.push(`timeout in ${formatDuration(m.deadline - o.now)}`);
  if (m.filterLabel) parts.push(`filter: ${m.filterLabel}`);
  if (m.hidden > 0) parts.push(`${m.hidden} hidden`);
  return o.style.dim(parts.join(' · '));
}

/**
 * One frame of the live view, as rows that each fit the width (one column is left
 * free: a character in the last column of the last row makes some terminals scroll):
 *
 *   refactor-auth  ██████████░░░░░░░░░░  2/5 done  1 in progress · 2 pending · 1 blocked
 *
 *   ✔ #1  Analyse code                               @researcher
 *   ⠹ #2  Refactoring auth module                    @coder
 *   ■ #4  Run tests                                               blocked by #2
 *   ○ #5  Write changelog
 *
 *   Last change 3s ago: #2 Refactor auth module: status pending → in progress
 *   q quit · until all-completed · timeout in 4m 03s
 */
export function renderWatchFrame(m: WatchFrameModel, o: FrameOptions): string[] {
  // One column for the left margin, one left free at the right edge.
  const width = Math.max(8, o.width - 2);
  const counts = countTasks(m.tasks, m.index);
  const problem = problemLine(m, o.style);
  const chrome = o.final ? 2 : 5 + (problem ? 1 : 0);
  const rows = Math.max(1, o.height - chrome);
  const lines = [headerLine(m, counts, o, width), '', ...bodyLines(m, o, width, rows)];
  if (!o.final) {
    lines.push('', changeLine(m, o));
    if (problem) lines.push(problem);
    lines.push(footerLine(m, o));
  }
  const fitted = lines.map((l) => (l === '' ? '' : fitStyled(` ${l}`, width + 1)));
  return o.final ? fitted : fitted.slice(0, Math.max(1, o.height));
}

