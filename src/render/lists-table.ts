import Table from 'cli-table3';
import type { ListSummary } from '../core/lists.js';
import type { Style } from './style.js';
import { oneLine } from './text.js';

/** "3 min ago": how long since a list changed, for a person. */
export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** A handful of lists: cli-table3 serves well here (its cost only shows past hundreds of rows). */
export function renderListsTable(lists: readonly ListSummary[], style: Style, now: number): string {
  const table = new Table({
    head: ['LIST', 'TASKS', 'DONE', 'IN PROGRESS', 'PENDING', 'CHANGED'].map((h) => style.bold(h)),
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '',
      'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '',
    },
  });
  for (const l of lists) {
    const problems = l.problems > 0 ? style.red(` (${l.problems} unreadable)`) : '';
    table.push([
      oneLine(l.id),
      `${l.total}${problems}`,
      style.green(String(l.counts.completed)),
      style.cyan(String(l.counts.in_progress)),
      String(l.counts.pending),
      style.dim(ago(l.changedAt, now)),
    ]);
  }
  return table.toString().split('\n').map((line) => line.trimEnd()).join('\n');
}

/** Piped: id, total, completed, in_progress, pending, last change (ISO), tab-separated. */
export function renderListsLines(lists: readonly ListSummary[]): string {
  return lists
    .map((l) => [oneLine(l.id), l.total, l.counts.completed, l.counts.in_progress, l.counts.pending, new Date(l.changedAt).toISOString()].join('\t'))
    .join('\n');
}
