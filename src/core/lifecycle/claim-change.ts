import { TasksError } from '../base/errors.js';
import { type ClaimResult, claimNext, claimTask, type PassedOver } from '../claims/claim-apply.js';
import { taskPath } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { readTaskFile } from '../store/task-file.js';
import { type Preconditions, preconditionGuard } from '../writes/preconditions.js';
import type { Guard } from '../writes/task-writes.js';
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
  /**
   * The live sessions on the list, other than the claimer's own: asked (once) only when
   * the task named is in progress with no owner; and how the claimer may take it all the
   * same (said with the refusal). Undefined (`--force`): not asked.
   */
  liveOnList?: { sessions: () => readonly LiveOnList[]; override: string } | undefined;
}

/** A live session that can see the list (its main agent may be working on a task it left unowned). */
export interface LiveOnList {
  sessionId: string;
  pid?: number | undefined;
  cwd?: string | undefined;
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
    const guards = [preconditionGuard(req.preconditions), req.liveOnList && liveWorkGuard(dir, req.id, req.liveOnList)];
    outcome = await claimTask(dir, req.id, req.agent, { ...request, guard: allOf(guards) });
  }
  if (outcome.success) await afterOwnerChange(lifecycle, outcome.before, outcome.task, report);
  return { outcome, passedOver, tooNew };
}

/**
 * Claude Code's claim rule lets anyone take a task in progress with no owner, and a main
 * agent commonly sets its work in progress without naming itself owner: while a session
 * that can see the list is live, such a task is most likely its work, and `tasks` never
 * takes work from a live agent. Refused (conflict) before the agents' own checks, in the
 * task lock; `--force` does not ask.
 */
function liveWorkGuard(dir: string, id: string, check: NonNullable<PersonClaim['liveOnList']>): Guard {
  const liveOnList = check.sessions;
  let live: readonly LiveOnList[] | undefined;
  // The sessions are read before the task lock when the task looks taken now, so the
  // lock is not held while they are; the lock's fresh read decides.
  const seen = readTaskFile(taskPath(dir, id));
  if (seen.kind === 'ok' && seen.task.status === 'in_progress' && !seen.task.owner) live = liveOnList();
  return (current: Task) => {
    if (current.status !== 'in_progress' || current.owner) return;
    live ??= liveOnList();
    const first = live[0];
    if (first === undefined) return;
    const more = live.length > 1 ? ` (and ${live.length - 1} more)` : '';
    const pid = first.pid === undefined ? '' : ` (pid ${first.pid})`;
    throw new TasksError(
      'conflict',
      `task #${current.id} is in progress with no owner while session ${first.sessionId.slice(0, 8)}${pid}${more} is live on this list: it may be its work; nothing changed (${check.override})`,
      {
        hint: check.override,
        details: {
          id: current.id,
          reason: 'in_progress_live',
          live: live.map((s) => ({ sessionId: s.sessionId, pid: s.pid ?? null, cwd: s.cwd ?? null })),
        },
      },
    );
  };
}

/** Every guard given, in order. */
function allOf(guards: ReadonlyArray<Guard | undefined>): Guard | undefined {
  const given = guards.filter((g): g is Guard => g !== undefined);
  if (given.length === 0) return undefined;
  return (current: Task) => {
    for (const g of given) g(current);
  };
}
