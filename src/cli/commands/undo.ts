import type { Command } from 'commander';
import { addAsOption } from '../flags/actor-flags.js';
import { requireText } from '../flags/parse.js';
import { parseTimeFlag, TIME_HELP } from '../flags/time-flags.js';
import { runUndoCommand } from '../history/undo-command.js';
import { type Context, usage } from '../runtime/context.js';

interface UndoOptions {
  dryRun?: boolean;
  txn?: string;
  since?: string;
  who?: string;
}

export function registerUndo(program: Command, ctx: Context): void {
  const cmd = program
    .command('undo')
    .description('take back the last command made with tasks in this list; again to go further back (redo re-applies)')
    .option('-n, --dry-run', 'say what would be taken back; change nothing')
    .option('--txn <id>', 'take back this one command (a txn from tasks log --json), wherever it is, if nothing changed its tasks since')
    .option('--since <time>', `take back every command since <time>, all or nothing: ${TIME_HELP}`)
    .option('--who <name>', 'with --since: only the commands of this person or agent');
  addAsOption(cmd).addHelpText(
    'after',
    `
An undo stack, as Taskwarrior keeps one: each undo takes back one more command, newest
first; tasks redo applies again what the last undo took back; a new change clears what is
left to redo. Only changes made with tasks are in the journal: an agent's own changes are
not undone. Each task must still hold what the command wrote, or nothing is done (exit 4,
naming what changed since, and who where a record says). A deleted task comes back under
its own id (ids are never handed out again). All of an undo's locks are taken before any
write; an undo stopped half-way (a kill) is finished by the next undo or redo.

Examples:
  tasks undo --dry-run
  tasks undo && tasks undo          # the last two commands
  tasks undo --since 10m --who ci-worker
  tasks undo --txn "$(tasks log --json | jq -r 'map(select(.command == "delete")) | last | .txn')"`,
  );
  cmd.action(async (opts: UndoOptions) => {
    const modes = [opts.txn !== undefined, opts.since !== undefined].filter(Boolean).length;
    if (modes > 1) throw usage('give --txn or --since, not both');
    if (opts.who !== undefined && opts.since === undefined) throw usage('--who goes with --since');
    const txn = requireText('--txn', opts.txn);
    const since = opts.since === undefined ? undefined : parseTimeFlag('--since', opts.since, ctx.now());
    const { id, dir } = ctx.list(true, { dryRun: Boolean(opts.dryRun) });
    await runUndoCommand(
      ctx,
      { id, dir },
      { action: 'undo', txn, since, who: requireText('--who', opts.who), dryRun: Boolean(opts.dryRun) },
    );
  });
}
