import type { Command } from 'commander';
import { AS_HELP } from '../flags/actor-flags.js';
import { addLifecycleOptions, type LifecycleFlags } from '../flags/lifecycle-flags.js';
import { changeStatus } from '../lifecycle/status-change.js';
import type { Context } from '../runtime/context.js';

export function registerDone(program: Command, ctx: Context): void {
  const command = program
    .command('done')
    .description('mark a task completed: tasks update <id> --status completed (runs TaskCompleted hooks)')
    .option('--as <agent>', AS_HELP)
    .argument('<id>', 'task id');
  addLifecycleOptions(command)
    .addHelpText(
      'after',
      "\nClaude Code's TaskCompleted hooks run first; if one blocks, nothing is written (exit 4).\nOpen blockers do not stop it; they are named on stderr.\n\nExamples:\n  tasks done 4\n  tasks done 4 --no-hooks",
    )
    .action((rawId: string, opts: LifecycleFlags) => changeStatus(ctx, rawId, 'completed', opts));
}
