import type { Task } from '../store/schema.js';
import { clearOf, goesOnAfterClear } from './cleared-lists.js';
import { sessionsOfList, unsureSessionsOf } from './list-sessions.js';
import { liveSessionLists } from './live-lists.js';
import type { SessionIndex, SessionInfo } from './session-index.js';
import { type Life, signsOfLife } from './signs-of-life.js';

/**
 * Whose claims are stale because their session is over. The owners in a list belong to
 * the session(s) the list belongs to (its main agent, subagents and teammates run inside
 * that session, or share its list). When the index knows those sessions, every one has
 * ended or crashed, and no sign of life remains (signs-of-life.ts: a live process naming
 * the list, a transcript still being written, a team's lead or teammate running), no
 * agent is left to finish what they own: those owners are gone. Nothing is said when
 * the list has no known session. `people` are never gone: the person's login name, and
 * owners that people gave tasks with `tasks` (its journal knows them); people are not
 * sessions. `deep`: also the sessions tied to a named list by their transcripts
 * (list-sessions.ts), which reads them.
 *
 * While a sign of life remains, one owner can still be gone: on a list several sessions
 * share, an owner whose every session is over (ended, crashed or cleared), where the
 * sessions of an owner are those whose Task tools gave it a task it holds now (the writes
 * their transcripts show). An owner that a live session gave a task, or that no known
 * session gave one, is never gone: a live agent's work is never taken.
 */
export interface GoneOwners {
  /** "session 2d483082 ended" / "crashed": why the owners are gone. */
  why: string;
  /** The sessions that are over, newest first. */
  sessions: SessionInfo[];
  isGone(owner: string | undefined): boolean;
  /** Why this owner is gone (its own session's end, where owners are judged one by one). */
  whyOf(owner: string | undefined): string;
  /** The session whose end makes this owner gone (the one whyOf names), when known. */
  sessionOf(owner: string | undefined): SessionInfo | undefined;
  /** Owners are judged one by one (other sessions of the list live): the live ones may take the work up, as they should. */
  byOwner?: boolean | undefined;
}

/** An unfinished task no live agent is left to finish, and why. */
export interface GoneHeld {
  task: Task;
  /** "session 2d483082 crashed": its owner's end, or the end of the session that held it. */
  why: string;
  /** The session over that makes it so, when known. */
  session: SessionInfo | undefined;
  /** It has no owner: a session over held it in progress (it goes back to pending). */
  unowned: boolean;
}

/** One session's end as the list `listId` knows it: what to say, and the session whose end that is (its time is the one told). */
export interface SessionEnd {
  why: string;
  session: SessionInfo;
  /** A `/clear` left the list behind (a person's doing): "was cleared". */
  cleared?: true;
}

/**
 * How a session of list `listId` that is over came to be so, as the views tell it:
 * "session 2d483082 ended", "crashed", or "was cleared" where the `/clear` is sure
 * (cleared-lists.ts; one taken from times alone is said as the end its transcript shows);
 * the fate
 * of its last run (session-index.ts), and a `/clear` still known once its process has died
 * (clearAfterDeath), so neither the reason nor its time shifts with no new event in its life.
 *
 * - On a list named after the session (its own, its `session-<8 hex>` list, a team it
 *   leads), a `/clear` left the list behind: "session 2d483082 was cleared", at its time,
 *   whatever the process did after.
 * - On a list its settings or environment name (a shared list), the process went on with the
 *   list as the new session, whose agent still holds the work: its end is the one told,
 *   "session 5b3c1d2e (after /clear of 2d483082) crashed", at its time.
 */
export function endOf(index: SessionIndex, s: SessionInfo, listId: string): SessionEnd {
  const first = s;
  let at = s;
  for (let depth = 0; depth < 16; depth++) {
    const clear = clearOf({ sessionId: at.sessionId, ...index.clearAfterDeath(at) });
    if (clear?.sure !== true) break;
    const next = namedAfter(index, listId, at.sessionId) ? undefined : index.session(clear.newSessionId);
    if (next === undefined || (next.state !== 'ended' && next.state !== 'crashed')) {
      return {
        why: `session ${at.sessionId.slice(0, 8)} was cleared${at === first ? '' : ` (after /clear of ${first.sessionId.slice(0, 8)})`}`,
        session: at,
        cleared: true,
      };
    }
    at = next;
  }
  const after = at === first ? '' : ` (after /clear of ${first.sessionId.slice(0, 8)})`;
  return { why: `session ${at.sessionId.slice(0, 8)}${after} ${at.state}`, session: at };
}

/** Is `listId` named after this session: its own, its `session-<8 hex>` list, or a team it leads? */
function namedAfter(index: SessionIndex, listId: string, sessionId: string): boolean {
  return listId === sessionId || listId === `session-${sessionId.slice(0, 8)}` || index.leads().get(listId)?.sessionId === sessionId;
}

/**
 * Is this session of the list over: ended or crashed, and not gone on under another id on
 * the same list (`/clear` on a shared list: cleared-lists.ts). The one answer of gone
 * owners and of the tasks a session over holds (history/list-owners.ts).
 */
export function overOn(index: SessionIndex, listId: string): (s: SessionInfo) => boolean {
  return (s) => (s.state === 'ended' || s.state === 'crashed') && !goesOnAfterClear(index, s, listId);
}

export function goneOwners(
  index: SessionIndex,
  listId: string,
  people: () => ReadonlySet<string> = () => new Set(),
  opts: { deep?: boolean; kept?: boolean } = {},
  /** The list's tasks' owners now, by task id: asked for only to judge owners one by one. */
  owned?: () => ReadonlyMap<string, string>,
): GoneOwners | undefined {
  const { sessions, life } = listLife(index, listId, opts);
  if (sessions.length === 0) return undefined;
  if (life !== undefined) return owned === undefined ? undefined : ownersWhoseSessionsAreOver(index, listId, sessions, owned, people);
  const sorted = [...sessions].sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0));
  const end = endOf(index, sorted[0] as SessionInfo, listId);
  // Asked for only now that some session is over (it may mean reading the journal).
  const never = people();
  // Several sessions over: an owner's end is that of the session that gave it its task (a
  // shared list's crashed agent is not told as the one that only listed the tasks after
  // it and ended); read only when an owner's end is asked for.
  let givers: Map<string, SessionInfo[]> | undefined;
  const endFor = (owner: string | undefined): SessionEnd => {
    if (owner === undefined || sorted.length < 2 || owned === undefined) return end;
    givers ??= giversOf(index, sorted, owned());
    const own = latestOf(givers, owner);
    return own === undefined ? end : endOf(index, own, listId);
  };
  return {
    why: end.why,
    sessions: sorted,
    isGone: (owner) => owner !== undefined && owner !== '' && !never.has(owner),
    whyOf: (owner) => endFor(owner).why,
    sessionOf: (owner) => endFor(owner).session,
  };
}

/** Each owner held now (`holding`: task id -> owner), with the sessions whose Task tool writes gave it a task it holds. */
export function giversOf(
  index: SessionIndex,
  sessions: readonly SessionInfo[],
  holding: ReadonlyMap<string, string>,
): Map<string, SessionInfo[]> {
  const givers = new Map<string, SessionInfo[]>();
  if (holding.size === 0) return givers;
  for (const s of sessions) {
    if (s.transcript === undefined) continue;
    for (const { file } of index.sessionFiles(s.sessionId, s.transcript)) {
      for (const w of index.transcriptTasks(file).writes ?? []) {
        if (w.owner === undefined || holding.get(w.id) !== w.owner) continue;
        const list = givers.get(w.owner) ?? [];
        if (!list.includes(s)) list.push(s);
        givers.set(w.owner, list);
      }
    }
  }
  return givers;
}

/** Of the sessions that gave `owner` its tasks, the latest at work. */
function latestOf(givers: ReadonlyMap<string, SessionInfo[]>, owner: string): SessionInfo | undefined {
  return (givers.get(owner) ?? []).reduce<SessionInfo | undefined>(
    (a, b) => ((a?.lastActivity ?? 0) >= (b.lastActivity ?? 0) ? a : b),
    undefined,
  );
}

/** See GoneOwners: owners judged by the sessions that gave them their tasks, while others live. */
function ownersWhoseSessionsAreOver(
  index: SessionIndex,
  listId: string,
  sessions: readonly SessionInfo[],
  owned: () => ReadonlyMap<string, string>,
  people: () => ReadonlySet<string>,
): GoneOwners | undefined {
  const isOver = overOn(index, listId);
  const over = sessions.filter(isOver);
  if (over.length === 0) return undefined;
  const holding = owned();
  if (holding.size === 0) return undefined;
  const givers = giversOf(index, sessions, holding);
  const never = people();
  const isGone = (owner: string | undefined) =>
    owner !== undefined && owner !== '' && !never.has(owner) && (givers.get(owner)?.every(isOver) ?? false);
  const gone = [...givers.keys()].filter(isGone);
  if (gone.length === 0) return undefined;
  const overSessions = [...new Set(gone.flatMap((o) => givers.get(o) ?? []))].sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0));
  const endFor = (owner: string | undefined) =>
    endOf(index, (owner === undefined ? undefined : latestOf(givers, owner)) ?? (overSessions[0] as SessionInfo), listId);
  return {
    why: endOf(index, overSessions[0] as SessionInfo, listId).why,
    sessions: overSessions,
    isGone,
    whyOf: (owner) => endFor(owner).why,
    sessionOf: (owner) => endFor(owner).session,
    byOwner: true,
  };
}

/** A list's sessions, and the first sign of life that remains (undefined: none). */
export function listLife(
  index: SessionIndex,
  listId: string,
  /** `kept`: a named list's sessions from the evidence kept (list-sessions.ts), for a quick look. */
  opts: { deep?: boolean; mayBeLive?: boolean; kept?: boolean } = {},
): { sessions: SessionInfo[]; life?: Life | undefined } {
  const sessions = sessionsOfList(index, listId, opts);
  if (sessions.length === 0) return { sessions };
  // A session that may have worked on this list (the evidence cannot tell), live: not over
  // either. Only a live one counts, so a quick look asks only those that may be live.
  const unsure = opts.kept ? { mayBeLive: true } : opts;
  const maybe = opts.deep ? unsureSessionsOf(index, listId, unsure).filter((s) => !sessions.includes(s)) : [];
  return { sessions, life: signsOfLife(index, listId, [...sessions, ...maybe]) };
}

/**
 * The live sessions that may pick up a list's work though its owners are gone, for
 * `release --gone`'s --force and the guard of a claim: only sessions that can see the
 * list, wherever they run (they write to it now, their settings or environment name it,
 * or their transcripts tie them to it). A session whose process runs where it cannot be
 * checked (another machine or container sharing this config folder: state `unknown`)
 * counts as live, as it does for every sign of life. A live session in the same folder
 * on a list of its own (another branch, the new session after `/clear`) cannot see it,
 * and counts for nothing here.
 */
export function liveSessionsNear(index: SessionIndex, listId: string): SessionInfo[] {
  const found = new Map<string, SessionInfo>();
  for (const s of sessionsOfList(index, listId, { deep: true })) if (s.state === 'live' || s.state === 'unknown') found.set(s.sessionId, s);
  for (const { session, list } of liveSessionLists(index)) if (list === listId) found.set(session.sessionId, session);
  return [...found.values()];
}
