import fs from 'node:fs';
import { minOf } from '../base/many-items.js';
import type { TaskWrite } from '../sessions/transcript-tasks.js';

/**
 * Whether a binding read now (`tasks use`: settings that name the list for sessions
 * started in a directory) was the one a session of the past ran under. No file keeps
 * what a settings file said before: a binding counts for a session when its file was
 * last written before the session's first Task-tool write, or when the session did not
 * start a list of its own (its first write was not the TaskCreate of #1, so it wrote
 * into a list that was there before it, which the binding may well name). A session that
 * started at #1 under a binding written since may have been on its own list (a later
 * `tasks use`): the binding does not tie it.
 */
export function bindingCounts(settingsFile: string, writes: readonly TaskWrite[]): boolean {
  return !startsItsOwnList(writes) || writtenBefore(settingsFile, writes);
}

/** Whether a session's first Task-tool write is the TaskCreate of #1, as on a list of its own (which starts empty). */
export function startsItsOwnList(writes: readonly TaskWrite[]): boolean {
  const first = [...writes].sort((a, b) => a.at - b.at)[0];
  return first === undefined || (first.created && first.id === '1');
}

function writtenBefore(file: string, writes: readonly TaskWrite[]): boolean {
  const first = minOf(writes.map((w) => w.at));
  if (!Number.isFinite(first)) return true;
  try {
    return fs.statSync(file).mtimeMs <= first;
  } catch {
    return true;
  }
}
