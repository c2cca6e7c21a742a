import type { Task } from './schema.js';

/**
 * The statuses and the cheap structural check of a task, without zod: the shell
 * completion path reads task files on every TAB and must not pay for loading zod.
 * schema.ts re-exports both; its zod schema gives the same verdict, with reasons.
 */
export const STATUSES = ['pending', 'in_progress', 'completed'] as const;

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/**
 * A cheap structural check with the same verdict as TaskSchema, for the listing path
 * (zod on every file of a large list costs more than reading them). Anything it
 * rejects goes through TaskSchema for a precise reason.
 */
export function looksLikeTask(v: unknown): v is Task {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const t = v as Record<string, unknown>;
  return (
    typeof t.id === 'string' &&
    typeof t.subject === 'string' &&
    typeof t.description === 'string' &&
    (t.activeForm === undefined || typeof t.activeForm === 'string') &&
    (t.owner === undefined || typeof t.owner === 'string') &&
    (t.status === 'pending' || t.status === 'in_progress' || t.status === 'completed') &&
    isStringArray(t.blocks) &&
    isStringArray(t.blockedBy) &&
    (t.metadata === undefined ||
      (typeof t.metadata === 'object' && t.metadata !== null && !Array.isArray(t.metadata)))
  );
}
