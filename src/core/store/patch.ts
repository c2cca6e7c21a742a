import { sameValue } from '../base/same-value.js';
import type { Status, Task } from './schema.js';
import { mergeInClaudeOrder, orderKeys } from './serialize.js';

/**
 * A change to one task, with the agents' TaskUpdate semantics
 * (docs/task-store.md section 6.2): fields replace, `metadata` merges key by key (null
 * removes a key), `owner: null` unassigns, `activeForm: null` removes it. Edges are
 * added, never removed here.
 */
export interface TaskPatch {
  subject?: string;
  description?: string;
  activeForm?: string | null;
  status?: Status;
  owner?: string | null;
  metadata?: Record<string, unknown>;
  addBlocks?: readonly string[];
  addBlockedBy?: readonly string[];
}

export interface PatchResult {
  task: Task;
  /** Field names whose value changed, in file order. */
  changed: string[];
}

function addUnique(list: readonly string[], ids: readonly string[] | undefined): string[] {
  const out = [...list];
  for (const id of ids ?? []) if (!out.includes(id)) out.push(id);
  return out;
}

/**
 * Pure: the task after `patch`, and what changed.
 *
 * Byte-for-byte what TaskUpdate writes (checked against Claude Code 2.1.328): the file is
 * re-parsed into schema order, the field changes are spread over it in the order
 * subject, description, activeForm, owner, metadata, status (keys new to the task land
 * at the end), and edge additions are a second write, which re-parses into schema order.
 */
export function applyPatch(old: Task, patch: TaskPatch): PatchResult {
  const changes: Record<string, unknown> = {};
  if (patch.subject !== undefined) changes.subject = patch.subject;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.activeForm !== undefined) changes.activeForm = patch.activeForm ?? undefined;
  if (patch.owner !== undefined) changes.owner = patch.owner ?? undefined;
  if (patch.metadata !== undefined) {
    // As TaskUpdate: merge key by key, null removes; removing from nothing leaves `{}`.
    const merged: Record<string, unknown> = { ...(old.metadata ?? {}), ...patch.metadata };
    for (const [key, value] of Object.entries(patch.metadata)) if (value === null) delete merged[key];
    changes.metadata = merged;
  }
  if (patch.status !== undefined) changes.status = patch.status;
  let task = mergeInClaudeOrder(old, changes as Partial<Task>);
  const blocks = addUnique(task.blocks, patch.addBlocks);
  const blockedBy = addUnique(task.blockedBy, patch.addBlockedBy);
  if (blocks.length !== task.blocks.length || blockedBy.length !== task.blockedBy.length) {
    task = orderKeys({ ...task, blocks, blockedBy });
  }
  return { task, changed: changedKeys(old, task) };
}

/** The order TaskUpdate reports its updatedFields in ("Updated task #1 owner, status"). */
const REPORT_ORDER = ['subject', 'description', 'activeForm', 'owner', 'metadata', 'status', 'blocks', 'blockedBy'];

/** Field names whose value differs between two versions of a task, in TaskUpdate's report order. */
export function changedKeys(before: Task, after: Task): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const rank = (k: string) => (REPORT_ORDER.includes(k) ? REPORT_ORDER.indexOf(k) : REPORT_ORDER.length);
  return Object.keys({ ...a, ...b })
    .filter((key) => !sameValue(a[key], b[key]))
    .sort((x, y) => rank(x) - rank(y));
}
