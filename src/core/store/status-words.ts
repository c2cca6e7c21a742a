import { TasksError } from '../base/errors.js';
import type { Status } from './schema.js';
import { STATUSES } from './task-guard.js';

/**
 * The words accepted for a status wherever one is typed or imported: the three stored
 * values, and the short forms people use (Taskwarrior's and todo lists' words). Files
 * always hold the stored values.
 */
export const STATUS_ALIASES: Readonly<Record<string, Status>> = {
  pending: 'pending',
  todo: 'pending',
  in_progress: 'in_progress',
  'in-progress': 'in_progress',
  inprogress: 'in_progress',
  active: 'in_progress',
  completed: 'completed',
  done: 'completed',
};

/** The short forms offered by completion, beside the stored values. */
export const SHORT_STATUS_WORDS: ReadonlyArray<readonly [string, Status]> = [
  ['todo', 'pending'],
  ['active', 'in_progress'],
  ['done', 'completed'],
];

export function statusFromWord(word: string): Status | undefined {
  return STATUS_ALIASES[word.trim().toLowerCase()];
}

/** A status as typed (`--status done`): its stored value, or a usage error naming the words taken. */
export function parseStatus(raw: string): Status {
  const status = statusFromWord(raw);
  if (!status) {
    throw new TasksError('usage', `invalid status "${raw}": expected one of ${STATUSES.join(', ')} (or todo, active, done)`);
  }
  return status;
}
