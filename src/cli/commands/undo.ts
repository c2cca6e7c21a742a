import type { Command } from 'commander';
import { journalPath } from '../../core/history/journal.js';
import { applyUndo, planLastUndo } from '../../core/history/undo-plan.js';
import { withOwnFileLock } from '../../core/locks/locks.js';
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
      const { dir } = ctx.list(true);
      const current = (id: string) => {
        const read = readTaskFile(taskPath(dir, id));
        return read.kind === 'ok' ? read.task : undefined;
      };
      // One undo at a time per list: the next one must see this one's record, or two
      // processes would both take back the same change.
      const plan = await withOwnFileLock(journalPath(dir), 'the journal', async () => {
        const planned = planLastUndo(dir, current);
        if (!opts.dryRun) {
          ctx.undoing = planned.txn;
          await applyUndo(dir, planned);
          ctx.flushJournal();
        }
        return planned;
      });
      if (ctx.io.json) {
        ctx.io.out(renderJson(undoJson(plan, Boolean(opts.dryRun))));
        return;
      }
      ctx.io.out(renderUndo(plan, Boolean(opts.dryRun)));
    });
}
