import { TasksError } from '../base/errors.js';
import { sameValue } from '../base/same-value.js';
import { withOwnFileLock } from '../locks/locks.js';
import type { Task } from '../store/schema.js';
import { orderKeys } from '../store/serialize.js';
import { removeEmptyList } from '../writes/list-removal.js';
import { deleteTask, restoreTask, rewriteTask } from '../writes/task-writes.js';
import { holdsCut, type JournalChange, type JournalEntry, journalPath, readJournal } from './journal.js';

/**
 * `tasks undo`: take back the last change `tasks` made in a list (the journal's last
 * txn), only where the tasks still hold what that change wrote. The plan is a pure
 * function of the change and the tasks as they are; each step is then applied under the
 * agents' locks, re-checked against the file as it is then. An undo is a change like any
 * other: it goes in the journal, so a second undo takes it back (a redo).
 */
export type UndoStep =
  | { kind: 'revert'; id: string; fields: Record<string, { from: unknown; to: unknown }> }
  | { kind: 'delete'; id: string; task: Task }
  | { kind: 'restore'; id: string; task: Task };

export interface UndoPlan {
  txn: string;
  command: string;
  actor: JournalEntry['actor'];
  at: string;
  steps: UndoStep[];
  /** The change made the list folder: once undone, the list goes too if nothing else is in it. */
  newList: boolean;
}

const ABSENT = Symbol('absent');
const fieldOf = (task: Task | undefined, key: string): unknown => (task !== undefined && Object.hasOwn(task, key) ? task[key] : ABSENT);
const show = (v: unknown) => (v === ABSENT ? '(none)' : JSON.stringify(v));
/** Equal values, or both absent: an absent field is not the same as any value. */
const same = (a: unknown, b: unknown) => (a === ABSENT || b === ABSENT ? a === b : sameValue(a, b));

/** The last txn's entries; undefined when the journal records no change. */
export function lastChange(entries: readonly JournalEntry[]): JournalEntry[] | undefined {
  const last = entries.at(-1);
  return last === undefined ? undefined : entries.filter((e) => e.txn === last.txn);
}

/** Steps that take `entries` back from `current`, last change first; conflict when a task has moved on. */
function planUndo(entries: readonly JournalEntry[], current: (id: string) => Task | undefined): UndoPlan {
  const first = entries[0] as JournalEntry;
  const changes: JournalChange[] = entries.flatMap((e) => e.changes);
  const moved: string[] = [];
  const steps: UndoStep[] = [];
  // Later changes to a task are checked against the file; earlier ones against what the later ones restore.
  const expected = new Map<string, Task | undefined>();
  const now = (id: string) => (expected.has(id) ? expected.get(id) : current(id));
  for (const change of [...changes].reverse()) {
    if (holdsCut(change)) {
      throw new TasksError('conflict', `cannot undo: the journal keeps only part of a long value of task #${change.id}`, {
        details: { id: change.id },
      });
    }
    const task = now(change.id);
    if (change.op === 'update') {
      if (task === undefined) {
        moved.push(`#${change.id} was deleted since`);
        continue;
      }
      const fields: Record<string, { from: unknown; to: unknown }> = {};
      for (const [key, f] of Object.entries(change.fields)) {
        const wrote = 'new' in f ? f.new : ABSENT;
        const is = fieldOf(task, key);
        if (!same(is, wrote)) {
          moved.push(`#${change.id} ${key} is ${show(is)} now (the change set ${show(wrote)})`);
          continue;
        }
        fields[key] = { from: is, to: 'old' in f ? f.old : ABSENT };
      }
      steps.push({ kind: 'revert', id: change.id, fields });
      const restored: Task = { ...task };
      for (const [key, { to }] of Object.entries(fields)) {
        if (to === ABSENT) delete restored[key];
        else restored[key] = to;
      }
      expected.set(change.id, restored);
    } else if (change.op === 'create') {
      if (task === undefined) moved.push(`#${change.id} was deleted since`);
      else if (!sameValue(task, change.task)) moved.push(`#${change.id} was changed since it was created`);
      else steps.push({ kind: 'delete', id: change.id, task });
      expected.set(change.id, undefined);
    } else {
      if (task !== undefined) moved.push(`#${change.id} exists again`);
      else steps.push({ kind: 'restore', id: change.id, task: change.task });
      expected.set(change.id, change.task);
    }
  }
  if (moved.length > 0) {
    throw new TasksError('conflict', `cannot undo ${first.command} by ${first.actor.name}: ${moved.join('; ')}`, {
      hint: 'tasks log shows what changed since',
      details: { txn: first.txn, changed: moved },
    });
  }
  return {
    txn: first.txn,
    command: first.command,
    actor: first.actor,
    at: first.at,
    steps,
    newList: entries.some((e) => e.newList === true),
  };
}

/** Read the journal and plan; not_found when nothing is recorded. */
export function planLastUndo(listDir: string, current: (id: string) => Task | undefined): UndoPlan {
  const journal = readJournal(listDir);
  // A damaged line after the last good one may be the last change: taking back the one
  // before it instead would undo the wrong thing.
  const after = journal.damaged.filter((d) => d.line > journal.lastEntryLine);
  if (after.length > 0) {
    throw new TasksError(
      'conflict',
      `cannot undo: the journal's last line${after.length === 1 ? ' is' : 's are'} damaged (line ${after.map((d) => d.line).join(', ')}: ${after[0]!.reason}), so its last change is not known`,
      {
        hint: 'tasks log shows what is recorded',
      },
    );
  }
  const entries = lastChange(journal.entries);
  if (entries === undefined) {
    throw new TasksError('not_found', 'nothing to undo: no change made with tasks is recorded in this list', {
      hint: 'tasks log shows its history',
    });
  }
  return planUndo(entries, current);
}

/**
 * Apply a plan, each step re-checked under its lock (conflict if a task moved meanwhile).
 * Undoing the change that made the list takes the list folder back too when nothing else
 * is left in it; returns whether it did.
 */
export async function applyUndo(listDir: string, plan: UndoPlan): Promise<{ removedList: boolean }> {
  // Deleting one task of a batch cleans its id out of the others: not a change by anyone else.
  const deleting = new Set(plan.steps.filter((s) => s.kind === 'delete').map((s) => s.id));
  const withoutDeleted = (t: Task): Task => ({
    ...t,
    blocks: t.blocks.filter((id) => !deleting.has(id)),
    blockedBy: t.blockedBy.filter((id) => !deleting.has(id)),
  });
  for (const step of plan.steps) {
    if (step.kind === 'revert') {
      await rewriteTask(listDir, step.id, (t) => {
        const next: Task = { ...t };
        for (const [key, { from, to }] of Object.entries(step.fields)) {
          // Already back (an earlier step's clean-up, such as a delete's, did it): nothing to do.
          if (same(fieldOf(t, key), to)) continue;
          if (!same(fieldOf(t, key), from)) {
            throw new TasksError('conflict', `cannot undo: #${step.id} ${key} changed meanwhile`, { details: { id: step.id } });
          }
          if (to === ABSENT) delete next[key];
          else next[key] = to;
        }
        return orderKeys(next);
      });
    } else if (step.kind === 'delete') {
      await deleteTask(listDir, step.id, (t) => {
        if (!sameValue(withoutDeleted(t), withoutDeleted(step.task)))
          throw new TasksError('conflict', `cannot undo: #${step.id} changed meanwhile`, { details: { id: step.id } });
      });
    } else {
      await restoreTask(listDir, step.task);
    }
  }
  return { removedList: plan.newList ? await removeEmptyList(listDir) : false };
}

export interface UndoRun {
  plan: UndoPlan;
  /** The change made the list, and undoing it took the list folder back. */
  removedList: boolean;
}

/**
 * `tasks undo [--dry-run]`: plan from the journal and the tasks as they are, then (not
 * for a dry run) apply under a lock of our own on the journal, so that two undos take
 * turns and the second sees the first's record (`recorded` appends it, inside the lock).
 * Planned first without any lock: a dry run, nothing to undo, a damaged last line or a
 * task that moved on leaves the list exactly as it was (no journal file made, no lock).
 */
export async function undoLast(
  listDir: string,
  opts: { dryRun: boolean; current: (id: string) => Task | undefined; applying?: (plan: UndoPlan) => void; recorded?: () => void },
): Promise<UndoRun> {
  const seen = planLastUndo(listDir, opts.current);
  if (opts.dryRun) return { plan: seen, removedList: false };
  return withOwnFileLock(journalPath(listDir), 'the journal', async () => {
    const plan = planLastUndo(listDir, opts.current);
    opts.applying?.(plan);
    const { removedList } = await applyUndo(listDir, plan);
    opts.recorded?.();
    return { plan, removedList };
  });
}

/** A step's value for a person or a JSON reader: an absent field is null. */
export function shownValue(v: unknown): unknown {
  return v === ABSENT ? null : v;
}
