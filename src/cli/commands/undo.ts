import type { Command } from 'commander';
import { undoLast } from '../../core/history/undo-plan.js';
import { taskPath } from '../../core/store/paths.js';
import { readTaskFile } from '../../core/store/task-file.js';
import { renderJson } from '../../render/json.js';
import { renderUndo, undoJson } from '../../render/undo-report.js';
import type { Context } from '../runtime/context.js';

interface UndoOptions {
  dryRun?: boolean;
}

export function registerUndo(program: Command, ctx: Context): void {
  program
    .command('undo')
    .description('take back the last change made with tasks in this list (from its journal), if nothing has changed it since')
    .option('-n, --dry-run', 'say what would be taken back; change nothing')
    .addHelpText(
      'after',
      `
Only changes made with tasks are in the journal: an agent's own changes are not undone.
Each task must still hold what that change wrote, or nothing is done (exit 4, naming what
changed since). A deleted task comes back under its own id (ids are never handed out again),
with the references the delete removed. An undo is recorded too: undo twice redoes.

Examples:
  tasks undo --dry-run
  tasks undo
  tasks undo --json | jq '.steps'`,
    )
    .action(async (opts: UndoOptions) => {
      const { dir } = ctx.list(true, { dryRun: opts.dryRun });
      const current = (id: string) => {
        const read = readTaskFile(taskPath(dir, id));
        return read.kind === 'ok' ? read.task : undefined;
      };
      const { plan } = await undoLast(dir, {
        dryRun: Boolean(opts.dryRun),
        current,
        applying: (planned) => (ctx.undoing = planned.txn),
        recorded: () => ctx.flushJournal(),
      });
      if (ctx.io.json) {
        ctx.io.out(renderJson(undoJson(plan, Boolean(opts.dryRun))));
        return;
      }
      ctx.io.out(renderUndo(plan, Boolean(opts.dryRun)));
    });
}
