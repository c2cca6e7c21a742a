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

/** Task files are a few hundred bytes; anything far larger is not worth a TAB's wait. */
const MAX_PEEK_BYTES = 256 * 1024;

/** The ids that task files hold (`<n>.json`), in id order, from the folder listing alone. */
export function peekIds(listDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(listDir);
  } catch {
    return [];
  }
  const ids: string[] = [];
  for (const name of names) {
    const id = idFromFileName(name);
    if (id !== undefined) ids.push(id);
  }
  return ids.sort(compareIds);
}

/**
 * The readable tasks of a list, in id order. `wanted` picks ids before any file is
 * opened, so that a typed prefix (`tasks get 12<TAB>`) reads only the files it can match.
 */
export function peekTasks(listDir: string, wanted: (id: string) => boolean = () => true): TaskPeek[] {
  const tasks: TaskPeek[] = [];
  let buffer = Buffer.allocUnsafe(4096);
  for (const id of peekIds(listDir)) {
    if (!wanted(id)) continue;
    let fd: number | undefined;
    try {
      fd = fs.openSync(path.join(listDir, `${id}.json`), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      const size = fs.fstatSync(fd).size;
      if (size === 0 || size > MAX_PEEK_BYTES) continue;
      if (size > buffer.length) buffer = Buffer.allocUnsafe(size);
      const length = fs.readSync(fd, buffer, 0, size, 0);
      const value: unknown = JSON.parse(buffer.toString('utf8', 0, length));
      if (!looksLikeTask(value)) continue;
      tasks.push(value.owner === undefined ? { id, subject: value.subject, status: value.status } : { id, subject: value.subject, status: value.status, owner: value.owner });
    } catch {
      // Best effort (see above): this file is left out.
    } finally {
      if (fd !== undefined) closeQuietly(fd);
    }
  }
  return tasks;
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // nothing to do: the descriptor goes with the process
  }
}
