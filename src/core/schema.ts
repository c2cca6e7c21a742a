import { z } from 'zod';

/**
 * The task file schema (spec section 3). Claude Code validates every read with the
 * same shape; a file that fails it is invisible to agents, so we must never write one.
 * Unknown top-level keys pass through so that a rewrite keeps them.
 */
export const STATUSES = ['pending', 'in_progress', 'completed'] as const;
export const StatusSchema = z.enum(STATUSES);
export type Status = z.infer<typeof StatusSchema>;

export const TaskSchema = z
  .object({
    id: z.string(),
    subject: z.string(),
    description: z.string(),
    activeForm: z.string().optional(),
    owner: z.string().optional(),
    status: StatusSchema,
    blocks: z.array(z.string()),
    blockedBy: z.array(z.string()),
    metadata: z.record(z.unknown()).optional(),
  })
  .passthrough();

export type Task = z.infer<typeof TaskSchema>;

/** Claude Code's key order: files it writes follow it, and so do ours. */
export const KNOWN_KEYS = [
  'id',
  'subject',
  'description',
  'activeForm',
  'owner',
  'status',
  'blocks',
  'blockedBy',
  'metadata',
] as const;

const KNOWN = new Set<string>(KNOWN_KEYS);
export function isKnownKey(key: string): boolean {
  return KNOWN.has(key);
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
    (t.metadata === undefined ||
      (typeof t.metadata === 'object' && t.metadata !== null && !Array.isArray(t.metadata)))
  );
}

/** Parse an already-JSON-decoded value; returns the task or a one-line reason. */
export function validateTask(value: unknown): { ok: true; task: Task } | { ok: false; reason: string } {
  if (looksLikeTask(value)) return { ok: true, task: value };
  const result = TaskSchema.safeParse(value);
  if (result.success) return { ok: true, task: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { ok: false, reason: `${where}${issue?.message ?? 'invalid task'}` };
}

/** A task is hidden from agents' TaskList when metadata._internal is truthy. */
export function isInternal(task: Task): boolean {
  return Boolean(task.metadata?._internal);
}
