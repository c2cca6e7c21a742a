import { blockerState, countTasks, indexTasks, isBlocked, isReady, missingBlockers } from '../core/graph/blockers.js';
import { confirmedEntries, readJournal } from '../core/history/journal-read.js';
import { goneOwnersOfList } from '../core/history/list-owners.js';
import { readTimeline } from '../core/history/timeline.js';
import { undoStack } from '../core/history/undo-stack.js';
import { lastChange } from '../core/lists/list-choice.js';
import { type ListOverview, listIds, overviewLists, sessionsInShowOrder } from '../core/lists/list-summary.js';
import { shortIds } from '../core/lists/short-ids.js';
import { stalledInList } from '../core/progress/stalled-work.js';
import { sessionsOfList } from '../core/sessions/list-sessions.js';
import { SessionIndex, type SessionInfo } from '../core/sessions/session-index.js';
import { compareIds } from '../core/store/ids.js';
import type { FileProblem } from '../core/store/list-read.js';
import { listDirOf } from '../core/store/paths.js';
import { isInternal, type Task } from '../core/store/schema.js';
import { taskFileTimes } from '../core/store/task-times.js';
import { type Team, teamMembers, teamsByList } from '../core/teams/teams.js';
import { tildePath } from '../render/session-text.js';
import type {
  BoardTask,
  HistoryPayload,
  LastChangeView,
  ListPayload,
  ListRowView,
  OverviewPayload,
  SessionView,
  TaskFacts,
} from './board-protocol.js';

/**
 * The board's data, made from core's answers: the overview of every list (as
 * `tasks lists` builds it), one list with what core says of each task (blocked, ready,
 * stalled, gone owner: as `tasks list` says it), and a task's history (as `tasks log`).
 * Reads only, without locks, as agents read.
 */
export interface BoardContext {
  configDir: string;
  /** The home folder, resolved: shown as ~ in projects. */
  home: string;
  /** The person's login name: never a gone owner. */
  person: string | undefined;
  stalledAfterMs: number;
  now: () => number;
}

/**
 * The session index is kept a little while and then made anew: a board runs for hours,
 * and sessions start, end and change between busy and idle meanwhile.
 */
export class Sessions {
  private index: SessionIndex | undefined;
  private madeAt = 0;

  constructor(
    private readonly configDir: string,
    private readonly maxAgeMs: number,
    private readonly now: () => number,
  ) {}

  get current(): SessionIndex {
    if (!this.index || this.now() - this.madeAt > this.maxAgeMs) this.renew();
    return this.index as SessionIndex;
  }

  renew(): void {
    this.index = new SessionIndex(this.configDir);
    this.madeAt = this.now();
  }
}

function sessionView(s: SessionInfo | undefined, home: string): SessionView | null {
  if (s === undefined) return null;
  return {
    sessionId: s.sessionId,
    state: s.state,
    activity: s.activity ?? null,
    name: s.name ?? null,
    project: s.cwd === undefined ? null : tildePath(s.cwd, home),
    branch: s.branch ?? null,
    prompt: s.prompt ?? null,
    lastPrompt: s.lastPrompt ?? null,
    lastActivity: s.lastActivity ?? null,
  };
}

function teamView(team: Team | undefined): ListRowView['team'] {
  return team === undefined ? null : { name: team.name, members: teamMembers(team) };
}

export function rowView(l: ListOverview, team: Team | undefined, home: string): ListRowView {
  return {
    id: l.id,
    shortId: l.shortId,
    total: l.total,
    counts: l.counts,
    problems: l.problems,
    changedAt: l.changedAt,
    session: sessionView(l.sessions[0], home),
    sessions: l.sessions.length,
    team: teamView(team),
  };
}

export function overviewPayload(ctx: BoardContext, index: SessionIndex, readOnly: boolean): OverviewPayload {
  const { byList } = teamsByList(ctx.configDir);
  return {
    at: ctx.now(),
    readOnly,
    lists: overviewLists(ctx.configDir, index, { byTranscripts: false }).map((l) => rowView(l, byList.get(l.id), ctx.home)),
  };
}

/** The change `tasks undo` would take back now: the top of the list's undo stack. */
function lastChangeView(listDir: string): LastChangeView | null {
  const top = undoStack(confirmedEntries(readJournal(listDir).entries, listDir)).done.at(-1);
  if (top === undefined) return null;
  return {
    txn: top.txn,
    command: top.command,
    actor: { kind: top.actor.kind, name: top.actor.name },
    at: top.at,
    tasks: [...new Set(top.entries.flatMap((e) => e.changes.flatMap((c) => ('id' in c ? [c.id] : []))))].sort(compareIds),
  };
}

/** One list as the board shows it: every task with core's facts about it. */
export function listPayload(
  ctx: BoardContext,
  index: SessionIndex,
  listId: string,
  state: { exists: boolean; tasks: readonly Task[]; problems: readonly FileProblem[] },
  shortId: (id: string) => string,
  team: Team | undefined,
): ListPayload {
  const dir = listDirOf(ctx.configDir, listId);
  const tasks = [...state.tasks].sort((a, b) => compareIds(a.id, b.id));
  const byId = indexTasks(tasks);
  const times = taskFileTimes(
    dir,
    tasks.map((t) => t.id),
  );
  const stalled = stalledInList(dir, listId, tasks, { afterMs: ctx.stalledAfterMs, now: ctx.now(), sessions: index });
  const gone = goneOwnersOfList(index, dir, listId, ctx.person);
  const missing = new Map(missingBlockers(tasks, byId).map((m) => [m.id, m.missing]));
  const facts: Record<string, TaskFacts> = {};
  for (const t of tasks) {
    const stalledMs = stalled.get(t.id);
    const changedAt = times.get(t.id);
    facts[t.id] = {
      blocked: isBlocked(t, byId),
      ready: isReady(t, byId),
      internal: isInternal(t),
      openBlockers: t.status === 'completed' ? [] : [...blockerState(t, byId).open],
      missingBlockers: missing.get(t.id) ?? [],
      ownerGone: t.status !== 'completed' && gone?.isGone(t.owner) === true,
      ...(stalledMs === undefined ? {} : { stalledMs }),
      ...(changedAt === undefined ? {} : { changedAt }),
    };
  }
  const { pending, in_progress, completed } = countTasks(tasks, byId);
  const counts = { pending, in_progress, completed };
  const sessions = sessionsInShowOrder(sessionsOfList(index, listId));
  const row: ListRowView = {
    id: listId,
    shortId: shortId(listId),
    total: tasks.length,
    counts,
    problems: state.problems.length,
    changedAt: lastChange(dir),
    session: sessionView(sessions[0], ctx.home),
    sessions: sessions.length,
    team: teamView(team),
  };
  return {
    at: ctx.now(),
    id: listId,
    exists: state.exists,
    tasks: tasks as BoardTask[],
    facts,
    row,
    goneWhy: gone?.why ?? null,
    problems: state.problems.map((p) => ({ file: p.file, reason: p.reason })),
    lastChange: state.exists ? lastChangeView(dir) : null,
    stalledAfterMs: ctx.stalledAfterMs,
  };
}

/** A task's recorded changes, oldest first, as `tasks log <id>` reads them. */
export async function historyPayload(ctx: BoardContext, index: SessionIndex, listId: string, taskId: string): Promise<HistoryPayload> {
  const timeline = await readTimeline(listDirOf(ctx.configDir, listId), {
    listId,
    sessions: sessionsOfList(index, listId),
    unrecorded: true,
  });
  return { events: timeline.events.filter((e) => e.task === taskId) };
}

/** Short ids of every list (as `tasks lists` shows them). */
export function shortIdsNow(configDir: string): Map<string, string> {
  return shortIds(listIds(configDir));
}
