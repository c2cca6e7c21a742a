import Table from 'cli-table3';
import type { ListSummary } from '../core/lists/list-summary.js';
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

/** A list, with the team it belongs to (if any) and that team's member names. */
export type ListRow = ListSummary & { team?: { name: string; members: string[] } | undefined };

/** "core (3: lead, alice, bob)"; members past the first few are counted, not named. */
export function teamCell(team: ListRow['team'], max = 4): string {
  if (team === undefined) return '';
  const names = team.members.slice(0, max).map(oneLine);
  const more = team.members.length > max ? `, +${team.members.length - max}` : '';
  return `${oneLine(team.name)} (${team.members.length}${names.length > 0 ? `: ${names.join(', ')}${more}` : ''})`;
}

/** A handful of lists: cli-table3 serves well here (its cost only shows past hundreds of rows). */
export function renderListsTable(lists: readonly ListRow[], style: Style, now: number): string {
  const withTeams = lists.some((l) => l.team !== undefined);
  const table = new Table({
    head: ['LIST', 'TASKS', 'DONE', 'IN PROGRESS', 'PENDING', 'CHANGED', ...(withTeams ? ['TEAM'] : [])].map((h) => style.bold(h)),
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
      ...(withTeams ? [style.magenta(teamCell(l.team))] : []),
    ]);
  }
  return table.toString().split('\n').map((line) => line.trimEnd()).join('\n');
}

/**
 * Piped: id, total, completed, in_progress, pending, last change (ISO), team (`-`),
 * members (comma-separated, `-`), tab-separated. New columns go at the end.
 */
export function renderListsLines(lists: readonly ListRow[]): string {
  return lists
    .map((l) =>
      [
        oneLine(l.id),
        l.total,
        l.counts.completed,
        l.counts.in_progress,
        l.counts.pending,
        new Date(l.changedAt).toISOString(),
        l.team ? oneLine(l.team.name) : '-',
        l.team && l.team.members.length > 0 ? l.team.members.map(oneLine).join(',') : '-',
      ].join('\t'),
    )
    .join('\n');
}
