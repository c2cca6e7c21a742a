/**
 * Hooks (docs/task-store.md section 7): the TaskCreated / TaskCompleted commands of
 * Claude Code's settings files, found (hook-settings.ts), run as Claude Code runs them
 * (hook-process.ts), and their answer read (hook-verdict.ts).
 */
import { TasksError } from '../base/errors.js';
import { withoutEscapes } from '../base/program-output.js';
import type { Task } from '../store/schema.js';
import {
  type CommandHook,
  type HookPolicySources,
  type HookSkip,
  loadTaskHookSettings,
  skipsOfEvent,
  type TaskHookEvent,
} from './hook-settings.js';
import { type HookVerdict, judgeHookRun } from './hook-verdict.js';

/**
 * Running the agents' task hooks from outside an agent (docs/task-store.md section 7).
 * Hooks run with no lock held: a hook can take minutes, and agents give up on a lock
 * after about 2.6 s. Callers hold no lock when they call these, and re-check the task
 * under its lock after.
 */

/** Where and as whom hooks run. Everything from the outside world comes in here. */
export interface HookContext {
  configDir: string;
  /** Folder trust and managed settings: which settings files' hooks may run. */
  policy: HookPolicySources;
  /**
   * The project folder (Claude Code's cwd): project settings, hooks' cwd, `cwd` on stdin.
   * Undefined when there is no project (the command's directory was deleted): only user
   * and managed settings count, and hooks run in the config folder.
   */
  projectDir: string | undefined;
  /** The environment hooks inherit (plus CLAUDE_PROJECT_DIR, CLAUDE_CONFIG_DIR, CLAUDE_CODE_TASK_LIST_ID). */
  env: Record<string, string | undefined>;
  /** `session_id` on stdin; says the event came from `tasks` (e.g. "tasks-cli-4242"). */
  sessionId: string;
  listId: string;
  /** Aborting stops running hooks (their process groups are killed). */
  signal?: AbortSignal | undefined;
}

/** What a hook is told about the task (the fields Claude Code sends). */
export interface HookTaskInfo {
  task: Pick<Task, 'id' | 'subject' | 'description'>;
  teammateName?: string | undefined;
  teamName?: string | undefined;
}

/** The JSON a hook reads on stdin. `transcript_path` is "": there is no transcript. */
export function hookInput(event: TaskHookEvent, ctx: { sessionId: string; cwd: string }, info: HookTaskInfo): Record<string, unknown> {
  return {
    session_id: ctx.sessionId,
    transcript_path: '',
    cwd: ctx.cwd,
    hook_event_name: event,
    task_id: info.task.id,
    task_subject: info.task.subject,
    task_description: info.task.description,
    ...(info.teammateName !== undefined ? { teammate_name: info.teammateName } : {}),
    ...(info.teamName !== undefined ? { team_name: info.teamName } : {}),
  };
}

export interface HookOutcome {
  command: string;
  source: string;
  verdict: HookVerdict | { kind: 'background' } | { kind: 'background-failed'; message: string };
}

export interface HookRunReport {
  event: TaskHookEvent;
  taskId: string;
  outcomes: HookOutcome[];
  blocked: boolean;
  /** Settings files or entries that were skipped. */
  settingsWarnings: string[];
  /** Settings files whose hooks were skipped by folder trust or managed policy. */
  settingsSkipped: HookSkip[];
}

/** The reasons of the hooks that blocked, as they gave them (stderr, or the JSON `reason`). */
function blockReasons(report: HookRunReport): string[] {
  return report.outcomes.flatMap((o) => (o.verdict.kind === 'block' ? [o.verdict.reason] : []));
}

/** Where hooks run: the project folder, else (no project) the config folder, which exists. */
function hooksCwd(ctx: Pick<HookContext, 'projectDir' | 'configDir'>): string {
  return ctx.projectDir ?? ctx.configDir;
}

/** Run every configured hook of `event` at once (as Claude Code does) and wait for all. */
export async function runTaskHooks(event: TaskHookEvent, ctx: HookContext, info: HookTaskInfo): Promise<HookRunReport> {
  const settings = loadTaskHookSettings(ctx.configDir, ctx.projectDir, ctx.policy);
  const cwd = hooksCwd(ctx);
  const stdin = JSON.stringify(hookInput(event, { sessionId: ctx.sessionId, cwd }, info));
  const env = {
    ...ctx.env,
    CLAUDE_PROJECT_DIR: cwd,
    // So that `tasks` inside a hook works on the same list.
    CLAUDE_CONFIG_DIR: ctx.configDir,
    CLAUDE_CODE_TASK_LIST_ID: ctx.listId,
  };
  const outcomes = await Promise.all(settings.hooks[event].map((hook) => runOne(event, hook, stdin, env, ctx)));
  const report: HookRunReport = {
    event,
    taskId: info.task.id,
    outcomes,
    blocked: outcomes.some((o) => o.verdict.kind === 'block'),
    settingsWarnings: settings.warnings,
    // Files skipped whose hooks are all of the other event: nothing of this change was kept from running.
    settingsSkipped: skipsOfEvent(settings.skipped, event),
  };
  if (outcomes.some((o) => o.verdict.kind === 'interrupted')) {
    throw new TasksError('interrupted', `interrupted while ${event} hooks were running for task #${info.task.id}`, {
      details: { event, taskId: info.task.id },
    });
  }
  return report;
}

async function runOne(
  event: TaskHookEvent,
  hook: CommandHook,
  stdin: string,
  env: Record<string, string | undefined>,
  ctx: HookContext,
): Promise<HookOutcome> {
  const base = { command: hook.command, source: hook.source };
  // Loaded when a hook runs: it brings node:child_process, which a run without hooks
  // (most) should not pay for at start-up.
  const { runHookProcess, startBackgroundHook } = await import('./hook-process.js');
  if (hook.background) {
    const failed = startBackgroundHook({ command: hook.command, args: hook.args, stdin, cwd: hooksCwd(ctx), env });
    return { ...base, verdict: failed === undefined ? { kind: 'background' } : { kind: 'background-failed', message: failed } };
  }
  const run = await runHookProcess({
    command: hook.command,
    args: hook.args,
    stdin,
    cwd: hooksCwd(ctx),
    env,
    timeoutMs: Math.round(hook.timeoutSeconds * 1000),
    signal: ctx.signal,
  });
  return { ...base, verdict: judgeHookRun(event, run, hook.timeoutSeconds) };
}

/** The number of hooks that would run for `event` (for "skipped N hooks (--no-hooks)"). */
export function countTaskHooks(event: TaskHookEvent, configDir: string, projectDir: string | undefined, policy: HookPolicySources): number {
  return loadTaskHookSettings(configDir, projectDir, policy).hooks[event].length;
}

/** A hook said no: exit 4. `details.reason` is "hook" so scripts can tell it from other conflicts. */
export class HookBlockedError extends TasksError {
  readonly report: HookRunReport;
  constructor(report: HookRunReport, action: string) {
    const reasons = blockReasons(report);
    // Test runners colour their output; the one-line message gets none of it.
    const first = (
      withoutEscapes(reasons[0] ?? '')
        .trim()
        .split('\n')[0] ?? ''
    ).trim();
    super('conflict', `${report.event} hook blocked ${action} #${report.taskId}: ${first}`, {
      details: {
        reason: 'hook',
        event: report.event,
        taskId: report.taskId,
        hooks: report.outcomes
          .filter((o) => o.verdict.kind === 'block')
          .map((o) => ({ command: o.command, source: o.source, reason: (o.verdict as { reason: string }).reason })),
      },
    });
    this.report = report;
  }
}

/**
 * `--require-hooks`: before a change that runs hooks, refuse (conflict, nothing written)
 * when some settings file's task hooks would be skipped: the folder is not trusted, or
 * managed settings allow only their own. A CI job that depends on a TaskCompleted gate
 * then fails instead of passing without it.
 */
export function requireHooksToRun(configDir: string, projectDir: string | undefined, policy: HookPolicySources): void {
  const skipped = loadTaskHookSettings(configDir, projectDir, policy).skipped;
  const first = skipped[0];
  if (first === undefined) return;
  throw new TasksError('conflict', `--require-hooks: ${first.message}; nothing changed`, {
    details: {
      reason: 'hooks_skipped',
      skipped: skipped.map((s) => ({
        reason: s.reason,
        files: s.files,
        ...(s.folder === undefined ? {} : { folder: s.folder, configFile: s.configFile }),
        ...(s.managedFile === undefined ? {} : { managedFile: s.managedFile }),
      })),
    },
  });
}
