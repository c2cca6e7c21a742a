import type { BlockerAnswers, TaskIndex } from '../core/graph/blockers.js';
import type { TreeRow } from '../core/graph/dependency-tree.js';
import { blockersOf } from './blockers-of.js';
import { paintStatus, STATUS_SYMBOL } from './status.js';
import type { Style } from './style.js';
import { oneLine } from './text.js';

export interface GraphTreeOptions {
  style: Style;
  /** Guides wider than this give way to the depth as a number ("…31› "). */
  maxIndent: number;
}

/**
 * `tasks graph`: one task a line, each under the blocker it waits for (core's
 * dependencyTree), with its status symbol, owner and open blockers; a task shown in
 * full elsewhere is a dim reference line, an edge that closes a cycle a red one.
 */
export function renderGraphTree(rows: readonly TreeRow[], index: TaskIndex, blockers: BlockerAnswers, opts: GraphTreeOptions): string {
  const { style } = opts;
  return rows
    .map((row) => {
      const task = index.get(row.id);
      const id = `#${oneLine(row.id)}`;
      const subject = task === undefined ? '' : oneLine(task.subject);
      const symbol = task === undefined ? '?' : paintStatus(style, task.status, STATUS_SYMBOL[task.status]);
      const prefix = guides(rows, row, opts.maxIndent);
      if (row.ref) {
        const where = row.ref.cycle ? style.red('↻ closes a cycle') : style.dim(`↑ shown under #${oneLine(row.ref.shownUnder ?? '')}`);
        return `${prefix}${symbol} ${style.dim(`${id} ${subject}`)}  ${where}`;
      }
      if (task === undefined) return `${prefix}${symbol} ${id}`;
      const parts = [`${prefix}${symbol} ${style.bold(id)} ${subject}`];
      if (task.status === 'in_progress' && task.activeForm) parts.push(style.cyan(`(${oneLine(task.activeForm)})`));
      if (task.owner) parts.push(style.magenta(`@${oneLine(task.owner)}`));
      if (task.status !== 'completed') {
        const { open, missing } = blockersOf(blockers, task.id);
        const waits = [...open.map((b) => `#${oneLine(b)}`), ...missing.map((b) => `#${oneLine(b)}?`)];
        if (waits.length > 0) parts.push(style.red(`blocked by ${waits.join(', ')}`));
      }
      return parts.join('  ');
    })
    .join('\n');
}

/** A row's guides; past `maxIndent` (each level is two columns wide) the depth as a number, without walking up. */
function guides(rows: readonly TreeRow[], row: TreeRow, maxIndent: number): string {
  if (row.depth === 0) return '';
  if (2 * row.depth > maxIndent) return `…${row.depth}› `;
  return `${treeRails(rows, row)
    .map((r) => (r ? '│ ' : '  '))
    .join('')}${row.last ? '└─' : '├─'}`;
}

/**
 * For each level above a row (1..depth-1, top first): does a sibling follow there, so
 * that a guide ("│") runs through? Walks up `depth` rows: callers ask only for rows
 * they draw guides for.
 */
function treeRails(rows: readonly TreeRow[], row: TreeRow): boolean[] {
  const rails = new Array<boolean>(Math.max(0, row.depth - 1));
  let at = row.parent === undefined ? undefined : rows[row.parent];
  for (let level = row.depth - 2; level >= 0 && at !== undefined; level--) {
    rails[level] = !at.last;
    at = at.parent === undefined ? undefined : rows[at.parent];
  }
  return rails;
}
