import { TasksError } from '../base/errors.js';
import type { Snapshot, SnapshotItem } from './import-snapshot.js';
import { kindOf, parseTodoItems, type TodoItem } from './todo-schema.js';

/** Is this JSON value one of the TodoWrite shapes? (For detection; no validation.) */
export function looksLikeTodos(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every((v) => isObject(v) && 'content' in v);
  return isObject(value) && ('todos' in value || 'newTodos' in value);
}

/**
 * A TodoWrite snapshot given as JSON: a bare array of items (an old
 * `~/.claude/todos/*.json` file), `{"todos": [...]}` (a TodoWrite input), or a tool
 * result `{"oldTodos": [...], "newTodos": [...]}`.
 */
export function snapshotFromTodoJson(value: unknown): Snapshot {
  let items: TodoItem[];
  let found: string;
  if (Array.isArray(value)) {
    items = parseTodoItems(value, '');
    const oldest = items.some((t) => t.id !== undefined || t.priority !== undefined);
    found = `${oldest ? 'an old todos file ({id, content, status, priority} items)' : 'a todos array'} (${count(items.length)})`;
  } else if (isObject(value) && 'todos' in value) {
    items = parseTodoItems(value.todos, 'todos');
    found = `a TodoWrite input {"todos": [...]} (${count(items.length)})`;
  } else if (isObject(value) && 'newTodos' in value) {
    items = parseTodoItems(value.newTodos, 'newTodos');
    found = `a TodoWrite result {"newTodos": [...]} (${count(items.length)})`;
  } else {
    throw new TasksError(
      'usage',
      `not a TodoWrite snapshot: expected an array of todos or {"todos": [...]}, got ${kindOf(value)}${isObject(value) ? ` with keys ${keyList(value)}` : ''}`,
    );
  }
  return { format: 'todowrite', found, items: todosToItems(items), warnings: [] };
}

/** Todos -> snapshot items: content is the subject, the order is the refs (1, 2, ...). */
export function todosToItems(todos: readonly TodoItem[]): SnapshotItem[] {
  return todos.map((t, i) => {
    const item: SnapshotItem = { ref: String(i + 1), subject: t.content, description: '', status: t.status, blockedBy: [] };
    if (t.activeForm !== undefined && t.activeForm.trim() !== '') item.activeForm = t.activeForm;
    // The oldest shape's priority has no field of its own in a task: metadata keeps it.
    if (t.priority !== undefined) item.metadata = { priority: t.priority };
    return item;
  });
}

export function count(n: number, noun = 'todo'): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function keyList(value: Record<string, unknown>): string {
  const keys = Object.keys(value);
  if (keys.length === 0) return 'none';
  return keys.slice(0, 5).join(', ') + (keys.length > 5 ? ', ...' : '');
}
