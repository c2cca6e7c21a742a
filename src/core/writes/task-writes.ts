/**
 * Writes: every change to task files, on the one path of docs/design.md (take the lock
 * Claude Code takes, re-read, decide with a pure function, write, release),
 * docs/task-store.md section 6: create, update, delete (this file), both sides of
 * block/unblock edges (dependencies.ts), and the preconditions a person can put on a
 * change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errnoCode, TasksError } from '../base/errors.js';
import { buildBlocksGraph, cycleIfAdded, formatCycle } from '../graph/graph.js';
import { assertStillHeld, refuseUnusableTaskLocks, withListLock, withTaskLock, withTaskLocks } from '../locks/locks.js';
import { allocateIds } from '../store/ids.js';
import { ensureListDir } from '../store/list-dir.js';
import { fileIds, namedByFile, readHighWaterMark, readList } from '../store/list-read.js';
import { missingTask } from '../store/missing-task.js';
import { isMissing } from '../store/not-a-folder.js';
import { applyPatch, changedKeys, type TaskPatch } from '../store/patch.js';
import { HIGH_WATER_MARK, taskPath } from '../store/paths.js';
import type { Status, Task } from '../store/schema.js';
import { orderKeys } from '../store/serialize.js';
import { isIdTaken, readTaskFile, writeFileAtomic, writeTaskFile } from '../store/task-file.js';
import { announcedWrite, announceTaskWrite, announceWriteFailed } from './write-events.js';

/**
 * Every mutation follows one path: take the lock Claude Code takes, re-read, decide
 * with a pure function, write, release. Locks are held for milliseconds.
 *
 * Before that, each change is decided once on the files as they are, without a lock: a
 * refusal (a missing task, a failed precondition, a cycle) or a change that would change
 * nothing ends there, so that it leaves the list exactly as it was: no lock folder made
 * and removed, no time changed. This is safe: the answer is the one a locked read at
 * that instant would give, and anything that would write is decided again under the lock.
 */

/** Read one task, or throw not_found / corrupt. No lock (as agents read). Its id is its file's. */
export function getTask(listDir: string, id: string): Task {
  return namedByFile(readStoredTask(listDir, id), id);
}

/** The task as its file holds it, `id` inside included: what a locked rewrite starts from. */
function readStoredTask(listDir: string, id: string): Task {
  const result = readTaskFile(taskPath(listDir, id));
  if (result.kind === 'ok') return result.task;
  if (result.kind === 'missing') throw missingTask(listDir, id);
  throw new TasksError('corrupt', `task #${id} is unreadable: ${id}.json: ${result.reason}`, {
    hint: 'agents cannot see this task either; inspect or repair the file',
    details: { id },
  });
}

export function taskExists(listDir: string, id: string): boolean {
  return readTaskFile(taskPath(listDir, id)).kind !== 'missing';
}

export interface NewTask {
  subject: string;
  description?: string;
  activeForm?: string;
  owner?: string;
  status?: Status;
  metadata?: Record<string, unknown>;
  blockedBy?: readonly string[];
  blocks?: readonly string[];
}

/**
 * Create a task: list lock; id = max(file ids, high-water mark) + 1; write. With edges to
 * other tasks, their locks are taken too (withTaskLocks) before the new task is written,
 * and their sides are written in the same hold: a lock that cannot be had (busy) leaves
 * nothing written, so a retry never makes the task twice.
 */
export async function createTask(listDir: string, input: NewTask): Promise<Task> {
  const blockedBy = unique(input.blockedBy ?? []);
  const blocks = unique(input.blocks ?? []);
  const both = blockedBy.filter((id) => blocks.includes(id));
  if (both.length > 0) {
    throw new TasksError('conflict', `task #${both[0]} cannot both block and be blocked by the new task (a cycle)`);
  }
  const others = [...blockedBy, ...blocks];
  const build = (id: string): Task =>
    orderKeys({
      id,
      subject: input.subject,
      description: input.description ?? '',
      activeForm: input.activeForm,
      owner: input.owner,
      status: input.status ?? 'pending',
      blocks,
      blockedBy,
      metadata: input.metadata,
    } as Task);
  if (others.length === 0) return onlyOne(await createTaskBatch(listDir, 1, ([id]) => [build(id as string)]));
  requireExisting(listDir, others);
  refuseNewTaskCycle(listDir, blockedBy, blocks);
  return withListLock(listDir, async (listHeld) => {
    // Again under the list lock, as update and block check theirs: an edge written since
    // the check above (another process's block) may close a cycle through the new task.
    requireExisting(listDir, others);
    refuseNewTaskCycle(listDir, blockedBy, blocks);
    refuseUnusableTaskLocks(listDir, others);
    return withTaskLocks(listDir, others, (taskHeld) => {
      // Their files must be ones we can rewrite, and their locks still ours, before the new task exists.
      for (const other of others) {
        readStoredTask(listDir, other);
        assertStillHeld(() => taskHeld(other), `task #${other}`);
      }
      const task = onlyOne(writeBatchHeld(listDir, listHeld, false, 1, ([id]) => [build(id as string)]));
      changeAllHeld(
        listDir,
        [
          ...blockedBy.map((other) => ({ id: other, patch: { addBlocks: [task.id] } })),
          ...blocks.map((other) => ({ id: other, patch: { addBlockedBy: [task.id] } })),
        ],
        taskHeld,
      );
      return task;
    });
  });
}

function onlyOne(tasks: Task[]): Task {
  const [task] = tasks;
  if (!task) throw new TasksError('io', 'the task was not created');
  return task;
}

/**
 * How a batch's ids are chosen from the list as it is under the lock (its file ids and
 * high-water mark): consecutive new ids by default; an import that keeps ids asks for
 * the ids its tasks had where they are free (store/ids.ts assignIds).
 */
export type IdAllocation = (listName: string, fileIds: string[], highWaterMark: bigint) => string[];

/**
 * Create `count` tasks in one hold of the list lock, with consecutive ids allocated as
 * createTask allocates one (max(file ids, high-water mark) + 1, ...). `build` gets the
 * ids and returns the tasks to write, so tasks of one batch can name each other; the
 * other side of an edge to a task outside the batch is the caller's to say (`sides`): it
 * is written in the same hold, those tasks' locks taken before anything is written. The lock is held while every file of the batch is written: keep
 * batches to tens of tasks (agents stop waiting for the lock after about 2.6 s).
 * The files are written in order; if one write fails, the ones before it stay.
 * A file is never written over: if one of the ids turns out taken (another writer holding
 * the list lock at the same moment), the ids are allocated again while nothing of the
 * batch is written yet, and otherwise the batch stops there with `id_taken`.
 */
export async function createTaskBatch(
  listDir: string,
  count: number,
  build: (ids: string[]) => Task[],
  allocate: IdAllocation = (listName, used, mark) => allocateIds(listName, used, mark, count),
  /** A task's file time instead of now (a restore: when the record last changed it). */
  datedAt?: (task: Task, index: number) => number | undefined,
  /** Tasks outside the batch that get the other side of its edges (an import's existing tasks). */
  sides?: BatchSides,
): Promise<Task[]> {
  const madeList = ensureListDir(listDir);
  return withListLock(listDir, (listHeld) => {
    const write = () => writeBatchHeld(listDir, listHeld, madeList, count, build, allocate, datedAt);
    if (sides === undefined || sides.ids.length === 0) return write();
    const gone = (id: string) => readTaskFile(taskPath(listDir, id)).kind === 'missing';
    // Their locks too, before anything is written: a busy one leaves the batch unwritten.
    return withTaskLocks(
      listDir,
      sides.ids,
      (held) => {
        for (const id of sides.ids) {
          if (gone(id)) continue;
          readStoredTask(listDir, id);
          assertStillHeld(() => held(id), `task #${id}`);
        }
        const tasks = write();
        const changes = sides.changes(tasks);
        sides.done(
          changes,
          changeAllHeld(
            listDir,
            changes.map((c) => ({ ...c, skipIf: isMissing })),
            held,
          ),
        );
        return tasks;
      },
      () => true,
    );
  });
}

/**
 * The tasks outside a batch that get the other side of its edges: locked (in id order,
 * after the list lock) before the batch is written, and changed in the same hold. A task
 * gone meanwhile is passed over: `done` gets undefined for its change.
 */
export interface BatchSides {
  ids: readonly string[];
  changes: (written: Task[]) => HeldChange[];
  done: (changes: readonly HeldChange[], results: ReadonlyArray<UpdateResult | undefined>) => void;
}

/** createTaskBatch's writes, the list lock held (`stillHeld`: is it still ours). */
function writeBatchHeld(
  listDir: string,
  stillHeld: () => boolean,
  madeTheList: boolean,
  count: number,
  build: (ids: string[]) => Task[],
  allocate: IdAllocation = (listName, used, mark) => allocateIds(listName, used, mark, count),
  datedAt?: (task: Task, index: number) => number | undefined,
): Task[] {
  let madeList = madeTheList;
  for (let allocation = 1; ; allocation++) {
    const ids = allocate(path.basename(listDir), fileIds(listDir), readHighWaterMark(listDir));
    if (ids.length !== count) throw new Error(`createTaskBatch: ${ids.length} ids allocated for ${count} tasks`);
    const tasks = build(ids);
    for (const [i, task] of tasks.entries()) {
      if (task.id !== ids[i]) throw new Error(`createTaskBatch: task ${i} has id ${task.id}, expected ${ids[i]}`);
    }
    let written = 0;
    try {
      for (const task of tasks) {
        assertStillHeld(stillHeld, 'the list');
        // New files only: one that appeared since the ids were allocated is never replaced.
        announcedWrite({ listDir, id: task.id, after: task, ...(madeList ? { madeList } : {}) }, (announce) =>
          writeTaskFile(taskPath(listDir, task.id), task, { createOnly: true, beforePublish: announce, mtime: datedAt?.(task, written) }),
        );
        madeList = false;
        written++;
      }
      return tasks;
    } catch (err) {
      // Someone else holds the list lock too: allocate again, while nothing of ours is written.
      if (isIdTaken(err) && written === 0 && allocation < MAX_ALLOCATIONS) continue;
      throw err;
    }
  }
}

/**
 * Put a deleted task back under its own id (undo of a delete), the list lock held.
 * Ids are never handed out again, so the id is free unless someone restored it first:
 * then conflict, nothing written. The high-water mark is raised to the id first, so the
 * id stays used whatever happens to the file next.
 */
export function restoreHeld(listDir: string, task: Task): Task {
  raiseMarkHeld(listDir, task.id);
  try {
    announcedWrite({ listDir, id: task.id, after: task }, (announce) =>
      writeTaskFile(taskPath(listDir, task.id), task, { createOnly: true, beforePublish: announce }),
    );
  } catch (err) {
    if (isIdTaken(err))
      throw new TasksError('conflict', `task #${task.id} exists again; not restoring over it`, { details: { id: task.id } });
    throw err;
  }
  return task;
}

/** Raise `.highwatermark` to `id` when it is lower (the list lock held); never lowers it. */
export function raiseMarkHeld(listDir: string, id: string): void {
  const mark = readHighWaterMark(listDir);
  if (BigInt(id) <= mark) return;
  writeFileAtomic(path.join(listDir, HIGH_WATER_MARK), id);
}

/**
 * Rewrite a task whose lock is held (a batch that took every lock first: undo): re-read,
 * decide, write when something changed.
 */
export function rewriteHeld(listDir: string, id: string, decide: (current: Task) => Task): UpdateResult {
  const before = readStoredTask(listDir, id);
  const task = orderKeys(decide(before));
  const changed = changedKeys(before, task);
  if (changed.length > 0) {
    announcedWrite({ listDir, id, before, after: task }, (announce) =>
      writeTaskFile(taskPath(listDir, id), task, { beforePublish: announce }),
    );
  }
  return { before, task, changed };
}

/** Delete a task whose lock and the list lock are held: the mark raised, the file removed. References are the caller's. */
export function deleteHeld(listDir: string, id: string): Task {
  const current = getTaskForDelete(listDir, id);
  raiseMarkHeld(listDir, id);
  unlinkAnnounced(listDir, id, current);
  return current;
}

/** Allocations a create tries when another writer takes its id (see publishNew). */
const MAX_ALLOCATIONS = 5;

export interface UpdateResult {
  before: Task;
  task: Task;
  changed: string[];
}

/** Checked inside the task lock, against the fresh file; throw to refuse (nothing is written). */
export type Guard = (current: Task) => void;

/**
 * Update a task the way TaskUpdate does: task lock; re-read; merge; write.
 * Edges added with `addBlocks` / `addBlockedBy` are mirrored on the other tasks, after
 * cycle and existence checks; with edges, the whole change runs under the list lock so
 * that two of our processes cannot each add half of a cycle (agents take no such lock;
 * their edges can still make one), and every task's lock is taken before any is written.
 */
export async function updateTask(listDir: string, id: string, patch: TaskPatch, guard?: Guard): Promise<UpdateResult> {
  const addBlocks = unique(patch.addBlocks ?? []);
  const addBlockedBy = unique(patch.addBlockedBy ?? []);
  if (addBlocks.length + addBlockedBy.length === 0) return patchTask(listDir, id, patch, guard);
  const edges = [...addBlocks.map((other) => [id, other] as const), ...addBlockedBy.map((other) => [other, id] as const)];
  requireExisting(listDir, [id, ...addBlocks, ...addBlockedBy]);
  refuseCycles(listDir, edges);
  const unchanged = decideUnlocked(listDir, id, (before) => applyPatch(before, { ...patch, addBlocks, addBlockedBy }), guard, false);
  if (unchanged !== undefined && edgesComplete(listDir, edges)) return unchanged;
  return withListLock(listDir, async () => {
    const all = [id, ...addBlocks, ...addBlockedBy];
    requireExisting(listDir, all);
    refuseCycles(listDir, edges);
    refuseUnusableTaskLocks(listDir, all);
    // Every lock first, then every side: a lock that cannot be had (busy) leaves nothing written.
    return withTaskLocks(listDir, all, (held) => {
      const [result] = changeAllHeld(
        listDir,
        [
          { id, patch: { ...patch, addBlocks, addBlockedBy }, guard },
          ...addBlocks.map((other) => ({ id: other, patch: { addBlockedBy: [id] } })),
          ...addBlockedBy.map((other) => ({ id: other, patch: { addBlocks: [id] } })),
        ],
        held,
      );
      if (!result) throw new Error('updateTask: no result for the task itself');
      return result;
    });
  });
}

/**
 * Change several tasks as one write, the list lock held: every task's lock is taken first
 * (withTaskLocks, in id order), then every change is decided and written (changeAllHeld).
 * A lock that cannot be had (busy), a refusal, a lost lock: nothing is written. A task
 * whose change may pass it over (`skipIf`) is passed over when its file is gone.
 */
export async function changeTasksLocked(listDir: string, changes: readonly HeldChange[]): Promise<Array<UpdateResult | undefined>> {
  const passable = new Set(changes.filter((c) => c.skipIf !== undefined).map((c) => c.id));
  return withTaskLocks(
    listDir,
    changes.map((c) => c.id),
    (held) => changeAllHeld(listDir, changes, held),
    (id) => passable.has(id),
  );
}

/** One change of a write that changes several tasks: TaskUpdate's merge (or a rewrite), a precondition. */
export interface HeldChange {
  id: string;
  patch?: TaskPatch;
  /** A change TaskPatch cannot express (removing edges); used when there is no patch. */
  rewrite?: (current: Task) => Task;
  guard?: Guard | undefined;
  /** A task this change may pass over when its file cannot be read (gone, corrupt): said by the error. */
  skipIf?: (err: unknown) => boolean;
}

/**
 * Several tasks changed with their locks held (withTaskLocks; `stillHeld(id)`): each is
 * re-read, checked and decided first (in order; a task changed twice is decided on its
 * first change), and every lock it will write under checked, so that a refusal or a lost
 * lock leaves every file as it was; then each changed task is written once, in order.
 * One result per change (undefined for a task passed over); `beforeWrites` runs between
 * the checks and the first write (a delete's own write).
 */
function changeAllHeld(
  listDir: string,
  changes: readonly HeldChange[],
  stillHeld: (id: string) => boolean,
  beforeWrites?: () => void,
): Array<UpdateResult | undefined> {
  const tasks = new Map<string, { before: Task; task: Task }>();
  const results = changes.map(({ id, patch, rewrite, guard, skipIf }) => {
    let current = tasks.get(id)?.task;
    if (current === undefined) {
      try {
        current = namedByFile(readStoredTask(listDir, id), id);
      } catch (err) {
        if (skipIf?.(err)) return undefined;
        throw err;
      }
      tasks.set(id, { before: current, task: current });
    }
    guard?.(current);
    const next = patch !== undefined ? applyPatch(current, patch).task : orderKeys((rewrite ?? ((t: Task) => t))(current));
    const result = { before: current, task: next, changed: changedKeys(current, next) };
    tasks.set(id, { before: tasks.get(id)?.before ?? current, task: next });
    return result;
  });
  const writes = [...tasks].filter(([, { before, task }]) => changedKeys(before, task).length > 0);
  for (const [id] of writes) assertStillHeld(() => stillHeld(id), `task #${id}`);
  beforeWrites?.();
  for (const [id, { before, task }] of writes) {
    announcedWrite({ listDir, id, before, after: task }, (announce) =>
      writeTaskFile(taskPath(listDir, id), task, { beforePublish: announce }),
    );
  }
  return results;
}

/** One task-locked read-merge-write with TaskUpdate's merge; the building block of task changes. */
export async function patchTask(listDir: string, id: string, patch: TaskPatch, guard?: Guard): Promise<UpdateResult> {
  return changeTask(listDir, id, (before) => applyPatch(before, patch), guard);
}

/**
 * Rewrite a task with a pure function of its current state, under its lock.
 * For changes TaskPatch cannot express (removing edges, claims).
 */
export async function rewriteTask(
  listDir: string,
  id: string,
  decide: (current: Task) => Task,
  guard?: Guard,
  opts: { asStored?: boolean } = {},
): Promise<UpdateResult> {
  return changeTask(
    listDir,
    id,
    (before) => {
      // A re-parse, as Claude Code's own writes do: schema order, unknown keys after.
      const task = orderKeys(decide(before));
      return { task, changed: changedKeys(before, task) };
    },
    guard,
    opts.asStored,
  );
}

/** Task lock; re-read; guard; decide; write only when something changed; release. */
async function changeTask(
  listDir: string,
  id: string,
  decide: (before: Task) => { task: Task; changed: string[] },
  guard?: Guard,
  /** Decide on the file as stored, its id inside as it is (check --fix's repair of that id). */
  asStored = false,
): Promise<UpdateResult> {
  const unchanged = decideUnlocked(listDir, id, decide, guard, asStored);
  if (unchanged !== undefined) return unchanged;
  return withTaskLock(listDir, id, (stillHeld) => {
    // Named by its file, as agents address it: a write puts the file's id back inside (as
    // their next update does), and the change is reported as #<file id>, never as the id a
    // hand edit or a copy left inside.
    const stored = readStoredTask(listDir, id);
    const before = asStored ? stored : namedByFile(stored, id);
    guard?.(before);
    const { task, changed } = decide(before);
    if (changed.length > 0) {
      assertStillHeld(stillHeld, `task #${id}`);
      announcedWrite({ listDir, id, before, after: task }, (announce) =>
        writeTaskFile(taskPath(listDir, id), task, { beforePublish: announce }),
      );
    }
    return { before, task, changed };
  });
}

/**
 * The same decision on the file as it is, without the lock: throws what the guard throws
 * (or not_found), returns the result when nothing would change, and undefined when the
 * change must be made (or the file cannot be read now: the locked path then says why).
 */
function decideUnlocked(
  listDir: string,
  id: string,
  decide: (before: Task) => { task: Task; changed: string[] },
  guard: Guard | undefined,
  asStored: boolean,
): UpdateResult | undefined {
  const read = readTaskFile(taskPath(listDir, id));
  if (read.kind === 'missing') throw missingTask(listDir, id);
  if (read.kind !== 'ok') return undefined;
  const before = asStored ? read.task : namedByFile(read.task, id);
  guard?.(before);
  const { task, changed } = decide(before);
  return changed.length === 0 ? { before, task, changed } : undefined;
}

/** Is every "blocker blocks blocked" edge recorded on both sides already? */
function edgesComplete(listDir: string, edges: ReadonlyArray<readonly [string, string]>): boolean {
  return edges.every(
    ([blocker, blocked]) => getTask(listDir, blocker).blocks.includes(blocked) && getTask(listDir, blocked).blockedBy.includes(blocker),
  );
}

/** What addEdges did: edges written (on at least one side), and edges already complete. */
export interface EdgeReport {
  added: Array<[string, string]>;
  already: Array<[string, string]>;
}

/**
 * Add "blocker blocks blocked" edges, both sides, idempotent. Under the list lock (so the
 * cycle check and the writes are one step for every `tasks` process): every task must
 * exist (not_found), no edge may close a cycle or be a self-block (conflict, the path
 * in details); then every task's lock is taken (in id order) and both sides of every
 * edge are written, blocker first, as agents do. Nothing is written when a check fails
 * or a lock cannot be had. `guardOf(blocked)`: preconditions on the task that waits,
 * checked in its lock before anything is written.
 */
export async function addEdges(
  listDir: string,
  edges: ReadonlyArray<readonly [string, string]>,
  guardOf?: (blocked: string) => Guard | undefined,
): Promise<EdgeReport> {
  requireExisting(listDir, edges.flat());
  refuseCycles(listDir, edges);
  // A precondition that fails now, or edges all there already, leave the list untouched.
  for (const [, blocked] of edges) guardOf?.(blocked)?.(getTask(listDir, blocked));
  if (edgesComplete(listDir, edges)) return { added: [], already: edges.map(([a, b]) => [a, b]) };
  return withListLock(listDir, async () => {
    requireExisting(listDir, edges.flat());
    refuseCycles(listDir, edges);
    const ids = unique(edges.flat());
    refuseUnusableTaskLocks(listDir, ids);
    // Every lock first, then every side: a lock that cannot be had (busy), or a failed
    // precondition, leaves no edge and no half of one.
    return withTaskLocks(listDir, ids, (held) => {
      const results = changeAllHeld(
        listDir,
        edges.flatMap(([blocker, blocked]) => [
          { id: blocker, patch: { addBlocks: [blocked] } },
          { id: blocked, patch: { addBlockedBy: [blocker] }, guard: guardOf?.(blocked) },
        ]),
        held,
      );
      const report: EdgeReport = { added: [], already: [] };
      for (const [i, [blocker, blocked]] of edges.entries()) {
        const sides = [results[2 * i], results[2 * i + 1]];
        (sides.some((r) => (r?.changed.length ?? 0) > 0) ? report.added : report.already).push([blocker, blocked]);
      }
      return report;
    });
  });
}

export interface DeleteResult {
  task: Task;
  /** Other tasks whose blocks/blockedBy named it and were cleaned. */
  cleaned: string[];
}

/**
 * Delete: raise the high-water mark to the id, unlink, and remove the id from every other
 * task's edges, as one write. Claude Code takes no lock for the mark and the unlink; we
 * take the list lock for them so two deletes cannot lower the mark, and then the locks of
 * the task and of every task naming it (in id order: list, then task, the agents' order),
 * so that a `guard` (preconditions) is checked against the file as it is deleted, no
 * agent's update of those tasks is under way, and a lock that cannot be had (busy) leaves
 * nothing deleted and nothing cleaned.
 */
export async function deleteTask(listDir: string, id: string, guard?: Guard): Promise<DeleteResult> {
  const seen = readTaskFile(taskPath(listDir, id));
  if (seen.kind === 'missing') throw missingTask(listDir, id);
  if (seen.kind === 'ok') guard?.(namedByFile(seen.task, id));
  return withListLock(listDir, async (listHeld) => {
    const naming = namingTasks(listDir, id).filter((other) => other !== id);
    // The tasks that name it are changed with it: one whose lock can never be taken would
    // keep waiting on a task that is gone.
    refuseUnusableTaskLocks(listDir, naming);
    return withTaskLocks(
      listDir,
      [id, ...naming],
      (held) => {
        const current = getTaskForDelete(listDir, id);
        guard?.(current);
        const cleanups = naming.map((other) => ({
          id: other,
          rewrite: (t: Task) => ({ ...t, blocks: t.blocks.filter((x) => x !== id), blockedBy: t.blockedBy.filter((x) => x !== id) }),
          // Deleted meanwhile, or a file we must not write (corrupt, a foreign id): skip it.
          skipIf: (err: unknown) => err instanceof TasksError && (err.code === 'not_found' || err.code === 'corrupt'),
        }));
        const results = changeAllHeld(listDir, cleanups, held, () => {
          const mark = readHighWaterMark(listDir);
          assertStillHeld(listHeld, 'the list');
          assertStillHeld(() => held(id), `task #${id}`);
          if (BigInt(id) > mark) writeFileAtomic(path.join(listDir, HIGH_WATER_MARK), id);
          unlinkAnnounced(listDir, id, current);
        });
        return { task: current, cleaned: naming.filter((_, i) => results[i] !== undefined) };
      },
      (other) => other !== id,
    );
  });
}

/** The ids of the tasks whose blocks or blockedBy name `id`. */
function namingTasks(listDir: string, id: string): string[] {
  return readList(listDir)
    .tasks.filter((other) => other.blocks.includes(id) || other.blockedBy.includes(id))
    .map((other) => other.id);
}

/** Remove a task file, announced first; a file already gone is no write of ours (announced as failed). */
function unlinkAnnounced(listDir: string, id: string, before: Task): void {
  announceTaskWrite({ listDir, id, before });
  try {
    fs.unlinkSync(taskPath(listDir, id));
  } catch (err) {
    announceWriteFailed({ listDir, id });
    if (errnoCode(err) !== 'ENOENT') throw new TasksError('io', `cannot delete ${id}.json: ${(err as Error).message}`);
  }
}

/** A corrupt file can still be deleted by id; we report what we can of it. */
function getTaskForDelete(listDir: string, id: string): Task {
  const result = readTaskFile(taskPath(listDir, id));
  if (result.kind === 'ok') return namedByFile(result.task, id);
  if (result.kind === 'missing') throw missingTask(listDir, id);
  throw new TasksError('corrupt', `task #${id} is unreadable (${result.reason}); not deleting a file we cannot read`, {
    details: { id },
  });
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** Every id must name a readable task: not_found (exit 3) or corrupt otherwise. No lock. */
function requireExisting(listDir: string, ids: readonly string[]): void {
  for (const id of unique(ids)) getTask(listDir, id);
}

/**
 * A new task blocked by `blockedBy` and blocking `blocks` closes a cycle when one of
 * `blocks` already leads to one of `blockedBy` (#2 waits on #1: a task blocking #1 and
 * blocked by #2 would make all three wait on each other): refused (conflict), as update's
 * --add-blocks with --add-blocked-by is.
 */
function refuseNewTaskCycle(listDir: string, blockedBy: readonly string[], blocks: readonly string[]): void {
  if (blockedBy.length === 0 || blocks.length === 0) return;
  const graph = buildBlocksGraph(readList(listDir).tasks);
  for (const before of blockedBy) {
    for (const after of blocks) {
      // A path after -> ... -> before: with before -> new -> after, a cycle.
      const cycle = cycleIfAdded(graph, before, after);
      if (cycle) {
        throw new TasksError(
          'conflict',
          `the new task, blocked by #${before} and blocking #${after}, would make a cycle: ${formatCycle(['new', ...cycle.slice(1), 'new'])}`,
        );
      }
    }
  }
}

/** Refuse (conflict, the cycle's path in details) any edge that would close a cycle, self-blocks included. */
function refuseCycles(listDir: string, edges: ReadonlyArray<readonly [string, string]>): void {
  const graph = buildBlocksGraph(readList(listDir).tasks);
  for (const [blocker, blocked] of edges) {
    const cycle = cycleIfAdded(graph, blocker, blocked);
    if (cycle) {
      const message =
        blocker === blocked
          ? `task #${blocker} cannot block itself`
          : `#${blocker} blocking #${blocked} would make a cycle: ${formatCycle(cycle)}`;
      throw new TasksError('conflict', message, { details: { cycle } });
    }
    let set = graph.get(blocker);
    if (!set) graph.set(blocker, (set = new Set()));
    set.add(blocked);
  }
}
