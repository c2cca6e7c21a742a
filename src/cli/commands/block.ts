import type { Command } from 'commander';
import { parseTaskId } from '../../core/store/ids.js';
import { blockTask } from '../../core/writes/dependencies.js';
import { renderBlocked } from '../../render/change-lines.js';
import { renderJson } from '../../render/json.js';
import { AS_HELP } from '../flags/actor-flags.js';
import { collect, parseIdOption } from '../flags/parse.js';
import type { Context } from '../runtime/context.js';
import { taskDocument } from '../runtime/task-document.js';

interface BlockOptions {
  by?: string[];
}

export function registerBlock(program: Command, ctx: Context): void {
  program
    .command('block')
    .description('make a task wait for others: <id> is blocked by each --by task (both sides written)')
    .option('--as <agent>', AS_HELP)
    .argument('<id>', 'the task that waits')
    .requiredOption('--by <ids>', 'the tasks it waits for (comma-separated, or repeat --by)', collect)
    .addHelpText(
      'after',
      `
Writes both sides as agents do (blocker.blocks, then id.blockedBy), each under its task
lock; already-recorded edges are left as they are. Refused, with nothing written: a
task blocking itself or an edge that would close a cycle (exit 4, the cycle shown), a
task that does not exist (exit 3).

Examples:
  tasks block 4 --by 2
  tasks block 7 --by 3,5
  tasks block 4 --by 2 --json | jq .blockedBy`,
    )
    .action(async (rawId: string, opts: BlockOptions) => {
      const id = parseTaskId(rawId);
      const blockers = parseIdOption('--by', opts.by) ?? [];
      const { dir } = ctx.list(true);
      const result = await blockTask(dir, id, blockers);
      if (ctx.io.json) ctx.io.out(renderJson(taskDocument(dir, result.task)));
      else ctx.io.out(renderBlocked(id, result.added, result.already));
    });
}
