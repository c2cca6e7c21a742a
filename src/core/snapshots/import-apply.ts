import fs from 'node:fs';
import { TasksError } from '../base/errors.js';
import { assignIds, idNotFree, isTaskId } from '../store/ids.js';
import type { Task } from '../store/schema.js';
import { raiseHighWaterMark } from '../writes/high-water-mark.js';
import { createTaskBatch, getTask, type HeldChange, type IdAllocation, taskExists } from '../writes/task-writes.js';
import { type ExistingChange, existingChanges, materializeTask } from './import-materialize.js';
import type { Endpoint, ImportPlan, PlannedTask } from './import-plan.js';

export interface ApplyOptions {
  /** Tasks written per hold of the list lock (docs/task-store.md section 5: never across a whole batch). */
  batchSize?: number;
  /**
   * A clock in ms. When given, the batch size adapts so that a hold of the list lock lasts
   * about `targetHoldMs` (writes cost 1.5 ms a file on an idle disk here, 5 ms and more
   * on a busy one); between 1 and `maxBatchSize` tasks.
   */
  now?: () => number;
  targetHoldMs?: number;
  maxBatchSize?: number;
  /**
   * Stop between two locked steps once aborted (Ctrl-C): what is written stays, whole
   * and valid, and the same import run again finishes the job.
   */
  signal?: AbortSignal | undefined;
  /**
   * The plan's refs are the tasks' own ids (exported tasks, a Task-tools run): `free`,
   * each task keeps its id where it is free in the list (store/ids.ts idNotFree);
   * `restore`, wherever no file has it (the same tasks coming back). Decided under the
   * lock of each batch; the others get new ids above every id still wanted.
   */
  keepIds?: 'free' | 'restore' | undefined;
  /**
   * The ids a record shows this list used (a restore): new ids go above it, and once the
   * tasks are written the high-water mark is raised to it, so no id it names is handed out again.
   */
  markAtLeast?: string | undefined;
  /**
   * Each task as soon as its file is written (its plan ref and id), so that a caller can
   * take back what a stopped import wrote, whatever stopped it. With it, an error is
   * passed on as it came: the caller, not the import, says what was written.
   */
  onCreated?: ((ref: string, id: string) => void) | undefined;
  /** When each task (by plan ref) last changed in the record it comes from: its file keeps that time (a restore). */
  changedAt?: ReadonlyMap<string, number> | undefined;
}

export interface ImportResult {
  /** The new tasks as their files stand after the import, in id order. */
  created: Task[];
  /** Existing tasks that gained an edge to a new one. */
  existing: ExistingChange[];
  warnings: string[];
}

/** The first batch; later ones adapt when a clock is given. About 1.5 ms a file on an idle disk here (write, fsync, rename), several times that on a busy one. */
export const DEFAULT_BATCH_SIZE = 10;
export const DEFAULT_TARGET_HOLD_MS = 100;
export const DEFAULT_MAX_BATCH_SIZE = 50;

/**
 * Write a plan. Ids come from the list's own allocation: each batch takes the list lock,
 * allocates consecutive ids as createTask does, writes its tasks (each with its
 * `blockedBy` complete, since blockers come first in the plan), and releases the lock.
 * Then the other side of each edge that leaves the batch (a new task of an earlier batch,
 * or an existing task) is added by a task-locked update, as TaskUpdate's addBlocks does.
 *
 * If a batch fails (the lock stays busy, a disk error), the tasks written so far stay
 * and the error says which; running the same import again finishes the job, because
 * those tasks now match by subject and are skipped.
 */
export async function applyImport(listDir: string, plan: ImportPlan, opts: ApplyOptions = {}): Promise<ImportResult> {
  let size = Math.max(1, opts.batchSize ?? DEFAULT_BATCH_SIZE);
  const target = opts.targetHoldMs ?? DEFAULT_TARGET_HOLD_MS;
  const maxSize = Math.max(1, opts.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE);
  const ids = new Map<string, string>();
  const idOf = (e: Endpoint) => (e.kind === 'existing' ? e.id : ids.get(e.ref));
  const warnings: string[] = [];
  const createdIds = () => plan.create.flatMap((p) => ids.get(p.ref) ?? []);

  const stopIfAborted = () => {
    if (opts.signal?.aborted)
      throw partial(new TasksError('interrupted', 'import interrupted'), createdIds(), plan.create.length, opts.onCreated !== undefined);
  };
  for (let start = 0; start < plan.create.length; ) {
    stopIfAborted();
    const batch = plan.create.slice(start, start + size);
    start += batch.length;
    let heldFrom = 0;
    const later = plan.create.slice(start);
    const inBatch = new Set(batch.map((p) => p.ref));
    // The tasks outside the batch on the other side of its edges (existing ones, new ones of
    // earlier batches; one of a later batch is written with the edge and mirrors it then).
    const outside = (e: Endpoint) => (e.kind === 'new' && inBatch.has(e.ref) ? undefined : idOf(e));
    const sideIds = [...new Set(batch.flatMap((p) => [...p.blockedBy, ...p.blocks].flatMap((e) => outside(e) ?? [])))];
    // The other sides are written in the batch's own hold, their locks taken first: a task
    // written with a blocker always has that blocker's side too, and a busy lock writes neither.
    const mirror = (): HeldChange[] => {
      const sides = new Map<string, { addBlocks: string[]; addBlockedBy: string[] }>();
      const side = (id: string) => {
        let m = sides.get(id);
        if (!m) sides.set(id, (m = { addBlocks: [], addBlockedBy: [] }));
        return m;
      };
      for (const p of batch) {
        const self = ids.get(p.ref) as string;
        for (const e of p.blockedBy) {
          const other = outside(e);
          if (other !== undefined) side(other).addBlocks.push(self);
        }
        for (const e of p.blocks) {
          const other = outside(e);
          if (other !== undefined) side(other).addBlockedBy.push(self);
        }
      }
      return [...sides].map(([id, patch]) => ({ id, patch }));
    };
    const mirrored = (changes: readonly HeldChange[], results: ReadonlyArray<unknown>) => {
      changes.forEach(({ id }, i) => {
        if (results[i] === undefined) {
          warnings.push(`#${id} was deleted during the import: its edges to the new tasks were not written on its side`);
        }
      });
    };
    try {
      await createTaskBatch(
        listDir,
        batch.length,
        (batchIds) => {
          heldFrom = opts.now?.() ?? 0;
          batch.forEach((p, i) => {
            ids.set(p.ref, batchIds[i] as string);
          });
          return batch.map((p) => materializeTask(p, ids.get(p.ref) as string, idOf));
        },
        opts.keepIds === undefined ? undefined : keepingIds(batch, later, opts.keepIds === 'restore', opts.markAtLeast),
        opts.changedAt === undefined ? undefined : (_task, i) => opts.changedAt?.get((batch[i] as PlannedTask).ref),
        { ids: sideIds, changes: mirror, done: mirrored },
      );
      for (const p of batch) opts.onCreated?.(p.ref, ids.get(p.ref) as string);
      if (opts.now) size = nextBatchSize(batch.length, opts.now() - heldFrom, target, maxSize);
    } catch (err) {
      for (const p of batch) {
        const id = ids.get(p.ref);
        if (id !== undefined && !taskExists(listDir, id)) ids.delete(p.ref);
        else if (id !== undefined) opts.onCreated?.(p.ref, id);
      }
      throw partial(err, createdIds(), plan.create.length, opts.onCreated !== undefined);
    }
  }

  if (opts.markAtLeast !== undefined && fs.existsSync(listDir)) {
    stopIfAborted();
    await raiseHighWaterMark(listDir, opts.markAtLeast);
  }
  const created = plan.create.map((p) => {
    const id = ids.get(p.ref) as string;
    try {
      return getTask(listDir, id);
    } catch {
      return materializeTask(p, id, idOf); // changed or deleted meanwhile: report what we wrote
    }
  });
  return { created, existing: existingChanges(plan, idOf), warnings };
}

/**
 * The ids of a batch that keeps its tasks' ids where free, decided on the list as it is
 * under the lock: new ids go above the ids the batch and the later batches (`later`)
 * still want, so that no task of this import takes another's.
 */
function keepingIds(
  batch: readonly PlannedTask[],
  later: readonly PlannedTask[],
  sameTasks: boolean,
  markAtLeast: string | undefined,
): IdAllocation {
  return (listName, fileIds, mark) => {
    const taken = new Set(fileIds);
    let reserved = markAtLeast === undefined ? 0n : BigInt(markAtLeast);
    for (const p of [...batch, ...later]) {
      if (idNotFree(p.ref, taken, sameTasks ? 0n : mark) !== undefined) continue;
      const n = BigInt(p.ref);
      if (n > reserved) reserved = n;
    }
    return assignIds(
      listName,
      fileIds,
      mark,
      batch.map((p) => (isTaskId(p.ref) ? p.ref : undefined)),
      { reservedAbove: reserved, sameTasks },
    );
  };
}

/** Scale the batch so that the next hold lasts about `target` ms. */
export function nextBatchSize(size: number, heldMs: number, target: number, max: number): number {
  return Math.min(max, Math.max(1, Math.floor((size * target) / Math.max(heldMs, 1))));
}

function partial(err: unknown, created: readonly string[], total: number, caller: boolean): unknown {
  if (caller || !(err instanceof TasksError) || created.length === 0) return err;
  const range = created.length === 1 ? `#${created[0]}` : `#${created[0]}-#${created.at(-1)}`;
  return new TasksError(
    err.code,
    `${err.message} (after creating ${created.length} of ${total} tasks: ${range}; run the same import again to finish, tasks already imported are skipped)`,
    { details: { ...err.details, created }, ...(err.hint ? { hint: err.hint } : {}) },
  );
}
