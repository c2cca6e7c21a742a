import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { readList, readTasks } from '../../core/store/list-read.js';
import { preconditionGuard } from '../../core/writes/preconditions.js';
import { deleteTask, getTask } from '../../core/writes/task-writes.js';
import { renderDeleted, renderDeleteQuestion, renderWouldDelete } from '../../render/change-lines.js';
import { renderJson } from '../../render/json.js';
import { AS_HELP } from '../flags/actor-flags.js';
import { parseIds } from '../flags/parse.js';
import { addPreconditionOptions, PRECONDITION_HELP, type PreconditionOptions, preconditionsFrom } from '../flags/precondition-flags.js';
import type { Context } from '../runtime/context.js';

interface DeleteOptions extends PreconditionOptions {
  dryRun?: boolean;
  yes?: boolean;
}

interface DeleteReport {
  id: string;
  deleted: boolean;
  subject?: string;
  /** Tasks whose blocks/blockedBy named it (cleaned, or that would be). */
  references: string[];
  error?: { code: string; message: string };
}

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
      const ids = parseIds(rawIds);
      const pre = preconditionsFrom(opts, ctx);
      const guard = preconditionGuard(pre);
      const { id: listId, dir } = ctx.list(true, { dryRun: opts.dryRun });
      if (!opts.dryRun && !opts.yes && !ctx.io.json && ctx.io.canAsk) {
        // A person at a terminal sees what goes before it goes; scripts are never asked.
        if (!(await ctx.io.confirm(renderDeleteQuestion(ids, readTasks(dir, ids), ctx.shortId(listId))))) {
          throw new TasksError('interrupted', 'nothing deleted', { hint: 'add -y to delete without being asked' });
        }
      }
      const reports: DeleteReport[] = [];
      for (const id of ids) {
        try {
          if (opts.dryRun) {
            const task = getTask(dir, id);
            guard?.(task);
            const references = readList(dir)
              .tasks.filter((t) => t.id !== id && (t.blocks.includes(id) || t.blockedBy.includes(id)))
              .map((t) => t.id);
            reports.push({ id, deleted: false, subject: task.subject, references });
            if (!ctx.io.json) ctx.io.out(renderWouldDelete(task, references));
          } else {
            const { task, cleaned } = await deleteTask(dir, id, guard);
            reports.push({ id, deleted: true, subject: task.subject, references: cleaned });
            if (ctx.io.json) continue;
            ctx.io.out(renderDeleted(task, cleaned, listId, ctx.io.humanLayout ? { style: ctx.io.style } : undefined));
          }
        } catch (err) {
          // One failure does not stop the others; the exit code is the worst one.
          ctx.io.fail(err);
          if (err instanceof TasksError) {
            reports.push({ id, deleted: false, references: [], error: { code: err.code, message: err.message } });
          } else throw err;
        }
      }
      if (ctx.io.json) ctx.io.out(renderJson(reports));
    });
}
