import fs from 'node:fs';
import { errnoCode, TasksError } from '../base/errors.js';
import { makeDirs } from '../base/make-dirs.js';
import { brokenLink } from './broken-link.js';
import { listNotAFolder } from './not-a-folder.js';

/** Errors that say the folder named is wrong, not that the machine is failing. */
const WRONG_PLACE: Record<string, string> = {
  EEXIST: 'it, or a folder above it, is a file',
  ENOTDIR: 'it, or a folder above it, is a file',
  ENOENT: 'folders cannot be made there',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENAMETOOLONG: 'the path is too long',
};

/**
 * Make a list folder (and its parents) for a first create. Something other than a folder
 * in the list's own place is no list (not found, as a read says). A config folder where
 * it cannot be made (a file in the way above it, /proc, no permission) is a usage error
 * naming it: the folder given is wrong. Only a failing disk (ENOSPC, EIO) is an I/O error. A
 * symlinked list folder is followed, as agents follow it. Returns whether this call made
 * the list folder (a new list).
 */
export function ensureListDir(listDir: string): boolean {
  try {
    return makeDirs(listDir);
  } catch (err) {
    const code = errnoCode(err) ?? '';
    // mkdir on a symbolic link to nothing meets EEXIST: the link is what is in the way, not a file.
    const broken = code === 'EEXIST' ? brokenLink(listDir) : undefined;
    // Something other than a folder in the list's own place: no list there, as a read says.
    if (broken === undefined && (code === 'EEXIST' || code === 'ENOTDIR') && notAFolderAt(listDir)) throw listNotAFolder(listDir);
    const why = broken !== undefined ? `it is ${broken}` : WRONG_PLACE[code];
    if (why !== undefined) {
      throw new TasksError('usage', `cannot create the list folder ${listDir}: ${why}`, {
        hint: 'check --config-dir or CLAUDE_CONFIG_DIR',
        details: { path: listDir, errno: code },
      });
    }
    throw new TasksError('io', `cannot create ${listDir}: ${(err as Error).message}`, { cause: err });
  }
}

/** Something is at the path (followed, as mkdir follows it) and it is not a folder. */
function notAFolderAt(p: string): boolean {
  try {
    return !fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
