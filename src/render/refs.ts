import type { TaskIndex } from '../core/graph/blockers.js';
import type { Task } from '../core/store/schema.js';
import { STATUS_WORD } from './status.js';
import { oneLine } from './text.js';

/** Task ids as agents print them: "#2, #5". Ids come from files: no control characters. */
export function idRefs(ids: readonly string[]): string {
  return ids.map((i) => `#${oneLine(i)}`).join(', ');
}

/** "#3 is still blocked by #1 (pending), #2 (in progress)": a task started or completed out of order. */
export function renderStillBlocked(task: Task, open: readonly string[], index: TaskIndex): string {
  const named = open.map((id) => `${idRefs([id])} (${STATUS_WORD[index.get(id)?.status ?? 'pending']})`).join(', ');
  return `${idRefs([task.id])} is still blocked by ${named}`;
}
