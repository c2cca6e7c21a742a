import type { z } from 'zod';
import { TasksError } from '../base/errors.js';
import { lazySchemas } from '../base/zod.js';
import { taskSchemas } from '../store/schema.js';
import { statusFromWord } from '../store/status-words.js';

/**
 * TodoWrite items (docs/task-store.md section 9). Current Claude Code requires `{content,
 * status, activeForm}` with both strings non-empty; old todos files lack `activeForm`,
 * and the oldest items are `{id, content, status, priority}`. We accept all three shapes.
 */
export const todoItemSchema = lazySchemas((z) =>
  z
    .object({
      content: z.string({ required_error: 'missing (expected string)' }).refine((s) => s.trim() !== '', 'must not be empty'),
      // todo, active, done and the other short forms are taken as `tasks` takes them on the command line.
      status: z.preprocess((v) => (typeof v === 'string' ? (statusFromWord(v) ?? v) : v), taskSchemas().StatusSchema),
      activeForm: z.string().optional(),
      id: z.union([z.string(), z.number()]).optional(),
      priority: z.string().optional(),
    })
    .passthrough(),
);

export type TodoItem = z.infer<ReturnType<typeof todoItemSchema>>;

/** One line naming where and what: `todos[2].status: expected pending, in_progress or completed, got "done"`. */
export function describeIssue(where: string, issue: z.ZodIssue | undefined): string {
  if (!issue) return `${where}: invalid`;
  // `item 2` + status -> `item 2: status`; `todos[2]` + status -> `todos[2].status`.
  const sep = where.endsWith(']') || where === '' ? '.' : ': ';
  const path = issue.path
    .reduce<string>((acc, part, i) => (typeof part === 'number' ? `${acc}[${part}]` : `${acc}${i === 0 ? sep : '.'}${part}`), where)
    .replace(/^\./, '');
  if (issue.code === 'invalid_enum_value') {
    return `${path}: expected ${issue.options.map(String).join(', ')}, got ${JSON.stringify(issue.received)}`;
  }
  if (issue.code === 'invalid_type') {
    return issue.received === 'undefined'
      ? `${path}: missing (expected ${issue.expected})`
      : `${path}: expected ${issue.expected}, got ${issue.received}`;
  }
  return `${path}: ${issue.message}`;
}

/**
 * Validate a list of todos; `where` names it in errors: `todos` gives `todos[2].status: ...`
 * (an index, from 0, as in jq), an empty `where` (a bare array) gives `item 3: status: ...`
 * (the third item: people count from 1).
 */
export function parseTodoItems(value: unknown, where: string, named?: (i: number) => string): TodoItem[] {
  const at = named ?? ((i: number) => (where === '' ? `item ${i + 1}` : `${where}[${i}]`));
  if (!Array.isArray(value)) {
    throw new TasksError('usage', `${where || 'input'}: expected an array of todos, got ${kindOf(value)}`);
  }
  return value.map((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new TasksError('usage', `${at(i)}: expected a todo object {content, status, activeForm}, got ${kindOf(item)}`);
    }
    const result = todoItemSchema().safeParse(item);
    if (!result.success) throw new TasksError('usage', describeIssue(at(i), result.error.issues[0]));
    return result.data;
  });
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  return typeof value === 'number' ? 'a number' : typeof value;
}
