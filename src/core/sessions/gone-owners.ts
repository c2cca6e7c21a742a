import type { SessionIndex, SessionInfo } from './session-index.js';

/**
 * Whose claims are stale because their session is over. The owners in a list belong to
 * the session(s) the list belongs to (its main agent, subagents and teammates run inside
 * that session). When the index knows those sessions and every one has ended or
 * crashed, no agent is left to finish what they own: those owners are gone. Nothing is
 * said when the list has no known session, when any of its sessions is live, or when a
 * session's process cannot be looked up here (another machine or container). `people`
 * are never gone: the person's login name, and owners that people gave tasks with
 * `tasks` (its journal knows them); people are not sessions.
 */
export interface GoneOwners {
  /** "session 2d483082 ended" / "crashed": why the owners are gone. */
  why: string;
  /** The sessions that are over, newest first. */
  sessions: SessionInfo[];
  isGone(owner: string | undefined): boolean;
}

export function goneOwners(
  index: SessionIndex,
  listId: string,
  people: () => ReadonlySet<string> = () => new Set(),
): GoneOwners | undefined {
  const sessions = index.sessionsOfList(listId);
  if (sessions.length === 0 || sessions.some((s) => s.state === 'live' || s.state === 'unknown')) return undefined;
  const sorted = [...sessions].sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0));
  const latest = sorted[0] as SessionInfo;
  const why = `session ${latest.sessionId.slice(0, 8)} ${latest.state}`;
  // Asked for only now that some session is over (it may mean reading the journal).
  const never = people();
  return {
    why,
    sessions: sorted,
    isGone: (owner) => owner !== undefined && owner !== '' && !never.has(owner),
  };
}
