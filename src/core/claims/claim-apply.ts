import { TasksError } from '../base/errors.js';
import { indexTasks } from '../graph/blockers.js';
import { isLockNotAFolder } from '../locks/lock-acquire.js';
import { withListLock } from '../locks/locks.js';
import { isTaskId } from '../store/ids.js';
import { readList } from '../store/list-read.js';
import { listFolderProblem } from '../store/missing-task.js';
import { isMissing } from '../store/not-a-folder.js';
import { taskPath } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { readTaskFile } from '../store/task-file.js';
import { type Guard, patchTask, taskExists } from '../writes/task-writes.js';
import { busyWith, type ClaimOptions, type ClaimReason, decideClaim, nextCandidates } from './claim-rule.js';
import { oldEnough, taskBornAt } from './task-age.js';

/**
 * Claims with the agents' locks (docs/task-store.md section 5): the task lock; with the
 * busy check, the list lock and then the task lock inside it. Inside the task lock the
 * task, its blockers (with the busy check: the whole list) are read fresh and decideClaim
 * rules; the write is TaskUpdate's merge of `{owner}` (and `status` with `start`).
 */

export type ClaimResult =
  | { success: true; task: Task; before: Task; changed: string[]; passedOver?: PassedOver[] }
  | { success: false; reason: ClaimReason; task?: Task; openBlockers?: string[]; busyWith?: string[] };

export interface ClaimRequest extends ClaimOptions {
  /** Preconditions, checked in the task lock before the claim's own checks. */
  guard?: Guard | undefined;
}

/** `claim --next`: pass over tasks created less than `minAgeMs` before `now` (task-age.ts). */
export interface ClaimNextRequest extends ClaimOptions {
  minAgeMs?: number | undefined;
  now?: number | undefined;
  /** Told the ready tasks passed over for being too new, when some were. */
  onTooNew?: ((ids: string[]) => void) | undefined;
}

/** A ready task `claim --next` could not lock (held, or a lock nobody can take), and why. */
export interface PassedOver {
  id: string;
  reason: string;
}

/** Thrown from inside the lock to carry a refusal out without writing; never escapes this module. */
class Refused extends Error {
  constructor(readonly result: Extract<ClaimResult, { success: false }>) {
    super(result.reason);
  }
}

/** One attempt: task lock, fresh read, decide, write. Returns the agents' result shape. */
async function attempt(listDir: string, id: string, agent: string, req: ClaimRequest): Promise<ClaimResult> {
  if (!taskExists(listDir, id)) return notFoundOrThrow(listDir);
  const opts: ClaimOptions = { busyCheck: Boolean(req.busyCheck), start: Boolean(req.start) };
  try {
    const result = await patchTask(listDir, id, { owner: agent, ...(opts.start ? { status: 'in_progress' as const } : {}) }, (current) => {
      req.guard?.(current);
      // The busy check needs every task; otherwise only the blockers matter, and reading
      // just those keeps the task lock short on a large list.
      const index = opts.busyCheck ? indexTasks(readList(listDir).tasks) : readSome(listDir, current.blockedBy);
      index.set(current.id, current);
      const decision = decideClaim(current, agent, index, opts);
      if (!decision.ok) {
        throw new Refused({ success: false, reason: decision.reason, task: current, ...pick(decision) });
      }
    });
    return { success: true, task: result.task, before: result.before, changed: result.changed };
  } catch (err) {
    if (err instanceof Refused) return err.result;
    // Deleted between our look and the lock.
    if (isMissing(err)) return { success: false, reason: 'task_not_found' };
    throw err;
  }
}

/**
 * An agent creates a task, then links its blockers in a later turn: with `minAgeMs`, a
 * task born more recently is passed over (and said), so a claim does not take it in
 * between.
 */
function settledOnly(listDir: string, candidates: Task[], req: ClaimNextRequest): Task[] {
  const { minAgeMs } = req;
  if (minAgeMs === undefined) return candidates;
  const now = req.now ?? Date.now();
  const settled = candidates.filter((t) => oldEnough(taskBornAt(listDir, t.id), now, minAgeMs));
  if (settled.length < candidates.length) {
    req.onTooNew?.(candidates.filter((t) => !settled.includes(t)).map((t) => t.id));
  }
  return settled;
}

/** The readable tasks among `ids`; missing or unreadable ones are left out, as a listing leaves them out. */
function readSome(listDir: string, ids: readonly string[]): Map<string, Task> {
  const index = new Map<string, Task>();
  for (const id of new Set(ids)) {
    if (!isTaskId(id)) continue;
    const result = readTaskFile(taskPath(listDir, id));
    if (result.kind === 'ok') index.set(result.task.id, result.task);
  }
  return index;
}

function pick(d: { openBlockers?: string[]; busyWith?: string[] }): { openBlockers?: string[]; busyWith?: string[] } {
  return {
    ...(d.openBlockers ? { openBlockers: d.openBlockers } : {}),
    ...(d.busyWith ? { busyWith: d.busyWith } : {}),
  };
}

/**
 * Claim `id` for `agent`, exactly as an agent would. Refusals are results, not errors
 * (the agents' `{success: false, reason, task}`); lock timeouts and unreadable files
 * are errors (busy, corrupt). A failed precondition is a conflict error.
 */
export async function claimTask(listDir: string, id: string, agent: string, req: ClaimRequest = {}): Promise<ClaimResult> {
  if (!req.busyCheck) return attempt(listDir, id, agent, req);
  // Decided first on the list as it is: a refusal takes no lock and leaves the list as it was.
  const early = refusedUnlocked(listDir, id, agent, req);
  if (early !== undefined) return early;
  return withListLock(listDir, () => attempt(listDir, id, agent, req));
}

/** The busy-checked claim's refusal on the files as they are, without a lock; undefined when it may succeed. */
function refusedUnlocked(listDir: string, id: string, agent: string, req: ClaimRequest): ClaimResult | undefined {
  const read = readTaskFile(taskPath(listDir, id));
  if (read.kind === 'missing') return notFoundOrThrow(listDir);
  if (read.kind !== 'ok') return undefined;
  req.guard?.(read.task);
  const index = indexTasks(readList(listDir).tasks);
  index.set(read.task.id, read.task);
  const decision = decideClaim(read.task, agent, index, { busyCheck: true, start: Boolean(req.start) });
  return decision.ok ? undefined : { success: false, reason: decision.reason, task: read.task, ...pick(decision) };
}

/**
 * Claim the lowest-id ready task (pending, unowned, no open blocker, not internal) for
 * `agent`, under the list lock so that two `claim --next` never pick the same task.
 * Agents claim with the task lock only, so a candidate can still be taken between our
 * read and its lock: then the next candidate is tried. Returns undefined when no task
 * is ready; with the busy check, agent_busy when the agent already holds one.
 */
export async function claimNext(listDir: string, agent: string, req: ClaimNextRequest = {}): Promise<ClaimResult | undefined> {
  // Nothing ready, or the agent busy, on the list as it is: answered without a lock.
  const seen = readList(listDir).tasks;
  const seenIndex = indexTasks(seen);
  const firstSeen = nextCandidates(seen, seenIndex)[0];
  if (firstSeen === undefined) return undefined;
  if (req.busyCheck && busyWith(agent, seenIndex).length > 0) {
    return { success: false, reason: 'agent_busy', task: firstSeen, busyWith: busyWith(agent, seenIndex) };
  }
  return withListLock(listDir, async () => {
    const tasks = readList(listDir).tasks;
    const index = indexTasks(tasks);
    const candidates = settledOnly(listDir, nextCandidates(tasks, index), req);
    const first = candidates[0];
    if (first === undefined) return undefined;
    if (req.busyCheck) {
      const busy = busyWith(agent, index);
      if (busy.length > 0) return { success: false, reason: 'agent_busy', task: first, busyWith: busy };
    }
    // A candidate whose task lock cannot be had (an agent holds it, or the lock is
    // unusable) is passed over for the next one: it is no reason to take nothing.
    const passedOver: PassedOver[] = [];
    let firstBusy: TasksError | undefined;
    let firstUnusable: TasksError | undefined;
    for (const candidate of candidates) {
      let result: ClaimResult;
      try {
        result = await attempt(listDir, candidate.id, agent, req);
      } catch (err) {
        if (isLockNotAFolder(err)) firstUnusable ??= err;
        else if (err instanceof TasksError && err.code === 'busy') firstBusy ??= err;
        else throw err;
        passedOver.push({ id: candidate.id, reason: err.message });
        continue;
      }
      if (result.success) return passedOver.length > 0 ? { ...result, passedOver } : result;
      // The busy check only fails for reasons that hold for every candidate.
      if (result.reason === 'agent_busy') return result;
    }
    // Every candidate left was locked: that is busy (exit 5, retry), not "none ready"; when
    // no lock was held but only unusable ones were met, a retry cannot help: that error.
    if (firstBusy) throw firstBusy;
    if (firstUnusable) throw firstUnusable;
    return undefined;
  });
}

/** The agents' `task_not_found`, unless what is missing is the list's folder itself (a file in its place): that is thrown. */
function notFoundOrThrow(listDir: string): ClaimResult {
  const problem = listFolderProblem(listDir);
  if (problem !== undefined) throw problem;
  return { success: false, reason: 'task_not_found' };
}
