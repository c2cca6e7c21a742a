import fs from 'node:fs';
import path from 'node:path';
import { isTaskId } from './ids.js';

/**
 * When each task's file last changed (ms since the epoch): what "updated" means for a
 * task, since the file format has no timestamp of its own. One stat a task, so only for
 * the tasks a view shows or sorts; a file gone meanwhile is left out.
 */
export function taskFileTimes(listDir: string, ids: readonly string[]): Map<string, number> {
  const times = new Map<string, number>();
  for (const id of ids) {
    if (!isTaskId(id)) continue;
    try {
      times.set(id, fs.statSync(path.join(listDir, `${id}.json`)).mtimeMs);
    } catch {
      // deleted between the read and now
    }
  }
  return times;
}
