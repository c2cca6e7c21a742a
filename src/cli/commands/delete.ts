import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { readTasks } from '../../core/store/list-read.js';
import { deleteOne } from '../../core/writes/deletion.js';
import { renderDeleted, renderDeleteQuestion, renderWouldDelete } from '../../render/change-lines.js';
import { renderJson } from '../../render/json.js';
import { type TaskJson, taskJson } from '../../render/task-json.js';
import { AS_HELP } from '../flags/actor-flags.js';
import { parseIdArguments } from '../flags/parse.js';
import { addPreconditionOptions, PRECONDITION_HELP, type PreconditionOptions, preconditionsFrom } from '../flags/precondition-flags.js';
import { BatchErrors } from '../runtime/batch-errors.js';
import type { Context } from '../runtime/context.js';

interface DeleteOptions extends PreconditionOptions {
  dryRun?: boolean;
  yes?: boolean;
}

/**
 * One id's outcome with --json: what a delete did (or, with --dry-run, would do, flagged
 * `dryRun`): the task as it was and the tasks whose edges named it; or its error.
 */
type DeleteItem =
  | { id: string; ok: true; deleted: true; task: TaskJson; references: string[]; dryRun?: true }
  | { id: string; ok: false; error: Record<string, unknown> };

export function registerDelete(program: Command, ctx: Context): void {
  const cmd = program
    .command('delete')
    .alias('rm')
    .description('delete tasks; their ids are never reused, and other tasks stop referring to them')
    .option('--as <agent>', AS_HELP)
    .argument('<ids...>', 'task ids')
    .option('-n, --dry-run', 'show what would be deleted and changed; write nothing')
    .option('-y, --yes', 'do not ask for confirmation (only asked in a terminal)');
  addPreconditionOptions(cmd)
    .addHelpText(
      'after',
      `\n${PRECONDITION_HELP} Each id is checked on its own.\n\nExamples:\n  tasks delete 3          asks first in a terminal; -y does not\n  tasks delete 3 4 5 --dry-run\n  tasks delete 7 --if-status pending --if-unowned`,
    )
    .action(async (rawIds: string[], opts: DeleteOptions) => {
      // `delete ""` (an empty variable in a script): nothing was named, which is no success;
      // `delete "$A,$B"` with B empty deletes nothing either, rather than A alone.
      const ids = parseIdArguments('delete', rawIds, true);
      const preconditions = preconditionsFrom(opts, ctx);
      const { id: listId, dir } = ctx.list(true, { dryRun: opts.dryRun });
      if (!opts.dryRun && !opts.yes && !ctx.io.json && ctx.io.canAsk) {
        // A person at a terminal sees what goes before it goes; scripts are never asked.
        if (!(await ctx.io.confirm(renderDeleteQuestion(ids, readTasks(dir, ids), ctx.shortId(listId))))) {
          throw new TasksError('interrupted', 'nothing deleted', { hint: 'add -y to delete without being asked' });
        }
      }
      const items: DeleteItem[] = [];
      const errors = new BatchErrors(ctx.io, 'id');
      for (const id of ids) {
        try {
          const { task, changedAt, references } = await deleteOne(dir, id, { dryRun: opts.dryRun, preconditions });
          items.push({
            id,
            ok: true,
            deleted: true,
            task: taskJson(task, changedAt),
            references,
            ...(opts.dryRun ? { dryRun: true as const } : {}),
          });
          if (ctx.io.json) continue;
          if (opts.dryRun) ctx.io.out(renderWouldDelete(task, references));
          else ctx.io.out(renderDeleted(task, references, listId, ctx.io.humanLayout ? { style: ctx.io.style } : undefined));
        } catch (err) {
          // One failure does not stop the others; the exit code is the worst one.
          items.push({ id, ok: false, error: errors.item(id, err) });
        }
      }
      if (ctx.io.json) ctx.io.out(renderJson(items));
      errors.summarize(ids.length);
    });
}
