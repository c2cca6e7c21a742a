import { maxOf } from '../core/base/many-items.js';
import type { CostUsage } from '../core/cost/cost-report.js';
import type { BlockerAnswers, ListCounts, TaskIndex } from '../core/graph/blockers.js';
import type { LeftOut } from '../core/snapshots/export-todowrite.js';
import type { Task } from '../core/store/schema.js';
import { blockersOf } from './blockers-of.js';
import { compactCount } from './compact-count.js';
import { dollars, hasWork, timeCell, tokenTotal } from './cost-cells.js';
import { oneLine } from './text.js';

/**
 * A Markdown checklist of tasks, for a PR description or a CI job summary
 * ($GITHUB_STEP_SUMMARY): one item a task with its status, owner and dependencies.
 *
 * Ids and owners are code spans: on GitHub a bare "#2" links to issue 2 and "@amy"
 * notifies a user, neither of which a task list means. Subjects are escaped so that
 * an agent's text cannot turn into links, HTML or formatting.
 */
export function renderMarkdownChecklist(
  tasks: readonly Task[],
  list: { index: TaskIndex; blockers: BlockerAnswers; counts: ListCounts },
  opts: { title: string; cost?: { of(id: string): CostUsage | undefined; total: CostUsage; unattributed: CostUsage } | undefined },
): string {
  const lines = [`### ${escapeMarkdown(oneLine(opts.title))}`, ''];
  if (tasks.length === 0) return [...lines, '_No tasks._'].join('\n');
  const c = list.counts;
  const blocked = (n: number) => (n > 0 ? ` (${n} blocked)` : '');
  const parts = [
    `**${c.completed}/${c.total} done**`,
    `${c.in_progress} in progress${blocked(c.blockedInProgress)}`,
    `${c.pending} pending${blocked(c.blockedPending)}`,
  ];
  lines.push(parts.join(' · '), '');
  if (opts.cost !== undefined) {
    const { total, unattributed } = opts.cost;
    const rest = tokenTotal(unattributed) > 0 ? ` (of which with no task in progress: ${workText(unattributed)})` : '';
    lines.push(`Agents' work: ${workText(total)}${rest}`, '');
  }
  for (const t of tasks) {
    const work = opts.cost?.of(t.id);
    lines.push(checklistItem(t, list.index, list.blockers) + (work !== undefined && hasWork(work) ? ` · ${workText(work)}` : ''));
  }
  return lines.join('\n');
}

/** "12m 40s, 1.2M tokens, $0.42": time in progress, tokens, estimated cost ("cost unknown" without a price). */
function workText(u: CostUsage): string {
  const parts = u.activeMs > 0 ? [timeCell(u)] : [];
  parts.push(`${compactCount(tokenTotal(u))} tokens`);
  parts.push(u.costUsd === null ? 'cost unknown' : `${escapeMarkdown(dollars(u.costUsd))} est.`);
  return parts.join(', ');
}

function checklistItem(t: Task, index: TaskIndex, blockers: BlockerAnswers): string {
  const box = t.status === 'completed' ? '[x]' : '[ ]';
  const status =
    t.status === 'completed'
      ? 'done'
      : t.status === 'in_progress'
        ? `in progress${t.activeForm ? ` (${escapeMarkdown(oneLine(t.activeForm))})` : ''}`
        : 'pending';
  // The status as stored, and beside it whether an open blocker holds it back.
  const details = blockersOf(blockers, t.id).blocked ? [status, 'blocked'] : [status];
  if (t.owner) details.push(`owner ${codeSpan(oneLine(t.owner))}`);
  if (t.blockedBy.length > 0) {
    const deps = t.blockedBy.map((id) => {
      const blocker = index.get(id);
      const state = !blocker
        ? 'missing'
        : blocker.status === 'completed'
          ? 'done'
          : blocker.status === 'in_progress'
            ? 'in progress'
            : 'pending';
      return `${codeSpan(`#${oneLine(id)}`)} (${state})`;
    });
    details.push(`depends on ${deps.join(', ')}`);
  }
  return `- ${box} ${codeSpan(`#${oneLine(t.id)}`)} ${escapeMarkdown(oneLine(t.subject))} — ${details.join(' · ')}`;
}

/** Backslash-escape what Markdown (and GitHub's HTML) would interpret. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+!|~&]/g, '\\$&');
}

/** A code span that survives backticks in its text (CommonMark: a longer fence, padded). */
export function codeSpan(text: string): string {
  const longest = Math.max(0, maxOf((text.match(/`+/g) ?? []).map((run) => run.length)));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || text.startsWith(' ') || text.endsWith(' ') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** `export --output <file>`, on stderr: "wrote 3 tasks (json) to backup.json". */
export function renderExportWritten(count: number, format: string, file: string): string {
  return `wrote ${count} task${count === 1 ? '' : 's'} (${format}) to ${file}`;
}

/**
 * `the TodoWrite format holds a subject, a status and an activeForm a task: left out 3
 * descriptions, 2 owners and 4 blockers (--format json keeps everything)`; undefined when
 * nothing was left out.
 */
export function renderTodoWriteLeftOut(left: LeftOut): string | undefined {
  const parts = (
    [
      [left.descriptions, 'description'],
      [left.owners, 'owner'],
      [left.blockers, 'blocker'],
      [left.metadata, 'task with metadata'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${n === 1 ? what : what === 'task with metadata' ? 'tasks with metadata' : `${what}s`}`);
  if (parts.length === 0) return undefined;
  const listed = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return `the TodoWrite format holds a subject, a status and an activeForm a task: left out ${listed} (--format json keeps everything)`;
}
