import type { Command } from 'commander';
import { loadPrices, priceFilePath } from '../../core/cost/price-file.js';
import { costOfTaskIfCheap } from '../../core/cost/task-cost.js';
import { indexTasks } from '../../core/graph/blockers.js';
import { lastChangeOf } from '../../core/history/last-change.js';
import { getChosen, readChosen } from '../../core/lists/chosen-tasks.js';
import { sessionsOfList } from '../../core/sessions/list-sessions.js';
import { parseTaskId } from '../../core/store/ids.js';
import { readTasks } from '../../core/store/list-read.js';
import { taskFileTimes } from '../../core/store/task-times.js';
import { getTask } from '../../core/writes/task-writes.js';
import { renderWorkLine } from '../../render/cost-cells.js';
import { renderJson } from '../../render/json.js';
import { renderChangedSince, renderLastChange } from '../../render/log-lines.js';
import { renderTaskDetail } from '../../render/task-detail.js';
import { taskJson } from '../../render/task-json.js';
import type { Context } from '../runtime/context.js';

export function registerGet(program: Command, ctx: Context): void {
  program
    .command('get')
    .description('show one task: every field, its blockers (open or done) and what it blocks')
    .argument('<id>', 'task id, e.g. 4')
    .addHelpText('after', '\nExamples:\n  tasks get 4\n  tasks get 4 --json | jq .blockedBy')
    .action((rawId: string) => {
      const id = parseTaskId(rawId);
      const choice = ctx.list(false, { todos: true });
      const { id: listId, dir } = choice;
      const real = choice.exists && choice.todos === undefined;
      const task = real ? getTask(dir, id) : getChosen(choice, id);
      if (ctx.io.json) {
        ctx.io.out(renderJson(taskJson(task, taskFileTimes(dir, [id]).get(id))));
        return;
      }
      if (!real) {
        ctx.io.out(renderTaskDetail(task, indexTasks(readChosen(choice).tasks), ctx.io.style, undefined));
        return;
      }
      // Only the tasks it names, to show their subjects and states: a 10,000-task list
      // is not read to show one task.
      const index = indexTasks(readTasks(dir, [...task.blockedBy, ...task.blocks]));
      index.set(task.id, task);
      const gone = task.status !== 'completed' && task.owner ? ctx.goneOwners(listId) : undefined;
      ctx.io.out(renderTaskDetail(task, index, ctx.io.style, gone?.isGone(task.owner) ? gone.why : undefined));
      // What it cost so far, when that is cheap to know (tasks cost keeps what it read).
      const now = ctx.now();
      const work = costOfTaskIfCheap(ctx.sessions, choice, task, { prices: loadPrices(priceFilePath(ctx.env, ctx.home)), now });
      if (work !== undefined) ctx.io.out(renderWorkLine(work, ctx.io.style));
      // Its last recorded change, read from the records' ends, in the sessions the files name.
      const last = lastChangeOf(dir, id, { listId, sessions: sessionsOfList(ctx.sessions, listId) });
      if (last.event !== undefined) ctx.io.out(ctx.io.style.dim(renderLastChange(last.event, ctx.now())));
      if (last.unrecorded !== undefined) ctx.io.out(ctx.io.style.dim(renderChangedSince(last.unrecorded, ctx.now())));
    });
}
