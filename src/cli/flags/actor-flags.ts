import type { Command } from 'commander';
import { requireOwner } from './parse.js';

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

/** The `--as` value, checked (non-empty; @me resolved), or undefined. */
export function asAgent(value: unknown, me: { person: string | undefined }): string | undefined {
  return typeof value === 'string' ? requireOwner('--as', value, me) : undefined;
}
