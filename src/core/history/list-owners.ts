import { type GoneOwners, goneOwners } from '../sessions/gone-owners.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { ownersSetWithTasks } from './journal.js';

/**
 * Owners in a list whose session is over (sessions/gone-owners.ts), as `tasks list` and
 * the board mark them. People are never gone: `person` (who runs tasks, by login name)
 * and every owner that a change made with tasks gave a task (this list's journal knows
 * them). The journal is read only when some session of the list is over. `deep`: a named
 * list's sessions are found by their transcripts (sessions/list-sessions.ts).
 */
export function goneOwnersOfList(
  index: SessionIndex,
  listDir: string,
  listId: string,
  person: string | undefined,
  opts: { deep?: boolean } = {},
): GoneOwners | undefined {
  return goneOwners(
    index,
    listId,
    () => {
      const people = ownersSetWithTasks(listDir);
      if (person !== undefined) people.add(person);
      return people;
    },
    opts,
  );
}
