import { maxOf } from '../core/base/many-items.js';
import type { BlockerAnswers } from '../core/graph/blockers.js';
import type { WaitingSession } from '../core/progress/stalled-work.js';
import type { GoneHeld } from '../core/sessions/gone-owners.js';
import { compareIds } from '../core/store/ids.js';
import type { Task } from '../core/store/schema.js';
import { blockersOf } from './blockers-of.js';
import { paintStatus, STATUS_SYMBOL } from './status.js';
import type { Style } from './style.js';
import { goneMark, waitingMark } from './task-table.js';
import { displayWidth, oneLine, padEnd, padStart, truncate } from './text.js';

/** The task rows of the live view (and of its final frame). */

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** How often the spinner moves; the live view redraws this often only while one shows. */
export const SPINNER_INTERVAL_MS = 100;

export function spinnerFrame(now: number): string {
  return SPINNER[Math.floor(now / SPINNER_INTERVAL_MS) % SPINNER.length] as string;
}

/** Which tasks fit in `rows`: those in progress first, then pending (waiting on a blocker last), and the latest done. */
export function pickRows(tasks: readonly Task[], blockers: BlockerAnswers, rows: number): { shown: Task[]; rest: Task[] } {
  if (tasks.length <= rows) return { shown: [...tasks], rest: [] };
  const room = Math.max(0, rows - 1); // one row says what was left out
  const rank = (t: Task): number => {
    if (t.status === 'in_progress') return 0;
    if (t.status === 'pending') return blockersOf(blockers, t.id).blocked ? 2 : 1;
    return 3;
  };
  const order = [...tasks].sort((a, b) => rank(a) - rank(b) || (rank(a) === 3 ? compareIds(b.id, a.id) : compareIds(a.id, b.id)));
  const keep = new Set(order.slice(0, room));
  return { shown: tasks.filter((t) => keep.has(t)), rest: tasks.filter((t) => !keep.has(t)) };
}

export function renderRestLine(rest: readonly Task[], style: Style): string {
  const counts = { in_progress: 0, pending: 0, completed: 0 };
  for (const t of rest) counts[t.status]++;
  const parts = [
    counts.in_progress > 0 ? `${counts.in_progress} in progress` : '',
    counts.pending > 0 ? `${counts.pending} pending` : '',
    counts.completed > 0 ? `${counts.completed} done` : '',
  ].filter(Boolean);
  return style.dim(`… ${rest.length} more: ${parts.join(', ')}`);
}

export interface RowOptions {
  style: Style;
  width: number;
  now: number;
  /** No spinner: the frame left on the screen once the watch ended. */
  final: boolean;
  /** Ids changed a moment ago: highlighted. */
  recent: ReadonlySet<string>;
  /** Tasks in progress that wait for a person (id -> its session): marked "waiting: permission prompt", as `list` marks them. */
  waiting?: ReadonlyMap<string, WaitingSession> | undefined;
  /** Tasks in progress whose agent is gone (id -> why): marked "agent gone: session 4aa21e64 crashed 4s ago", as `list` marks them. */
  gone?: ReadonlyMap<string, GoneHeld> | undefined;
}

/**
 * One row a task: status symbol (a spinner while in progress), id, subject (the
 * activeForm while in progress), owner, open blockers; columns aligned, cut to `width`.
 */
export function renderTaskRows(shown: readonly Task[], blockers: BlockerAnswers, o: RowOptions): string[] {
  const { width, recent } = o;
  const { style } = o;
  const rows = shown.map((t) => {
    // The status as stored (a spinner while in progress), and beside it what it waits on.
    const status = t.status;
    const { open, missing } = blockersOf(blockers, t.id);
    return {
      task: t,
      status,
      id: `#${oneLine(t.id)}`,
      owner: t.owner ? `@${oneLine(t.owner)}` : '',
      blockers:
        t.status !== 'completed' && open.length + missing.length > 0
          ? `blocked by ${[...open.map((x) => `#${oneLine(x)}`), ...missing.map((x) => `#${oneLine(x)}?`)].join(' ')}`
          : '',
    };
  });
  const idW = Math.max(2, maxOf(rows.map((r) => r.id.length)));
  let ownerW = Math.min(Math.max(20, Math.floor(width / 4)), Math.max(0, maxOf(rows.map((r) => displayWidth(r.owner)))));
  let blockW = Math.min(24, Math.max(0, maxOf(rows.map((r) => displayWidth(r.blockers)))));
  const fixed = () => 2 + idW + 2 + (ownerW > 0 ? ownerW + 2 : 0) + (blockW > 0 ? blockW + 2 : 0);
  if (width - fixed() < 16) blockW = 0;
  if (width - fixed() < 16) ownerW = 0;
  const labels = rows.map((r) => (r.status === 'in_progress' && r.task.activeForm ? oneLine(r.task.activeForm) : oneLine(r.task.subject)));
  // A gone agent's task is marked as such first: nobody will answer its prompt any more.
  const goneMarks = rows.map((r) => (r.status === 'in_progress' ? goneMark(o.gone?.get(r.task.id), o.now) : ''));
  const marks = rows.map((r, i) => goneMarks[i] || waitingMark(o.waiting?.get(r.task.id)));
  // As wide as the longest label (with its mark), so owners and blockers sit next to the text.
  const textW = Math.max(
    8,
    Math.min(width - fixed(), maxOf(labels.map((l, i) => displayWidth(l) + (marks[i] ? 1 + displayWidth(marks[i] as string) : 0)))),
  );
  const spin = spinnerFrame(o.now);
  return rows.map((r, i) => {
    const t = r.task;
    // A task that waits for a person does not spin: nothing moves until someone answers; nor does one whose agent is gone.
    const spins = r.status === 'in_progress' && !o.final && !marks[i];
    const symbol = paintStatus(style, r.status, spins ? spin : STATUS_SYMBOL[r.status]);
    const id = recent.has(t.id) ? style.yellow(style.bold(padStart(r.id, idW))) : style.dim(padStart(r.id, idW));
    // The mark is kept whole: it is why the row matters.
    const mark = marks[i] as string;
    const cut = truncate(labels[i] as string, mark ? Math.max(4, textW - displayWidth(mark) - 1) : textW);
    const painted = r.status === 'completed' ? style.dim(cut) : r.status === 'in_progress' ? style.cyan(cut) : cut;
    const text = mark ? `${painted} ${goneMarks[i] ? style.red(mark) : style.yellow(mark)}` : painted;
    const owner = ownerW > 0 && r.owner ? style.magenta(truncate(r.owner, ownerW)) : '';
    const blockers = blockW > 0 && r.blockers ? style.red(truncate(r.blockers, blockW)) : '';
    const cells = [`${symbol} ${id}`, padEnd(text, textW)];
    if (ownerW > 0) cells.push(padEnd(owner, ownerW));
    if (blockW > 0) cells.push(blockers);
    // No trailing blanks: less to write on each redraw.
    return cells.join('  ').replace(/ +$/, '');
  });
}
