import { readBinding } from '../core/binding/project-binding.js';
import type { SettingsPlaces } from '../core/binding/settings-files.js';
import { blockerAnswers, countTasks, indexTasks, isReady, type TaskBlockers } from '../core/graph/blockers.js';
import { crashedRunsOf } from '../core/history/crashed-author.js';
import { confirmedEntries, readJournal } from '../core/history/journal-read.js';
import { goneHeldInProgress, goneHeldTasks } from '../core/history/list-owners.js';
import { createdOutsideRecord, readTimeline } from '../core/history/timeline.js';
import { type Command, undoStack } from '../core/history/undo-stack.js';
import { lastChange } from '../core/lists/list-choice.js';
import { sessionsInShowOrder } from '../core/lists/list-summary.js';
import { type ListsRow, listsView } from '../core/lists/lists-view.js';
import { listAtWork, noRestingWork, stalledInList, timesAsSeen } from '../core/progress/stalled-work.js';
import { clearOf } from '../core/sessions/cleared-lists.js';
import { type GoneHeld, listLife } from '../core/sessions/gone-owners.js';
import { sessionsOfList, unsureSessionsOf } from '../core/sessions/list-sessions.js';
import type { SessionIndex, SessionInfo } from '../core/sessions/session-index.js';
import { sessionMovesOf } from '../core/sessions/session-segments.js';
import type { Todo } from '../core/sessions/transcript-tasks.js';
import { compareIds } from '../core/store/ids.js';
import type { FileProblem } from '../core/store/list-read.js';
import { listDirOf } from '../core/store/paths.js';
import { isInternal, type Task } from '../core/store/schema.js';
import { taskFileTimes } from '../core/store/task-times.js';
import { type Team, teamMembers } from '../core/teams/teams.js';
import { renderUnsureSessions } from '../render/lists-table.js';
import { logEventWords, renderLogNotes, renderUnrecordedCreations } from '../render/log-lines.js';
import { stateText, tildePath } from '../render/session-text.js';
import type {
  AgentGoneView,
  BindingView,
  BoardTask,
  HistoryEventView,
  HistoryPayload,
  ListKind,
  ListPayload,
  ListRowView,
  OverviewPayload,
  SessionView,
  StackChangeView,
  TaskFacts,
} from './board-protocol.js';

/**
 * The board's data, made from core's answers and in the CLI's words: the overview of
 * every list as `tasks lists` builds it (the same core call: sessions, named lists' and
 * TodoWrite sessions, live sessions' lists before their first task, `/clear`), one list
 * with what core says of each task (blocked, ready, stalled, gone owner), and a task's
 * history as `tasks log <id>` reads and says it. Reads only, without locks, as agents read.
 */
export interface BoardContext {
  configDir: string;
  /** The home folder, resolved: shown as ~ in projects. */
  home: string;
  /** The person's login name: never a gone owner. */
  person: string | undefined;
  stalledAfterMs: number;
  now: () => number;
  /** Where Claude Code's settings are read: the binding of the board's folder. */
  settings: SettingsPlaces | undefined;
  /** The folder the board was started in (undefined: deleted). */
  projectDir: string | undefined;
  /** The user's price file (core/cost/price-file.ts), if one may be there. */
  pricesFile?: string | undefined;
  /** When the board started (the overview says it). */
  startedAt?: number | undefined;
}

/** TodoWrite sessions shown before "more", as `tasks lists` shows them without --all. */
export const TODOWRITE_SHOWN = 20;

/**
 * The session index the board reads through, made anew when the board reads the
 * overview again, and whenever the live-session files changed since it was made (a
 * session started, ended, or turned busy or idle: `stamp`, live-sessions.ts): an answer
 * about who is at work (a list done, work gone to release) never comes from before a
 * session began. Otherwise every answer between two reads comes from the same index, and
 * what it worked out (named lists' sessions, from the transcripts) is worked out once.
 * What the transcripts said is kept in the persistent cache that every index of the
 * board shares.
 */
export class Sessions {
  private index: SessionIndex | undefined;
  /** When the index was made (ms since the epoch). */
  private madeAt = 0;
  /** The live-session files as they were when it was made. */
  private madeStamp = '';

  constructor(
    private readonly make: () => SessionIndex,
    private readonly clock: () => number = Date.now,
    private readonly stamp: () => string = () => '',
  ) {}

  get current(): SessionIndex {
    if (this.index === undefined || this.stamp() !== this.madeStamp) this.renew();
    return this.index as SessionIndex;
  }

  renew(): SessionIndex {
    this.save();
    // Taken before the index reads anything: a file changed while it reads makes it stale, never the other way.
    this.madeStamp = this.stamp();
    this.index = this.make();
    this.madeAt = this.clock();
    return this.index;
  }

  /** The index, made again first when it is older than `maxAgeMs` (for a reader nothing else keeps current). */
  within(maxAgeMs: number): SessionIndex {
    return this.clock() - this.madeAt > maxAgeMs ? this.renew() : this.current;
  }

  /** Keep what the index worked out for the next read (a cache that cannot be written only costs time). */
  save(): void {
    try {
      this.index?.saveCache();
    } catch {
      // Only costs the next read time.
    }
  }
}

function look(s: SessionInfo): SessionView['look'] {
  if (s.state === 'live') return s.activity ?? 'live';
  // Marked cleared only when sure; the words (stateText) say "probably cleared" otherwise.
  if (clearOf(s)?.sure === true) return 'cleared';
  return s.state;
}

export function sessionView(s: SessionInfo, home: string): SessionView {
  return {
    sessionId: s.sessionId,
    state: s.state,
    activity: s.activity ?? null,
    stateText: stateText(s),
    look: look(s),
    replacedBy: s.replacedBy ?? null,
    name: s.name ?? null,
    project: s.cwd === undefined ? null : tildePath(s.cwd, home),
    branch: s.branch ?? null,
    prompt: s.prompt ?? null,
    lastActivity: s.lastActivity ?? null,
  };
}

function teamView(team: Team | undefined): ListsRow['team'] {
  return team === undefined ? undefined : { name: team.name, members: teamMembers(team) };
}

/** Sessions a row carries: a list shared by many sessions says how many, and shows the first few. */
const SESSIONS_SHOWN = 5;

/** A row of the overview (`tasks lists` without --all has no list whose folder is gone), with its team. */
export type BoardRow = ListsRow & { kind: ListKind };

export function rowView(l: BoardRow, team: ListsRow['team'], home: string): ListRowView {
  const sessions = l.sessions.slice(0, SESSIONS_SHOWN).map((s) => sessionView(s, home));
  return {
    id: l.id,
    shortId: l.shortId,
    kind: l.kind,
    total: l.total,
    counts: l.counts,
    problems: l.problems,
    changedAt: l.changedAt,
    session: sessions[0] ?? null,
    others: sessions.slice(1),
    sessionCount: l.sessions.length,
    unsure: l.unsure?.length ?? 0,
    team: team ?? null,
  };
}

/** The overview: every row of `tasks lists --json`, by the same core call (listsView), each with its team. */
export function readOverview(ctx: BoardContext, index: SessionIndex): BoardRow[] {
  return listsView(ctx.configDir, index, { live: false }).lists.filter((l): l is BoardRow => l.kind !== 'gone');
}

export function overviewPayload(ctx: BoardContext, lists: readonly BoardRow[], readOnly: boolean): OverviewPayload {
  return {
    at: ctx.now(),
    readOnly,
    lists: lists.map((l) => rowView(l, l.team, ctx.home)),
    binding: bindingView(ctx),
    unsureNotes: renderUnsureSessions(lists),
    todoWriteShown: TODOWRITE_SHOWN,
    ...(ctx.startedAt === undefined ? {} : { startedAt: ctx.startedAt }),
  };
}

/** When a row's last change, dated ahead of the clock, was first seen so: its time, and then. */
export type RowsSeen = Map<string, { at: number; first: number }>;

/**
 * A row whose last change is dated ahead of the clock, with when the board first saw that
 * time (`seenAt`) and by how much it is ahead: the same first sight as its card and the
 * Now view count from (`tasksSeen`, stalled-work.ts timesAsSeen: task id and file time ->
 * when) where a task's file gives the row its time; else its own, kept in `rowsSeen`
 * from one read to the next. Not ahead (any more): the row as it is.
 */
export function rowAsSeen<R extends Pick<ListRowView, 'id' | 'changedAt' | 'seenAt' | 'aheadMs'>>(
  row: R,
  tasksSeen: ReadonlyMap<string, number>,
  rowsSeen: RowsSeen,
  now: number,
): R {
  const at = row.changedAt;
  if (at <= now) {
    rowsSeen.delete(row.id);
    return row;
  }
  let first: number | undefined;
  for (const [key, seen] of tasksSeen) if (key.endsWith(`|${at}`)) first = Math.min(first ?? seen, seen);
  const own = rowsSeen.get(row.id);
  first ??= own?.at === at ? own.first : now;
  rowsSeen.set(row.id, { at, first });
  const aheadMs = Math.round(at - first);
  return aheadMs >= 1000 ? { ...row, seenAt: first, aheadMs } : row;
}

/**
 * A session whose last activity is dated ahead of the clock, with when the board first saw
 * that time and by how much it is ahead, kept in `seen` (by session id) from one read to
 * the next, as a row's own time is (rowAsSeen). Not ahead (any more): the session as it is.
 */
export function sessionAsSeen(s: SessionView, seen: RowsSeen, now: number): SessionView {
  if (s.lastActivity === null) return s;
  const { seenAt, aheadMs } = sessionTimeAsSeen(s.sessionId, s.lastActivity, seen, now);
  return seenAt === undefined || aheadMs === undefined ? s : { ...s, seenAt, aheadMs };
}

/** A session's time `at`, dated ahead of the clock: when the board first saw it, and by how much (rowAsSeen). */
function sessionTimeAsSeen(sessionId: string, at: number, seen: RowsSeen, now: number): { seenAt?: number; aheadMs?: number } {
  const time: Pick<ListRowView, 'id' | 'changedAt' | 'seenAt' | 'aheadMs'> = { id: sessionId, changedAt: at };
  return rowAsSeen(time, NONE_SEEN, seen, now);
}

/**
 * A list's tasks whose agent is gone, that agent's session last at work at a time dated
 * ahead of the clock: since when the board first saw that time, and by how much it is
 * ahead, from the same first sights as the session's pill in the list's head (`seen`).
 */
export function agentsGoneAsSeen(facts: Record<string, TaskFacts>, seen: RowsSeen, now: number): Record<string, TaskFacts> {
  const out: Record<string, TaskFacts> = {};
  for (const [id, f] of Object.entries(facts)) {
    const gone = f.agentGone;
    if (gone?.since == null || gone.session === null) {
      out[id] = f;
      continue;
    }
    const { seenAt, aheadMs } = sessionTimeAsSeen(gone.session, gone.since, seen, now);
    out[id] = seenAt === undefined || aheadMs === undefined ? f : { ...f, agentGone: { ...gone, since: seenAt, aheadMs } };
  }
  return out;
}

/** A session's time is its transcript's: no task file's first sight is its. */
const NONE_SEEN: ReadonlyMap<string, number> = new Map();

/** A row with its sessions dated ahead counted from when the board first saw them (sessionAsSeen). */
export function sessionsAsSeen(row: ListRowView, seen: RowsSeen, now: number): ListRowView {
  return {
    ...row,
    session: row.session === null ? null : sessionAsSeen(row.session, seen, now),
    others: row.others.map((s) => sessionAsSeen(s, seen, now)),
  };
}

/**
 * A change to undo or redo made at a time dated ahead of the clock: with when the board
 * first saw it (kept in `seen` by list and change from one read to the next) and by how
 * much it is ahead, as a list's row has them (rowAsSeen). Not ahead: the change as it is.
 */
export function changeAsSeen(change: StackChangeView | null, listId: string, seen: RowsSeen, now: number): StackChangeView | null {
  if (change === null) return null;
  const at = Date.parse(change.at);
  const id = `${listId}|${change.txn}`;
  // Not ahead (any more), or no time at all: as it is.
  if (!(at > now)) {
    seen.delete(id);
    return change;
  }
  const time: Pick<ListRowView, 'id' | 'changedAt' | 'seenAt' | 'aheadMs'> = { id, changedAt: at };
  const { seenAt, aheadMs } = rowAsSeen(time, NONE_SEEN, seen, now);
  return seenAt === undefined || aheadMs === undefined ? change : { ...change, seenAt, aheadMs };
}

/** The list the board's folder is bound to (`tasks use`), as `tasks use` reads it there. */
function bindingView(ctx: BoardContext): BindingView | null {
  if (ctx.settings === undefined || ctx.projectDir === undefined) return null;
  const binding = readBinding(ctx.projectDir, ctx.settings).binding;
  // An empty value binds sessions to their own lists: no one list.
  return binding?.listId === undefined ? null : { list: binding.listId, file: tildePath(binding.file, ctx.home), scope: binding.scope };
}

const taskIdsOf = (cmds: readonly Command[]) =>
  [...new Set(cmds.flatMap((cmd) => cmd.entries.flatMap((e) => e.changes.flatMap((c) => ('id' in c ? [c.id] : [])))))].sort(compareIds);

function changeView(cmd: Command | undefined): StackChangeView | null {
  if (cmd === undefined) return null;
  return { txn: cmd.txn, command: cmd.command, actor: { kind: cmd.actor.kind, name: cmd.actor.name }, at: cmd.at, tasks: taskIdsOf([cmd]) };
}

/**
 * The undo stack's two ends: what `tasks undo` would take back now, and what `tasks redo`
 * would apply again; or the undo or redo stopped half-way, which the next undo finishes.
 */
export function stackEnds(listDir: string): { undo: StackChangeView | null; redo: StackChangeView | null } {
  const stack = undoStack(confirmedEntries(readJournal(listDir).entries, listDir));
  const i = stack.interrupted;
  if (i !== undefined) {
    const undo = {
      txn: i.txn,
      command: i.action,
      actor: { kind: i.actor.kind, name: i.actor.name },
      at: i.at,
      tasks: taskIdsOf(i.targets),
    };
    return { undo: { ...undo, finishing: true }, redo: null };
  }
  return { undo: changeView(stack.done.at(-1)), redo: changeView(stack.redoable.at(-1)?.[0]) };
}

/** A list's sessions as `tasks lists` ties them (named lists' by their transcripts), live first, then the latest. */
export function sessionsOf(index: SessionIndex, listId: string): SessionInfo[] {
  return sessionsInShowOrder(sessionsOfList(index, listId, { deep: true }));
}

/** A list's row from its counts as just read, with its sessions (as `tasks lists` ties them) and team. */
export function rowOf(
  ctx: BoardContext,
  index: SessionIndex,
  summary: Pick<ListRowView, 'id' | 'kind' | 'counts' | 'total' | 'problems'> & { changedAt?: number },
  shortId: string,
  team: Team | undefined,
): ListRowView {
  const all = sessionsOf(index, summary.id);
  const sessions = all.slice(0, SESSIONS_SHOWN).map((s) => sessionView(s, ctx.home));
  return {
    id: summary.id,
    shortId,
    kind: summary.kind,
    total: summary.total,
    counts: summary.counts,
    problems: summary.problems,
    changedAt:
      summary.changedAt ?? (summary.kind === 'tasks' ? lastChange(listDirOf(ctx.configDir, summary.id)) : (sessions[0]?.lastActivity ?? 0)),
    session: sessions[0] ?? null,
    others: sessions.slice(1),
    sessionCount: all.length,
    unsure: unsureSessionsOf(index, summary.id).length,
    team: teamView(team) ?? null,
  };
}

/**
 * One list as the board shows it: every task with core's facts about it. `aheadSeen`, kept
 * by the caller from one read of the list to the next: when each task file dated ahead of
 * the clock was first seen so (stalled-work.ts timesAsSeen), its stall counted from then,
 * as `tasks watch` and `tasks notify` count it.
 */
export function listPayload(
  ctx: BoardContext,
  index: SessionIndex,
  listId: string,
  state: { exists: boolean; tasks: readonly Task[]; problems: readonly FileProblem[]; unreadable?: string | undefined },
  shortId: (id: string) => string,
  team: Team | undefined,
  known: BoardRow | undefined,
  aheadSeen: Map<string, number> = new Map(),
): ListPayload {
  const dir = listDirOf(ctx.configDir, listId);
  const now = ctx.now();
  const kind: ListKind = state.exists ? 'tasks' : (known?.kind ?? 'new');
  const tasks = [...state.tasks].sort((a, b) => compareIds(a.id, b.id));
  const byId = indexTasks(tasks);
  const fileTimes = taskFileTimes(
    dir,
    tasks.map((t) => t.id),
  );
  // A file dated ahead of the clock (skew, a copy, a VM resumed) counts from when it was first seen so.
  const times = timesAsSeen(fileTimes, aheadSeen, now);
  // A session at work holds every stall back; else a task in progress stalls once unchanged for
  // stalledAfterMs, which the page counts on by itself between reads (nothing on disk changes then).
  // A task whose session waits for a person is waiting, never stalled (stalledInList says which).
  const atWork = tasks.some((t) => t.status === 'in_progress') && listAtWork(index, listId, ctx.stalledAfterMs, now) === true;
  const { stalled, waiting } = atWork
    ? noRestingWork()
    : stalledInList(dir, listId, tasks, { afterMs: ctx.stalledAfterMs, now, sessions: index, times });
  // As release --gone judges them: a named list's sessions found by their transcripts, and an owner's task
  // marked gone only where the release would give it back (not while a live session, a fork of its session
  // among them, may go on with it).
  const released = state.exists ? goneHeldTasks(index, dir, listId, ctx.person, tasks) : undefined;
  const gone = released?.gone;
  const ownerGoneIds = new Set((released?.held ?? []).filter((h) => !h.unowned).map((h) => h.task.id));
  // Tasks in progress with no owner whose agent is gone (owners are judged above, not again); no session read without one.
  const held = state.exists ? goneHeldInProgress(index, dir, listId, ctx.person, tasks) : new Map<string, GoneHeld>();
  const life = state.exists ? listLife(index, listId, { deep: true }).life : undefined;
  // The blockers as the list, graph and export views are told them.
  const blockers = blockerAnswers(tasks, byId);
  const facts: Record<string, TaskFacts> = {};
  for (const t of tasks) {
    const stalledMs = stalled.get(t.id);
    const on = waiting.get(t.id);
    const changedAt = times.get(t.id);
    const fileTime = fileTimes.get(t.id);
    const aheadMs = fileTime === undefined || changedAt === undefined ? 0 : Math.round(fileTime - changedAt);
    const b = blockers.get(t.id) as TaskBlockers;
    const unfinished = t.status !== 'completed';
    // One whose owner is gone is marked by its owner (ownerGone), as `tasks list` does.
    const agentGone = held.get(t.id);
    facts[t.id] = {
      blocked: b.blocked,
      ready: isReady(t, byId),
      internal: isInternal(t),
      openBlockers: unfinished ? [...b.open] : [],
      missingBlockers: unfinished ? [...b.missing] : [],
      ownerGone: ownerGoneIds.has(t.id),
      ...(stalledMs === undefined ? {} : { stalledMs }),
      ...(agentGone?.unowned === true ? { agentGone: agentGoneView(agentGone) } : {}),
      ...(on === undefined ? {} : { waitingFor: on.waitingFor ?? null }),
      ...(changedAt === undefined ? {} : { changedAt }),
      ...(aheadMs >= 1000 ? { aheadMs } : {}),
    };
  }
  const todos = kind === 'todowrite' ? todoViews(known?.todos ?? []) : [];
  const { pending, in_progress, completed } = countTasks(tasks, byId);
  const row =
    kind === 'todowrite' && known !== undefined
      ? rowView(known, teamView(team), ctx.home)
      : rowOf(
          ctx,
          index,
          { id: listId, kind, counts: { pending, in_progress, completed }, total: tasks.length, problems: state.problems.length },
          shortId(listId),
          team,
        );
  return {
    at: now,
    id: listId,
    kind,
    exists: state.exists,
    tasks: tasks as BoardTask[],
    todos,
    facts,
    row,
    goneWhy: gone?.why ?? null,
    life: life === undefined ? null : { why: life.why, busy: life.busy },
    problems: state.problems.map((p) => ({ file: p.file, reason: p.reason })),
    unreadable: state.unreadable ?? null,
    ...(state.exists ? stackEnds(dir) : { undo: null, redo: null }),
    stalledAfterMs: ctx.stalledAfterMs,
    atWork,
  };
}

function agentGoneView(h: GoneHeld): AgentGoneView {
  return { session: h.session?.sessionId ?? null, why: h.why, since: h.session?.lastActivity ?? null };
}

function todoViews(todos: readonly Todo[]): ListPayload['todos'] {
  return todos.map((t) => ({ content: t.content, status: t.status, ...(t.activeForm ? { activeForm: t.activeForm } : {}) }));
}

/**
 * A task's recorded changes, oldest first, as `tasks log <id>` reads them (the journal,
 * and the transcripts of the list's sessions, a named list's found by their tasks) and
 * says them, with the notes it prints before them.
 */
export async function historyPayload(
  ctx: BoardContext,
  index: SessionIndex,
  listId: string,
  taskId: string,
  seen: RowsSeen = new Map(),
): Promise<HistoryPayload> {
  const movesOf = sessionMovesOf(index, listId);
  const sessions = sessionsOfList(index, listId, { deep: true });
  const timeline = await readTimeline(listDirOf(ctx.configDir, listId), {
    listId,
    sessions,
    movesOf: (s) => movesOf(s),
    unrecorded: true,
    crashedRuns: crashedRunsOf(index, sessions),
  });
  const events = timeline.events.filter((e) => e.task === taskId);
  const notes = renderLogNotes(timeline, taskId);
  const outside = renderUnrecordedCreations(createdOutsideRecord(timeline.events, [taskId]));
  if (outside !== undefined) notes.push(outside);
  const now = ctx.now();
  return {
    events: events.map((e) => {
      const words = logEventWords(e);
      const view: HistoryEventView = {
        at: e.at,
        task: e.task,
        op: e.op,
        who: { kind: e.who.kind, text: words.who },
        what: words.what,
        source: e.source,
        command: e.command,
        txn: e.txn,
      };
      return recordAsSeen(view, listId, seen, now);
    }),
    notes,
  };
}

/**
 * A change of the history recorded at a time dated ahead of the clock (a transcript or a
 * journal copied from a machine ahead, clock skew, a VM resumed): with when the board first
 * read it there, kept in `seen` from one read to the next, and by how much it is ahead, as
 * a list's row has them (rowAsSeen). Not ahead: the change as it is.
 */
function recordAsSeen(e: HistoryEventView, listId: string, seen: RowsSeen, now: number): HistoryEventView {
  const at = Date.parse(e.at);
  if (!(at > now)) return e;
  const key: Pick<ListRowView, 'id' | 'changedAt' | 'seenAt' | 'aheadMs'> = {
    id: [listId, e.task, e.source, e.txn ?? '', e.op, e.what].join('|'),
    changedAt: at,
  };
  const { seenAt, aheadMs } = rowAsSeen(key, NONE_SEEN, seen, now);
  return seenAt === undefined || aheadMs === undefined ? e : { ...e, seenAt, aheadMs };
}
