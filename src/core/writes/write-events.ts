import { requireScope, scopePart, scopeSlot } from '../scope/run-scope.js';
import type { Task } from '../store/schema.js';

/**
 * Every task file a run writes, as it is about to be written: the task before
 * (absent for a create) and after (absent for a delete). The writes of this folder
 * announce each one under the lock that guards it, just before the file changes, and
 * announce a failure if the write then fails (nothing of it written); whoever keeps a
 * record (the journal of history/) listens, and so records each change before a kill
 * could separate the two. Listeners must be quick and must not throw.
 */
export interface TaskWrite {
  listDir: string;
  id: string;
  before?: Task | undefined;
  after?: Task | undefined;
  /** Set on the first task written into a list folder that this write made (a new list). */
  madeList?: true | undefined;
}

/**
 * A change to a list's other files, made by a repair (`check --fix`): a task file moved
 * aside, the high-water mark raised, a stale lock or an abandoned temp file removed.
 * Announced, like task writes, before the change is made.
 */
export type ListFileChange =
  | { listDir: string; kind: 'aside'; id: string; file: string; to: string }
  | { listDir: string; kind: 'mark'; old: string | null; new: string }
  | { listDir: string; kind: 'removed'; file: string; what: 'lock' | 'temp' };

export interface WriteListener {
  /** A task file is about to be written (or removed). */
  write?: (write: TaskWrite) => void;
  /** The write announced last for this task failed: nothing of it was written. */
  failed?: (write: { listDir: string; id: string }) => void;
  /** Another file of the list is about to change. */
  file?: (change: ListFileChange) => void;
}

/** Who listens to a run's writes: each run scope (core/scope) has its own. */
const LISTENERS = scopeSlot('write listeners', () => new Set<WriteListener>());

/** Listen to the writes of the run this is called in; returns the function that stops listening. */
export function onWrites(listener: WriteListener): () => void {
  const listeners = requireScope('listening to writes').part(LISTENERS);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Listen to every task write of the run this is called in; returns the function that stops listening. */
export function onTaskWrite(listener: (write: TaskWrite) => void): () => void {
  return onWrites({ write: listener });
}

function tell(call: (listener: WriteListener) => void): void {
  for (const listener of scopePart(LISTENERS) ?? []) {
    try {
      call(listener);
    } catch {
      // A record that cannot be kept never undoes or fails the write itself.
    }
  }
}

export function announceTaskWrite(write: TaskWrite): void {
  tell((l) => l.write?.(write));
}

export function announceWriteFailed(write: { listDir: string; id: string }): void {
  tell((l) => l.failed?.(write));
}

export function announceFileChange(change: ListFileChange): void {
  tell((l) => l.file?.(change));
}

/**
 * Run `write` as the write of `change`: `write` calls `announce` at the last moment before
 * the file changes (after its new content is safely on disk under a temp name), and a
 * failure after that is announced too (the error goes on). The one way task files are
 * written here.
 */
export function announcedWrite<T>(change: TaskWrite, write: (announce: () => void) => T): T {
  let announced = false;
  try {
    return write(() => {
      announced = true;
      announceTaskWrite(change);
    });
  } catch (err) {
    if (announced) announceWriteFailed({ listDir: change.listDir, id: change.id });
    throw err;
  }
}
