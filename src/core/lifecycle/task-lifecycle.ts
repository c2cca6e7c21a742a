/**
 * Lifecycle: the task state machine meeting the outside world, hooks (hooks/) and
 * team inboxes (teams/), around the writes of writes/ (docs/task-store.md sections 6-8).
 */
import { TasksError } from '../base/errors.js';
import type { HookPolicySources, TaskHookEvent } from '../hooks/hook-settings.js';
import { countTaskHooks, HookBlockedError, type HookContext, type HookRunReport, runTaskHooks } from '../hooks/hooks.js';
import { isMissing } from '../store/not-a-folder.js';
import type { TaskPatch } from '../store/patch.js';
import type { Task } from '../store/schema.js';
import { type Notification, notifyAssignment, type Team, teamForList } from '../teams/teams.js';
import { createTask, deleteTask, type Guard, getTask, type NewTask, type UpdateResult, updateTask } from '../writes/task-writes.js';

/**
 * THE single place where the task state machine meets the outside world:
 *
 * - "a task is about to become completed" -> `gateCompletion` (TaskCompleted hooks,
 *   before the status is written; a block throws HookBlockedError and nothing is written);
 * - "a task was created" -> `gateCreation` (TaskCreated hooks, after the file is written;
 *   the caller deletes the task on a block, as Claude Code does);
 * - "a task's owner changed" -> `afterOwnerChange` (the new owner's inbox gets a
 *   task_assignment message when the list belongs to a team).
 *
 * `createTaskWithLifecycle` and `updateTaskWithLifecycle` compose these with the store.
 * Any other command that completes a task or changes an owner (claim, release, import...)
 * calls the same three functions. No lock is held while hooks run or inboxes are written.
 *
 * Wiring another command (the CLI side is src/cli/lifecycle/run-lifecycle.ts, `runLifecycle`):
 *   claim:   const r = await claimTask(ctx.listDir, id, agent, req);
 *            if (r.success) await afterOwnerChange(ctx, r.before, r.task, report);
 *   release: nothing to tell (an unassign notifies nobody); afterOwnerChange is a no-op for it.
 *   a command that writes `status: completed` any other way: use updateTaskWithLifecycle,
 *            or `await gateCompletion(ctx, current, report)` before its locked write, with a
 *            guard that re-checks the status inside the lock (see updateTaskWithLifecycle).
 */

export interface LifecycleContext {
  configDir: string;
  listId: string;
  listDir: string;
  /** How hooks run; undefined with --no-hooks (the report then says what was skipped). */
  hooks: Omit<HookContext, 'configDir' | 'listId' | 'policy'> | undefined;
  /** Folder trust and managed settings, for running hooks and for counting those skipped. */
  hookPolicy: HookPolicySources;
  /** The project folder, to count the hooks that --no-hooks skipped (undefined: no project). */
  projectDir: string | undefined;
  /** false with --no-notify. */
  notify: boolean;
  /** `from` / `assignedBy` of assignment messages. */
  assignedBy: string;
  now: () => Date;
}

export interface LifecycleReport {
  hookRuns: HookRunReport[];
  skippedHooks: { event: TaskHookEvent; taskId: string; count: number }[];
  notifications: Notification[];
  notifySkipped: { owner: string; taskId: string }[];
  notifyFailures: { owner: string; taskId: string; error: TasksError | Error }[];
  /** The list's team, once looked up. */
  team?: Team | undefined;
}

export function emptyReport(): LifecycleReport {
  return { hookRuns: [], skippedHooks: [], notifications: [], notifySkipped: [], notifyFailures: [] };
}

/** Kept with each context (a command's or an action's): it goes when the context goes. */
const teamCache = new WeakMap<LifecycleContext, { team: Team | undefined }>();

/** The team the list belongs to, looked up once per context. */
function lifecycleTeam(ctx: LifecycleContext): Team | undefined {
  let entry = teamCache.get(ctx);
  if (!entry) teamCache.set(ctx, (entry = { team: teamForList(ctx.configDir, ctx.listId) }));
  return entry.team;
}

async function gate(event: TaskHookEvent, ctx: LifecycleContext, task: Task, report: LifecycleReport, action: string): Promise<void> {
  if (ctx.hooks === undefined) {
    report.skippedHooks.push({ event, taskId: task.id, count: countTaskHooks(event, ctx.configDir, ctx.projectDir, ctx.hookPolicy) });
    return;
  }
  const team = lifecycleTeam(ctx);
  report.team = team;
  const run = await runTaskHooks(
    event,
    { ...ctx.hooks, configDir: ctx.configDir, listId: ctx.listId, policy: ctx.hookPolicy },
    { task, teamName: team?.name },
  );
  report.hookRuns.push(run);
  if (run.blocked) throw new HookBlockedError(run, action);
}

/** Before writing `completed` to `task` (read fresh, not yet completed). Throws on a block. */
function gateCompletion(ctx: LifecycleContext, task: Task, report: LifecycleReport): Promise<void> {
  return gate('TaskCompleted', ctx, task, report, 'completing task');
}

/** After `task` was written by a create. Throws on a block: the caller deletes the task. */
function gateCreation(ctx: LifecycleContext, task: Task, report: LifecycleReport): Promise<void> {
  return gate('TaskCreated', ctx, task, report, 'creating task');
}

/**
 * After an owner change was written. As TaskUpdate: only a new, non-empty owner is told
 * (unassigning tells nobody), and only in a team's list. A failed notification is
 * reported, not thrown: the owner change itself stands.
 */
export async function afterOwnerChange(
  ctx: LifecycleContext,
  before: Task | undefined,
  after: Task,
  report: LifecycleReport,
): Promise<void> {
  const owner = after.owner;
  if (!owner || owner === before?.owner) return;
  const team = lifecycleTeam(ctx);
  report.team = team;
  if (team === undefined) return;
  if (!ctx.notify) {
    report.notifySkipped.push({ owner, taskId: after.id });
    return;
  }
  try {
    report.notifications.push(
      await notifyAssignment(ctx.configDir, { team, task: before ?? after, owner, assignedBy: ctx.assignedBy, now: ctx.now() }),
    );
  } catch (err) {
    report.notifyFailures.push({ owner, taskId: after.id, error: err as Error });
  }
}

/**
 * `create`: list lock, write, release; then TaskCreated hooks (and TaskCompleted hooks
 * when created completed). A block (or an interrupt) deletes the task; its id stays used
 * (the high-water mark is raised, as delete does). Then the owner, if any, is told.
 */
export async function createTaskWithLifecycle(
  ctx: LifecycleContext,
  input: NewTask,
  report: LifecycleReport = emptyReport(),
): Promise<{ task: Task; report: LifecycleReport }> {
  const task = await createTask(ctx.listDir, input);
  try {
    await gateCreation(ctx, task, report);
    if (task.status === 'completed') await gateCompletion(ctx, task, report);
  } catch (err) {
    try {
      await deleteTask(ctx.listDir, task.id);
    } catch (deleteErr) {
      if (!isMissing(deleteErr)) {
        throw new TasksError(
          'io',
          `${(err as Error).message}; and task #${task.id} could not be removed: ${(deleteErr as Error).message}`,
          {
            details: { taskId: task.id },
          },
        );
      }
    }
    throw err;
  }
  await afterOwnerChange(ctx, undefined, task, report);
  return { task, report };
}

/** Thrown inside the task lock when the task was reopened after we looked: hooks must run first. */
class CompletionNeedsHooks extends Error {}

/**
 * `update`: when the patch completes the task, TaskCompleted hooks run first, with no
 * lock held; a block writes nothing at all (as TaskUpdate refuses the whole update).
 * Then the usual task-locked merge; inside the lock the task is checked again, and if
 * it was reopened meanwhile the hooks run (again) before another try.
 */
export async function updateTaskWithLifecycle(
  ctx: LifecycleContext,
  id: string,
  patch: TaskPatch,
  guard?: Guard,
  report: LifecycleReport = emptyReport(),
): Promise<{ result: UpdateResult; report: LifecycleReport }> {
  const completing = patch.status === 'completed';
  let approved = false;
  for (let attempt = 0; ; attempt++) {
    if (completing && !approved) {
      const current = getTask(ctx.listDir, id);
      if (current.status !== 'completed') {
        guard?.(current);
        await gateCompletion(ctx, current, report);
        approved = true;
      }
    }
    try {
      const result = await updateTask(ctx.listDir, id, patch, (current) => {
        guard?.(current);
        if (completing && !approved && current.status !== 'completed') throw new CompletionNeedsHooks();
      });
      await afterOwnerChange(ctx, result.before, result.task, report);
      return { result, report };
    } catch (err) {
      if (!(err instanceof CompletionNeedsHooks)) throw err;
      if (attempt >= 3) throw new TasksError('busy', `task #${id} keeps changing status; try again`);
    }
  }
}
