import { type ClaimResult, claimNext, claimTask, type PassedOver } from '../claims/claim-apply.js';
import { type Preconditions, preconditionGuard } from '../writes/preconditions.js';
import { afterOwnerChange, type LifecycleContext, type LifecycleReport } from './task-lifecycle.js';

/**
 * A claim's outcome: the agents' result, or, for `claim --next`, `no_task_ready` (our
 * reason, not the agents': their claim always names a task).
 */
export type ClaimOutcome =
  | ClaimResult
  | { success: false; reason: 'no_task_ready'; task?: undefined; openBlockers?: undefined; busyWith?: undefined };

/** What `tasks claim` asks for: one task, or the next ready one. */
export interface PersonClaim {
  /** Who claims. */
  agent: string;
  /** The task; undefined: the lowest-id ready one. */
  id?: string | undefined;
  /** Refuse when the agent already owns an unfinished task. */
  busyCheck: boolean;
  /** Also set in_progress, in the same locked write. */
  start: boolean;
  /** The next ready task: pass over tasks younger than this. */
  minAgeMs?: number | undefined;
  now: number;
  /** Checked inside the task lock (a given id only). */
  preconditions?: Preconditions | undefined;
}

export interface ClaimDone {
  outcome: ClaimOutcome;
  /** Ready tasks the next claim passed over (an agent's claim raced ours). */
  passedOver: PassedOver[];
  /** Ready tasks too new to claim (--min-age). */
  tooNew: string[];
}

/**
 * A claim, made as agents make it (claims/), in a person's lifecycle: a new owner in a
 * team's list is told, as agents tell. Claims never complete a task, so no hooks run.
 */
export async function claimWithLifecycle(lifecycle: LifecycleContext, req: PersonClaim, report: LifecycleReport): Promise<ClaimDone> {
  const dir = lifecycle.listDir;
  const request = { busyCheck: req.busyCheck, start: req.start };
  let tooNew: string[] = [];
  let passedOver: PassedOver[] = [];
  let outcome: ClaimOutcome;
  if (req.id === undefined) {
    const next = await claimNext(dir, req.agent, {
      ...request,
      minAgeMs: req.minAgeMs,
      now: req.now,
      onTooNew: (ids) => {
        tooNew = ids;
      },
    });
    if (next?.success) passedOver = next.passedOver ?? [];
    outcome = next ?? { success: false, reason: 'no_task_ready' };
  } else {
    outcome = await claimTask(dir, req.id, req.agent, { ...request, guard: preconditionGuard(req.preconditions) });
  }
  if (outcome.success) await afterOwnerChange(lifecycle, outcome.before, outcome.task, report);
  return { outcome, passedOver, tooNew };
}
