import type { Command } from 'commander';
import { addAsOption } from '../flags/actor-flags.js';
import { runUndoCommand } from '../history/undo-command.js';
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
    const { id, dir } = ctx.list(true, { dryRun: Boolean(opts.dryRun) });
    await runUndoCommand(ctx, { id, dir }, { action: 'redo', dryRun: Boolean(opts.dryRun) });
  });
}
