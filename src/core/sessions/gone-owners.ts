import { sessionsOfList, unsureSessionsOf } from './list-sessions.js';
import { liveSessionLists, liveSessionsIn } from './live-lists.js';
import type { SessionIndex, SessionInfo } from './session-index.js';
import { type Life, signsOfLife } from './signs-of-life.js';

/**
 * Whose claims are stale because their session is over. The owners in a list belong to
 * the session(s) the list belongs to (its main agent, subagents and teammates run inside
 * that session, or share its list). When the index knows those sessions, every one has
 * ended or crashed, and no sign of life remains (signs-of-life.ts: a live process naming
 * the list, a transcript still being written, a team's lead or teammate running), no
 * agent is left to finish what they own: those owners are gone. Nothing is said when
 * the list has no known session, or while any sign of life remains. `people` are never
 * gone: the person's login name, and owners that people gave tasks with `tasks` (its
 * journal knows them); people are not sessions. `deep`: also the sessions tied to a
 * named list by their transcripts (list-sessions.ts), which reads them.
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
  opts: { deep?: boolean } = {},
): GoneOwners | undefined {
  const { sessions, life } = listLife(index, listId, opts);
  if (sessions.length === 0 || life !== undefined) return undefined;
  const sorted = [...sessions].sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0));
  const latest = sorted[0] as SessionInfo;
  const why = `session ${latest.sessionId.slice(0, 8)} ${latest.replacedBy !== undefined ? 'was cleared' : latest.state}`;
  // Asked for only now that some session is over (it may mean reading the journal).
  const never = people();
  return {
    why,
    sessions: sorted,
    isGone: (owner) => owner !== undefined && owner !== '' && !never.has(owner),
  };
}

/** A list's sessions, and the first sign of life that remains (undefined: none). */
export function listLife(
  index: SessionIndex,
  listId: string,
  opts: { deep?: boolean; mayBeLive?: boolean } = {},
): { sessions: SessionInfo[]; life?: Life | undefined } {
  const sessions = sessionsOfList(index, listId, opts);
  if (sessions.length === 0) return { sessions };
  // A session that may have worked on this list (the evidence cannot tell), live: not over either.
  const maybe = opts.deep ? unsureSessionsOf(index, listId, opts).filter((s) => !sessions.includes(s)) : [];
  return { sessions, life: signsOfLife(index, listId, [...sessions, ...maybe]) };
}

/**
 * The live sessions that may pick up a list's work though its owners are gone, for
 * `release --gone`'s --force: those of the list wherever they run (writing to it now, or
 * tied to it by their transcripts), and those live where the list's sessions ran (a new
 * session after `/clear`, or in the same project).
 */
export function liveSessionsNear(index: SessionIndex, listId: string, sessions: readonly SessionInfo[]): SessionInfo[] {
  const found = new Map<string, SessionInfo>();
  for (const s of sessionsOfList(index, listId, { deep: true })) if (s.state === 'live') found.set(s.sessionId, s);
  for (const { session, list } of liveSessionLists(index)) if (list === listId) found.set(session.sessionId, session);
  const dirs = sessions.flatMap((s) => (s.cwd === undefined ? [] : [s.cwd]));
  for (const s of liveSessionsIn(index, dirs)) found.set(s.sessionId, s);
  return [...found.values()];
}
