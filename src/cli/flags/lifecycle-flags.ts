import type { Command } from 'commander';
import { HookBlockedError } from '../../core/hooks/hooks.js';
import { emptyReport, type LifecycleContext, type LifecycleReport } from '../../core/lifecycle/task-lifecycle.js';
import type { ListChoice } from '../../core/lists/list-summary.js';
import { renderBlockDetails, renderLifecycleReport } from '../../render/lifecycle-report.js';
import type { App } from '../runtime/app.js';

/**
 * What every command that creates, completes or reassigns tasks shares: the
 * `--no-hooks` / `--no-notify` flags, the context core needs to run hooks and write
 * inboxes, Ctrl-C handling while hooks run, and how the outcome is told on stderr.
 */

export interface LifecycleFlags {
  /** commander's `--no-hooks` */
  hooks?: boolean;
  /** commander's `--no-notify` */
  notify?: boolean;
}

/** Who assignment messages are from when a person reassigns work: Claude Code's own fallback. */
export const ASSIGNED_BY = 'team-lead';

/** For commands that can create or complete tasks. */
export function addHooksOption(command: Command): Command {
  return command.option('--no-hooks', "don't run the TaskCreated / TaskCompleted hooks of Claude Code's settings");
}

/** For commands that can change an owner (update, create, claim). */
export function addNotifyOption(command: Command): Command {
  return command.option('--no-notify', "don't write a task_assignment message to a new owner's team inbox");
}

export function addLifecycleOptions(command: Command): Command {
  return addNotifyOption(addHooksOption(command));
}

/** `session_id` in hook input: says the event came from tasks, and which process. */
export function hookSessionId(): string {
  return `tasks-cli-${process.pid}`;
}

function projectDir(app: App): string {
  try {
    return process.cwd();
  } catch {
    // The folder we were started in was removed: no project settings then.
    return app.configDir;
  }
}

export function lifecycleContext(app: App, choice: ListChoice, flags: LifecycleFlags, signal: AbortSignal): LifecycleContext {
  const project = projectDir(app);
  return {
    configDir: app.configDir,
    listId: choice.id,
    listDir: choice.dir,
    projectDir: project,
    hookPolicy: app.hookPolicy,
    hooks: flags.hooks === false ? undefined : { projectDir: project, env: app.env, sessionId: hookSessionId(), signal },
    notify: flags.notify !== false,
    assignedBy: ASSIGNED_BY,
    now: () => new Date(),
  };
}

/**
 * Run `fn` with Ctrl-C (and SIGTERM) turned into an abort that stops running hooks and
 * their process groups; the command then ends with 130. A second Ctrl-C kills at once.
 */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await fn(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function tellLifecycle(app: App, report: LifecycleReport): void {
  const { notes, warnings } = renderLifecycleReport(report);
  for (const w of warnings) app.warn(w);
  for (const n of notes) app.note(n);
}

/**
 * Run a lifecycle-aware change; a hook's block is reported (exit 4) with its reasons in
 * full under the one-line error. Returns undefined when blocked.
 */
export async function runLifecycle<T>(
  app: App,
  choice: ListChoice,
  flags: LifecycleFlags,
  fn: (ctx: LifecycleContext, report: LifecycleReport) => Promise<T>,
): Promise<T | undefined> {
  const report = emptyReport();
  try {
    const value = await withInterrupt((signal) => fn(lifecycleContext(app, choice, flags, signal), report));
    tellLifecycle(app, report);
    return value;
  } catch (err) {
    tellLifecycle(app, report);
    if (!(err instanceof HookBlockedError)) throw err;
    app.fail(err);
    if (!app.json) for (const line of renderBlockDetails(err)) app.note(line);
    return undefined;
  }
}
