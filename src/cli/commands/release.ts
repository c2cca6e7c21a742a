import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { type ReleaseResult, releaseOwner, releaseTask } from '../../core/claims/release-apply.js';
import { planGoneRelease } from '../../core/history/gone-release.js';
import { readList } from '../../core/store/list-read.js';
import { applyPatch } from '../../core/store/patch.js';
import type { Task } from '../../core/store/schema.js';
import { teamForList, unknownOwnerWarning } from '../../core/teams/teams.js';
import { preconditionGuard } from '../../core/writes/preconditions.js';
import { renderJson } from '../../render/json.js';
import {
  renderLiveInProject,
  renderNoneGone,
  renderNothingHeld,
  renderReleaseLine,
  renderWouldRelease,
} from '../../render/release-lines.js';
import { type TaskJson, taskJson } from '../../render/task-json.js';
import { AS_HELP } from '../flags/actor-flags.js';
import { parseIds, requireOwner } from '../flags/parse.js';
import { addPreconditionOptions, PRECONDITION_HELP, type PreconditionOptions, preconditionsFrom } from '../flags/precondition-flags.js';
import { BatchErrors } from '../runtime/batch-errors.js';
import { type Context, usage } from '../runtime/context.js';
import { taskDocument } from '../runtime/task-document.js';

interface ReleaseOptions extends PreconditionOptions {
  owner?: string;
  gone?: boolean;
  dryRun?: boolean;
  force?: boolean;
}

/**
 * One task's outcome with --json: what the release did (with --dry-run, would do, flagged
 * `dryRun`; its task as it would be, `updatedAt` null: not written), or its error.
 */
type ReleaseItem =
  | ({ id: string; ok: true } & Omit<ReleaseResult, 'id' | 'task'> & { task: TaskJson; dryRun?: true })
  | { id: string; ok: false; error: Record<string, unknown> };

function itemOf(dir: string, r: ReleaseResult): ReleaseItem {
  const { id, task, ...rest } = r;
  return { id, ok: true, ...rest, task: taskDocument(dir, task) };
}

export function registerRelease(program: Command, ctx: Context): void {
  const cmd = program
    .command('release')
    .description('give tasks back: remove the owner, and an in_progress task goes back to pending')
    .option('--as <agent>', AS_HELP)
    .argument('[ids...]', 'task ids')
    .option('--owner <agent>', 'release every unfinished task of <agent> (what Claude Code does when a teammate exits)')
    .option('--gone', "release every unfinished task whose owner's sessions have all ended or crashed (tasks list marks them)")
    .option('-n, --dry-run', 'with --gone: say what would be released; change nothing')
    .option('--force', 'with --gone: release even while a live session that can see the list may pick the work up');
  addPreconditionOptions(cmd)
    .addHelpText(
      'after',
      `
Each task is a task-locked update, the very one agents make. A completed task keeps its
owner (exit 4 if named); --owner skips completed tasks. With several ids, each is
reported and the exit status is the worst.
${PRECONDITION_HELP}

Examples:
  tasks release 4
  tasks release 4 --if-owner alice     only if alice still has it
  tasks release --owner worker-2       worker-2 crashed: free its tasks
  tasks release --gone --dry-run       what the agents of ended sessions still hold
  tasks release --owner worker-2 --json | jq -r '.[].id'`,
    )
    .action(async (rawIds: string[], opts: ReleaseOptions) => {
      const owner = requireOwner('--owner', opts.owner, ctx);
      const ids = parseIds(rawIds);
      if (opts.gone) return releaseGone(ctx, opts, ids, owner);
      if (opts.dryRun) throw usage('--dry-run goes with --gone');
      if (opts.force) throw usage('--force goes with --gone');
      if (owner !== undefined && ids.length > 0) throw usage('give task ids or --owner, not both');
      if (owner === undefined && ids.length === 0) throw usage('give task ids, or --owner <agent> for all of its tasks');
      const pre = preconditionsFrom(opts, ctx);
      if (owner !== undefined && pre) throw usage('--if-* preconditions apply to given task ids, not to --owner');
      const { id: listId, dir } = ctx.list(true);
      const reports: ReleaseItem[] = [];
      const errors = new BatchErrors(ctx.io, 'id');
      if (owner !== undefined) {
        const released = await releaseOwner(dir, owner);
        if (released.length === 0) {
          // A team member's name with nothing to release is fine; a typo deserves a word.
          const warning = unknownOwnerWarning(owner, readList(dir).tasks, teamForList(ctx.configDir, listId));
          if (warning !== undefined) ctx.io.warn(warning, 'unknown_owner', { owner });
        }
        reports.push(...released.map((r) => itemOf(dir, r)));
        if (!ctx.io.json) {
          for (const r of released) ctx.io.out(renderReleaseLine(r));
          if (released.length === 0) ctx.io.note(renderNothingHeld(owner), 'nothing_held', { owner });
        }
      } else {
        const guard = preconditionGuard(pre);
        for (const id of ids) {
          try {
            const r = await releaseTask(dir, id, guard);
            reports.push(itemOf(dir, r));
            if (!ctx.io.json) ctx.io.out(renderReleaseLine(r));
          } catch (err) {
            // One failure does not stop the others; the exit code is the worst one.
            reports.push({ id, ok: false, error: errors.item(id, err) });
          }
        }
      }
      if (ctx.io.json) ctx.io.out(renderJson(reports));
      errors.summarize(ids.length);
    });
}

/**
 * `--gone`: every unfinished task whose owner's session is over. Each release is checked
 * under the task lock against the owner we saw, so a task an agent or person took over
 * meanwhile is left alone (reported, exit 4).
 */
async function releaseGone(ctx: Context, opts: ReleaseOptions, ids: string[], owner: string | undefined): Promise<void> {
  if (ids.length > 0 || owner !== undefined) throw usage('--gone takes no task ids and no --owner');
  if (preconditionsFrom(opts, ctx)) throw usage('--if-* preconditions apply to given task ids, not to --gone');
  const choice = ctx.list(true, { dryRun: opts.dryRun });
  const { id: listId, dir } = choice;
  const { gone, targets, live, alive } = planGoneRelease(ctx.sessions, ctx.configDir, listId, ctx.person, choice.exists);
  if (targets.length === 0) {
    if (ctx.io.json) ctx.io.out(renderJson([]));
    // Why nothing was released, on stderr (a JSON line with --json).
    ctx.io.note(renderNoneGone({ gone: gone !== undefined, alive }), 'none_gone', alive === undefined ? undefined : { alive });
    return;
  }
  if (opts.dryRun) {
    // The real run's items, as they would be, flagged.
    if (ctx.io.json) ctx.io.out(renderJson(targets.map((t) => wouldRelease(t))));
    else for (const t of targets) ctx.io.out(renderWouldRelease(t, gone!.whyOf(t.owner)));
    if (live.length > 0) ctx.io.note(`${renderLiveInProject(live, ctx.home)}; a real run needs --force`, 'live_in_project');
    return;
  }
  if (live.length > 0 && !opts.force) {
    throw new TasksError('conflict', `${renderLiveInProject(live, ctx.home)}; nothing released: add --force to release anyway`, {
      details: { live: live.map((s) => ({ sessionId: s.sessionId, cwd: s.cwd ?? null })) },
    });
  }
  const reports: ReleaseItem[] = [];
  const errors = new BatchErrors(ctx.io, 'id');
  for (const t of targets) {
    try {
      const r = await releaseTask(dir, t.id, preconditionGuard({ owner: t.owner }));
      reports.push(itemOf(dir, r));
      if (!ctx.io.json) ctx.io.out(renderReleaseLine(r));
    } catch (err) {
      reports.push({ id: t.id, ok: false, error: errors.item(t.id, err) });
    }
  }
  if (ctx.io.json) ctx.io.out(renderJson(reports));
  errors.summarize(targets.length);
}

/** What releasing `t` would report: the agents' unassign applied to it, not written. */
function wouldRelease(t: Task): ReleaseItem {
  const after = applyPatch(t, { owner: null, status: 'pending' }).task;
  return {
    id: t.id,
    ok: true,
    released: true,
    ...(t.owner === undefined ? {} : { previousOwner: t.owner }),
    previousStatus: t.status,
    task: taskJson(after, undefined),
    dryRun: true,
  };
}
