import { evidenceOf } from '../sessions/list-sessions.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { isTaskId, MAX_ALLOCATABLE_ID } from '../store/ids.js';
import type { RestoreSource } from './restore-sources.js';

/**
 * Sessions that worked on a list through CLAUDE_CODE_TASK_LIST_ID, found by what their
 * transcripts show of its tasks. With the folder removed (or made anew) no file ties
 * them to it, and a transcript never names its list (docs/task-store.md section 10); but
 * a session on the same list saw and wrote the same tasks: the same ids under the same
 * subjects. Two such tasks tie a session to the list (`shares`), and what it shows then
 * counts for the next; one only is a hint, said with the command that reads it. Never a
 * session that has a list of its own on disk, or whose tasks tie it to another list.
 */
export interface SharedSessions {
  shares: RestoreSource[];
  /** Sessions that show one task of the list: they may hold more of it. */
  maybe: string[];
}

/** The (id, subject) pairs a session's transcripts show: tasks seen and written. */
function pairsOf(index: SessionIndex, sessionId: string, transcript: string): Map<string, Set<string>> {
  const pairs = new Map<string, Set<string>>();
  const add = (id: string, subject: string | undefined) => {
    if (subject === undefined || !isTaskId(id)) return;
    let subjects = pairs.get(id);
    if (subjects === undefined) pairs.set(id, (subjects = new Set()));
    subjects.add(subject);
  };
  for (const { file } of index.sessionFiles(sessionId, transcript)) {
    const read = index.transcriptTasks(file);
    for (const t of read.tasks) add(t.id, t.subject);
    for (const w of read.writes ?? []) add(w.id, w.subject);
  }
  return pairs;
}

export function sharedSessions(index: SessionIndex, listId: string, sources: readonly RestoreSource[]): SharedSessions {
  const known = new Map<string, Set<string>>();
  const learn = (pairs: Map<string, Set<string>>) => {
    for (const [id, subjects] of pairs) {
      const have = known.get(id);
      if (have === undefined) known.set(id, new Set(subjects));
      else for (const s of subjects) have.add(s);
    }
  };
  for (const s of sources) learn(pairsOf(index, s.sessionId, s.transcript));
  const taken = new Set(sources.map((s) => s.sessionId));
  const elsewhere = new Set([...evidenceOf(index).sessionsByList].filter(([list]) => list !== listId).flatMap(([, sessions]) => sessions));
  const candidates: Array<{ sessionId: string; transcript: string; pairs: Map<string, Set<string>> }> = [];
  for (const [sessionId, transcript] of index.transcripts()) {
    if (taken.has(sessionId) || elsewhere.has(sessionId) || index.listsOfSession(sessionId).some((l) => l !== listId)) continue;
    const pairs = pairsOf(index, sessionId, transcript);
    if (pairs.size > 0) candidates.push({ sessionId, transcript, pairs });
  }
  const matches = (pairs: Map<string, Set<string>>) =>
    [...pairs].filter(([id, subjects]) => [...subjects].some((s) => known.get(id)?.has(s))).length;
  const shares: RestoreSource[] = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of candidates) {
      if (taken.has(c.sessionId) || matches(c.pairs) < 2) continue;
      taken.add(c.sessionId);
      shares.push({ sessionId: c.sessionId, transcript: c.transcript, why: 'shares' });
      learn(c.pairs);
      grew = true;
    }
  }
  const maybe = candidates.filter((c) => !taken.has(c.sessionId) && matches(c.pairs) === 1).map((c) => c.sessionId);
  return { shares, maybe };
}

/** The highest task id the sources' transcripts show, seen or written (0 when none); none past what Claude Code hands out. */
export function highestIdSeen(index: SessionIndex, sources: readonly RestoreSource[]): bigint {
  let highest = 0n;
  for (const s of sources) {
    for (const { file } of index.sessionFiles(s.sessionId, s.transcript)) {
      const read = index.transcriptTasks(file);
      for (const id of [...read.tasks.map((t) => t.id), ...(read.writes ?? []).map((w) => w.id)])
        if (isTaskId(id) && BigInt(id) <= MAX_ALLOCATABLE_ID && BigInt(id) > highest) highest = BigInt(id);
    }
  }
  return highest;
}
