import fs from 'node:fs';
import path from 'node:path';
import { pushAll } from '../base/many-items.js';
import { sameStamp } from '../cache/file-stamp.js';
import { isTaskId, parseHighWaterMark } from '../store/ids.js';
import { listAliases } from '../store/list-aliases.js';
import { HIGH_WATER_MARK, LIST_LOCK_TARGET, listDirOf, sanitizeListId, taskPath, tasksRoot } from '../store/paths.js';
import { EVIDENCE_SHARD, lastEvidence } from './evidence-cache.js';
import { buildEvidence, type Evidence } from './evidence-index.js';
import { liveSessionLists } from './live-lists.js';
import { isSessionId, LIVE_TRANSCRIPT_MS, type SessionIndex, type SessionInfo } from './session-index.js';
import type { TranscriptTasksCache } from './transcript-cache.js';
import { digestFlags, TASKS_SCAN, type TaskWrite } from './transcript-tasks.js';

/**
 * The sessions a list belongs to, for `tasks lists`, `log`, gone owners and stalled work:
 * the sessions whose own list it is (its UUID, `session-<8 hex>`, its team's lead), the
 * live sessions writing to it now (their settings or environment name it), and with
 * `deep` the sessions tied to it by their transcripts (a list named by
 * CLAUDE_CODE_TASK_LIST_ID: evidence-index.ts). Live first, then the most recently active.
 *
 * `goneTasks` (with `deep`): also the sessions of a named list whose tasks are all gone
 * (sessionsOfGoneTasks), for the history views.
 *
 * `mayBeLive`: of those tied by transcripts, only the sessions that may be live (a
 * live-session file or a running process speaks for them, or their transcript was written
 * within LIVE_TRANSCRIPT_MS): all a question of who is at work needs, without reading
 * what every session of the past showed.
 */
export function sessionsOfList(
  index: SessionIndex,
  listId: string,
  opts: { deep?: boolean; mayBeLive?: boolean; kept?: boolean; goneTasks?: boolean } = {},
): SessionInfo[] {
  const found = new Map<string, SessionInfo>();
  for (const s of index.ownersOfList(listId)) found.set(s.sessionId, s);
  for (const { session, list } of liveSessionLists(index)) if (list === listId) found.set(session.sessionId, session);
  if (opts.deep) {
    const evidence = opts.mayBeLive ? liveEvidenceOf(index, listId) : opts.kept ? keptEvidenceOf(index, listId) : evidenceOf(index);
    for (const id of evidence.sessionsByList.get(listId) ?? []) {
      const s = index.session(id);
      if (s !== undefined) found.set(id, s);
    }
    // Asked by the history views alone (log, undo): it reads the transcripts of the list's
    // time span, which a board's refresh, `lists` of many lists or notify's look should not pay.
    if (opts.goneTasks === true && !opts.mayBeLive)
      for (const id of sessionsOfGoneTasks(index, listId)) {
        if (found.has(id)) continue;
        const s = index.session(id);
        if (s !== undefined) found.set(id, s);
      }
  }
  return inShowOrder(found.values());
}

/**
 * The sessions that wrote to a named list none of whose tasks they wrote is left (all
 * deleted, or the list reset): the evidence (list-evidence.ts) ties a session by the task
 * files it wrote, and transcripts never name the list. What the folder keeps of them: its
 * `.lock`, made by the list's first TaskCreate ever (and never written again), and its
 * `.highwatermark`, written by every delete (and reset). A session whose create was
 * written while the lock was made, or whose delete while the mark was last written (of an
 * id at most the mark), of a task the list has no file of, wrote to this list. A session
 * that neither made the list's first task nor made its last delete, and whose tasks are
 * all gone, is still not found. Each transcript is looked at for its times first (its
 * first entry, its last write), and only those that span a stamp are read.
 */
function sessionsOfGoneTasks(index: SessionIndex, listId: string): string[] {
  return isSessionId(listId) ? [] : findSessionsOfGoneTasks(index, listId);
}

/** As list-evidence.ts allows between a file's time and its write's entries. */
const STAMP_SLACK_MS = 250;

function findSessionsOfGoneTasks(index: SessionIndex, listId: string): string[] {
  const dir = listDirOf(index.configDir, listId);
  const stat = (name: string) => {
    try {
      const st = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
      return st?.isFile() ? st : undefined;
    } catch {
      return undefined;
    }
  };
  const lock = stat(LIST_LOCK_TARGET);
  const mark = stat(HIGH_WATER_MARK);
  if (lock === undefined && mark === undefined) return [];
  let markId = 0n;
  if (mark !== undefined)
    try {
      markId = parseHighWaterMark(fs.readFileSync(path.join(dir, HIGH_WATER_MARK), 'utf8').slice(0, 64));
    } catch {
      // unreadable: no delete is matched by it
    }
  const stamps = [lock?.mtimeMs, mark?.mtimeMs].filter((t): t is number => t !== undefined);
  const earliest = Math.min(...stamps) - STAMP_SLACK_MS;
  const latest = Math.max(...stamps) + STAMP_SLACK_MS;
  const near = (w: TaskWrite, at: number | undefined) => at !== undefined && at >= w.at - STAMP_SLACK_MS && at <= w.end + STAMP_SLACK_MS;
  const gone = (id: string) => isTaskId(id) && !fs.existsSync(taskPath(dir, id));
  const found: string[] = [];
  for (const [sessionId, transcript] of index.transcripts()) {
    if ((index.store.statOf(transcript)?.mtimeMs ?? Number.POSITIVE_INFINITY) < earliest) continue;
    const files = index
      .sessionFiles(sessionId, transcript)
      .filter(({ file }) => !digestFlags(index.store.scanDigest(file, TASKS_SCAN)).nothing);
    if (files.length === 0) continue;
    if ((index.facts(transcript).firstActivity ?? Number.NEGATIVE_INFINITY) > latest) continue;
    const wrote = files.some(({ file }) =>
      (index.transcriptTasks(file).writes ?? []).some(
        (w) =>
          (w.created && near(w, lock?.mtimeMs) && gone(w.id)) ||
          (w.deleted === true && near(w, mark?.mtimeMs) && isTaskId(w.id) && BigInt(w.id) <= markId && gone(w.id)),
      ),
    );
    if (wrote) found.push(sessionId);
  }
  return found;
}

/**
 * A list's sessions as far as they are known without reading a transcript, for a command
 * that reads only the ends of their records (`get`'s last change): those of
 * sessionsOfList, and those the evidence an earlier `lists` or `log` kept tied to the
 * list (a named list's sessions, which only a whole read of transcripts finds).
 */
export function knownSessionsOf(index: SessionIndex, listId: string): SessionInfo[] {
  const found = new Map(sessionsOfList(index, listId).map((s) => [s.sessionId, s]));
  const shard = index.store.cache?.shard(EVIDENCE_SHARD);
  const kept = shard === undefined ? undefined : lastEvidence(shard, ALL_SESSIONS, listId, false);
  for (const id of kept?.sessions ?? []) {
    if (found.has(id)) continue;
    const s = index.session(id);
    if (s !== undefined) found.set(id, s);
  }
  return inShowOrder(found.values());
}

/**
 * The sessions that can hold a list's change made at `since` or later (`get`'s last
 * change): a session's own list's, as knownSessionsOf finds them; a named list's, as
 * `log` ties them by their transcripts, from the evidence kept (keptEvidenceOf), or on a
 * cold start (none kept yet) read from the transcripts written since then alone: an older
 * one cannot hold it, and a quick look never reads every transcript there is.
 */
export function sessionsThatMayHaveChanged(index: SessionIndex, listId: string, since: number): SessionInfo[] {
  if (isSessionId(listId)) return knownSessionsOf(index, listId);
  if (hasKeptEvidence(index, listId)) return sessionsOfList(index, listId, { deep: true, kept: true });
  const found = new Map(sessionsOfList(index, listId).map((s) => [s.sessionId, s]));
  const recent = new Map<string, string>();
  for (const [id, transcript] of index.transcripts()) if (writtenSince(index, transcript, since)) recent.set(id, transcript);
  if (recent.size > 0) {
    const lists = listNames(index.configDir);
    const evidence = buildEvidence(index, lists, { known: knownLists(index, lists), sessions: recent });
    for (const id of evidence.sessionsByList.get(listId) ?? []) {
      const s = index.session(id);
      if (s !== undefined) found.set(id, s);
    }
  }
  return inShowOrder(found.values());
}

/**
 * Sessions in the order to show them: the live first, then the most recently active (a
 * stable sort). The keys are taken once: a list can have hundreds of sessions, and
 * session records come in many shapes, which makes reading their fields in a comparator slow.
 */
export function inShowOrder(sessions: Iterable<SessionInfo>): SessionInfo[] {
  const keyed = Array.from(sessions, (s, i) => ({ s, live: s.state === 'live' ? 1 : 0, at: s.lastActivity ?? 0, i }));
  keyed.sort((a, b) => b.live - a.live || b.at - a.at || a.i - b.i);
  return keyed.map((k) => k.s);
}

/** What each index worked out, kept with the index (a run's): it goes when the index goes. */
const evidences = new WeakMap<SessionIndex, Evidence>();
const liveEvidences = new WeakMap<SessionIndex, Map<string, Evidence>>();
const caches = new WeakMap<SessionIndex, TranscriptTasksCache>();

/** Use `cache` for what transcripts say of their tasks (default: the index's own store). */
export function useTranscriptCache(index: SessionIndex, cache: TranscriptTasksCache): void {
  caches.set(index, cache);
}

/** The name the evidence of every session is kept under (evidence-cache.ts). */
const ALL_SESSIONS = 'all sessions';

/** The transcript evidence of this index, read once. */
export function evidenceOf(index: SessionIndex): Evidence {
  let evidence = evidences.get(index);
  if (evidence === undefined) {
    // No transcript, no evidence: nor any need to load the names of every list's files it would be weighed against.
    const none = index.transcripts().size === 0;
    const lists = none ? [] : listNames(index.configDir);
    evidence = none
      ? { sessionsByList: new Map(), unsureByList: new Map(), todos: new Map() }
      : buildEvidence(index, lists, { cache: caches.get(index), known: knownLists(index, lists), keepAs: ALL_SESSIONS });
    evidences.set(index, evidence);
  }
  return evidence;
}

/**
 * The lists these sessions worked on only because their environment or settings named
 * them (`CLAUDE_CODE_TASK_LIST_ID`, a shared list): in the transcripts' evidence, tied to
 * one of them, and none of that session's own (its UUID's, its team's). Each with the
 * sessions of these that worked on it, in the evidence's order.
 */
export function namedListsOf(index: SessionIndex, sessionIds: ReadonlySet<string>): Array<{ list: string; sessions: string[] }> {
  const found: Array<{ list: string; sessions: string[] }> = [];
  for (const [list, tied] of evidenceOf(index).sessionsByList) {
    const sessions = tied.filter((id) => sessionIds.has(id) && !index.listsOfSession(id).includes(list));
    if (sessions.length > 0) found.push({ list, sessions });
  }
  return found;
}

/**
 * The transcript evidence of these sessions alone (by id: those with a transcript), as if
 * no other session had any: what kept-lists.ts asks of the running sessions, to know
 * that they hold tasks of their own lists only.
 */
export function evidenceOfSessions(index: SessionIndex, sessionIds: Iterable<string>): Evidence {
  const sessions = new Map<string, string>();
  for (const id of sessionIds) {
    const transcript = index.transcriptOf(id);
    if (transcript !== undefined) sessions.set(id, transcript);
  }
  if (sessions.size === 0) return { sessionsByList: new Map(), unsureByList: new Map(), todos: new Map() };
  const lists = listNames(index.configDir);
  return buildEvidence(index, lists, { cache: caches.get(index), known: knownLists(index, lists), sessions, listFoldersNow: true });
}

/**
 * The lists each session is known to work on, without its transcript: its own (its
 * UUID's, `session-<first 8 hex>`, a team's it leads) and, while it runs, the one its
 * settings or environment name.
 */
function knownLists(index: SessionIndex, lists: readonly string[]): (sessionId: string) => string[] {
  const existing = new Set(lists);
  const byLead = new Map<string, string[]>();
  for (const [list, lead] of index.leads())
    if (existing.has(list)) byLead.set(lead.sessionId, [...(byLead.get(lead.sessionId) ?? []), list]);
  const live = new Map(liveSessionLists(index).map(({ session, list }) => [session.sessionId, list]));
  return (id) => {
    const known = [id, `session-${id.slice(0, 8)}`].filter((l) => existing.has(l));
    pushAll(known, byLead.get(id) ?? []);
    const now = live.get(id);
    if (now !== undefined && !known.includes(now)) known.push(now);
    return known;
  };
}

/**
 * Sessions that worked on this list or on another holding the same tasks, which their
 * transcripts cannot tell apart (list-evidence.ts): never attributed, but while one is
 * live the list is not taken for over.
 */
export function unsureSessionsOf(index: SessionIndex, listId: string, opts: { mayBeLive?: boolean } = {}): SessionInfo[] {
  const evidence = opts.mayBeLive ? liveEvidenceOf(index, listId) : evidenceOf(index);
  const ids = evidence.unsureByList.get(listId);
  if (ids === undefined) return [];
  // Lists that hold one plan share one set of sessions (evidence-cache.ts): looked up once.
  let found = unsureSessions.get(ids);
  if (found === undefined) {
    found = [];
    for (const id of ids) {
      const s = index.session(id);
      if (s !== undefined) found.push(s);
    }
    unsureSessions.set(ids, found);
  }
  return found;
}

/** Kept with the evidence's arrays of session ids (an index's): they go together. */
const unsureSessions = new WeakMap<readonly string[], SessionInfo[]>();

/**
 * The transcript evidence of the sessions that may be live (see sessionsOfList) and may
 * be on this list, read once per list. Which transcripts can be of such sessions:
 *
 * - with no evidence kept (evidence-cache.ts): every transcript, each looked at for its
 *   time (a stat each);
 * - else, without looking at the others: those of the sessions the last evidence tied to
 *   the list (or was unsure of), those of sessions a process may be on (a live-session
 *   file, a running process), every one in a project folder where a Claude Code process
 *   runs with no live-session file, and every one in a project folder whose stamp has
 *   changed since that evidence (where a transcript was made since). A session of the
 *   past that none of these names can be on the list now only by Task-tool calls appended
 *   to its transcript since, by a process that nothing here can see (its live-session
 *   file removed, on another machine or in another container): that one is not looked for.
 */
function liveEvidenceOf(index: SessionIndex, listId: string): Evidence {
  const full = evidences.get(index);
  if (full !== undefined) return full;
  let byList = liveEvidences.get(index);
  if (byList === undefined) liveEvidences.set(index, (byList = new Map()));
  let evidence = byList.get(listId);
  if (evidence === undefined) {
    const since = index.now() - LIVE_TRANSCRIPT_MS;
    const sessions = caches.has(index) ? undefined : transcriptsThatMayBeOn(index, listId);
    if (sessions?.size === 0) evidence = { sessionsByList: new Map(), unsureByList: new Map(), todos: new Map() };
    else {
      const lists = listNames(index.configDir);
      evidence = buildEvidence(index, lists, {
        cache: caches.get(index),
        known: knownLists(index, lists),
        keep: (id, transcript) => index.mayBeLive(id, transcript) || writtenSince(index, transcript, since),
        sessions,
      });
    }
    byList.set(listId, evidence);
  }
  return evidence;
}

/**
 * The transcript evidence of the sessions that can be on this list (`kept`: what a
 * question of one list's past needs, such as its cost), read once per list, from the last
 * evidence kept (evidence-cache.ts): the sessions it tied to the list (those it was unsure
 * of are never attributed, and unchanged cannot be tied now), those a process may be on, and every one in a project folder whose stamp has changed
 * since (see transcriptsThatMayBeOn). With none kept: the evidence of every session, which
 * is then kept.
 */
function keptEvidenceOf(index: SessionIndex, listId: string): Evidence {
  const full = evidences.get(index);
  if (full !== undefined) return full;
  // The sessions it was unsure of are never attributed: only those it tied are read again.
  const sessions = caches.has(index) ? undefined : transcriptsThatMayBeOn(index, listId, true);
  if (sessions === undefined) return evidenceOf(index);
  let byList = keptEvidences.get(index);
  if (byList === undefined) keptEvidences.set(index, (byList = new Map()));
  let evidence = byList.get(listId);
  if (evidence === undefined) {
    const lists = listNames(index.configDir);
    evidence =
      sessions.size === 0
        ? { sessionsByList: new Map(), unsureByList: new Map(), todos: new Map() }
        : buildEvidence(index, lists, { known: knownLists(index, lists), sessions });
    byList.set(listId, evidence);
  }
  return evidence;
}

const keptEvidences = new WeakMap<SessionIndex, Map<string, Evidence>>();

/**
 * Is there evidence kept (evidence-cache.ts) to find this list's sessions from without
 * reading every transcript (`kept` above)? Without it, a named list's sessions cost a
 * read of them all: what a quick look (`get`) does not pay.
 */
export function hasKeptEvidence(index: SessionIndex, listId: string): boolean {
  if (evidences.has(index)) return true;
  const shard = index.store.cache?.shard(EVIDENCE_SHARD);
  return shard !== undefined && lastEvidence(shard, ALL_SESSIONS, listId) !== undefined;
}

/** See liveEvidenceOf: the transcripts to look at, or undefined for all of them. */
function transcriptsThatMayBeOn(index: SessionIndex, listId: string, tiedOnly = false): Map<string, string> | undefined {
  const shard = index.store.cache?.shard(EVIDENCE_SHARD);
  const last = shard === undefined ? undefined : lastEvidence(shard, ALL_SESSIONS, listId, !tiedOnly);
  if (last === undefined) return undefined;
  const found = new Map<string, string>();
  const { sessions, folders } = index.sessionsAProcessMayBeOn();
  for (const { project, stamp } of index.projectFoldersNow()) {
    const was = last.folders.get(project);
    if (folders.has(project) || stamp === undefined || was === undefined || !sameStamp(was, stamp))
      for (const [id, transcript] of index.transcriptsIn(project)) found.set(id, transcript);
  }
  for (const id of [...last.sessions, ...sessions]) {
    if (found.has(id)) continue;
    const transcript = index.transcriptOf(id);
    if (transcript !== undefined) found.set(id, transcript);
  }
  return found;
}

function writtenSince(index: SessionIndex, file: string, since: number): boolean {
  return (index.store.statOf(file)?.mtimeMs ?? 0) >= since;
}

/**
 * The list folders' names (those a list id can name), each folder once: another name of
 * one (a symlink to it, list-aliases.ts) holds the same files, and would make every
 * session of the list look unsure between the two.
 */
function listNames(configDir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(tasksRoot(configDir), { withFileTypes: true });
  } catch {
    return [];
  }
  const names = entries.filter((e) => (e.isDirectory() || e.isSymbolicLink()) && sanitizeListId(e.name) === e.name).map((e) => e.name);
  // The same listing tells the links among them: tasks/ is read once.
  const aliases = listAliases(configDir, names, entries);
  return aliases.size === 0 ? names : names.filter((n) => !aliases.has(n));
}

/**
 * Every list a session of `listId` is tied to, as sessionsOfList with `deep` (and `kept`)
 * finds it there: its own lists and those the transcripts' evidence places its tasks in.
 * A session resumed under another CLAUDE_CODE_TASK_LIST_ID has two (session-segments.ts
 * splits its changes between them).
 */
export function listsTiedTo(index: SessionIndex, sessionId: string, listId: string, opts: { kept?: boolean } = {}): string[] {
  const lists = new Set(index.listsOfSession(sessionId));
  const evidence = opts.kept ? keptEvidenceOf(index, listId) : evidenceOf(index);
  let bySession = listsBySession.get(evidence);
  if (bySession === undefined) {
    bySession = new Map();
    for (const [list, tied] of evidence.sessionsByList)
      for (const id of tied) {
        const of = bySession.get(id);
        if (of === undefined) bySession.set(id, [list]);
        else of.push(list);
      }
    listsBySession.set(evidence, bySession);
  }
  for (const list of bySession.get(sessionId) ?? []) lists.add(list);
  lists.add(listId);
  return [...lists];
}

/** Each evidence's lists by session, worked out once (a year of sessions asks it of every one). */
const listsBySession = new WeakMap<Evidence, Map<string, string[]>>();
