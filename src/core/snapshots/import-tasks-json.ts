import { TasksError } from '../base/errors.js';
import { holdsOnlyFiniteNumbers, TOO_LARGE_FOR_JSON } from '../base/finite-json.js';
import { compareIds } from '../store/ids.js';
import { isKnownKey, type Task, validateTask } from '../store/schema.js';
import type { Snapshot, SnapshotItem } from './import-snapshot.js';
import { isObject } from './import-todowrite.js';

/** Does this JSON value look like a task file (for detection; no validation)? */
/** The key `tasks --json` adds to every task: the change time of its file. */
const OUTPUT_ONLY_KEY = 'updatedAt';

export function looksLikeTask(value: unknown): boolean {
  return isObject(value) && 'subject' in value && ('blockedBy' in value || 'blocks' in value || 'id' in value);
}

/**
 * Tasks as `tasks list --json` prints them (or `get --json`, or `export --format jsonl`),
 * from another list. Their ids are their refs, which the import keeps where they are free
 * (import-apply.ts). An edge is
 * kept when both ends are in the import (from either side: `blocks` or `blockedBy`);
 * one to a task left out is dropped with a warning.
 * `where(i)` names the i-th value (from 0) in errors: `item 3` (the third) or `line 3`.
 */
export function snapshotFromTasks(values: readonly unknown[], where: (i: number) => string, found: string): Snapshot {
  const tasks: Task[] = [];
  const seen = new Map<string, number>();
  values.forEach((value, i) => {
    const result = validateTask(value);
    if (!result.ok) throw new TasksError('usage', `${where(i)}: not a task: ${result.reason}`);
    // `create ""` is refused, and agents cannot make a task without a subject either.
    if (result.task.subject.trim() === '') throw new TasksError('usage', `${where(i)}: subject: must not be empty`);
    // `"n": 1e999` parses as Infinity and would be written as null: not the value the file holds.
    const infinite = Object.entries(result.task).find(([, v]) => !holdsOnlyFiniteNumbers(v));
    if (infinite) throw new TasksError('usage', `${where(i)}: ${infinite[0]}: ${TOO_LARGE_FOR_JSON}`);
    const id = result.task.id;
    const earlier = seen.get(id);
    if (earlier !== undefined) throw new TasksError('usage', `${where(i)}: task id "${id}" appears twice (also ${where(earlier)})`);
    seen.set(id, i);
    tasks.push(result.task);
  });
  const warnings: string[] = [];
  const blockedBy = new Map<string, Set<string>>(tasks.map((t) => [t.id, new Set<string>()]));
  const edge = (blocker: string, blocked: string, from: string) => {
    if (!seen.has(blocker) || !seen.has(blocked)) {
      const outside = seen.has(blocker) ? blocked : blocker;
      warnings.push(`#${from} names #${outside} in its ${from === blocker ? 'blocks' : 'blockedBy'}, which is not in the import: dropped`);
      return;
    }
    if (blocker === blocked) {
      warnings.push(`#${blocker} blocks itself: dropped`);
      return;
    }
    blockedBy.get(blocked)?.add(blocker);
  };
  for (const t of tasks) {
    for (const b of t.blockedBy) edge(b, t.id, t.id);
    for (const b of t.blocks) edge(t.id, b, t.id);
  }
  const items = tasks.map((t): SnapshotItem => {
    const item: SnapshotItem = {
      ref: t.id,
      subject: t.subject,
      description: t.description,
      status: t.status,
      blockedBy: [...(blockedBy.get(t.id) ?? [])].sort(compareIds),
    };
    if (t.activeForm !== undefined) item.activeForm = t.activeForm;
    if (t.owner !== undefined) item.owner = t.owner;
    const metadata = withoutCarryMarks(t.metadata);
    if (metadata !== undefined) item.metadata = metadata;
    // `updatedAt` is what tasks' JSON output adds (the file's change time), not a task's own key.
    const extra = Object.fromEntries(Object.entries(t).filter(([k]) => !isKnownKey(k) && k !== OUTPUT_ONLY_KEY));
    if (Object.keys(extra).length > 0) item.extra = extra;
    return item;
  });
  return { format: 'tasks', found, items, refsAreIds: true, warnings: [...new Set(warnings)] };
}

/**
 * A task's metadata without the marks of `tasks carry` (`carriedTo`, `carriedFrom`): they
 * tie a task to where it stood, and an imported task is new work in its new list (a mark
 * kept would make a carry pass it over as carried). Undefined when the marks were all.
 */
function withoutCarryMarks(metadata: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  const { carriedTo, carriedFrom, ...rest } = metadata;
  if (carriedTo === undefined && carriedFrom === undefined) return metadata;
  return Object.keys(rest).length === 0 ? undefined : rest;
}
