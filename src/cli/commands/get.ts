import type { Command } from 'commander';
import { quickWorkOf } from '../../core/cost/task-costs.js';
import { showTask } from '../../core/history/shown-task.js';
import { taskWaitingOn } from '../../core/progress/stalled-work.js';
import { parseTaskId } from '../../core/store/ids.js';
import { renderWorkLine } from '../../render/cost-cells.js';
import { renderJson } from '../../render/json.js';
import { renderChangedSince, renderLastChange } from '../../render/log-lines.js';
import { renderTaskDetail } from '../../render/task-detail.js';
import { goneJson, taskJson, waitingJson } from '../../render/task-json.js';
import { goneMark, waitingMark } from '../../render/task-table.js';
import type { Context } from '../runtime/context.js';

export function registerGet(program: Command, ctx: Context): void {
  program
    .command('get')
    .description('show one task: every field, its blockers (open or done) and what it blocks')
    .argument('<id>', 'task id, e.g. 4')
    .addHelpText('after', '\nExamples:\n  tasks get 4\n  tasks get 4 --json | jq .blockedBy')
    .action((rawId: string) => runGet(ctx, rawId));
}

/** `tasks get <id>`: by commander, or by the plain read path (read-path/), which skips building the program. */
export function runGet(ctx: Context, rawId: string): void {
  const id = parseTaskId(rawId);
  const choice = ctx.list(false, { todos: true });
  const { task, changedAt, gone, detail } = showTask(choice, id, {
    json: ctx.io.json,
    sessions: ctx.sessions,
    goneOwners: () => ctx.goneOwners(choice.id),
    goneHeld: (tasks) => ctx.goneHeld(choice.id, tasks),
  });
  // A task in progress of a list folder whose session waits for a person, as `list` says.
  const waiting =
    gone === undefined && task.status === 'in_progress' && choice.exists && choice.todos === undefined
      ? taskWaitingOn(choice.dir, choice.id, task, ctx.sessions, ctx.now())
      : undefined;
  if (detail === undefined) {
    // As `list --json`: a task in progress whose agent is gone says so (after updatedAt), one whose session waits for a person too.
    const json = taskJson(task, changedAt);
    ctx.io.out(
      renderJson(
        gone !== undefined ? { ...json, gone: goneJson(gone) } : waiting !== undefined ? { ...json, waiting: waitingJson(waiting) } : json,
      ),
    );
    return;
  }
  // A task with no owner whose agent is gone is marked beside its status; an owner gone, beside the owner; one waiting for a person, beside its status.
  const agentGone = gone?.unowned === true ? goneMark(gone, ctx.now()) : waiting !== undefined ? waitingMark(waiting) : undefined;
  ctx.io.out(renderTaskDetail(task, detail.refs, detail.blockers, ctx.io.style, detail.goneWhy, agentGone));
  // What it cost so far, when that is cheap to know (tasks cost keeps what it read); a list folder only.
  if (choice.exists && choice.todos === undefined) {
    const { work, priceFileProblem: bad } = quickWorkOf(ctx.sessions, choice, task, { env: ctx.env, home: ctx.home, now: ctx.now() });
    if (work !== undefined) ctx.io.out(renderWorkLine(work, ctx.io.style));
    if (bad !== undefined) ctx.io.warn(`${bad.message}; the Work line is left out`, 'price_file_unreadable', { file: bad.file });
  }
  const { last } = detail;
  if (last?.event !== undefined) ctx.io.out(ctx.io.style.dim(renderLastChange(last.event, ctx.now())));
  if (last?.unrecorded !== undefined)
    ctx.io.out(ctx.io.style.dim(renderChangedSince(last.unrecorded, ctx.now(), last.event === undefined)));
}
