import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import type { ReleaseResult } from '../../core/claims/release-apply.js';
import { planGoneRelease, releaseGoneTargets, wouldRelease } from '../../core/history/gone-release.js';
import { releaseOne, releaseOwned } from '../../core/lifecycle/release-change.js';
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
import { parseIdArguments, requireOwner } from '../flags/parse.js';
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
    .option(
      '--gone',
      "release every unfinished task whose owner's sessions have all ended or crashed (tasks list marks them), and put back to pending a task in progress with no owner that an ended or crashed session held",
    )
    .option('-n, --dry-run', 'with --gone: say what would be released; change nothing')
    .option('--force', 'with --gone: release even while a live session that can see the list may pick the work up');
  addPreconditionOptions(cmd)
    .addHelpText(
      'after',
      `
Each task is a task-locked update, the very one agents make. A completed task keeps its
owner (exit 4 if named); --owner skips completed tasks, and releases the agent's tasks as
one write: a task locked past the retry budget (exit 5) leaves every one of them as it
was. With several ids, each is reported and the exit status is the worst.
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
      const ids = parseIdArguments('release', rawIds);
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
        const { released, unknownOwner } = await releaseOwned({ configDir: ctx.configDir, listId, dir, owner });
        if (unknownOwner !== undefined) ctx.io.warn(unknownOwner, 'unknown_owner', { owner });
        // A loop, not push(...): a list can hold more tasks than a call takes arguments.
        for (const r of released) reports.push(itemOf(dir, r));
        if (!ctx.io.json) {
          for (const r of released) ctx.io.out(renderReleaseLine(r));
          if (released.length === 0) ctx.io.note(renderNothingHeld(owner), 'nothing_held', { owner });
        }
      } else {
        for (const id of ids) {
          try {
            const r = await releaseOne(dir, id, pre);
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
 * `--gone`: every unfinished task whose owner's session is over, and every task in progress
 * with no owner that a session over held. Each release is checked under the task lock
 * against the owner we saw (or, with none, that it is still unowned and in progress), so a
 * task an agent or person took over meanwhile is left alone (reported, exit 4).
 */
async function releaseGone(ctx: Context, opts: ReleaseOptions, ids: string[], owner: string | undefined): Promise<void> {
  if (ids.length > 0 || owner !== undefined) throw usage('--gone takes no task ids and no --owner');
  if (preconditionsFrom(opts, ctx)) throw usage('--if-* preconditions apply to given task ids, not to --gone');
  const choice = ctx.list(true, { dryRun: opts.dryRun });
  const { id: listId, dir } = choice;
  const { gone, targets, why, live, alive } = planGoneRelease(ctx.sessions, ctx.configDir, listId, ctx.person, choice.exists);
  if (targets.length === 0) {
    if (ctx.io.json) ctx.io.out(renderJson([]));
    // Why nothing was released, on stderr (a JSON line with --json).
    ctx.io.note(renderNoneGone({ gone: gone !== undefined, alive }), 'none_gone', alive === undefined ? undefined : { alive });
    return;
  }
  if (opts.dryRun) {
    // The real run's items, as they would be, flagged.
    if (ctx.io.json) ctx.io.out(renderJson(targets.map((t) => dryRunItem(wouldRelease(t)))));
    else for (const t of targets) ctx.io.out(renderWouldRelease(wouldRelease(t), why.get(t.id)));
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
  await releaseGoneTargets(dir, targets, (id, outcome) => {
    if (outcome instanceof Error) {
      reports.push({ id, ok: false, error: errors.item(id, outcome) });
      return;
    }
    reports.push(itemOf(dir, outcome));
    if (!ctx.io.json) ctx.io.out(renderReleaseLine(outcome, why.get(id)));
  });
  if (ctx.io.json) ctx.io.out(renderJson(reports));
  errors.summarize(targets.length);
}

/** A dry run's item: the real run's, with its task as it would be (`updatedAt` null: not written), flagged. */
function dryRunItem(r: ReleaseResult): ReleaseItem {
  const { id, task, ...rest } = r;
  return { id, ok: true, ...rest, task: taskJson(task, undefined), dryRun: true };
}
