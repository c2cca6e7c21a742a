import fs from 'node:fs';
import { TasksError, errnoCode } from '../base/errors.js';

/**
 * Read a file given as input (import). Every way it can fail is a bad input file:
 * exit 2 with one line naming it, before anything else happens.
 */
export function readInputFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = errnoCode(err);
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a folder'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : (err as Error).message;
    throw new TasksError('usage', `cannot read ${file}: ${why}`, { details: { file } });
  }
}
