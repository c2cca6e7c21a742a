import type { ErrorCode } from '../../core/base/errors.js';

/** The one table of exit statuses (also in the README). Each code means one thing. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  busy: 5,
  /** watch --stream / --session: the run ended before the --until condition held. */
  runEnded: 6,
  /** watch --fail-if-stalled: a task stalled. */
  stalled: 7,
  /** -H: the host could not be reached, refused, cannot run tasks, or the connection was lost. */
  unreachable: 8,
  timeout: 124,
  /** tasks run: the command is there but cannot be run (as a shell says it). */
  notExecutable: 126,
  /** tasks run: no such command (as a shell says it). */
  commandNotFound: 127,
  interrupted: 130,
} as const;

/** tasks run stopped by a signal: 128 + its number, as a shell reports a command the signal ended. */
export const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const BY_ERROR: Record<ErrorCode, ExitCode> = {
  usage: EXIT.usage,
  not_found: EXIT.notFound,
  conflict: EXIT.conflict,
  busy: EXIT.busy,
  corrupt: EXIT.failure,
  timeout: EXIT.timeout,
  interrupted: EXIT.interrupted,
  run_ended: EXIT.runEnded,
  task_deleted: EXIT.runEnded,
  stalled: EXIT.stalled,
  unreachable: EXIT.unreachable,
  io: EXIT.failure,
  internal: EXIT.failure,
  command_not_found: EXIT.commandNotFound,
  command_not_executable: EXIT.notExecutable,
  // The agent's own status is set beside the error (tasks run); 1 is its floor.
  agent_failed: EXIT.failure,
};

/** What each status means, for the help and the reference (docs/reference/). */
export const EXIT_MEANING: Record<ExitCode, string> = {
  [EXIT.ok]: 'success, including an empty result',
  [EXIT.failure]: 'unexpected failure: a bug, an I/O error, an unreadable task file',
  [EXIT.usage]: 'usage: a bad flag, value or input file; a list that cannot be chosen without guessing',
  [EXIT.notFound]: 'not found: the task or list does not exist (or the config folder); nothing to undo or redo',
  [EXIT.conflict]: 'conflict: a refusal (a claim, a precondition, a cycle, a hook, a task changed since), or problems found',
  [EXIT.busy]: 'busy: a lock could not be had within the retry budget; safe to retry',
  [EXIT.runEnded]:
    'a followed run ended without meeting the --until condition; a session of a watched list died holding work; the task --until task:<id> names was deleted',
  [EXIT.stalled]: '--fail-if-stalled: a task, or a followed run, stalled (run: its agent ended)',
  [EXIT.unreachable]: '-H: a host could not be reached or refused, cannot run tasks, or the connection was lost',
  [EXIT.timeout]: 'a deadline passed before the --until condition was met (run: before the run ended; its agent ended)',
  [EXIT.notExecutable]: "run: the agent's command is there but cannot be run (as a shell says it)",
  [EXIT.commandNotFound]: 'run: no such command (as a shell says it)',
  [EXIT.interrupted]: 'interrupted (Ctrl-C, SIGTERM), or a confirmation answered no (run: 143 for SIGTERM, 129 for SIGHUP)',
};

export function exitCodeFor(code: ErrorCode): ExitCode {
  return BY_ERROR[code];
}

/** "Worst" for a batch: any failure beats success; otherwise the higher code. */
export function worse(a: number, b: number): number {
  return Math.max(a, b);
}
