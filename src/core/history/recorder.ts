import { isDirectory } from '../base/is-directory.js';
import { sameValue } from '../base/same-value.js';
import type { Task } from '../store/schema.js';
import { onTaskWrite, type TaskWrite } from '../writes/write-events.js';
import { type Actor, appendJournal, type FieldChange, type JournalChange } from './journal.js';

/** The fields a change touched, with their values before and after (absent: no key). */
export function fieldChanges(before: Task, after: Task): Record<string, FieldChange> {
  const fields: Record<string, FieldChange> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const had = Object.hasOwn(before, key);
    const has = Object.hasOwn(after, key);
    if (had && has && sameValue(before[key], after[key])) continue;
    fields[key] = { ...(had ? { old: before[key] } : {}), ...(has ? { new: after[key] } : {}) };
  }
  return fields;
}

function changeOf(write: TaskWrite): JournalChange | undefined {
  if (write.before === undefined && write.after !== undefined) return { id: write.id, op: 'create', task: write.after };
  if (write.before !== undefined && write.after === undefined) return { id: write.id, op: 'delete', task: write.before };
  if (write.before !== undefined && write.after !== undefined) {
    const fields = fieldChanges(write.before, write.after);
    return Object.keys(fields).length > 0 ? { id: write.id, op: 'update', fields } : undefined;
  }
  return undefined;
}

/**
 * A new journal txn: the time and the process (base 36), and a random part, so that two
 * runs, or two of a board's actions in one millisecond, never share one. Every change
 * made with tasks (a command's run, an action on the board) is one txn.
 */
export function newTxn(nowMs: number, pid: number): string {
  return `${nowMs.toString(36)}-${pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface RecorderOptions {
  actor: Actor;
  command: string;
  txn: string;
  /** For an undo: the txn it takes back (known once the command has looked). */
  undoes?: () => string | undefined;
  now: () => Date;
  /** A journal that cannot be written: told once per list, never fatal. */
  onError: (listDir: string, err: unknown) => void;
  /** Tasks whose change the journal keeps only in part (a value too long): undo cannot restore them. */
  onCut?: (listDir: string, ids: string[]) => void;
}

/** Changes kept in memory before they are appended (a 100,000-task import goes in pieces). */
const FLUSH_EVERY = 200;

/**
 * Records every task write of this process into its list's journal: one entry per list
 * per command, appended when the command ends (`stop`), or in pieces of FLUSH_EVERY
 * changes for large ones. Writes are announced under the lock, as they happen, so the
 * record follows the order of the files' changes.
 */
export function startRecording(opts: RecorderOptions): { stop: () => void; flush: () => void } {
  const pending = new Map<string, JournalChange[]>();
  const failed = new Set<string>();
  const madeLists = new Set<string>();
  const flush = (listDir: string) => {
    const changes = pending.get(listDir);
    pending.delete(listDir);
    if (!changes || changes.length === 0 || failed.has(listDir)) return;
    // An undo that took back a new list took its folder, journal and all: nothing to record.
    if (!isDirectory(listDir)) return;
    try {
      const cutIds = appendJournal(listDir, {
        v: 1,
        at: opts.now().toISOString(),
        actor: opts.actor,
        command: opts.command,
        txn: opts.txn,
        ...(opts.undoes?.() === undefined ? {} : { undoes: opts.undoes?.() }),
        ...(madeLists.has(listDir) ? { newList: true as const } : {}),
        changes,
      });
      if (cutIds.length > 0) opts.onCut?.(listDir, cutIds);
    } catch (err) {
      failed.add(listDir);
      opts.onError(listDir, err);
    }
  };
  const unsubscribe = onTaskWrite((write) => {
    const change = changeOf(write);
    if (change === undefined) return;
    if (write.madeList) madeLists.add(write.listDir);
    const changes = pending.get(write.listDir) ?? [];
    changes.push(change);
    pending.set(write.listDir, changes);
    if (changes.length >= FLUSH_EVERY) flush(write.listDir);
  });
  return {
    stop: () => {
      unsubscribe();
      for (const listDir of [...pending.keys()]) flush(listDir);
    },
    /** Append what is recorded so far now (an undo does, before it lets the next one look). */
    flush: () => {
      for (const listDir of [...pending.keys()]) flush(listDir);
    },
  };
}
