import type { Command } from 'commander';
import { AS_HELP } from '../flags/actor-flags.js';
import { addNotifyOption, type LifecycleFlags } from '../flags/lifecycle-flags.js';
import { changeStatus } from '../lifecycle/status-change.js';
import type { Context } from '../runtime/context.js';

export function registerStart(program: Command, ctx: Context): void {
  const command = program
    .command('start')
    .description('mark a task in progress: tasks update <id> --status in_progress')
    .option('--as <agent>', AS_HELP)
    .argument('<id>', 'task id');
  addNotifyOption(command)
    .addHelpText(
      'after',
      '\nOpen blockers do not stop it (agents may start such a task too); they are named on stderr.\n\nExamples:\n  tasks start 4\n  tasks claim 4 --as @me --start     also take it',
    )
    .action((rawId: string, opts: LifecycleFlags) => changeStatus(ctx, rawId, 'in_progress', { ...opts, hooks: false }));
}
