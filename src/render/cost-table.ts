import type { CostReport, CostUsage } from '../core/cost/cost-report.js';
import { compactCount } from './compact-count.js';
import { activeTime, dollars, hasWork, timeCell } from './cost-cells.js';
import type { Style } from './style.js';
import { oneLine, padEnd, padStart, truncate, visibleWidth } from './text.js';

/**
 * `tasks cost` as a table (a terminal) or as tab-separated lines (a pipe): one row per
 * task, owner, list or session (`--by`), the unattributed work, and the total.
 */
export type CostBy = 'task' | 'owner' | 'list' | 'session';

export interface CostRow {
  /** What the row is of: "#3", "alice", a list id, a session's short id. */
  key: string;
  /** A task's subject (and "deleted"), a session's lists. */
  label: string;
  usage: CostUsage;
  kind: 'row' | 'unattributed' | 'total';
}

/** The rows to show: those with recorded work, then the unattributed work (by task or owner) and the total. */
export function costRows(report: CostReport, by: CostBy, opts: { lists: boolean }): { rows: CostRow[]; idle: number } {
  let rows: CostRow[];
  if (by === 'task') {
    rows = report.tasks.map((t) => ({
      key: `${opts.lists ? `${t.list} ` : ''}#${t.id}`,
      label: `${t.deleted ? '(deleted) ' : ''}${t.subject ?? ''}`,
      usage: t,
      kind: 'row',
    }));
  } else if (by === 'owner') rows = report.owners.map((o) => ({ key: o.owner ?? '(no owner)', label: '', usage: o, kind: 'row' }));
  else if (by === 'list') rows = report.lists.map((l) => ({ key: l.list, label: '', usage: l, kind: 'row' }));
  else rows = report.sessions.map((s) => ({ key: s.session.slice(0, 8), label: s.lists.map(shortList).join(', '), usage: s, kind: 'row' }));
  const shown = rows.filter((r) => hasWork(r.usage));
  const extra: CostRow[] = [];
  if ((by === 'task' || by === 'owner') && report.unattributed.messages > 0)
    extra.push({ key: '', label: unattributedText(report.unattributed.sessions), usage: report.unattributed, kind: 'unattributed' });
  extra.push({ key: '', label: 'total', usage: report.total, kind: 'total' });
  return { rows: [...shown, ...extra], idle: rows.length - shown.length };
}

const unattributedText = (n: number) => `unattributed (${n} session${n === 1 ? '' : 's'})`;

/** A session's own list is named by its UUID: the first 8 hex say which, as in `tasks lists`. */
const shortList = (id: string) => (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) ? id.slice(0, 8) : id);

const HEAD = ['', '', 'TIME', 'MSGS', 'INPUT', 'OUTPUT', 'CACHE R', 'CACHE W', 'MODEL', 'COST'];

/** The main model, without the "claude-" every model id starts with, and how many more. */
function modelCell(u: CostUsage): string {
  if (u.models.length === 0) return '';
  const main = (u.models[0] as string).replace(/^claude-/, '');
  return `${main}${u.models.length > 1 ? ` +${u.models.length - 1}` : ''}`;
}

/** Numbers right-aligned; the label column takes the room the others leave (at least LABEL_MIN). */
const RIGHT = new Set([2, 3, 4, 5, 6, 7, 9]);
const LABEL_MIN = 24;

/** The terminal table. */
export function renderCostTable(rows: readonly CostRow[], by: CostBy, o: { style: Style; width: number }): string {
  const head = [...HEAD];
  head[0] = by.toUpperCase();
  head[1] = by === 'task' ? 'SUBJECT' : by === 'session' ? 'LISTS' : '';
  const withLabel = head[1] !== '';
  const cells = rows.map((r) => [
    // Owners and lists have no label column: the unattributed and total rows say what they are in the first.
    oneLine(withLabel || r.kind === 'row' ? r.key : r.label),
    oneLine(withLabel ? r.label : ''),
    r.usage.activeMs > 0 ? timeCell(r.usage) : '-',
    String(r.usage.messages),
    compactCount(r.usage.tokens.input),
    compactCount(r.usage.tokens.output),
    compactCount(r.usage.tokens.cacheRead),
    compactCount(r.usage.tokens.cacheCreation),
    oneLine(modelCell(r.usage)),
    dollars(r.usage.costUsd),
  ]);
  const widths = head.map((h, i) => Math.max(visibleWidth(h), ...cells.map((c) => visibleWidth(c[i] as string))));
  const others = widths.reduce((n, w, i) => (i === 1 ? n : n + w + 2), 0);
  const label = widths[1] as number;
  widths[1] = Math.min(label, Math.max(Math.min(label, LABEL_MIN), o.width - others - 2));
  const line = (row: readonly string[]) =>
    row
      .filter((_, i) => withLabel || i !== 1)
      .map((cell, k) => {
        const i = withLabel || k === 0 ? k : k + 1;
        const w = widths[i] as number;
        if (RIGHT.has(i)) return padStart(cell, w);
        return padEnd(i === 1 ? truncate(cell, w) : cell, w);
      })
      .join('  ')
      .trimEnd();
  const out = [o.style.bold(line(head))];
  rows.forEach((r, i) => {
    const text = line(cells[i] as string[]);
    out.push(r.kind === 'total' ? o.style.bold(text) : r.kind === 'unattributed' ? o.style.dim(text) : text);
  });
  return out.join('\n');
}

/**
 * Piped: one row a line, tab-separated, nothing cut, exact numbers: key, label, active
 * ms, messages, input, output, cache read, cache write tokens, models (comma-separated),
 * cost in USD ("-" when unknown).
 */
export function renderCostTsv(rows: readonly CostRow[]): string {
  return rows
    .map((r) =>
      [
        oneLine(r.key),
        oneLine(r.label),
        r.usage.activeMs,
        r.usage.messages,
        r.usage.tokens.input,
        r.usage.tokens.output,
        r.usage.tokens.cacheRead,
        r.usage.tokens.cacheCreation,
        r.usage.models.map(oneLine).join(','),
        r.usage.costUsd === null ? '-' : r.usage.costUsd.toFixed(6),
      ].join('\t'),
    )
    .join('\n');
}

/**
 * What the figures rest on, for stderr: the prices' date and source, models without a price,
 * rows left out. The date comes from the price file, the models from transcripts: shown
 * without control characters.
 */
export function renderCostNotes(report: CostReport, idle: number, by: CostBy): string[] {
  const notes: string[] = [];
  if (idle > 0 && by === 'task') notes.push(`${idle} task${idle === 1 ? '' : 's'} with no recorded work not shown (--json has every task)`);
  notes.push(
    `costs are estimates at Anthropic's API prices as of ${oneLine(report.prices.date)}${report.prices.file === null ? '' : ` (with ${oneLine(report.prices.file)})`}`,
  );
  if (report.total.unsureMs > 0)
    notes.push(
      `≤: a session's process crashed and no record says where it ended: the time may include up to ${activeTime(report.total.unsureMs)} with no process (--json: unsureMs)`,
    );
  if (report.unpricedParts.length > 0)
    notes.push(
      `no price known for ${report.unpricedParts.map(oneLine).join(', ')}: costs that include ${report.unpricedParts.length === 1 ? 'it' : 'them'} are shown as ?`,
    );
  return notes;
}
