import { setOwn } from '../base/own-key.js';
import { sameValue } from '../base/same-value.js';
import { compareIds } from '../store/ids.js';
import type { Task } from '../store/schema.js';

/** The tasks of a list at one moment, by id. */
export type TaskSnapshot = ReadonlyMap<string, Task>;

/**
 * One field's change. A key that is absent means the field was absent on that side
 * (an optional field was added or removed), which JSON can say and `null` could not.
 */
export interface FieldChange {
  old?: unknown;
  new?: unknown;
}

export type ChangeEvent =
  | { type: 'created'; task: Task }
  | { type: 'updated'; task: Task; before: Task; changes: Record<string, FieldChange> }
  | { type: 'deleted'; task: Task }
  /** Every task vanished in one step (an agent's reset of a finished list, a removed folder). */
  | { type: 'list-cleared'; tasks: Task[] };

export function snapshotOf(tasks: readonly Task[]): Map<string, Task> {
  return new Map(tasks.map((t) => [t.id, t]));
}

/** Top-level fields that differ between two versions of a task, in the new file's key order. */
export function fieldChanges(before: Task, after: Task): Record<string, FieldChange> {
  const keys = [...new Set([...Object.keys(after), ...Object.keys(before)])];
  const changes: Record<string, FieldChange> = {};
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  for (const key of keys) {
    const had = Object.hasOwn(b, key);
    const has = Object.hasOwn(a, key);
    if (had && has && sameValue(b[key], a[key])) continue;
    const change: FieldChange = {};
    if (had) change.old = b[key];
    if (has) change.new = a[key];
    setOwn(changes, key, change);
  }
  return changes;
}

/**
 * Pure: the events that turn snapshot `before` into snapshot `after`, in id order.
 * When a list of two or more tasks loses every task at once, that is one
 * `list-cleared` event (carrying the tasks that vanished) instead of a `deleted` each:
 * it is what an agent's reset of a finished list looks like. A single task deleted
 * stays a `deleted`.
 */
export function diffSnapshots(before: TaskSnapshot, after: TaskSnapshot): ChangeEvent[] {
  if (after.size === 0 && before.size >= 2) {
    return [{ type: 'list-cleared', tasks: [...before.values()].sort((x, y) => compareIds(x.id, y.id)) }];
  }
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort(compareIds);
  const events: ChangeEvent[] = [];
  for (const id of ids) {
    const old = before.get(id);
    const now = after.get(id);
    if (old && !now) events.push({ type: 'deleted', task: old });
    else if (!old && now) events.push({ type: 'created', task: now });
    else if (old && now) {
      const changes = fieldChanges(old, now);
      if (Object.keys(changes).length > 0) events.push({ type: 'updated', task: now, before: old, changes });
    }
  }
  return events;
}
