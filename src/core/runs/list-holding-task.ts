import fs from 'node:fs';
import path from 'node:path';
import { tasksRoot } from '../store/paths.js';
import { readTaskFile } from '../store/task-file.js';

/** How recent a task file must be to be the one a run just created. */
const JUST_WRITTEN_MS = 60_000;

/**
 * The list a run's TaskCreate just wrote to, when it is not the one followed: the list
 * folder whose `<id>.json` has that subject and was written within the last minute (the
 * newest, if several). Undefined when none is. Reads one file name per list.
 */
export function listHoldingTask(configDir: string, id: string, subject: string | undefined, now: number): string | undefined {
  let best: { list: string; at: number } | undefined;
  let lists: string[];
  try {
    lists = fs.readdirSync(tasksRoot(configDir)).filter((n) => /^[a-zA-Z0-9_-]+$/.test(n));
  } catch {
    return undefined;
  }
  for (const list of lists) {
    const file = path.join(tasksRoot(configDir), list, `${id}.json`);
    const at = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (at === undefined || now - at > JUST_WRITTEN_MS) continue;
    const read = readTaskFile(file);
    if (read.kind !== 'ok' || (subject !== undefined && read.task.subject !== subject)) continue;
    if (best === undefined || at > best.at) best = { list, at };
  }
  return best?.list;
}
