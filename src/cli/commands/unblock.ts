import type { Command } from 'commander';
import { blockerState, indexTasks } from '../../core/graph/blockers.js';
import { parseTaskId } from '../../core/store/ids.js';
import { readList } from '../../core/store/list-read.js';
import { unblockTask } from '../../core/writes/dependencies.js';
import { renderNotBlocking, renderUnblocked } from '../../render/change-lines.js';
import { renderJson } from '../../render/json.js';
import { AS_HELP } from '../flags/actor-flags.js';
import { collect, parseIdOption } from '../flags/parse.js';
import type { Context } from '../runtime/context.js';
import { taskDocument } from '../runtime/task-document.js';

interface UnblockOptions {
  by?: string[];
}

export function registerUnblock(program: Command, ctx: Context): void {
  program
    .command('unblock')
    .description('remove dependencies: <id> stops waiting for the --by tasks (default: for all of them)')
    .option('--as <agent>', AS_HELP)
    .argument('<id>', 'the task that waits')
    .option('--by <ids>', 'only these blockers (comma-separated, or repeat --by)', collect)
    .addHelpText(
      'after',
      `
Removes each edge from both sides (id.blockedBy first, then blocker.blocks), each under
its task lock; blockers that name missing tasks are removed too. Agents' tools cannot
do this: it is how to free an agent stuck behind a dependency that no longer matters.

Examples:
  tasks unblock 4 --by 2
  tasks unblock 4                all of #4's blockers`,
    )
    .action(async (rawId: string, opts: UnblockOptions) => {
      const id = parseTaskId(rawId);
      const only = parseIdOption('--by', opts.by, ' (leave --by out to remove every blocker)');
      const { dir } = ctx.list(true);
      const result = await unblockTask(dir, id, only);
      for (const b of result.notBlocking) ctx.io.warn(renderNotBlocking(b, id), 'not_blocking', { id, by: b });
      if (ctx.io.json) {
        ctx.io.out(renderJson(taskDocument(dir, result.task)));
        return;
      }
      // A completed task waits for nothing; an unfinished one is told what still blocks it.
      const stillOpen =
        result.removed.length === 0 || result.task.status === 'completed'
          ? []
          : blockerState(result.task, indexTasks(readList(dir).tasks)).open;
      ctx.io.out(renderUnblocked(id, result.removed, stillOpen, only !== undefined));
    });
}
