import fs from 'node:fs';
import { errnoCode, TasksError } from '../base/errors.js';
import { brokenLink } from './broken-link.js';
import { listNotAFolder } from './not-a-folder.js';

/**
 * The error for a task whose file is not there. When something other than a folder sits
 * at the list's path (a file, a FIFO), every task of it is "missing"; what to say is what
 * `list` says of that path (no list folder there), not that one task is not found. So too
 * for a path that cannot be followed (links that loop): `list` cannot read it (exit 1).
 */
export function missingTask(listDir: string, id: string): TasksError {
  return listFolderProblem(listDir) ?? new TasksError('not_found', `task #${id} not found`, { details: { id } });
}

/** What `list` would say of the list's path, when something is at it that is not a folder that can be read; undefined when it is one, or nothing is there. */
export function listFolderProblem(listDir: string): TasksError | undefined {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(listDir, { throwIfNoEntry: false });
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOTDIR') return listNotAFolder(listDir);
    // A link loop: what list says of it. A folder above that cannot be searched: as missing as before.
    if (code === 'ELOOP') return new TasksError('io', `list folder ${listDir} is ${brokenLink(listDir) ?? 'a symbolic link loop'}`);
    return undefined;
  }
  if (stat === undefined) {
    // A symbolic link to nothing in the list's place: no list folder, and what is there instead, as `list` says.
    const broken = brokenLink(listDir);
    return broken === undefined ? undefined : new TasksError('not_found', `list folder ${listDir} is ${broken}`);
  }
  return stat.isDirectory() ? undefined : listNotAFolder(listDir);
}
