/**
 * The ground floor of core: what every other folder may stand on and nothing here
 * stands on them. Typed errors with stable codes (this file), the clock, bounded reads of
 * files we do not trust, the lazy zod loader, a structural comparison, a nesting-depth
 * check, and duration parsing. No task, list or lock concept lives here.
 */
/**
 * Every failure that core can name is a TasksError with a stable `code`.
 * The CLI maps codes to exit statuses in one table (src/cli/runtime/exit-codes.ts);
 * core never decides how a process ends.
 */
export const ERROR_CODES = {
  usage: 'a bad flag, value or input file; a list that cannot be chosen without guessing',
  not_found:
    'the task or list does not exist, or the config folder does not exist or is not a folder (or its tasks folder is not one); nothing to undo or redo',
  conflict: 'a refusal: a claim refused, a precondition failed, a dependency cycle, a hook said no, a task changed since',
  busy: 'a lock could not be had within the retry budget; safe to retry',
  corrupt: 'a file that must be read to act is unreadable or not a valid task',
  timeout: 'a deadline passed before the awaited condition held',
  interrupted: 'interrupted (SIGINT, SIGTERM, SIGHUP), or a confirmation answered no',
  run_ended: 'a followed agent run ended before the awaited condition held',
  task_deleted: 'the task a condition names was deleted (ids are never used again), so the condition cannot hold',
  stalled: 'work in progress stopped changing (watch --fail-if-stalled)',
  unreachable:
    'a host named with -H could not be reached, refused the connection or cannot run tasks (no Node.js 20+, its cache folder not writable), or the connection was lost',
  io: 'an I/O error nothing else covers',
  command_not_found: 'tasks run: no such command (as a shell says it: 127)',
  command_not_executable: 'tasks run: the command is there but cannot be run (as a shell says it: 126)',
  agent_failed: "tasks run: the agent failed with nothing to judge (or, without --until, exited non-zero); the status is the agent's own",
  internal: 'a bug: the message starts with "unexpected:" (TASKS_DEBUG=1 shows the stack)',
} as const;

/** The `code` of every error, one word a script can branch on (docs/reference/codes.md lists them). */
export type ErrorCode = keyof typeof ERROR_CODES;

export class TasksError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  /** Extra machine-readable facts for `--json` errors (ids, reasons, candidates). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, opts: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'TasksError';
    this.code = code;
    this.hint = opts.hint;
    this.details = opts.details;
  }
}

export function isTasksError(err: unknown): err is TasksError {
  return err instanceof TasksError;
}

/** The errno code of a Node system error, if it is one. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}
