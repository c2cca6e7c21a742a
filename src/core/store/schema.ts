import type { z } from 'zod';
import { lazySchemas } from '../base/zod.js';
import { STATUSES, looksLikeTask } from './task-guard.js';

export { STATUSES, looksLikeTask } from './task-guard.js';

/**
 * The task file schema (spec section 3). Claude Code validates every read with the
 * same shape; a file that fails it is invisible to agents, so we must never write one.
 * Unknown top-level keys pass through so that a rewrite keeps them.
 */
export const taskSchemas = lazySchemas((z) => {
  const StatusSchema = z.enum(STATUSES);
  const TaskSchema = z
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
  return { StatusSchema, TaskSchema };
});

export type Status = (typeof STATUSES)[number];
export type Task = z.infer<ReturnType<typeof taskSchemas>['TaskSchema']>;

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

/** Parse an already-JSON-decoded value; returns the task or a one-line reason. */
export function validateTask(value: unknown): { ok: true; task: Task } | { ok: false; reason: string } {
  if (looksLikeTask(value)) return { ok: true, task: value };
  const result = taskSchemas().TaskSchema.safeParse(value);
  if (result.success) return { ok: true, task: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { ok: false, reason: `${where}${issue?.message ?? 'invalid task'}` };
}

/** A task is hidden from agents' TaskList when metadata._internal is truthy. */
export function isInternal(task: Task): boolean {
  return Boolean(task.metadata?._internal);
}
