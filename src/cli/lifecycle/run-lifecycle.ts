/**
 * A change that runs core's task lifecycle (lifecycle/task-lifecycle.ts) from a command:
 * the context core needs to run hooks and write inboxes, Ctrl-C as an abort while hooks
 * run, and the outcome told on stderr. What commands that change a task's state share
 * besides: `start` and `done` as the updates they are (status-change.ts), and a word
 * when a task starts or completes with its blockers still open.
 */
import { HookBlockedError, requireHooksToRun } from '../../core/hooks/hooks.js';
import { personLifecycle } from '../../core/lifecycle/person-change.js';
import { emptyReport, type LifecycleContext, type LifecycleReport } from '../../core/lifecycle/task-lifecycle.js';
import type { ListChoice } from '../../core/lists/list-summary.js';
import { renderBlockDetails, renderLifecycleReport } from '../../render/lifecycle-report.js';
import type { LifecycleFlags } from '../flags/lifecycle-flags.js';
import { type Context, usage } from '../runtime/context.js';
import { withInterrupt } from '../runtime/interrupt.js';

/** The run's directory is the project; a deleted one is none (Context.cwd). */
function lifecycleContext(ctx: Context, choice: ListChoice, flags: LifecycleFlags, signal: AbortSignal): LifecycleContext {
  return personLifecycle({
    configDir: ctx.configDir,
    listId: choice.id,
    listDir: choice.dir,
    projectDir: ctx.cwd,
    hookPolicy: ctx.hookPolicy,
    env: ctx.env,
    pid: process.pid,
    signal,
    hooks: flags.hooks !== false,
    notify: flags.notify !== false,
    now: () => new Date(ctx.now()),
  });
}

function tellLifecycle(ctx: Context, report: LifecycleReport): void {
  const { notes, warnings } = renderLifecycleReport(report);
  for (const w of warnings) ctx.io.warn(w.text, w.code, w.facts);
  for (const n of notes) ctx.io.note(n.text, n.code, n.facts);
}

/**
 * Run a lifecycle-aware change; a hook's block is reported (exit 4) with its reasons in
 * full under the one-line error. Returns undefined when blocked.
 */
export async function runLifecycle<T>(
  ctx: Context,
  choice: ListChoice,
  flags: LifecycleFlags,
  fn: (lifecycle: LifecycleContext, report: LifecycleReport) => Promise<T>,
): Promise<T | undefined> {
  const report = emptyReport();
  if (flags.requireHooks) {
    if (flags.hooks === false) throw usage('--require-hooks and --no-hooks contradict each other');
    requireHooksToRun(ctx.configDir, ctx.cwd, ctx.hookPolicy);
  }
  try {
    const value = await withInterrupt((signal) => fn(lifecycleContext(ctx, choice, flags, signal), report));
    tellLifecycle(ctx, report);
    return value;
  } catch (err) {
    tellLifecycle(ctx, report);
    if (!(err instanceof HookBlockedError)) throw err;
    ctx.io.fail(err);
    if (!ctx.io.json) for (const line of renderBlockDetails(err)) ctx.io.note(line, 'hook_block_detail');
    return undefined;
  }
}
