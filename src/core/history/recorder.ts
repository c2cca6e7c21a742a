import path from 'node:path';
import { sameValue } from '../base/same-value.js';
import type { Task } from '../store/schema.js';
import { type ListFileChange, onWrites, type TaskWrite } from '../writes/write-events.js';
import { type Actor, appendLines, entryLine, type FieldChange, type JournalChange, type JournalEntry } from './journal.js';
import { rotateIfLarge } from './journal-rotate.js';
import { MAX_TASKS, traceWrites, type WriteTrace } from './write-traces.js';

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

function fileChangeOf(change: ListFileChange): JournalChange {
  if (change.kind === 'aside') return { id: change.id, op: 'aside', file: change.file, to: change.to };
  if (change.kind === 'mark') return { op: 'mark', old: change.old, new: change.new };
  return { op: 'removed', file: change.file, what: change.what };
}

export interface RecorderOptions {
  actor: Actor;
  command: string;
  /** The run's txn (asked at each write: an undo that finishes an interrupted one takes over its txn). */
  txn: () => string;
  /**
   * For an undo or a redo: the txns it takes back or applies again (known once the command
   * has looked); for a command that changes several lists: all of them (`lists`).
   */
  marks?: () => Pick<JournalEntry, 'undoes' | 'redoes' | 'lists'>;
  now: () => Date;
  /** A journal that cannot be written: told once per list, never fatal. */
  onError: (listDir: string, err: unknown) => void;
  /** Tasks whose change the journal keeps only in part (a value too long): undo cannot restore them. */
  onCut?: (listDir: string, ids: string[]) => void;
}

export interface Recording {
  /** Stop recording; rotate the journals this run wrote to when they are past their size. */
  stop: () => void;
  /** Append a line of this txn with no change: the end of an undo or redo. */
  mark: (listDir: string, extra: Pick<JournalEntry, 'end'>) => void;
}

/**
 * Records every write of this process in its list's journal, each as it is announced:
 * under the lock that guards it, before the file changes (write-events.ts), one line per
 * write, all with this run's txn; a write that then fails gets a line that says so.
 */
export function startRecording(opts: RecorderOptions): Recording {
  const failed = new Set<string>();
  const written = new Set<string>();
  /** Each list this run changed, with the highest id it created there and the tasks it changed (write-traces.ts). */
  const highest = new Map<string, bigint>();
  const touched = new Map<string, Set<string>>();
  // Writes recorded and not yet known to be done: a failure is told only for these.
  const announced = new Set<string>();
  const append = (listDir: string, entry: Partial<JournalEntry>) => {
    if (failed.has(listDir)) return;
    try {
      const { line, cutIds } = entryLine({
        v: 1,
        at: opts.now().toISOString(),
        actor: opts.actor,
        command: opts.command,
        txn: opts.txn(),
        ...opts.marks?.(),
        changes: [],
        ...entry,
      });
      appendLines(listDir, [line]);
      written.add(listDir);
      if (cutIds.length > 0) opts.onCut?.(listDir, cutIds);
    } catch (err) {
      failed.add(listDir);
      opts.onError(listDir, err);
    }
  };
  const unsubscribe = onWrites({
    write: (write) => {
      const change = changeOf(write);
      if (change === undefined) return;
      append(write.listDir, { changes: [change], ...(write.madeList ? { newList: true as const } : {}) });
      const top = highest.get(write.listDir) ?? 0n;
      highest.set(write.listDir, change.op === 'create' && /^\d+$/.test(change.id) && BigInt(change.id) > top ? BigInt(change.id) : top);
      const tasks = touched.get(write.listDir) ?? new Set();
      if (tasks.size < MAX_TASKS) touched.set(write.listDir, tasks.add(write.id));
      announced.add(`${write.listDir}\0${write.id}`);
    },
    failed: ({ listDir, id }) => {
      if (announced.delete(`${listDir}\0${id}`)) append(listDir, { aborted: [id] });
    },
    file: (change) => {
      append(change.listDir, { changes: [fileChangeOf(change)] });
      if (change.kind === 'aside') announced.add(`${change.listDir}\0${change.id}`);
    },
  });
  return {
    stop: () => {
      unsubscribe();
      for (const listDir of written) rotateIfLarge(listDir);
      // One trace a list, outside its folder: what a restore must know if the folder (and its journal) goes.
      const at = opts.now().getTime();
      const byRoot = new Map<string, WriteTrace[]>();
      for (const [listDir, top] of highest) {
        const root = path.dirname(listDir);
        const trace = {
          list: path.basename(listDir),
          at,
          tasks: [...(touched.get(listDir) ?? [])],
          ...(top > 0n ? { id: String(top) } : {}),
        };
        byRoot.set(root, [...(byRoot.get(root) ?? []), trace]);
      }
      for (const [root, traces] of byRoot) traceWrites(root, traces);
    },
    mark: (listDir, extra) => append(listDir, extra),
  };
}
