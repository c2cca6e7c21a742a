import fs from 'node:fs';
import path from 'node:path';
import { compareIds } from './ids.js';
import { idFromFileName } from './paths.js';
import type { Status } from './schema.js';
import { looksLikeTask } from './task-guard.js';

/**
 * A quick look at a list for shell completion, which runs on every TAB: no locks, no
 * retries, no zod. Best effort by contract: a file that is missing, half-written,
 * invalid, a symbolic link or too large is left out, and a folder that cannot be read
 * is an empty list. Nothing here throws.
 */

/** What completion shows of a task. */
export interface TaskPeek {
  id: string;
  subject: string;
  status: Status;
  owner?: string;
}

/** Made once: readFileSync copies a string option into a new object on every call. */
const UTF8 = { encoding: 'utf8', flag: 'r' } as const;

/** Task files are a few hundred bytes; anything far larger is not worth parsing on a TAB. */
const MAX_PEEK_CHARS = 256 * 1024;

/**
 * The ids that task files hold (`<n>.json`), from the folder listing alone, unsorted.
 * Only regular files: a symbolic link named like a task is not read as one (as by every
 * read of a task file), and the listing tells so without a call per file.
 */
function listedIds(listDir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(listDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const ids: string[] = [];
  for (const entry of entries) {
    const id = idFromFileName(entry.name);
    if (id !== undefined && entry.isFile()) ids.push(id);
  }
  return ids;
}

/** How many task files a list holds, from the names alone (0 when it cannot be read). */
export function countTaskFiles(listDir: string): number {
  try {
    return fs.readdirSync(listDir).filter((name) => idFromFileName(name) !== undefined).length;
  } catch {
    return 0;
  }
}

/**
 * The readable tasks of a list, in id order. `wanted` picks ids before any file is
 * opened, so that a typed prefix (`tasks get 12<TAB>`) reads only the files it can match.
 */
export function peekTasks(listDir: string, wanted: (id: string) => boolean = () => true): TaskPeek[] {
  const tasks: TaskPeek[] = [];
  // Joined by hand: path.join normalizes on every call, a third of the time on 1,000 files.
  const prefix = listDir.endsWith(path.sep) ? listDir : listDir + path.sep;
  // Picked before sorting: a typed prefix leaves a few ids of many.
  for (const id of listedIds(listDir).filter(wanted).sort(compareIds)) {
    try {
      // One call that opens, reads and closes (Node's fast path for UTF-8): about half the
      // time of open/fstat/read/close from JavaScript, on a 1,000-task list.
      const text = fs.readFileSync(`${prefix}${id}.json`, UTF8);
      if (text.length === 0 || text.length > MAX_PEEK_CHARS) continue;
      const value: unknown = JSON.parse(text);
      if (!looksLikeTask(value)) continue;
      tasks.push(
        value.owner === undefined
          ? { id, subject: value.subject, status: value.status }
          : { id, subject: value.subject, status: value.status, owner: value.owner },
      );
    } catch {
      // Best effort (see above): this file is left out.
    }
  }
  return tasks;
}
