/**
 * The store: Claude Code's on-disk task format and every lock-free read of it
 * (docs/task-store.md sections 1-4): where a list lives (paths.ts), the task file schema
 * (this file and task-guard.ts), serialization, id rules and the high-water mark
 * (ids.ts), reading one file safely against torn writes (task-file.ts), reading and
 * scanning a whole list, and TaskUpdate's merge as a pure function (patch.ts). Nothing
 * here takes a lock or writes a task; writes/ does, through locks/.
 */
import type { z } from 'zod';
import { lazySchemas } from '../base/zod.js';
import { looksLikeTask, STATUSES, type Task } from './task-guard.js';

export { STATUSES, type Status, type Task } from './task-guard.js';

/**
 * The task file schema (docs/task-store.md section 3). Claude Code validates every read
 * with the same shape; a file that fails it is invisible to agents, so we must never
 * write one. Unknown top-level keys pass through so that a rewrite keeps them.
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

/** What the zod schema infers must be task-guard.ts's `Task`, both ways: one shape, two checks. */
type Inferred = z.infer<ReturnType<typeof taskSchemas>['TaskSchema']>;
type Holds<T extends true> = T;
/**
 * The check itself, for the compiler alone: exported so that it is not unused.
 * @public
 */
export type SchemaMatchesTask = Holds<[Inferred] extends [Task] ? ([Task] extends [Inferred] ? true : false) : false>;

/** Claude Code's key order: files it writes follow it, and so do ours. */
export const KNOWN_KEYS = ['id', 'subject', 'description', 'activeForm', 'owner', 'status', 'blocks', 'blockedBy', 'metadata'] as const;

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

/**
 * Work left in a list: not completed, not agents' own bookkeeping (internal), and not
 * carried into another list (`metadata.carriedTo`, written by `tasks carry`: it goes on there).
 */
export function isLeftWork(task: Task): boolean {
  const mark = task.metadata?.carriedTo as { list?: unknown } | undefined;
  return task.status !== 'completed' && !isInternal(task) && typeof mark?.list !== 'string';
}
