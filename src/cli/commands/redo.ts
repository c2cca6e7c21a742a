import type { Command } from 'commander';
import { lastChangeOf } from '../../core/history/last-change.js';
import { runUndo } from '../../core/history/undo-run.js';
import { sessionsOfList } from '../../core/sessions/list-sessions.js';
import { undoJson } from '../../render/history-json.js';
import { renderJson } from '../../render/json.js';
import { renderChangedBy } from '../../render/log-lines.js';
import { renderUndo } from '../../render/undo-report.js';
import { addAsOption } from '../flags/actor-flags.js';
import type { Context } from '../runtime/context.js';

interface RedoOptions {
  dryRun?: boolean;
}

export function registerRedo(program: Command, ctx: Context): void {
  const cmd = program
    .command('redo')
    .description('apply again what the last undo took back, if nothing changed its tasks since')
    .option('-n, --dry-run', 'say what would be applied again; change nothing');
  addAsOption(cmd).addHelpText(
    'after',
    `
After tasks undo (once or several times), each redo applies one undo's commands again,
the last undone first. A change made with tasks after the undo clears what is left to
redo. Each task must still hold what the undo left, or nothing is done (exit 4).

Examples:
  tasks undo && tasks redo
  tasks redo --dry-run --json | jq '.steps'`,
  );
  cmd.action(async (opts: RedoOptions) => {
    const { id: listId, dir } = ctx.list(true, { dryRun: Boolean(opts.dryRun) });
    const dryRun = Boolean(opts.dryRun);
    const result = await runUndo(dir, {
      action: 'redo',
      dryRun,
      // The journal's own changes are named by core; here an agent's, or a change no record shows.
      changedBy: (id) => {
        const last = lastChangeOf(dir, id, { listId, sessions: sessionsOfList(ctx.sessions, listId, { deep: true }) });
        return renderChangedBy({ ...last, event: last.event?.source === 'transcript' ? last.event : undefined });
      },
      recording: (marks) => {
        ctx.journal.txn = marks.txn;
        ctx.journal.marks = { ...(marks.undoes ? { undoes: marks.undoes } : {}), ...(marks.redoes ? { redoes: marks.redoes } : {}) };
      },
      end: () => ctx.journal.end(dir),
    });
    const ownTxn = dryRun ? result.txn : ctx.journal.txnInUse?.();
    if (ctx.io.json) ctx.io.out(renderJson(undoJson(result.plan, { dryRun, txn: ownTxn, times: result.times })));
    else ctx.io.out(renderUndo(result.plan, dryRun));
  });
}
