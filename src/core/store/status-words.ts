import type { Status } from './schema.js';

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
