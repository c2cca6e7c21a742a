import type { Task } from '../core/store/schema.js';
import { idRefs } from './refs.js';
import { oneLine } from './text.js';

/** What `delete`, `block` and `unblock` say they did, one line a change. */

const withRefs = (ids: readonly string[], verb: string): string =>
  ids.length === 0 ? '' : ` (${verb} ${ids.map((i) => `#${i}`).join(', ')})`;

/** `delete --dry-run`: "Would delete task #3: Write docs (and remove it from #4, #5)". */
export function renderWouldDelete(task: Task, references: readonly string[]): string {
  return `Would delete task #${task.id}: ${oneLine(task.subject)}${withRefs(references, 'and remove it from')}`;
}

/** A task deleted: piped, the plain line; in a terminal, a tick and the list it left. */
export function renderDeleted(
  task: Task,
  cleaned: readonly string[],
  listId: string,
  human: { style: { green(s: string): string } } | undefined,
): string {
  const rest = `${oneLine(task.subject)}${withRefs(cleaned, 'removed from')}`;
  return human ? `${human.style.green('✔')} Deleted #${task.id} from ${oneLine(listId)}: ${rest}` : `Deleted task #${task.id}: ${rest}`;
}

/** The question `delete` asks in a terminal: "Delete #3 "Write docs", #4 from web-v2?" */
export function renderDeleteQuestion(ids: readonly string[], named: readonly Task[], listId: string): string {
  const subjectOf = (id: string) => {
    const task = named.find((t) => t.id === id);
    return task === undefined ? '' : ` ${JSON.stringify(oneLine(task.subject))}`;
  };
  return `Delete ${ids.map((id) => `#${id}${subjectOf(id)}`).join(', ')} from ${oneLine(listId)}?`;
}

export function renderBlocked(id: string, added: readonly string[], already: readonly string[]): string {
  if (added.length === 0) return `Task #${id} was already blocked by ${idRefs(already)}; nothing changed`;
  return `Task #${id} is now blocked by ${idRefs(added)}${already.length > 0 ? ` (already: ${idRefs(already)})` : ''}`;
}

/** `unblock`: what was removed, and what still blocks an unfinished task. */
export function renderUnblocked(id: string, removed: readonly string[], stillOpen: readonly string[], onlySome: boolean): string {
  if (removed.length === 0) return `Task #${id} ${onlySome ? 'is not blocked by those' : 'has no blockers'}; nothing changed`;
  const still = stillOpen.length > 0 ? ` (still blocked by ${idRefs(stillOpen)})` : '';
  return `Task #${id} is no longer blocked by ${idRefs(removed)}${still}`;
}

export function renderNotBlocking(blocker: string, id: string): string {
  return `#${blocker} does not block #${id}`;
}
