import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { type ClaimOutcome, claimWithLifecycle, type LiveOnList } from '../../core/lifecycle/claim-change.js';
import { liveSessionsNear } from '../../core/sessions/gone-owners.js';
import { parseTaskId } from '../../core/store/ids.js';
import { describeRefusal, refusalFacts, renderClaimed, renderPassedOver, renderTooNew } from '../../render/claim-result.js';
import { renderJson } from '../../render/json.js';
import { parseDuration } from '../flags/duration-flags.js';
import { addNotifyOption, type LifecycleFlags } from '../flags/lifecycle-flags.js';
import { requireOwner } from '../flags/parse.js';
import { addPreconditionOptions, PRECONDITION_HELP, type PreconditionOptions, preconditionsFrom } from '../flags/precondition-flags.js';
import { runLifecycle } from '../lifecycle/run-lifecycle.js';
import { type Context, usage } from '../runtime/context.js';
import { taskDocument } from '../runtime/task-document.js';

interface ClaimOptions extends PreconditionOptions, LifecycleFlags {
  as?: string;
  next?: boolean;
  minAge?: string;
  busyCheck?: boolean;
  start?: boolean;
  force?: boolean;
}

export function registerClaim(program: Command, ctx: Context): void {
  const cmd = program
    .command('claim')
    .description('claim a task for an agent, exactly as agents claim (same checks, order, reasons, locks)')
    .argument('[id]', 'task id (or --next)')
    .option('--as <agent>', 'the agent (or person) that claims it (required in a script; at a terminal, you: @me)')
    .option('--next', 'claim the lowest-id ready task: pending, unowned, no open blocker')
    .option(
      '--min-age <duration>',
      'with --next: pass over tasks created less than this long ago (an agent links blockers a turn after it creates)',
    )
    .option('--busy-check', 'refuse (agent_busy) if the agent already owns an unfinished task')
    .option('--start', 'also set status in_progress, in the same locked write')
    .option('--force', 'claim a task in progress with no owner even while a live session is on the list');
  addPreconditionOptions(addNotifyOption(cmd))
    .addHelpText(
      'after',
      `
Checks, in the agents' order: task_not_found (exit 3), already_claimed, already_resolved,
blocked, agent_busy (exit 4). Claiming a task you already own succeeds. Locks: the task
lock; with --busy-check or --next, the list lock and then the task lock.
One check is tasks' own: a task in progress with no owner (a main agent commonly starts
its work without naming itself owner) is refused while a live session is on the list
(exit 4, reason in_progress_live, the session named): it is most likely that session's
work. --force claims it all the same, as agents may.
Piped, a success prints the task id; --json prints the claimed task. A refusal is an error
on stderr (with --json, its reason, the task and the ids behind it among the facts).
--next exits 4 when no task is ready (reason no_task_ready, task null); 3 means the
list does not exist.
${PRECONDITION_HELP}

Examples:
  tasks claim 4 --as alice
  tasks claim 4 --as alice --start --busy-check
  id=$(tasks claim --next --as worker-1 --start) && echo "working on #$id"
  tasks claim --next --as worker-1 --min-age 30s   leave tasks an agent may still be linking
  tasks claim 4 --as bob --json 2>&1 >/dev/null | jq -r .error.reason`,
    )
    .action(async (rawId: string | undefined, opts: ClaimOptions) => {
      // A person at a terminal claims for themself unless they name an agent; a script (or an agent's shell) must say who.
      const forPerson = opts.as === undefined && ctx.io.canAsk && ctx.env.CLAUDECODE !== '1';
      const agent = requireOwner('--as', forPerson ? '@me' : opts.as, ctx);
      if (agent === undefined) throw usage('--as <agent> is required: who claims the task');
      if (rawId !== undefined && opts.next) throw usage('give a task id or --next, not both');
      if (rawId === undefined && !opts.next) throw usage('give a task id, or --next for the next ready task');
      const pre = preconditionsFrom(opts, ctx);
      if (opts.next && pre) throw usage('--if-* preconditions apply to a given task id, not to --next');
      if (opts.minAge !== undefined && !opts.next) throw usage('--min-age goes with --next');
      if (opts.force && opts.next) throw usage('--force goes with a task id: --next takes only pending tasks');
      const minAgeMs = opts.minAge === undefined ? undefined : parseDuration('--min-age', opts.minAge);
      const id = rawId === undefined ? undefined : parseTaskId(rawId);
      const choice = ctx.list(true);
      const request = {
        agent,
        id,
        busyCheck: Boolean(opts.busyCheck),
        start: Boolean(opts.start),
        minAgeMs,
        now: ctx.now(),
        preconditions: pre,
        liveOnList: opts.force ? undefined : { sessions: () => liveOnList(ctx, choice.id), override: '--force claims it all the same' },
      };
      // Claims never complete a task, so no hooks run; a new owner in a team's list is told, as agents tell.
      const claimed = await runLifecycle(ctx, choice, { notify: opts.notify, hooks: false }, async (lifecycle, lifecycleReport) => {
        const done = await claimWithLifecycle(lifecycle, request, lifecycleReport);
        for (const p of done.passedOver) ctx.io.warn(renderPassedOver(p), 'passed_over', { id: p.id });
        return done;
      });
      if (claimed === undefined) return;
      const { outcome, tooNew } = claimed;
      if (tooNew.length > 0) ctx.io.note(renderTooNew(tooNew, minAgeMs ?? 0), 'too_new', { ids: tooNew, minAgeMs });
      report(ctx, choice.dir, id ?? outcome.task?.id ?? '?', agent, outcome, Boolean(opts.start));
    });
}

/** The live sessions that can see the list (as `release --gone` tells them), but the one this command runs in. */
function liveOnList(ctx: Context, listId: string): LiveOnList[] {
  const own = ctx.env.CLAUDE_CODE_SESSION_ID;
  return (
    liveSessionsNear(ctx.sessions, listId)
      .filter((s) => s.sessionId !== own)
      // A pid of another machine names no process here: not said.
      .map((s) => ({ sessionId: s.sessionId, pid: s.state === 'live' ? s.pid : undefined, cwd: s.cwd }))
  );
}

/**
 * A claim prints the claimed task (`--json`: in the shape every command prints a task); a
 * refusal is an error like any other, on stderr, with the agents' reason and the task as
 * it is among its facts.
 */
function report(ctx: Context, dir: string, id: string, agent: string, result: ClaimOutcome, start: boolean): void {
  if (!result.success) {
    // No such task is not found (3); nothing ready is a refusal (4), told apart from a
    // missing list (3), which a dispatcher must not mistake for "try again later".
    const notFound = result.reason === 'task_not_found';
    const hint = result.reason === 'no_task_ready' ? 'tasks list --blocked shows what waits on what' : undefined;
    const task = result.task === undefined ? null : taskDocument(dir, result.task);
    ctx.io.fail(
      new TasksError(notFound ? 'not_found' : 'conflict', describeRefusal(id, result), {
        ...(hint === undefined ? {} : { hint }),
        details: { ...(notFound ? { id } : {}), ...refusalFacts(result, task) },
      }),
    );
    return;
  }
  const task = result.task;
  if (ctx.io.json) ctx.io.out(renderJson(taskDocument(dir, task)));
  else if (!ctx.io.humanLayout) ctx.io.out(task.id);
  else ctx.io.out(`${ctx.io.style.green('✔')} ${renderClaimed(result, agent, start)}`);
}
