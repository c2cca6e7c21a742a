import fs from 'node:fs';
import { TasksError } from '../base/errors.js';

/**
 * The error for a task whose file is not there. When something other than a folder sits
 * at the list's path (a file, a FIFO), every task of it is "missing"; what to say is what
 * `list` says of that path, not that one task is not found (exit 1, not 3).
 */
export function missingTask(listDir: string, id: string): TasksError {
  if (notAFolder(listDir)) return new TasksError('corrupt', `${listDir} is not a folder`);
  return new TasksError('not_found', `task #${id} not found`, { details: { id } });
}

/** Something is at the path, and it is not a folder (links followed). */
function notAFolder(listDir: string): boolean {
  try {
    const stat = fs.statSync(listDir, { throwIfNoEntry: false });
    return stat !== undefined && !stat.isDirectory();
  } catch {
    return false; // a link loop, a folder above it unreadable: as missing as before
  }
}
