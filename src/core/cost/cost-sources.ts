import { pushAll } from '../base/many-items.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { listAt, onListAt, readMoves } from '../sessions/session-moves.js';
import { awayFromLists, movedOnto, sessionMovesOf } from '../sessions/session-segments.js';
import type { SessionWork, StatusMark, UsageMessage } from './cost-rule.js';
import { placeOpenRun } from './usage-scan.js';
import type { UsageStore } from './usage-store.js';

/**
 * What the cost rule works on, read for a set of lists: each list's sessions (with their
 * subagents) and what their transcripts used, and every status change, from the
 * transcripts (a session's own TaskUpdate calls, applied to each list its Task tools work
 * on) and from each list's journal (changes made with `tasks`).
 */
export interface CostSources {
  works: SessionWork[];
  marks: StatusMark[];
  /** Session id -> the lists it works on here, the one its unattributed work counts in first. */
  sessionLists: Map<string, string[]>;
  sessions: Map<string, SessionInfo>;
  /** `list\0task` -> a subject a transcript gave it. */
  subjects: Map<string, string>;
  /** `list\0task` -> [subject, owner] as it was deleted (the journal). */
  deleted: Map<string, [string, string | null]>;
}

export interface ListTarget {
  id: string;
  dir: string;
}

export const taskKey = (list: string, task: string) => `${list}\u0000${task}`;

/** A session's transcript files (its own, its subagents'). */
export function filesOf(index: SessionIndex, s: SessionInfo): string[] {
  return s.transcript === undefined ? [] : index.sessionFiles(s.sessionId, s.transcript).map((f) => f.file);
}

/** The sessions to read and the journals' marks: what a cost reads, before any transcript is. */
export interface CostPlan {
  lists: readonly ListTarget[];
  sessions: Map<string, SessionInfo>;
  sessionLists: Map<string, string[]>;
  /**
   * Session id -> the lists its own Task tools worked on (found so by the list's sessions),
   * which its transcript's status changes apply to. A list a journal entry alone ties it to
   * (`tasks --as` run from its shell) is not one: its Task calls went to its own list, whose
   * ids the other list may have too.
   */
  toolLists: Map<string, string[]>;
  journalMarks: StatusMark[];
  deleted: Map<string, [string, string | null]>;
  /**
   * Session id -> every list its transcript ties it to, where it is more than one (a
   * session resumed under another list): its status changes count in each list only
   * while it was on that list (session-segments.ts).
   */
  tiedLists: Map<string, readonly string[]>;
  /** A session's moves between lists, as `log` reads them (session-segments.ts sessionMovesOf). */
  movesOf: ReturnType<typeof sessionMovesOf>;
}

/**
 * The lists' sessions, each once, with the lists each works on (in the order the lists
 * are given; a session's own list first), and the sessions the journals name: an agent
 * that ran `tasks --as` from a Claude Code session may have used no Task tool there.
 */
export function planCost(
  index: SessionIndex,
  lists: readonly ListTarget[],
  sessionsOf: (listId: string) => readonly SessionInfo[],
  store: UsageStore,
  tiedTo?: (sessionId: string, listId: string) => readonly string[],
): CostPlan {
  const sessions = new Map<string, SessionInfo>();
  const sessionLists = new Map<string, string[]>();
  const toolLists = new Map<string, string[]>();
  const add = (s: SessionInfo, list: string) => {
    sessions.set(s.sessionId, s);
    const own = sessionLists.get(s.sessionId) ?? [];
    if (own.includes(list)) return;
    if (list === s.sessionId) own.unshift(list);
    else own.push(list);
    sessionLists.set(s.sessionId, own);
  };
  const journalMarks: StatusMark[] = [];
  const deleted = new Map<string, [string, string | null]>();
  const recorded = readMoves(index.configDir);
  for (const list of lists) {
    const found = new Set<string>();
    for (const s of sessionsOf(list.id)) {
      add(s, list.id);
      found.add(s.sessionId);
      toolLists.set(s.sessionId, [...(toolLists.get(s.sessionId) ?? []), list.id]);
    }
    // A session `tasks use` moved to or from the list worked on it, on its side of the move.
    for (const id of movedOnto(recorded, list.id)) {
      const s = found.has(id) ? undefined : index.session(id);
      if (s === undefined) continue;
      add(s, list.id);
      toolLists.set(id, [...(toolLists.get(id) ?? []), list.id]);
    }
    for (const generation of store.journal(list.dir)) {
      for (const [at, task, status, session] of generation.marks)
        journalMarks.push({ at, list: list.id, task, status, ...(session === null ? {} : { session }) });
      for (const [task, was] of generation.deleted) deleted.set(taskKey(list.id, task), was);
    }
  }
  for (const m of journalMarks) {
    if (m.session === undefined || m.status !== 'in_progress' || sessionLists.get(m.session)?.includes(m.list)) continue;
    const s = index.session(m.session);
    if (s !== undefined) add(s, m.list);
  }
  const tiedLists = new Map<string, readonly string[]>();
  if (tiedTo !== undefined)
    for (const [id, own] of toolLists) {
      const tied = tiedTo(id, own[0] as string);
      if (tied.length > 1) tiedLists.set(id, tied);
    }
  const movesOf = sessionMovesOf(index, (lists[0] as ListTarget | undefined)?.id ?? '', { recorded });
  return { lists, sessions, sessionLists, toolLists, journalMarks, deleted, tiedLists, movesOf };
}

/** Every transcript a plan reads. */
export function planFiles(index: SessionIndex, plan: CostPlan): string[] {
  return [...plan.sessions.values()].flatMap((s) => filesOf(index, s));
}

export function readCostSources(index: SessionIndex, plan: CostPlan, store: UsageStore, now: number): CostSources {
  const works: SessionWork[] = [];
  const marks: StatusMark[] = [...plan.journalMarks];
  const subjects = new Map<string, string>();
  for (const [id, info] of plan.sessions) {
    const own = plan.toolLists.get(id) ?? [];
    const messages: UsageMessage[] = [];
    const gaps: Array<{ from: number; to: number }> = [];
    const start = runningSince(index, info);
    const unsure: Array<{ from: number; to: number }> = [];
    let last = info.lastActivity ?? Number.NEGATIVE_INFINITY;
    const usages = filesOf(index, info).map((file) => store.usage(file));
    for (const usage of usages) {
      pushAll(gaps, usage.gaps);
      pushAll(gaps, placeOpenRun(usage.open, start).gaps);
    }
    // A session that moved between lists (tasks use, or resumed under another): each message and change in the list it was on then.
    const moves = plan.movesOf(info, { tied: plan.tiedLists.get(id) ?? [], runStarts: gaps.map((g) => g.to) });
    const away = moves === undefined ? [] : awayFromLists(moves);
    const asked = new Set(plan.lists.map((l) => l.id));
    for (const usage of usages) {
      if (moves === undefined) pushAll(messages, usage.messages);
      else
        for (const m of usage.messages) {
          // Each message in the list its session was on when it began; one on a list not asked for is that list's.
          const list = Number.isFinite(m.at) ? listAt(moves, m.at) : undefined;
          if (list === undefined || asked.has(list)) messages.push({ ...m, list });
        }
      pushAll(unsure, usage.unsure);
      pushAll(unsure, placeOpenRun(usage.open, start).unsure);
      for (const m of usage.messages) if (m.at > last) last = m.at;
      for (const m of usage.marks) {
        if (m.at > last) last = m.at;
        for (const list of own)
          if (onListAt(moves, list, m.at)) marks.push({ at: m.at, list, task: m.task, status: m.status, session: id });
      }
      // Each list's task named by what the session gave it while on that list: another list's task of that id is another task.
      for (const { at, task, subject } of usage.subjects)
        for (const list of own) if (onListAt(moves, list, at)) subjects.set(taskKey(list, task), subject);
    }
    // Oldest first (a message with no time last): the order the rule turns odd tokens in.
    messages.sort((a, b) => (Number.isNaN(a.at) ? 1 : Number.isNaN(b.at) ? -1 : a.at - b.at));
    works.push({
      session: id,
      messages,
      end: info.state === 'live' || !Number.isFinite(last) ? now : Math.min(last, now),
      gaps,
      unsure,
      ...(away.length === 0 ? {} : { away }),
    });
  }
  return { works, marks, sessionLists: plan.sessionLists, sessions: plan.sessions, subjects, deleted: plan.deleted };
}

/**
 * When the process that runs a live session now started (a moment at or before it), from
 * its live-session file's process as /proc has it; undefined when none runs or it cannot
 * be known here.
 */
function runningSince(index: SessionIndex, info: SessionInfo): number | undefined {
  if (info.state !== 'live' || index.probe.startedAt === undefined) return undefined;
  for (const f of index.liveSessionFiles()) {
    // Its own start time, as the file names it: a reused pid's would be another process's.
    if (f.sessionId !== info.sessionId || f.procStart === undefined || index.verdict(f) !== 'running') continue;
    if (index.probe.startTime(f.pid) === f.procStart) return index.probe.startedAt(f.procStart);
  }
  return undefined;
}
