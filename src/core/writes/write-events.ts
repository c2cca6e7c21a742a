import type { Task } from '../store/schema.js';

/**
 * Every task file this process writes, as it is written: the task before (absent for a
 * create) and after (absent for a delete). The writes of this folder announce them here
 * after each successful write, still under the lock; whoever keeps a record (the journal
 * of history/) listens. Listeners must be quick and must not throw.
 */
export interface TaskWrite {
  listDir: string;
  id: string;
  before?: Task | undefined;
  after?: Task | undefined;
  /** Set on the first task written into a list folder that this write made (a new list). */
  madeList?: true | undefined;
}

type Listener = (write: TaskWrite) => void;

const listeners = new Set<Listener>();

/** Listen to every task write of this process; returns the function that stops listening. */
export function onTaskWrite(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function announceTaskWrite(write: TaskWrite): void {
  for (const listener of listeners) {
    try {
      listener(write);
    } catch {
      // A record that cannot be kept never undoes or fails the write itself.
    }
  }
}
