import { listOfLiveSession } from './live-lists.js';
import { isSessionId, type SessionIndex } from './session-index.js';

/**
 * A session's own list left behind by `/clear` (docs/task-store.md section 15): the same
 * Claude Code process goes on as a new session, with a new list, and the old one is no
 * longer in the agent's sight. Told by the same evidence `tasks lists` shows as
 * `cleared -> <id>` (session-index.ts, process-sessions.ts): the new session's transcript
 * names the old one, the live process's session file names the new one; never by "the
 * only live session in the folder".
 */
export interface ClearedList {
  /** The list left behind: the cleared session's own. */
  list: string;
  /** The session that was cleared (its id is the list's). */
  sessionId: string;
  /** The session the same process runs now. */
  newSessionId: string;
  /** The list that session writes to now (its own, or one its settings or environment name). */
  newList: string;
}

/** Where the session whose own list is `listId` went after `/clear`; undefined while it has not. */
export function listAfterClear(index: SessionIndex, listId: string): ClearedList | undefined {
  if (!isSessionId(listId)) return undefined;
  for (const p of index.processes().values()) {
    if (p.sessionId === listId || !p.replaced.includes(listId)) continue;
    const now = index.session(p.sessionId);
    const newList = now === undefined ? p.sessionId : listOfLiveSession(index, now);
    // A process whose settings name this very list still writes to it: nothing was left behind.
    if (newList === listId) return undefined;
    return { list: listId, sessionId: listId, newSessionId: p.sessionId, newList };
  }
  return undefined;
}
