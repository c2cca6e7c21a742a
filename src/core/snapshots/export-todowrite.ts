import { deriveActiveForm } from '../store/active-form.js';
import type { Status, Task } from '../store/schema.js';

/** A TodoWrite input: what Claude Code's TodoWrite tool accepts (docs/task-store.md section 9). */
export interface TodoWriteSnapshot {
  todos: Array<{ content: string; status: Status; activeForm: string }>;
}

/** What the tasks held that a TodoWrite input has no place for: how many descriptions, owners, blockers (edges) and tasks with metadata. */
export interface LeftOut {
  descriptions: number;
  owners: number;
  blockers: number;
  metadata: number;
}

/** How many ids of the tasks in progress a warning names. */
const MAX_IDS_SAID = 10;

/**
 * Tasks (in the order given: callers pass id order) -> a valid TodoWrite input.
 * TodoWrite requires `content` and `activeForm` to be non-empty: a task without an
 * activeForm gets one derived from its subject (store/active-form.ts), and a task with an
 * empty subject is named "Task #<id>". Statuses are kept as they are; TodoWrite's
 * convention of at most one `in_progress` item is reported, not enforced.
 */
export function toTodoWrite(tasks: readonly Task[]): { snapshot: TodoWriteSnapshot; warnings: string[]; leftOut: LeftOut } {
  const warnings: string[] = [];
  const todos = tasks.map((t) => {
    let content = t.subject;
    if (content.trim() === '') {
      content = `Task #${t.id}`;
      warnings.push(`#${t.id} has an empty subject; exported as "${content}" (TodoWrite requires content)`);
    }
    const activeForm = t.activeForm !== undefined && t.activeForm.trim() !== '' ? t.activeForm : deriveActiveForm(content);
    return { content, status: t.status, activeForm };
  });
  const active = tasks.filter((t) => t.status === 'in_progress').map((t) => `#${t.id}`);
  if (active.length > 1) {
    // The first ids name the case; thousands on one line name nothing.
    const shown =
      active.length > MAX_IDS_SAID
        ? `${active.slice(0, MAX_IDS_SAID).join(', ')} and ${active.length - MAX_IDS_SAID} more`
        : active.join(', ');
    warnings.push(`${active.length} tasks are in_progress (${shown}); TodoWrite expects at most one, exported as they are`);
  }
  const leftOut: LeftOut = {
    descriptions: tasks.filter((t) => t.description.trim() !== '').length,
    owners: tasks.filter((t) => t.owner !== undefined && t.owner !== '').length,
    blockers: tasks.reduce((n, t) => n + t.blockedBy.length, 0),
    metadata: tasks.filter((t) => t.metadata !== undefined && Object.keys(t.metadata).length > 0).length,
  };
  return { snapshot: { todos }, warnings, leftOut };
}
