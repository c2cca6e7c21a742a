import type { HookPolicySources } from '../hooks/hook-settings.js';
import type { LifecycleContext } from './task-lifecycle.js';

/**
 * The lifecycle of a change a person makes with tasks, from a command or from the
 * board: the same hooks, inboxes and names either way, so an agent's hook or inbox
 * cannot tell the two apart.
 */

/** Who assignment messages are from when a person reassigns work: Claude Code's own fallback. */
const ASSIGNED_BY = 'team-lead';

/** `session_id` in hook input: says the event came from tasks, and from which process. */
export function tasksHookSessionId(pid: number): string {
  return `tasks-cli-${pid}`;
}

export interface PersonChange {
  configDir: string;
  listId: string;
  listDir: string;
  /** Where the run (or the board) started: project settings and hooks; undefined: no project (it was deleted). */
  projectDir: string | undefined;
  hookPolicy: HookPolicySources;
  /** The environment hooks inherit. */
  env: Record<string, string | undefined>;
  /** The process making the change, named in hook input. */
  pid: number;
  /** Aborting stops running hooks. */
  signal: AbortSignal;
  /** false: hooks are not run (--no-hooks), only counted. */
  hooks: boolean;
  /** false: no assignment message (--no-notify). */
  notify: boolean;
  now: () => Date;
}

export function personLifecycle(change: PersonChange): LifecycleContext {
  return {
    configDir: change.configDir,
    listId: change.listId,
    listDir: change.listDir,
    projectDir: change.projectDir,
    hookPolicy: change.hookPolicy,
    hooks: change.hooks
      ? { projectDir: change.projectDir, env: change.env, sessionId: tasksHookSessionId(change.pid), signal: change.signal }
      : undefined,
    notify: change.notify,
    assignedBy: ASSIGNED_BY,
    now: change.now,
  };
}
