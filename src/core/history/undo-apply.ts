import fs from 'node:fs';
import path from 'node:path';
import { ABSENT } from '../base/absent.js';
import { errnoCode, TasksError } from '../base/errors.js';
import { assertStillHeld, withListLock, withTaskLock } from '../locks/locks.js';
import { compareIds } from '../store/ids.js';
import type { Task } from '../store/schema.js';
import { orderKeys } from '../store/serialize.js';
import { deleteHeld, raiseMarkHeld, restoreHeld, rewriteHeld } from '../writes/task-writes.js';
import { announceFileChange, announceWriteFailed } from '../writes/write-events.js';
import type { UndoPlan, UndoStep } from './undo-plan.js';

/**
 * An undo or redo is atomic across its tasks: every lock it needs is taken first (the
 * list lock, then each task's, in id order: the agents' order), and only then is the
 * plan made again against the files as they are under those locks and written. A lock
 * that cannot be had (an agent holds it) stops it before anything is written. A kill
 * between two of its writes leaves its record without its `end` line, and the next undo
 * or redo finishes it (undo-run.ts).
 */
export async function applyUndoPlan(
  listDir: string,
  planned: UndoPlan,
  opts: { replan: () => UndoPlan; end: () => void },
): Promise<UndoPlan> {
  const held = new Set(lockedIds(planned.steps));
  const ids = [...held].sort(compareIds);
  return withListLock(listDir, (listHeld) =>
    withTaskLocks(listDir, ids, [listHeld], (stillHeld) => {
      const plan = opts.replan();
      for (const id of lockedIds(plan.steps)) {
        if (!held.has(id)) throw new OtherLocksNeeded(plan);
      }
      for (const check of stillHeld) assertStillHeld(check, 'a lock this undo holds');
      for (const step of plan.steps) applyStep(listDir, step);
      opts.end();
      return plan;
    }),
  );
}

/** The plan made again under the locks needs a task's lock that was not taken: nothing was written. */
export class OtherLocksNeeded extends Error {
  constructor(readonly plan: UndoPlan) {
    super('the undo needs other locks than it took');
  }
}

/** Tasks whose file a step writes or removes: each needs its task lock. */
function lockedIds(steps: readonly UndoStep[]): string[] {
  return steps.flatMap((s) =>
    s.kind === 'update' || s.kind === 'delete' ? [s.id] : s.kind === 'rename' && s.from.endsWith('.json') ? [s.id] : [],
  );
}

async function withTaskLocks<T>(
  listDir: string,
  ids: readonly string[],
  held: Array<() => boolean>,
  fn: (stillHeld: Array<() => boolean>) => T,
): Promise<T> {
  const [first, ...rest] = ids;
  if (first === undefined) return fn(held);
  return withTaskLock(listDir, first, (taskHeld) => withTaskLocks(listDir, rest, [...held, taskHeld], fn));
}

function applyStep(listDir: string, step: UndoStep): void {
  switch (step.kind) {
    case 'update':
      rewriteHeld(listDir, step.id, (t) => {
        const next: Task = { ...t };
        for (const [key, f] of Object.entries(step.fields)) {
          if (f.new === ABSENT) delete next[key];
          else next[key] = f.new;
        }
        return orderKeys(next);
      });
      return;
    case 'delete':
      deleteHeld(listDir, step.id);
      return;
    case 'create':
      restoreHeld(listDir, step.task);
      return;
    case 'mark':
      raiseMarkHeld(listDir, step.new);
      announceFileChange({ listDir, kind: 'mark', old: step.old, new: step.new });
      return;
    case 'rename':
      renameNew(listDir, step);
  }
}

/** Move a file to a name nothing has (link, then unlink): never over a file that appeared. */
function renameNew(listDir: string, step: Extract<UndoStep, { kind: 'rename' }>): void {
  const from = path.join(listDir, step.from);
  const to = path.join(listDir, step.to);
  announceFileChange({ listDir, kind: 'aside', id: step.id, file: step.from, to: step.to });
  try {
    try {
      fs.linkSync(from, to);
      fs.unlinkSync(from);
    } catch (err) {
      if (errnoCode(err) === 'EEXIST') throw new TasksError('conflict', `${step.to} appeared meanwhile; ${step.from} left as it is`);
      if (errnoCode(err) !== 'EPERM' && errnoCode(err) !== 'ENOTSUP') throw err;
      fs.renameSync(from, to);
    }
  } catch (err) {
    announceWriteFailed({ listDir, id: step.id });
    if (err instanceof TasksError) throw err;
    throw new TasksError('io', `cannot move ${step.from} to ${step.to}: ${(err as Error).message}`);
  }
}
