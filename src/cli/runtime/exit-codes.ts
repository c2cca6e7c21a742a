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
  timeout: 124,
  interrupted: 130,
} as const;

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
  stalled: EXIT.stalled,
  io: EXIT.failure,
};

export function exitCodeFor(code: ErrorCode): ExitCode {
  return BY_ERROR[code];
}

/** "Worst" for a batch: any failure beats success; otherwise the higher code. */
export function worse(a: number, b: number): number {
  return Math.max(a, b);
}
