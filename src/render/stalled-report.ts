import type { StalledRow } from '../core/lists/stalled-lists.js';
import type { GoneHeld } from '../core/sessions/gone-owners.js';
import { formatElapsed, formatLimit } from './duration.js';
import { codeSpan, escapeMarkdown } from './export-markdown.js';
import { stateText, waitingForText } from './session-text.js';
import type { Style } from './style.js';
import { goneJson, taskJson } from './task-json.js';
import { oneLine, padEnd, truncate, visibleWidth } from './text.js';

/**
 * `tasks lists --stalled`: stalled work across lists, one row a task: in a terminal a
 * table, piped tab-separated lines, `--json` a document, `--format markdown` a section
 * for a CI job's summary ($GITHUB_STEP_SUMMARY).
 */

/**
 * `--json`: one item a list with stalled work, each task in the shape of its file, with how
 * long it has been unchanged, and `gone` (as `list --stalled --json` gives it) where its agent is gone.
 */
export function stalledJson(rows: readonly StalledRow[], now: number) {
  return rows.map(({ row, stalled, untimed }) => {
    const s = row.sessions[0];
    return {
      list: row.id,
      kind: row.kind === 'todowrite' ? 'todowrite' : 'tasks',
      session:
        s === undefined
          ? null
          : { sessionId: s.sessionId, state: s.state, activity: s.activity ?? null, cwd: s.cwd ?? null, branch: s.branch ?? null },
      stalled: stalled.map(({ task, idleMs, gone }) => ({
        task: taskJson(task, now - idleMs),
        idleMs: Math.round(idleMs),
        ...(gone === undefined ? {} : { gone: goneJson(gone) }),
      })),
      untimed,
    };
  });
}

/** "session 2d483082 (crashed)": the list's session as a cell. */
function sessionCell(row: StalledRow['row']): string {
  const s = row.sessions[0];
  return s === undefined ? '' : `${s.sessionId.slice(0, 8)} (${stateText(s)})`;
}

function listCell(row: StalledRow['row']): string {
  return oneLine(row.shortId) + (row.kind === 'todowrite' ? ' (TodoWrite)' : '');
}

/** How long unchanged; "45m, agent gone" where the session that held it with no owner is over (said in red, not as a stall). */
function idleCell(idleMs: number, gone: GoneHeld | undefined): string {
  return `${formatElapsed(idleMs)}${gone === undefined ? '' : ', agent gone'}`;
}

/**
 * The terminal table: LIST, TASK, OWNER, UNCHANGED, SESSION; the subject takes the room
 * left. Work with no owner whose agent is gone is red, as `tasks list` marks it: "45m, agent gone".
 */
export function renderStalledTable(rows: readonly StalledRow[], o: { style: Style; width: number }): string {
  const cells = rows.flatMap(({ row, stalled }) =>
    stalled.map(({ task, idleMs, gone }) => ({
      list: listCell(row),
      task: `#${oneLine(task.id)} ${oneLine(task.subject)}`,
      owner: task.owner ? oneLine(task.owner) : '',
      idle: idleCell(idleMs, gone),
      session: sessionCell(row),
      red: gone !== undefined,
    })),
  );
  const head = { list: 'LIST', task: 'TASK', owner: 'OWNER', idle: 'UNCHANGED', session: 'SESSION' };
  const natural = (k: keyof typeof head) => Math.max(visibleWidth(head[k]), ...cells.map((c) => visibleWidth(c[k])));
  // A long owner keeps 20 columns, as in tasks list; a list named at length is cut when the
  // row would run past the screen otherwise (the task keeps 12): UNCHANGED is why the row is there.
  const ownerWidth = Math.min(20, natural('owner'));
  const others = ownerWidth + natural('idle') + natural('session') + 8;
  const listWidth = Math.min(natural('list'), Math.max(12, o.width - others - 12));
  const width = (k: keyof typeof head) => (k === 'list' ? listWidth : k === 'owner' ? ownerWidth : natural(k));
  const fixed = listWidth + others;
  const taskWidth = Math.max(12, Math.min(width('task'), o.width - fixed));
  const line = (c: typeof head) =>
    [
      padEnd(truncate(c.list, listWidth), listWidth),
      padEnd(truncate(c.task, taskWidth), taskWidth),
      padEnd(truncate(c.owner, ownerWidth), ownerWidth),
      padEnd(c.idle, width('idle')),
      c.session,
    ]
      .join('  ')
      .trimEnd();
  return [
    o.style.dim(line(head)),
    ...cells.map((c) =>
      line({
        ...c,
        idle: (c.red ? o.style.red : o.style.yellow)(padEnd(c.idle, width('idle'))),
      }),
    ),
  ].join('\n');
}

/** Piped: list, task id, idle (ms), owner (-), session id (-), session state (-), subject; tab-separated. */
export function renderStalledLines(rows: readonly StalledRow[]): string {
  const field = (v: string | undefined) => (v === undefined || v === '' ? '-' : oneLine(v).replace(/\t/g, ' '));
  return rows
    .flatMap(({ row, stalled }) =>
      stalled.map(({ task, idleMs }) =>
        [
          oneLine(row.id),
          oneLine(task.id),
          Math.round(idleMs),
          field(task.owner),
          field(row.sessions[0]?.sessionId),
          field(row.sessions[0]?.state),
          field(task.subject),
        ].join('\t'),
      ),
    )
    .join('\n');
}

/**
 * `--format markdown`: a section for $GITHUB_STEP_SUMMARY. Lists, ids and owners are code
 * spans (a bare #2 or @amy would link on GitHub); subjects are escaped.
 */
export function renderStalledMarkdown(rows: readonly StalledRow[], afterMs: number): string {
  const lines = [`### Stalled work (in progress, unchanged for ${formatLimit(afterMs)} or more)`, ''];
  const count = rows.reduce((n, r) => n + r.stalled.length, 0);
  if (count === 0) return [...lines, '_No stalled work._', ...waitingMarkdown(rows)].join('\n');
  lines.push('| list | task | owner | unchanged for | session |', '|---|---|---|---|---|');
  for (const { row, stalled } of rows) {
    for (const { task, idleMs, gone } of stalled) {
      const s = row.sessions[0];
      lines.push(
        `| ${codeSpan(oneLine(row.id))}${row.kind === 'todowrite' ? ' (TodoWrite)' : ''} | ${codeSpan(`#${oneLine(task.id)}`)} ${escapeMarkdown(oneLine(task.subject))} | ${task.owner ? codeSpan(oneLine(task.owner)) : ''} | ${formatElapsed(idleMs)}${gone !== undefined ? `, agent gone (${escapeMarkdown(oneLine(gone.why))})` : ''} | ${s === undefined ? '' : `${codeSpan(s.sessionId.slice(0, 8))} ${stateText(s)}`} |`,
      );
    }
  }
  return [...lines, ...waitingMarkdown(rows)].join('\n');
}

/** Work in progress whose session waits for a person: not stalled, listed apart (nothing when there is none). */
function waitingMarkdown(rows: readonly StalledRow[]): string[] {
  const waits = rows.flatMap(({ row, waiting }) => waiting.map((w) => ({ row, ...w })));
  if (waits.length === 0) return [];
  const lines = [
    '',
    '#### Waiting for a person (not stalled)',
    '',
    '| list | task | owner | waiting for | session |',
    '|---|---|---|---|---|',
  ];
  for (const { row, task, on } of waits) {
    lines.push(
      `| ${codeSpan(oneLine(row.id))} | ${codeSpan(`#${oneLine(task.id)}`)} ${escapeMarkdown(oneLine(task.subject))} | ${task.owner ? codeSpan(oneLine(task.owner)) : ''} | ${escapeMarkdown(on.waitingFor === undefined ? 'a person' : waitingForText(on.waitingFor))} | ${codeSpan(on.session.slice(0, 8))}${on.name === undefined ? '' : ` ${escapeMarkdown(oneLine(on.name))}`} |`,
    );
  }
  return lines;
}

/**
 * Nothing stalled: said on stderr (stdout stays empty, as for an empty list). Work that
 * waits for a person may be as old, and is said apart: it is counted here so that the
 * line never reads as "nothing in progress is old".
 */
export function renderNothingStalled(afterMs: number, waiting = 0): string {
  if (waiting > 0)
    return `no stalled work: ${waiting === 1 ? '1 task waits' : `${waiting} tasks wait`} for a person (above), and no other has been in progress, unchanged, for ${formatLimit(afterMs)}`;
  return `no stalled work: no task has been in progress, unchanged, for ${formatLimit(afterMs)}`;
}
