import type { Command } from 'commander';
import { updateWithNudge } from '../../core/progress/update-nudge.js';
import { parseTaskId } from '../../core/store/ids.js';
import { deleteOne } from '../../core/writes/deletion.js';
import type { Preconditions } from '../../core/writes/preconditions.js';
import { renderJson } from '../../render/json.js';
import { renderNote } from '../../render/note.js';
import { taskJson } from '../../render/task-json.js';
import { renderDeletedByUpdate } from '../../render/update-message.js';
import { AS_HELP } from '../flags/actor-flags.js';
import { addLifecycleOptions, type LifecycleFlags } from '../flags/lifecycle-flags.js';
import { collect } from '../flags/parse.js';
import { type PatchFlags, patchFrom } from '../flags/patch-flags.js';
import { addPreconditionOptions, PRECONDITION_HELP, type PreconditionOptions, preconditionsFrom } from '../flags/precondition-flags.js';
import { runLifecycle } from '../lifecycle/run-lifecycle.js';
import { reportUpdate } from '../lifecycle/update-report.js';
import { type Context, usage } from '../runtime/context.js';

interface UpdateOptions extends PreconditionOptions, LifecycleFlags, PatchFlags {}

const PRECONDITION_KEYS = new Set(['ifStatus', 'ifOwner', 'ifUnowned']);

export function registerUpdate(program: Command, ctx: Context): void {
  const cmd = program
    .command('update')
    .description("change a task, merging as the agents' TaskUpdate does")
    .option('--as <agent>', AS_HELP)
    .argument('<id>', 'task id')
    .option('--subject <text>', 'new title')
    .option('-d, --description <text>', 'new description')
    .option('--active-form <text>', 'new active form ("" removes it)')
    .option('--status <status>', 'pending, in_progress, completed (or deleted, which deletes the task)')
    .option('--owner <name>', 'assign to an agent or person')
    .option('--no-owner', 'remove the owner (unassign)')
    .option('--meta <key=value>', 'set metadata; key:=<json> for a JSON value (repeatable)', collect)
    .option('--unset-meta <key>', 'remove a metadata key (repeatable)', collect)
    .option('--add-blocks <ids>', 'tasks this one blocks (comma-separated, or repeat)', collect)
    .option('--add-blocked-by <ids>', 'tasks that block this one (comma-separated, or repeat)', collect);
  addPreconditionOptions(addLifecycleOptions(cmd))
    .addHelpText(
      'after',
      `\n${PRECONDITION_HELP}\n\nCompleting a task runs the TaskCompleted hooks of Claude Code's settings first; if one blocks,\nnothing is written and tasks exits 4. In a team's list, a new owner gets a task_assignment\nmessage in their inbox, as agents send.\n\nExamples:\n  tasks update 4 --status in_progress --owner @me\n  tasks update 4 --status completed\n  tasks update 4 --meta priority=high --unset-meta note\n  tasks update 4 --no-owner\n  tasks update 4 --owner bob --if-owner alice       reassign, only if alice still has it\n  tasks update 4 --owner @me --if-unowned --if-status pending\n  tasks update 4 --owner alice --no-notify`,
    )
    .action(async (rawId: string, opts: UpdateOptions) => {
      const id = parseTaskId(rawId);
      const preconditions = preconditionsFrom(opts, ctx);
      if (opts.status?.trim().toLowerCase() === 'deleted') return deleteByUpdate(ctx, id, opts, preconditions);
      const patch = patchFrom(opts, ctx);
      if (Object.keys(patch).length === 0) throw usage('nothing to update: give at least one change (see tasks update --help)');
      const choice = ctx.list(true);
      const updated = await runLifecycle(ctx, choice, opts, (lifecycle, report) =>
        updateWithNudge(lifecycle, id, patch, preconditions, report),
      );
      if (updated === undefined) return;
      const { result, nudge } = updated;
      reportUpdate(ctx, choice, result, {
        warnBlockers: patch.status !== undefined && patch.status !== 'pending' && result.changed.includes('status'),
      });
      if (nudge) ctx.io.note(renderNote(nudge.message), nudge.code);
    });
}

/** `--status deleted`: a delete, reported in the shape `delete` reports one. */
async function deleteByUpdate(ctx: Context, id: string, opts: UpdateOptions, preconditions: Preconditions | undefined): Promise<void> {
  // Who makes the change (--as) is not a change: it goes with a delete too. `owner` is true
  // unless --owner or --no-owner was given (commander's default for a negatable option).
  const allowed = new Set(['status', 'hooks', 'notify', 'as', ...PRECONDITION_KEYS]);
  const given = (k: string, v: unknown) => v !== undefined && !(k === 'owner' && v === true);
  const others = Object.keys(opts).filter((k) => !allowed.has(k) && given(k, (opts as Record<string, unknown>)[k]));
  if (others.length > 0) throw usage('--status deleted cannot be combined with other changes');
  const choice = ctx.list(true);
  const { task, changedAt, references } = await deleteOne(choice.dir, id, { preconditions });
  // The shape of one `delete --json` item: a delete is a delete, whichever command made it.
  if (ctx.io.json) ctx.io.out(renderJson({ id, ok: true, deleted: true, task: taskJson(task, changedAt), references }));
  else ctx.io.out(renderDeletedByUpdate(ctx.shortId(choice.id), id, { human: ctx.io.humanLayout, style: ctx.io.style }));
}
