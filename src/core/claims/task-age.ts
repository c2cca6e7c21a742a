import fs from 'node:fs';
import { isTaskId } from '../store/ids.js';
import { taskPath } from '../store/paths.js';

/**
 * When a task was created, as its file tells: the file's birth time. An agent writes its
 * task file in place (docs/task-store.md section 3), so the file is born with the task;
 * a file system that records no birth time (birthtime 0) gives the last change instead,
 * which is later, never earlier, so a task is never taken for older than it is. (A file
 * rewritten by `tasks`, by temp file and rename, is born again then: counted as new.)
 * Undefined when the file is gone.
 */
export function taskBornAt(listDir: string, id: string): number | undefined {
  if (!isTaskId(id)) return undefined;
  const st = fs.statSync(taskPath(listDir, id), { throwIfNoEntry: false });
  if (st === undefined) return undefined;
  return st.birthtimeMs > 0 ? st.birthtimeMs : st.mtimeMs;
}

/** Pure: is a task born at `bornAt` at least `minAgeMs` old at `now`? An unknown birth is not. */
export function oldEnough(bornAt: number | undefined, now: number, minAgeMs: number): boolean {
  return bornAt !== undefined && now - bornAt >= minAgeMs;
}
