import { maxOf } from '../core/base/many-items.js';
import type { BlockerAnswers, BlockerState, ListCounts } from '../core/graph/blockers.js';
import type { WaitingSession } from '../core/progress/stalled-work.js';
import type { GoneHeld } from '../core/sessions/gone-owners.js';
import { isTaskId } from '../core/store/ids.js';
import type { Task } from '../core/store/schema.js';
import { blockersOf } from './blockers-of.js';
import { ago, idleFor } from './elapsed.js';
import { waitingForText } from './session-text.js';
import { paintStatus, STATUS_WORD, statusLabel } from './status.js';
import type { Style } from './style.js';
import { displayWidth, oneLine, padEnd, padStart, truncate } from './text.js';

export interface TableOptions {
  style: Style;
  /** Terminal width in columns. */
  width: number;
  /** Is this unfinished task's owner gone (its session over)? Marked "(gone)" in red. */
  isGone?: ((task: Task) => boolean) | undefined;
  /** When each task's file last changed (ms): the UPDATED column, when given. */
  updated?: ReadonlyMap<string, number>;
  now?: number;
  /** How long this task in progress has stalled (ms), if it has: marked "stalled 45m" in yellow. */
  stalledFor?: ((task: Task) => number | undefined) | undefined;
  /** What this task in progress waits for, when its session waits for a person: marked "waiting: permission prompt" in yellow, never stalled. */
  waitingFor?: ((task: Task) => WaitingSession | undefined) | undefined;
  /** This task in progress's agent is gone (its session ended or crashed holding it): marked "agent gone: session 4aa21e64 crashed 5 min ago" in red, never stalled. */
  goneHeld?: ((task: Task) => GoneHeld | undefined) | undefined;
  /** Tasks whose activeForm only says the subject again ("Fix auth" / "Fixing auth"): it adds nothing to a row. */
  restated?: ReadonlySet<string> | undefined;
  /** Columns after OWNER (right-aligned), such as what each task cost (`list --cost`). */
  extra?: ExtraColumns | undefined;
}

export interface ExtraColumns {
  head: readonly string[];
  cells(task: Task): readonly string[];
}

function blockersCell(task: Task, { open, missing }: BlockerState): string {
  if (task.status === 'completed' || (open.length === 0 && missing.length === 0)) return '';
  return [...open.map((id) => `#${oneLine(id)}`), ...missing.map((id) => `#${oneLine(id)}?`)].join(' ');
}

/** The least room a subject is given, whatever the width. */
const SUBJECT_MIN = 12;

/**
 * The terminal table: id, status (symbol and word), subject (with the activeForm of a
 * task in progress), owner, open blockers. Own column layout, and no table package: a
 * borderless table reads better in a shell, and cli-table3 (borderless, the same five
 * columns) took 342 ms for 100 rows, 1.9 s for 1,000 and 56 s for 10,000 where this
 * takes 15 ms, 53 ms and 0.8 s (one loaded 2-core machine, Node 20); loading it alone
 * cost 60 ms. The lists table (lists-table.ts) is drawn the same way.
 */
export function renderTaskTable(tasks: readonly Task[], answers: BlockerAnswers, opts: TableOptions): string {
  const { style } = opts;
  const rows = tasks.map((t) => {
    const blockers = blockersOf(answers, t.id);
    // The status as stored; waiting on an open blocker is the BLOCKED BY column's fact.
    const status = t.status;
    const waiting = blockers.blocked;
    const active = t.status === 'in_progress' && t.activeForm && !opts.restated?.has(t.id) ? oneLine(t.activeForm) : '';
    const changedAt = opts.updated?.get(t.id);
    const onPerson = opts.waitingFor?.(t);
    const gone = goneMark(opts.goneHeld?.(t), opts.now ?? Date.now());
    return {
      id: `#${oneLine(t.id)}`,
      status,
      subject: oneLine(t.subject),
      active,
      stalled: waitingMark(onPerson) || gone || stalledMark(opts.stalledFor?.(t)),
      // Where the whole mark would leave the subject too little room: the note under the table says the rest.
      shortMark: onPerson !== undefined ? 'waiting' : gone !== '' ? 'agent gone' : stalledMark(opts.stalledFor?.(t)),
      // An agent gone is red, as an owner gone is; waiting and stalled are yellow.
      markRed: onPerson === undefined && gone !== '',
      gone: Boolean(t.owner) && opts.isGone?.(t) === true,
      owner: t.owner ? oneLine(t.owner) + (t.owner && opts.isGone?.(t) ? ' (gone)' : '') : '',
      blockers: blockersCell(t, blockers),
      waiting,
      updated: changedAt === undefined ? '' : ago(changedAt, opts.now ?? Date.now()),
      extra: opts.extra?.cells(t) ?? [],
    };
  });
  const extraW = (opts.extra?.head ?? []).map((h, i) => Math.max(displayWidth(h), maxOf(rows.map((r) => displayWidth(r.extra[i] ?? '')))));
  const extraTotal = extraW.reduce((n, w) => n + w + 2, 0);
  const idW = Math.max(2, maxOf(rows.map((r) => r.id.length)));
  const statusW = Math.max(6, maxOf(rows.map((r) => 2 + STATUS_WORD[r.status].length)));
  // Three statuses, three painted labels: made once, not once a row.
  const statuses: Array<Task['status']> = ['pending', 'in_progress', 'completed'];
  const labels = Object.fromEntries(
    statuses.map((s) => [s, statusLabel(style, s) + ' '.repeat(Math.max(0, statusW - 2 - STATUS_WORD[s].length))]),
  ) as Record<Task['status'], string>;
  let ownerW = Math.min(20, Math.max(5, maxOf(rows.map((r) => displayWidth(r.owner)))));
  const blockW = Math.min(24, Math.max(10, maxOf(rows.map((r) => displayWidth(r.blockers)))));
  let showUpdated = opts.updated !== undefined;
  const updatedW = showUpdated ? Math.max(7, maxOf(rows.map((r) => r.updated.length))) : 0;
  const gap = 2;
  const room = () => opts.width - idW - statusW - ownerW - blockW - gap * 4 - (showUpdated ? updatedW + gap : 0) - extraTotal;
  // A narrow terminal (a split pane): the subject keeps its least room, and no line runs past the
  // width, as long as cutting a long owner (down to 5) and then leaving UPDATED out can make it so.
  if (room() < SUBJECT_MIN) ownerW = Math.max(5, ownerW - (SUBJECT_MIN - room()));
  if (room() < SUBJECT_MIN && showUpdated) showUpdated = false;
  const available = room();
  // As wide as the longest subject (with its active form) needs, never wider than the terminal allows.
  const needed = Math.max(
    7,
    ...rows.map((r) => displayWidth(r.subject) + (r.active ? 3 + displayWidth(r.active) : 0) + (r.stalled ? 1 + r.stalled.length : 0)),
  );
  const subjectW = Math.max(SUBJECT_MIN, Math.min(available, needed));
  const header = [
    padStart('ID', idW),
    padEnd('STATUS', statusW),
    padEnd('SUBJECT', subjectW),
    padEnd('OWNER', ownerW),
    ...(showUpdated ? [padEnd('UPDATED', updatedW)] : []),
    ...(opts.extra?.head ?? []).map((h, i) => padStart(h, extraW[i] as number)),
    'BLOCKED BY',
  ].join(' '.repeat(gap));
  const lines = [style.bold(header.trimEnd())];
  for (const r of rows) {
    // The mark is kept whole, its short form where the whole one leaves the subject too little
    // room (a row never runs past the terminal): it is why the row matters.
    const cramped = subjectW - displayWidth(r.stalled) - 1 < Math.min(displayWidth(r.subject), MARKED_SUBJECT_MIN);
    const mark = r.stalled && cramped ? truncate(r.shortMark, subjectW - 2) : r.stalled;
    let subject = truncate(r.subject, mark ? Math.max(1, subjectW - displayWidth(mark) - 1) : subjectW);
    if (mark) subject = `${subject} ${(r.markRed ? style.red : style.yellow)(mark)}`;
    else if (r.active && displayWidth(subject) + 3 < subjectW) {
      subject = `${subject} ${style.dim(`· ${truncate(r.active, subjectW - displayWidth(subject) - 3)}`)}`;
    }
    const line = [
      style.dim(padStart(r.id, idW)),
      labels[r.status],
      padEnd(subject, subjectW),
      padEnd(r.gone ? style.red(truncate(r.owner, ownerW)) : truncate(r.owner, ownerW), ownerW),
      ...(showUpdated ? [style.dim(padEnd(r.updated, updatedW))] : []),
      ...extraW.map((w, i) => padStart(r.extra[i] ?? '', w)),
      // Red when something open blocks it; dim when only missing tasks are named (they do not block).
      (r.waiting ? style.red : style.dim)(truncate(r.blockers, blockW)),
    ].join(' '.repeat(gap));
    lines.push(line.trimEnd());
  }
  return lines.join('\n');
}

/** The least of a subject a marked row shows before its mark takes its short form. */
const MARKED_SUBJECT_MIN = 16;

/** "waiting: permission prompt": its session waits for a person, in Claude Code's words. */
export function waitingMark(on: WaitingSession | undefined): string {
  if (on === undefined) return '';
  return on.waitingFor === undefined ? 'waiting for you' : `waiting: ${waitingForText(on.waitingFor)}`;
}

/** "agent gone: session 4aa21e64 crashed 5 min ago": the session that held this task in progress is over. */
export function goneMark(h: GoneHeld | undefined, now: number): string {
  if (h === undefined) return '';
  const at = h.session?.lastActivity;
  return `agent gone: ${oneLine(h.why)}${at === undefined ? '' : ` ${ago(at, now)}`}`;
}

/** "stalled 45m": how long a task in progress has gone without a change. */
function stalledMark(ms: number | undefined): string {
  return ms === undefined ? '' : `stalled ${idleFor(ms)}`;
}

/**
 * Piped: one task per line, tab-separated, stable columns, no colour:
 * id, status, owner (or -), open blockers (comma-separated, or -), [extra cells,] subject.
 */
export function renderTaskLines(tasks: readonly Task[], answers: BlockerAnswers, extra?: (task: Task) => readonly string[]): string {
  return tasks
    .map((t) => {
      const { open } = blockersOf(answers, t.id);
      const blockers = t.status === 'completed' || open.length === 0 ? '-' : oneLine(open.join(','));
      return [oneLine(t.id), t.status, t.owner ? oneLine(t.owner) : '-', blockers, ...(extra?.(t) ?? []), oneLine(t.subject)].join('\t');
    })
    .join('\n');
}

/**
 * The table's legend for `#9?`: shown under the summary when some row has one. A blocker
 * written by hand may be no task id at all (`x/../2`), which `unblock --by` refuses: that
 * one is told apart, with the advice that removes it (`check --fix` drops it from the file).
 */
export function renderMissingLegend(style: Style, missing: ReadonlyArray<{ id: string; missing: readonly string[] }>): string {
  const all = [...new Set(missing.flatMap((m) => m.missing))];
  const bad = all.filter((b) => !isTaskId(b));
  const what = '#n? names a task that does not exist; it does not block';
  if (bad.length === 0) return style.dim(`${what} (tasks unblock <id> --by n removes it)`);
  // `unblock --by` only where some missing blocker is a task id it takes.
  const head = bad.length === all.length ? what : `${what} (tasks unblock <id> --by n removes it)`;
  const names = bad.map((b) => `#${oneLine(b)}?`).join(', ');
  const them =
    bad.length === 1
      ? 'is not a task id (written by hand?): tasks check --fix removes it'
      : 'are not task ids (written by hand?): tasks check --fix removes them';
  return style.dim(`${head}; ${names} ${them} from the file`);
}

/** Piped, the same fact goes to stderr, one line per task. */
export function renderMissingWarning(entry: { id: string; missing: string[] }): string {
  const names = entry.missing.map((m) => `#${oneLine(m)}`).join(', ');
  const verb = entry.missing.length === 1 ? 'does' : 'do';
  return `task #${oneLine(entry.id)} is blocked by ${names}, which ${verb} not exist (${entry.missing.length === 1 ? 'it does' : 'they do'} not block)`;
}

/**
 * "6 tasks: 1 done, 2 in progress (1 blocked), 3 pending (2 blocked)": each task counted
 * once by its status, so the parts add up; how many of them wait on a blocker, per status.
 */
export function renderSummary(counts: ListCounts, style: Style): string {
  const noun = counts.total === 1 ? 'task' : 'tasks';
  const blocked = (n: number) => (n > 0 ? ` ${paintStatus(style, 'blocked', `(${n} blocked)`)}` : '');
  const parts = [
    paintStatus(style, 'completed', `${counts.completed} ${STATUS_WORD.completed}`),
    paintStatus(style, 'in_progress', `${counts.in_progress} ${STATUS_WORD.in_progress}`) + blocked(counts.blockedInProgress),
    `${counts.pending} ${STATUS_WORD.pending}${blocked(counts.blockedPending)}`,
  ];
  return `${counts.total} ${noun}: ${parts.join(', ')}`;
}
