import type { Task } from '../core/store/schema.js';
import type { FieldChange } from '../core/watch/watch-diff.js';
import type { Style } from './style.js';
import { oneLine } from './text.js';
import { describeField } from './watch-change.js';

/**
 * What an update changed, in the words the live view uses for the same change:
 * "✔ Updated #2 in web-v2: owner alice → bob; status pending → in progress".
 */
function renderUpdateMessage(listId: string, task: Task, changes: Record<string, FieldChange>, style: Style): string {
  const fields = Object.entries(changes).map(([key, change]) =>
    // The live view shows the new subject beside the change; this line must say it.
    key === 'subject' ? `subject "${oneLine(String(change.old))}" → "${oneLine(String(change.new))}"` : describeField(key, change, style),
  );
  return `${style.green('✔')} Updated #${oneLine(task.id)} in ${oneLine(listId)}: ${fields.join('; ')}`;
}

/** "Task #2 in web-v2 is already as asked; nothing changed" */
function renderUnchangedMessage(listId: string, id: string): string {
  return `Task #${oneLine(id)} in ${oneLine(listId)} is already as asked; nothing changed`;
}

/**
 * An update's result as `update`, `start` and `done` print it. In a terminal, what
 * changed, in words; piped, the agents' own TaskUpdate wording ("Updated task #2 status,
 * owner"), which scripts written against agents' output already read.
 */
export function renderUpdateResult(
  listId: string,
  result: { task: Task; changed: readonly string[]; changes: Record<string, FieldChange> },
  layout: { human: boolean; style: Style },
): string {
  const id = result.task.id;
  if (result.changed.length === 0) return renderUnchangedMessage(listId, id);
  if (layout.human) return renderUpdateMessage(listId, result.task, result.changes, layout.style);
  return `Updated task #${id} ${result.changed.join(', ')}`;
}

/** `update <id> --status deleted`. */
export function renderDeletedByUpdate(listId: string, id: string, layout: { human: boolean; style: Style }): string {
  return layout.human ? `${layout.style.green('✔')} Deleted #${id} from ${oneLine(listId)}` : `Deleted task #${id}`;
}
