import fs from 'node:fs';
import { TasksError, errnoCode } from '../base/errors.js';

/**
 * Make a list folder (and its parents) for a first create. A file where a folder should
 * be (the list, `tasks/`, or the config folder) is named plainly instead of surfacing
 * as an errno. A symlinked list folder is followed, as agents follow it.
 */
export function ensureListDir(listDir: string): void {
  try {
    fs.mkdirSync(listDir, { recursive: true });
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new TasksError('corrupt', `cannot use ${listDir} as a list folder: it, or a folder above it, is a file`, {
        details: { path: listDir },
      });
    }
    throw new TasksError('io', `cannot create ${listDir}: ${(err as Error).message}`, { cause: err });
  }
}
