import { listOfLiveSession } from './live-lists.js';
import type { ClearProof } from './process-sessions.js';
import { isSessionId, type SessionIndex, type SessionInfo } from './session-index.js';

/**
 * Was a session cleared (`/clear`, docs/task-store.md section 15), and how sure is that:
 * the one answer `tasks watch`, `tasks lists`, the board and `tasks carry` all give.
 * Sure when the same process was seen on it and then on another, or when the transcripts
 * tie both to one process (process-sessions.ts); "probably" when only times say so: two
 * sessions of one project that just happened to end and begin together look the same.
 */
export interface Clear {
  /** The session that was cleared. */
  sessionId: string;
  /** The session its process went on as (the one it is on now). */
  newSessionId: string;
  proof: ClearProof;
  /** Not from times alone. */
  sure: boolean;
}

export function clearOf(s: Pick<SessionInfo, 'sessionId' | 'replacedBy' | 'clearProof'> | undefined): Clear | undefined {
  if (s?.replacedBy === undefined) return undefined;
  const proof = s.clearProof ?? 'times';
  return { sessionId: s.sessionId, newSessionId: s.replacedBy, proof, sure: proof !== 'times' };
}

/**
 * A session's own list left behind by `/clear`: the same Claude Code process goes on as a
 * new session, with a new list, and the old one is no longer in the agent's sight.
 */
export interface ClearedList extends Clear {
  /** The list left behind: the cleared session's own. */
  list: string;
  /** The list that session writes to now (its own, or one its settings or environment name). */
  newList: string;
}

/** Where the session whose own list is `listId` went after `/clear`; undefined while it has not. */
export function listAfterClear(index: SessionIndex, listId: string): ClearedList | undefined {
  if (!isSessionId(listId)) return undefined;
  const clear = clearOf(index.session(listId));
  if (clear === undefined) return undefined;
  const now = index.session(clear.newSessionId);
  const newList = now === undefined ? clear.newSessionId : listOfLiveSession(index, now);
  // A process whose settings name this very list still writes to it: nothing was left behind.
  if (newList === listId) return undefined;
  return { ...clear, list: listId, newList };
}

/**
 * Does a session that looks over go on under another id on the same list? `/clear` on a
 * list its settings or environment name (a shared list): the same live process goes on as
 * a new session, with the same list, and its agent still shows the old session's tasks in
 * progress as its own. Such a session is not gone. One whose process went on to a list of
 * its own (its own list left behind, listAfterClear) is. A clear taken from times alone
 * counts too: the process it names is live on the list and can see the work, and a live
 * agent's work is never taken on a guess.
 */
export function goesOnAfterClear(index: SessionIndex, s: SessionInfo, listId: string): boolean {
  const clear = clearOf(s);
  if (clear === undefined) return false;
  const now = index.session(clear.newSessionId);
  return now?.state === 'live' && listOfLiveSession(index, now) === listId;
}
