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
export type ErrorCode =
  | 'usage' // bad flag, bad value, bad input file
  | 'not_found' // the task or list does not exist
  | 'conflict' // a refusal: claim refused, precondition failed, cycle, hook said no
  | 'busy' // a lock could not be had within the retry budget
  | 'corrupt' // a file we must read to act is unreadable or invalid
  | 'timeout' // a deadline passed
  | 'interrupted'
  | 'run_ended' // a followed agent run ended before the awaited condition held
  | 'stalled' // work in progress stopped changing (watch --fail-if-stalled)
  | 'command_not_found' // tasks run: no such command (a shell's 127)
  | 'command_not_executable' // tasks run: the command is there but cannot be run (a shell's 126)
  | 'agent_failed' // tasks run: the agent exited with a failure and left nothing to judge (its own status)
  | 'io'; // an I/O error nothing else covers

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
