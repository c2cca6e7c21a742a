import { TasksError } from '../base/errors.js';

/** Task ids are decimal strings of positive integers, as Claude Code writes them. */
const ID = /^[1-9][0-9]{0,15}$/;

export function isTaskId(value: string): boolean {
  return ID.test(value);
}

/** Accepts `4` and `#4` (how agents print ids); anything else is a usage error. */
export function parseTaskId(raw: string): string {
  const value = raw.trim().replace(/^#/, '');
  if (!isTaskId(value)) {
    throw new TasksError('usage', `invalid task id "${raw}": expected a positive number like 4`);
  }
  return value;
}

/** Numeric order: "10" after "9". */
export function compareIds(a: string, b: string): number {
  return Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Spec section 4: next id = max(highest file id, high-water mark) + 1. */
export function nextTaskId(fileIds: readonly string[], highWaterMark: number): string {
  let max = Number.isFinite(highWaterMark) && highWaterMark > 0 ? Math.floor(highWaterMark) : 0;
  for (const id of fileIds) {
    const n = Number(id);
    if (n > max) max = n;
  }
  return String(max + 1);
}

export function parseHighWaterMark(text: string): number {
  const n = Number.parseInt(text.trim(), 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}
