import { TasksError } from '../base/errors.js';
import type { Todo } from '../sessions/transcript-tasks.js';
import { type ListSnapshot, readList } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import type { ListChoice } from './list-choice-types.js';

/**
 * The tasks of the list a command chose, for a read: its files; none yet for a live
 * session's list before its first task; and for a session that kept TodoWrite todos, the
 * todos as tasks numbered in their order (read-only: there is no file to change).
 */
export function readChosen(choice: ListChoice, opts: { times?: boolean } = {}): ListSnapshot {
  if (choice.todos !== undefined) return { tasks: tasksOfTodos(choice.todos), problems: [] };
  if (choice.fresh && !choice.exists) return { tasks: [], problems: [] };
  return readList(choice.dir, opts);
}

/** One task of the chosen list; not found as for a list folder. */
export function getChosen(choice: ListChoice, id: string): Task {
  const task = readChosen(choice).tasks.find((t) => t.id === id);
  if (task === undefined) {
    const why = !(choice.fresh && !choice.exists)
      ? ''
      : choice.how === 'binding'
        ? ' (the bound list has no tasks yet)'
        : ' (this live session has no tasks yet)';
    throw new TasksError('not_found', `task #${id} not found${why}`, { details: { id } });
  }
  return task;
}

/** TodoWrite items as tasks: ids 1, 2, ... in order, the content as subject. */
export function tasksOfTodos(todos: readonly Todo[]): Task[] {
  return todos.map((t, i) => ({
    id: String(i + 1),
    subject: t.content,
    description: '',
    ...(t.activeForm !== undefined ? { activeForm: t.activeForm } : {}),
    status: t.status,
    blocks: [],
    blockedBy: [],
  }));
}
