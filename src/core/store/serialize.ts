import { setOwn } from '../base/own-key.js';
import { isKnownKey, KNOWN_KEYS, type Task } from './schema.js';

/**
 * Byte-compatible with Claude Code: `JSON.stringify(task, null, 2)`, no trailing newline.
 * Key order is the caller's: Claude Code re-parses a file into schema order, then spreads
 * a change over it, so keys a change adds land after the existing ones
 * (see mergeInClaudeOrder). Unknown keys, which it would drop, we keep after them.
 */
export function serializeTask(task: Task): string {
  return JSON.stringify(task, null, 2);
}

/** Known keys in schema order, then everything else in its current order. */
export function orderKeys(task: Task): Task {
  const out: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS) {
    if (task[key] !== undefined) setOwn(out, key, task[key]);
  }
  for (const [key, value] of Object.entries(task)) {
    if (!isKnownKey(key) && value !== undefined) setOwn(out, key, value);
  }
  return out as Task;
}

/**
 * What Claude Code writes for an update: `{...parsed(old), ...changes, id}` where parsing
 * puts old's keys in schema order. Keys new to the task follow in the change's order;
 * unknown keys of the old file are kept at the end. Undefined values mean "remove".
 */
export function mergeInClaudeOrder(old: Task, changes: Partial<Task>): Task {
  const base = orderKeys(old);
  const known: Record<string, unknown> = {};
  const unknown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) {
    setOwn(isKnownKey(key) ? known : unknown, key, value);
  }
  for (const [key, value] of Object.entries(changes)) {
    if (key === 'id') continue;
    setOwn(isKnownKey(key) ? known : unknown, key, value);
  }
  const merged: Record<string, unknown> = { ...known, id: old.id, ...unknown };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return merged as Task;
}
