import type { Command } from 'commander';

/**
 * `--as <agent>` on every command that writes: the change is recorded in the journal as
 * that agent's (history/journal.ts), with the Claude Code session it runs in when there
 * is one; `--as @me` (your login name) records it as yours. `claim --as` is the claiming
 * agent itself and is declared by claim.
 */
export const AS_HELP = "make this change as <agent>: the journal records it as that agent's (@me: yours)";

export function addAsOption(cmd: Command): Command {
  return cmd.option('--as <agent>', AS_HELP);
}
