import { type ReleaseResult, releaseTask } from '../claims/release-apply.js';
import { type GoneHeld, type GoneOwners, listLife, liveSessionsNear } from '../sessions/gone-owners.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { applyPatch } from '../store/patch.js';
import { listDirOf } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { preconditionGuard } from '../writes/preconditions.js';
import { goneHeldTasks, type SparedTask } from './list-owners.js';

/**
 * What `release --gone` would release in a list, and what stands in its way, read once
 * for the command and for the board alike: the unfinished tasks whose agent is gone
 * (list-owners.ts: an owner gone, or no owner and a session over held it in progress, with
 * a named list's sessions found by their transcripts), and the live sessions that can see
 * the list and may pick that work up, which a real release asks `--force` for. While a
 * sign of life of the list remains, only owners whose own sessions are all over are gone;
 * with none, `alive` says which sign keeps them.
 */
export interface GoneRelease {
  /** Undefined: no owner here can be said to be gone. */
  gone: GoneOwners | undefined;
  /** The unfinished tasks a release would give back, in the list's order. */
  targets: Task[];
  /** Why each target's agent is gone, and whether it has no owner (it only goes back to pending), by task id. */
  why: ReadonlyMap<string, GoneHeld>;
  /** Live sessions that may take the work up: a release needs --force while there is one. */
  live: SessionInfo[];
  /** With no owner gone: the sign of life that keeps them (undefined: no session of the list is known). */
  alive: string | undefined;
}

/** Read without a lock; each release is then made under its task lock against the owner seen here. */
export function planGoneRelease(
  index: SessionIndex,
  configDir: string,
  listId: string,
  person: string | undefined,
  exists: boolean,
): GoneRelease {
  const dir = listDirOf(configDir, listId);
  const { gone, held, spared } = exists ? goneHeldTasks(index, dir, listId, person) : { gone: undefined, held: [], spared: undefined };
  const targets = held.map((h) => h.task);
  const why = new Map(held.map((h) => [h.task.id, h]));
  if (targets.length === 0) {
    const alive =
      spared !== undefined
        ? goesOnWith(spared)
        : gone === undefined && exists
          ? listLife(index, listId, { deep: true }).life?.why
          : undefined;
    return { gone, targets, why, live: [], alive };
  }
  // Owners judged one by one are gone while others of the list live: those may take the work up, as they should.
  // A task with no owner is held by a session over while others may live: judged alone, as those owners are.
  const byOne = gone === undefined || gone.byOwner === true;
  return { gone, targets, why, live: byOne ? [] : liveSessionsNear(index, listId), alive: undefined };
}

/**
 * Release each target under its task lock, only if the owner seen in the plan still
 * holds it: a task an agent or a person took over meanwhile is left alone. Each outcome
 * is told, a release or why not, in the plan's order.
 */
export async function releaseGoneTargets(
  dir: string,
  targets: readonly Task[],
  each: (id: string, outcome: ReleaseResult | Error) => void,
): Promise<void> {
  for (const t of targets) {
    let outcome: ReleaseResult | Error;
    try {
      // Only if it is still as seen: its owner's, or with no owner still in progress (no one took it up).
      const still = t.owner ? { owner: t.owner } : { unowned: true, status: ['in_progress' as const] };
      outcome = await releaseTask(dir, t.id, preconditionGuard(still));
    } catch (err) {
      outcome = err instanceof Error ? err : new Error(String(err));
    }
    each(t.id, outcome);
  }
}

/** What releasing `t` would report (`--dry-run`): the agents' unassign applied to it, not written. */
export function wouldRelease(t: Task): ReleaseResult {
  const after = applyPatch(t, { owner: null, status: 'pending' }).task;
  return { id: t.id, released: true, ...(t.owner === undefined ? {} : { previousOwner: t.owner }), previousStatus: t.status, task: after };
}

/** "session 0ea1b2eb, a fork of d3f0527f, is live and may go on with #1": the sign of life that keeps such tasks, by session. */
function goesOnWith(spared: readonly SparedTask[]): string {
  const bySession = new Map<string, SparedTask[]>();
  for (const s of spared) bySession.set(s.session, [...(bySession.get(s.session) ?? []), s]);
  return [...bySession]
    .map(([session, tasks]) => {
      const forkOf = tasks[0]?.forkOf;
      const who = `session ${session.slice(0, 8)}${forkOf === undefined ? '' : `, a fork of ${forkOf.slice(0, 8)},`}`;
      return `${who} is live and may go on with ${tasks.map((t) => `#${t.task.id}`).join(', ')}`;
    })
    .join('; ');
}
