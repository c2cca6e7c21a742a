/**
 * The statuses and the cheap structural check of a task, without zod: the shell
 * completion path reads task files on every TAB and must not pay for loading zod.
 * schema.ts re-exports both; its zod schema gives the same verdict, with reasons.
 */
export const STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type Status = (typeof STATUSES)[number];

/**
 * A task file (docs/task-store.md section 3), written out by hand so that this file needs
 * nothing from schema.ts; schema.ts checks at compile time that its zod schema infers
 * exactly this shape. Unknown top-level keys are kept, so that a rewrite does not drop
 * them.
 */
export interface Task {
  id: string;
  subject: string;
  description: string;
  activeForm?: string | undefined;
  owner?: string | undefined;
  status: Status;
  blocks: string[];
  blockedBy: string[];
  metadata?: Record<string, unknown> | undefined;
  [key: string]: unknown;
}

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
    (t.metadata === undefined || (typeof t.metadata === 'object' && t.metadata !== null && !Array.isArray(t.metadata)))
  );
}
