import type { Command } from 'commander';

/**
 * `--no-hooks` and `--no-notify`, for every command that creates, completes or
 * reassigns tasks; lifecycle/run-lifecycle.ts runs the change they govern.
 */
export interface LifecycleFlags {
  /** commander's `--no-hooks` */
  hooks?: boolean;
  /** `--require-hooks`: refuse the change when a settings file's hooks would be skipped. */
  requireHooks?: boolean;
  /** commander's `--no-notify` */
  notify?: boolean;
}

/** For commands that can create or complete tasks. */
function addHooksOption(command: Command): Command {
  return command
    .option('--no-hooks', "don't run the TaskCreated / TaskCompleted hooks of Claude Code's settings")
    .option(
      '--require-hooks',
      'refuse (exit 4, nothing written) when hooks would be skipped: the folder not trusted, or managed settings allowing only theirs',
    );
}

/** For commands that can change an owner (update, create, claim). */
export function addNotifyOption(command: Command): Command {
  return command.option('--no-notify', "don't write a task_assignment message to a new owner's team inbox");
}

export function addLifecycleOptions(command: Command): Command {
  return addNotifyOption(addHooksOption(command));
}
