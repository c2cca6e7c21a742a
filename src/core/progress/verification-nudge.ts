/**
 * Progress: how the work on a list is going, judged the way Claude Code judges its own
 * agents. The verification nudge (this file): an agent that closes out three or more
 * tasks, none of them a verification step, is told to verify before it reports done.
 * Stalled work (stalled-work.ts): a task in progress whose file has not changed for a
 * while, and whose session is not busy on a turn. Pure rules, plus the reads they need
 * (file times, whether a session is busy), so that list, watch and check agree.
 */
import { isInternal, type Task } from '../store/schema.js';

/** A subject that names a verification step, as Claude Code tests it. */
export const VERIFICATION_SUBJECT = /verif/i;
/** Fewer closed tasks than this are not worth a nudge. */
export const NUDGE_MIN_TASKS = 3;

export interface VerificationNudge {
  code: 'verification_missing';
  /** How many tasks were closed out. */
  completed: number;
  message: string;
}

/**
 * Pure: the nudge, when every task of the list is completed, there are at least three,
 * and no subject matches /verif/i. Internal tasks (metadata._internal) are left out, as
 * agents do not see them.
 */
export function verificationNudge(tasks: readonly Task[]): VerificationNudge | undefined {
  const seen = tasks.filter((t) => !isInternal(t));
  if (seen.length < NUDGE_MIN_TASKS) return undefined;
  if (seen.some((t) => t.status !== 'completed')) return undefined;
  if (seen.some((t) => VERIFICATION_SUBJECT.test(t.subject))) return undefined;
  return {
    code: 'verification_missing',
    completed: seen.length,
    message: `all ${seen.length} tasks are completed and none is a verification step: verify the work (run the tests, check the result) before reporting done`,
  };
}

/** Did this change close out the list: was some task open before, and is the nudge due now? */
export function nudgeAfterCompletion(before: readonly Task[], after: readonly Task[]): VerificationNudge | undefined {
  const wasOpen = before.some((t) => !isInternal(t) && t.status !== 'completed');
  return wasOpen ? verificationNudge(after) : undefined;
}
