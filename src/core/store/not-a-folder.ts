import { TasksError } from '../base/errors.js';

/**
 * Something other than a folder in a list's place (a file, a FIFO, a link to a file): no
 * list is there, for agents or for tasks. Not found (exit 3), as a file in tasks/'s own
 * place and a link to nothing there are; the same for a read and a write, whichever call
 * meets it first. Its own class, so that a reader that takes "not found" as "not there
 * (yet)" (watch, lists) can tell that something is there that it cannot read.
 */
class ListNotAFolder extends TasksError {}

export function listNotAFolder(listDir: string): TasksError {
  return new ListNotAFolder('not_found', `${listDir} is not a folder`, {
    hint: 'move it away: agents cannot use this list either',
    details: { path: listDir },
  });
}

export function isListNotAFolder(err: unknown): boolean {
  return err instanceof ListNotAFolder;
}

/** Not found as "nothing there": a task or list removed, never something in a list's place that is no folder. */
export function isMissing(err: unknown): err is TasksError {
  return err instanceof TasksError && err.code === 'not_found' && !(err instanceof ListNotAFolder);
}
