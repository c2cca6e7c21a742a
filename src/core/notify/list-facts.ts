import path from 'node:path';
import { maxOf, pushAll } from '../base/many-items.js';
import { findProblems } from '../check/findings.js';
import { indexTasks } from '../graph/blockers.js';
import { goneHeldTasks, ownersSetWithTasks } from '../history/list-owners.js';
import { listWaiters, stalledInList } from '../progress/stalled-work.js';
import { type BusyOnList, busyOnList, inTurnWaiting } from '../sessions/busy-on-list.js';
import { endOf, listLife } from '../sessions/gone-owners.js';
import { sessionsOfList } from '../sessions/list-sessions.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { scanList } from '../store/list-scan.js';
import type { Task } from '../store/schema.js';
import type { HookRefusal, HookRefusals } from './hook-refusals.js';
import type { ListFacts } from './notify-events.js';
import type { NotifyEventType } from './notify-plan.js';

/**
 * What is known of one list now, for the events asked for: its tasks (as the watcher
 * read them), and only where an event needs it, what the sessions, the journal and a
 * check say. The costly questions (sessions, transcripts) are asked only when some task
 * could be affected: a list with nothing in progress has no stall and no dead agent.
 */
export interface FactsInput {
  listId: string;
  dir: string;
  shortId: string;
  tasks: readonly Task[];
  times: ReadonlyMap<string, number>;
  wanted: ReadonlySet<NotifyEventType>;
  now: number;
  stalledMs: number;
  person: string | undefined;
  home: string;
  /** A session index for this look (shared by the lists looked at together). */
  sessions: () => SessionIndex;
  /** The check errors seen at the last look, by key, with when first seen: an agent's half-written file is not damage. */
  errorsSince: Map<string, number>;
  /** Scan the files for `check` errors: on a change, or while one waits out its grace (else nothing new can be found). */
  checkFiles: boolean;
  /** How long an error must last before it is told (0 for a single look). */
  errorGraceMs: number;
  /** The session this look runs in, never waited for (it is busy for as long as it looks): absent, none is. */
  ownSession?: ((s: BusyOnList) => boolean) | undefined;
  /** What hooks refused, read from the sessions' transcripts as they grow (kept by the caller across looks). */
  refusals?: HookRefusals | undefined;
  /**
   * When the list's work last stopped waiting for a person, as the caller saw it: the
   * stall clock starts again then (the wait was not stalled time).
   */
  waitEndedAt?: number | undefined;
  /** Tasks were open and a session of the list may have been at work at the last look: its end is told, however long ago its last entry. */
  watchEnds?: boolean | undefined;
  /**
   * The sessions seen cleared (`/clear`) at an earlier look, with their last activity then,
   * kept by the caller: once the process exits, a session left by a `/clear` with no turn
   * after it is known cleared by nothing on disk (session-index.ts clearAfterDeath), and
   * would be told as ended. One active since (resumed: `claude --resume` keeps its id) is
   * judged afresh.
   */
  seenCleared?: Map<string, number> | undefined;
}

/** A hook's refusal is news for this long; older ones are not told (a first look, a restart). */
export const REFUSAL_NEWS_MS = 30 * 60_000;
/** A list's last session ended with work left: news for this long, unless it was seen at work (a first look, a restart). */
const WORK_LEFT_NEWS_MS = REFUSAL_NEWS_MS;

/** Forget the sessions seen cleared whose last activity is past any news of their end (a notify that runs for weeks). */
export function forgetOldClears(seenCleared: Map<string, number>, now: number): void {
  for (const [id, at] of seenCleared) if (now - at > 2 * WORK_LEFT_NEWS_MS) seenCleared.delete(id);
}

function shortPath(p: string, home: string): string {
  return home !== '' && (p === home || p.startsWith(home + path.sep)) ? `~${p.slice(home.length)}` : p;
}

export function listFacts(i: FactsInput): ListFacts {
  const index = indexTasks(i.tasks);
  const open = i.tasks.filter((t) => t.status !== 'completed');
  const working = i.tasks.filter((t) => t.status === 'in_progress');
  const needsSessions =
    (i.wanted.has('stalled') && working.length > 0) ||
    (i.wanted.has('agent-died') && working.length > 0) ||
    (i.wanted.has('needs-you') && i.tasks.length > 0);
  const wantsRefusals = i.wanted.has('hook-refused') && i.refusals !== undefined;
  const sessions = needsSessions || wantsRefusals || i.tasks.length > 0 ? i.sessions() : undefined;
  // A named list's sessions are found by their transcripts (deep): where refusals are looked for.
  const ofList = sessions
    ? sessionsOfList(sessions, i.listId, { deep: wantsRefusals }).sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0))
    : [];
  let latest: SessionInfo | undefined = ofList[0];

  const refused: HookRefusal[] = [];
  if (wantsRefusals) {
    for (const s of ofList) {
      if (s.transcript === undefined) continue;
      for (const r of (i.refusals as HookRefusals).of(s.sessionId, s.transcript)) if (i.now - r.at <= REFUSAL_NEWS_MS) refused.push(r);
    }
    refused.sort((a, b) => a.at - b.at);
  }

  const people = new Set<string>();
  // ready-for-person tells of their tasks; work-left leaves them out (a person's, not the agents').
  if ((i.wanted.has('ready-for-person') || i.wanted.has('work-left')) && open.some((t) => t.owner)) {
    if (i.person !== undefined) people.add(i.person);
    for (const p of ownersSetWithTasks(i.dir).people) people.add(p);
  }

  // A session at a permission prompt: needs-you tells of it; its work is not stalled (stalled-work.ts: it waits for a person, not for nothing).
  // Every task completed, a session waits in its turn all the same: that turn may add more,
  // and the list is not told finished meanwhile (busyOnList), so the person is told it waits.
  const waiters =
    i.wanted.has('needs-you') && i.tasks.length > 0 && sessions ? listWaiters(sessions, i.listId, i.dir, working, ofList) : [];
  // With nothing open, only a wait inside a turn matters (a dialog of Claude Code's own is shown between turns too).
  const waiting = open.length > 0 ? waiters : waiters.filter((w) => inTurnWaiting({ activity: 'waiting', waitingFor: w.waitingFor }));

  const resting =
    i.wanted.has('stalled') && working.length > 0 && sessions
      ? stalledInList(i.dir, i.listId, i.tasks, { afterMs: i.stalledMs, now: i.now, sessions, times: i.times })
      : undefined;
  // Nothing stalls sooner than the stall time after a wait for a person ended (answered, or refused with Esc).
  const sinceWait = i.waitEndedAt === undefined ? Number.POSITIVE_INFINITY : i.now - i.waitEndedAt;
  const stalled = resting !== undefined && sinceWait >= i.stalledMs ? resting.stalled : new Map<string, number>();

  const gone: Array<ListFacts['gone'][number]> = [];
  if (i.wanted.has('agent-died') && sessions && working.length > 0) {
    // The same answer as release --gone's (list-owners.ts): an owner gone, or no owner and a session over held it.
    const { gone: owners, held } = goneHeldTasks(sessions, i.dir, i.listId, i.person, i.tasks);
    const told = new Map<string, ListFacts['gone'][number] & { tasks: string[] }>();
    for (const h of held) {
      if (h.task.status !== 'in_progress') continue;
      // One message an owner, or, for tasks with no owner, one a session that held them.
      const key = h.unowned ? `session ${h.session?.sessionId ?? ''}` : (h.task.owner as string);
      const entry = told.get(key) ?? {
        owner: h.unowned ? undefined : h.task.owner,
        why: h.why,
        // The list's latest session over, as it was; for tasks with no owner, the one that held them.
        session: h.unowned ? h.session?.sessionId : owners?.sessions[0]?.sessionId,
        endedAt: h.session === undefined ? undefined : endedAt(h.session),
        tasks: [],
      };
      entry.tasks.push(h.task.id);
      told.set(key, entry);
    }
    pushAll(gone, told.values());
    // A named list's sessions are found by their transcripts: the gone ones are known now.
    latest ??= owners?.sessions[0] ?? held[0]?.session;
  }

  const { left, liveOpen } = i.wanted.has('work-left') && open.length > 0 && sessions ? workLeft(i, sessions, ofList) : {};
  latest ??= left === undefined ? undefined : sessions?.session(left.session);

  // Every task completed: finished only once no session of the list is at work (as the gate of watch --until all-completed).
  const allDone = i.wanted.has('list-completed') && sessions !== undefined && i.tasks.length > 0 && open.length === 0;
  const busy = allDone ? busyOnList(sessions, i.listId).filter((b) => !i.ownSession?.(b)) : [];
  // Told finished once its agent ended: a named list's sessions are then found by their transcripts alone.
  if (latest === undefined && allDone && busy.length === 0)
    latest = sessionsOfList(sessions, i.listId, { deep: true }).sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0))[0];

  const errors = [];
  let errorsPending = false;
  if ((i.wanted.has('blocked-cycle') || i.wanted.has('damage')) && (i.checkFiles || i.errorsSince.size > 0)) {
    const seen = new Map<string, number>();
    for (const f of findProblems(scanList(i.dir), { now: i.now })) {
      if (f.severity !== 'error') continue;
      const key = `${f.code}|${f.file ?? ''}|${f.id ?? ''}`;
      const since = i.errorsSince.get(key) ?? i.now;
      seen.set(key, since);
      if (i.now - since >= i.errorGraceMs) errors.push(f);
      else errorsPending = true;
    }
    i.errorsSince.clear();
    for (const [k, v] of seen) i.errorsSince.set(k, v);
  }

  return {
    listId: i.listId,
    shortId: i.shortId,
    project: latest?.cwd === undefined ? undefined : shortPath(latest.cwd, i.home),
    session: latest?.sessionId,
    sessionCrashed: latest?.state === 'crashed',
    tasks: i.tasks,
    index,
    people,
    waiting,
    busy,
    stalled,
    waitingWork: resting !== undefined && resting.waiting.size > 0,
    times: i.times,
    gone,
    left,
    liveOpen,
    errors,
    errorsPending,
    refused,
  };
}

/**
 * Whether the list's agents left open work: every session of the list over (the same
 * answer as gone owners', signs-of-life.ts), the last one ended or crashed. A `/clear` is a
 * person's own doing, and not told. Asked only where an end may be news: a session of the
 * list seen at work at the last look, or one active, or the list changed, within the news
 * time (a first look at a list abandoned last week says nothing; reading its sessions'
 * transcripts would cost every look).
 */
function workLeft(i: FactsInput, sessions: SessionIndex, ofList: readonly SessionInfo[]): Pick<ListFacts, 'left' | 'liveOpen'> {
  const recent = (at: number | undefined) => at !== undefined && i.now - at <= WORK_LEFT_NEWS_MS;
  const lastChange = maxOf(i.times.values());
  if (i.watchEnds !== true && !recent(lastChange) && !ofList.some((s) => recent(s.lastActivity) || s.state === 'live')) return {};
  const { sessions: all, life } = listLife(sessions, i.listId, { deep: true });
  if (all.length === 0) return {};
  if (life !== undefined) {
    const live = all.filter((s) => s.state === 'live');
    // With the session each process's live-session file names now, as the index read it (none, for one found by its process alone): a change is a `/clear`.
    const files = sessions.liveSessionFiles();
    const named = (pid: number) => files.find((f) => f.pid === pid)?.sessionId;
    const pids = live.flatMap((s) => (s.pid === undefined ? [] : [{ pid: s.pid, named: named(s.pid) }]));
    return { liveOpen: live.length > 0 && pids.length === live.length ? pids : true };
  }
  const last = [...all].sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0))[0] as SessionInfo;
  const seen = i.seenCleared?.get(last.sessionId);
  if (seen !== undefined && (last.lastActivity ?? 0) <= seen) return {};
  i.seenCleared?.delete(last.sessionId);
  const end = endOf(sessions, last, i.listId);
  if (end.cleared === true) {
    i.seenCleared?.set(last.sessionId, last.lastActivity ?? 0);
    return {};
  }
  const at = endedAt(end.session);
  if (i.watchEnds !== true && !recent(at)) return {};
  return { left: { session: end.session.sessionId, why: end.why, endedAt: at } };
}

/**
 * When a session over ended: its transcript's last entry, which names the end in an
 * event's key (told once an end). Not the file's time, which a backup tool, `touch` or an
 * editor moves with nothing written (the end would be told again); that only where no
 * entry has a time.
 */
function endedAt(s: SessionInfo): number | undefined {
  return s.lastEntryAt ?? s.lastActivity ?? s.writtenAt;
}
