import type { TaskBlockers, TaskIndex } from '../core/graph/blockers.js';
import { isKnownKey, type Task } from '../core/store/schema.js';
import { statusLabel } from './status.js';
import type { Style } from './style.js';
import { multiLine, oneLine } from './text.js';

function refLine(id: string, index: TaskIndex, style: Style, state: 'open' | 'done' | 'missing' | 'plain'): string {
  const t = index.get(id);
  if (!t) return `#${oneLine(id)} ${style.dim('(missing task; does not block)')}`;
  const owner = t.owner ? ` ${style.dim(`(${oneLine(t.owner)})`)}` : '';
  const label = statusLabel(style, t.status);
  const mark = state === 'open' ? style.red(' open') : '';
  return `#${oneLine(id)} ${oneLine(t.subject)}  ${label}${owner}${mark}`;
}

/**
 * Every field of one task, for a person (`index`: the tasks it names; `blockers`: its own, as core judged them): open and completed blockers told apart (each
 * with its status and owner), what it blocks, metadata, and keys agents do not know.
 */
export function renderTaskDetail(
  task: Task,
  index: TaskIndex,
  blockers: TaskBlockers,
  style: Style,
  ownerGone?: string,
  /** "agent gone: session 4aa21e64 crashed 5 min ago": a task in progress with no owner whose session is over (goneMark). */
  agentGone?: string,
): string {
  const label = (s: string) => style.bold(s.padEnd(13));
  const lines = [`${style.bold(`#${oneLine(task.id)}`)} ${style.bold(oneLine(task.subject))}`];
  lines.push(`${label('Status:')}${statusLabel(style, task.status)}${agentGone === undefined ? '' : `  ${style.red(agentGone)}`}`);
  if (task.activeForm !== undefined) lines.push(`${label('Active form:')}${oneLine(task.activeForm)}`);
  const gone = ownerGone === undefined ? '' : ` ${style.red(`(gone: ${oneLine(ownerGone)})`)}`;
  lines.push(`${label('Owner:')}${task.owner !== undefined ? (oneLine(task.owner) || style.dim('(empty)')) + gone : style.dim('none')}`);
  const description = multiLine(task.description);
  if (description.includes('\n')) {
    lines.push(label('Description:'), ...description.split('\n').map((l) => `  ${l}`));
  } else {
    lines.push(`${label('Description:')}${description || style.dim('none')}`);
  }
  if (task.blockedBy.length === 0) lines.push(`${label('Blocked by:')}${style.dim('nothing')}`);
  else {
    const { open, done, missing, blocked } = blockers;
    // A completed task is not blocked by what is still open, but that is still open: counted all the same.
    const summary = open.length === 0 ? style.green('none open') : blocked ? style.red(`${open.length} open`) : `${open.length} open`;
    lines.push(`${label('Blocked by:')}${summary}`);
    for (const id of open) lines.push(`  ${refLine(id, index, style, 'open')}`);
    for (const id of done) lines.push(`  ${refLine(id, index, style, 'done')}`);
    for (const id of missing) lines.push(`  ${refLine(id, index, style, 'missing')}`);
  }
  if (task.blocks.length === 0) lines.push(`${label('Blocks:')}${style.dim('nothing')}`);
  else {
    lines.push(label('Blocks:').trimEnd());
    for (const id of task.blocks) lines.push(`  ${refLine(id, index, style, 'plain')}`);
  }
  if (task.metadata && Object.keys(task.metadata).length > 0) {
    lines.push(label('Metadata:').trimEnd());
    for (const [key, value] of Object.entries(task.metadata)) {
      lines.push(`  ${oneLine(key)}: ${oneLine(typeof value === 'string' ? value : JSON.stringify(value))}`);
    }
  }
  const extra = Object.keys(task).filter((k) => !isKnownKey(k));
  if (extra.length > 0) {
    lines.push(`${label('Other keys:')}${style.dim(`${extra.map(oneLine).join(', ')} (agents drop these on their next write)`)}`);
  }
  return lines.join('\n');
}
