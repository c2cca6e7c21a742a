import { maxOf } from '../base/many-items.js';
import type { Task } from '../store/schema.js';
import { taskFileTimes } from '../store/task-times.js';
import { sessionsOfList, useTranscriptCache } from './list-sessions.js';
import type { ProcessProbe } from './live-sessions.js';
import { SessionIndex, type SessionIndexOptions, type SessionInfo } from './session-index.js';
import { cachedTranscriptTasks, latestOnlyCache, type TranscriptTasksCache } from './transcript-cache.js';
import type { TaskRetake, TaskWrite } from './transcript-tasks.js';

/**
 * Deaths on a shared list: a session that was seen working on the list (its own list, or
 * the one its settings or environment name: list-sessions.ts) and is dead now, while
 * tasks it holds are still in progress. Its work will not finish, even while other
 * sessions of the list live on, so a fan-out's watch can fail at once rather than when
 * the last agent is done.
 *
 * Dead: the process it was seen running in is gone (or its pid is another process now),
 * or, for a session seen alive only by its transcript, the index calls it ended or
 * crashed. A process that lives on under another session (`/clear`) is not a death.
 *
 * Held: a task in progress whose last write among the sessions seen on the list is the
 * dead session's (its transcript's TaskCreate / TaskUpdate, subagents' included), and
 * whose file has not been written since (within SLACK_MS: a file's mtime comes between a
 * call and its result). Anything less sure is not a death: the watch then ends as it did
 * before, once every session of the list is over.
 */
export interface SessionDeath {
  sessionId: string;
  /** crashed: its process is gone; ended: it ended (its process exited cleanly, or its transcript says so). */
  state: 'crashed' | 'ended';
  pid?: number | undefined;
  /** The tasks in progress it held, id order. */
  tasks: Task[];
}

/** A file's mtime may follow the result that reported its write by this much (a slow disk, a coarse clock). */
const SLACK_MS = 1000;

/**
 * How long a dead session that holds nothing is looked at again before it is said to
 * have died holding nothing: the list as the watch sees it may not show its last write
 * yet (a busy machine hands the watch a file's change late), and a death is told once.
 */
const SETTLE_MS = 3000;

/** What a session was seen as while alive on the list. */
interface Seen {
  pid?: number | undefined;
  /** Its process's start time (clock ticks), to tell a reused pid. */
  procStart?: string | undefined;
  /** Found dead: when, and how it died. */
  died?: { at: number; state: SessionDeath['state'] } | undefined;
  /** Told dead holding nothing (looked at again when the list's work changes). */
  toldEmpty?: boolean | undefined;
}

/**
 * Pure: the tasks in progress that `writes` (a dead session's) hold, against the other
 * sessions' writes and the files' change times (`mtimes`, ms).
 *
 * Who holds a task: the session that last claimed it (a TaskUpdate that set it in progress
 * or gave it an owner), so a lead that only edits a teammate's task does not hold it; where
 * no session seen claimed it, the one that wrote it last. A claim for another owner than
 * the task shows now does not hold it (it was given to someone else since), nor does a task
 * whose file was written after every write seen (someone unseen, such as a person, changed it).
 */
export function heldTasks(
  tasks: readonly Task[],
  writes: readonly TaskWrite[],
  others: ReadonlyArray<readonly TaskWrite[]>,
  mtimes: ReadonlyMap<string, number>,
): Task[] {
  const last = lastWrites(writes);
  const claims = lastWrites(writes.filter(isClaim));
  const othersLast = others.map(lastWrites);
  const othersClaims = others.map((o) => lastWrites(o.filter(isClaim)));
  const latest = (ws: ReadonlyArray<Map<string, TaskWrite>>, id: string) => maxOf(ws.map((w) => w.get(id)?.at ?? -Infinity));
  return tasks.filter((t) => {
    if (t.status !== 'in_progress') return false;
    const mine = last.get(t.id);
    if (mine === undefined || mine.deleted) return false;
    const claim = claims.get(t.id);
    const theirClaim = latest(othersClaims, t.id);
    if (claim !== undefined || theirClaim > -Infinity) {
      if (claim === undefined || theirClaim > claim.at) return false;
      if (claim.owner !== undefined && t.owner !== undefined && t.owner !== '' && claim.owner !== t.owner) return false;
    } else if (latest(othersLast, t.id) > mine.at) return false;
    const seenEnd = Math.max(mine.end, maxOf(othersLast.map((o) => o.get(t.id)?.end ?? -Infinity)));
    const mtime = mtimes.get(t.id);
    return mtime === undefined || mtime <= seenEnd + SLACK_MS;
  });
}

/**
 * Who holds each task in progress now among a list's sessions (`sessions`, ids): for each,
 * the session heldTasks says holds it against every other one's writes. The one answer to
 * "a session holds a task", with or without an owner: the watch's deaths ask it of one
 * session at a time (SessionDeaths), notify and `release --gone` of the whole list once
 * (history/list-owners.ts). `cache`: what transcripts say, kept across looks (default: the index's).
 */
export function holdersOf(
  index: SessionIndex,
  sessions: readonly string[],
  tasks: readonly Task[],
  listDir: string,
  cache?: TranscriptTasksCache,
): Map<string, string> {
  const holders = new Map<string, string>();
  const working = tasks.filter((t) => t.status === 'in_progress');
  if (working.length === 0) return holders;
  const writes = new Map(sessions.map((id) => [id, writesOf(index, id, cache)]));
  const mtimes = taskFileTimes(
    listDir,
    working.map((t) => t.id),
  );
  for (const [id, mine] of writes) {
    if (mine.length === 0) continue;
    const others = [...writes].filter(([other]) => other !== id).map(([, w]) => w);
    for (const t of heldTasks(working, mine, others, mtimes)) if (!holders.has(t.id)) holders.set(t.id, id);
  }
  return holders;
}

/**
 * Of the tasks `held` says a session over holds (task id -> that session), those one of
 * `live` (sessions not over) has written too, or taken up as it was (a TaskUpdate setting
 * it in progress again, which Claude Code answers with `updatedFields: []` and does not
 * write: transcript-tasks.ts, `retakes`), since that session's last write of it or at the
 * same moment, or is a fork of that session: a fork goes on from its parent's work (its
 * copies of the parent's writes are not counted as its own), and an agent that takes a task
 * up may only touch it, or only say it is at work on it. Such a task may be at work: never
 * called gone, never taken back.
 */
export function touchedByLive(
  index: SessionIndex,
  held: ReadonlyMap<string, string>,
  live: readonly string[],
): Map<string, { session: string; fork: boolean }> {
  /** Task id -> the live session that may go on with it, and whether it is a fork of the holder. */
  const touched = new Map<string, { session: string; fork: boolean }>();
  if (held.size === 0 || live.length === 0) return touched;
  const lastOf = new Map<string, Map<string, TaskWrite>>();
  const last = (session: string) => {
    let writes = lastOf.get(session);
    if (writes === undefined) lastOf.set(session, (writes = lastWrites(writesOf(index, session))));
    return writes;
  };
  const lastRetakeOf = new Map<string, Map<string, number>>();
  const lastRetake = (session: string) => {
    let retakes = lastRetakeOf.get(session);
    if (retakes === undefined) {
      retakes = new Map();
      for (const r of retakesOf(index, session)) retakes.set(r.id, Math.max(r.at, retakes.get(r.id) ?? -Infinity));
      lastRetakeOf.set(session, retakes);
    }
    return retakes;
  };
  for (const [id, holder] of held) {
    const theirs = last(holder).get(id)?.at ?? -Infinity;
    const since = (session: string) => Math.max(last(session).get(id)?.at ?? -Infinity, lastRetake(session).get(id) ?? -Infinity) >= theirs;
    for (const session of live) {
      if (session === holder) continue;
      const fork = forkedFrom(index, session, holder);
      if (fork || since(session)) {
        touched.set(id, { session, fork });
        break;
      }
    }
  }
  return touched;
}

/** Is `session` a fork of `parent`, or of a fork of it (a fork's copies of its parent's writes are not its own writes)? */
function forkedFrom(index: SessionIndex, session: string, parent: string): boolean {
  let from = index.session(session)?.forkOf;
  for (let depth = 0; from !== undefined && depth < 16; depth++) {
    if (from === parent) return true;
    from = index.session(from)?.forkOf;
  }
  return false;
}

/** A session's Task-tool writes, its subagents' included. */
function writesOf(index: SessionIndex, sessionId: string, cache?: TranscriptTasksCache): TaskWrite[] {
  const transcript = index.transcriptOf(sessionId);
  if (transcript === undefined) return [];
  return index
    .sessionFiles(sessionId, transcript)
    .flatMap((f) => (cache === undefined ? index.transcriptTasks(f.file) : cachedTranscriptTasks(f.file, cache)).writes ?? []);
}

/** A session's TaskUpdates that took a task up as it was (nothing written), its subagents' included. */
function retakesOf(index: SessionIndex, sessionId: string): TaskRetake[] {
  const transcript = index.transcriptOf(sessionId);
  if (transcript === undefined) return [];
  return index.sessionFiles(sessionId, transcript).flatMap((f) => index.transcriptTasks(f.file).retakes ?? []);
}

/** A write that took the task up: started it, or gave it an owner (emptying the owner gives it away). */
function isClaim(w: TaskWrite): boolean {
  return w.started === true || (w.owner !== undefined && w.owner !== '');
}

/**
 * Did `session` take task `id` up itself (start it, or give it an owner)? A session that
 * only edited a task, or emptied its owner, holds it at most for want of anyone else: it
 * is not the agent a task in progress with no owner waits on.
 */
export function claimedBy(index: SessionIndex, session: string, id: string): boolean {
  return writesOf(index, session).some((w) => w.id === id && isClaim(w));
}

function lastWrites(writes: readonly TaskWrite[]): Map<string, TaskWrite> {
  const last = new Map<string, TaskWrite>();
  for (const w of writes) {
    const before = last.get(w.id);
    if (before === undefined || w.at >= before.at) last.set(w.id, w);
  }
  return last;
}

/**
 * The sessions of one list, looked at again and again (a fresh index each time: the
 * live-session files change). `look` finds the deaths since the last look, each reported
 * once; a dead session that holds nothing is looked at again for SETTLE_MS, then reported
 * with no tasks, and looked at again whenever the list's work changes (the list as the
 * watch sees it may show its last write late): should it be found holding work, it is
 * reported again, with its tasks.
 *
 * A session that starts and ends between two looks (a short headless run) is never seen
 * alive: whenever a task in progress was written since the last such look, the sessions
 * tied to the list by their transcripts are looked for too (list-sessions.ts, `deep`),
 * and one found dead is judged as if it had been seen alive, if it ended after the first
 * look (a session over before the watch began is not news) and its end is sure: its
 * transcript records it, or its live-session file outlived its process (crashed). One
 * found live is followed as any other.
 */
export class SessionDeaths {
  /** Sessions followed on the list: seen alive (or found dead since the first look), not yet told dead with work. */
  private readonly seen = new Map<string, Seen>();
  /** Every session seen on the list: whose writes a dead session's are held against. */
  private readonly known = new Set<string>();
  /** Told dead holding work: never again. */
  private readonly told = new Set<string>();
  /** When the first look was. */
  private startedAt: number | undefined;
  /** The tasks in progress and their files' mtimes at the last deep look, and until when to look deep again. */
  private deepTimes = new Map<string, number>();
  private deepUntil = -Infinity;
  /** What the list's transcripts say, kept across looks (each look has a fresh index). */
  private readonly transcripts = latestOnlyCache();

  constructor(
    private readonly configDir: string,
    private readonly listId: string,
    private readonly listDir: string,
    private readonly index: Omit<SessionIndexOptions, 'now'> & { probe?: ProcessProbe | undefined } = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** `tasks`: the list as the watch sees it now. */
  look(tasks: readonly Task[]): SessionDeath[] {
    const index = new SessionIndex(this.configDir, this.index);
    useTranscriptCache(index, this.transcripts);
    const now = this.now();
    this.startedAt ??= now;
    const live = new Set<string>();
    const follow = (s: SessionInfo) => {
      live.add(s.sessionId);
      this.known.add(s.sessionId);
      const pid = s.liveBy === 'process' ? s.pid : undefined;
      const was = this.seen.get(s.sessionId);
      if (was === undefined || (was.pid === undefined && pid !== undefined)) {
        this.seen.set(s.sessionId, { pid, procStart: pid === undefined ? undefined : index.probe.startTime(pid) });
      }
    };
    for (const s of sessionsOfList(index, this.listId)) if (s.state === 'live') follow(s);
    const deep = this.deepLook(tasks, now);
    if (deep) {
      for (const s of sessionsOfList(index, this.listId, { deep: true, mayBeLive: true })) {
        if (live.has(s.sessionId) || this.told.has(s.sessionId)) continue;
        if (s.state === 'live') follow(s);
        else if (!this.seen.has(s.sessionId)) this.foundDead(s);
      }
    }
    const deaths: SessionDeath[] = [];
    for (const [sessionId, seen] of this.seen) {
      if (live.has(sessionId)) {
        // Alive (again: a resumed session is the same session).
        seen.died = undefined;
        seen.toldEmpty = false;
        continue;
      }
      // Told dead holding nothing: looked at again only when the list's work changed.
      if (seen.toldEmpty && !deep) continue;
      const state = seen.died?.state ?? this.deathOf(index, sessionId, seen);
      if (state === undefined) continue;
      const { held, goesOn } = this.held(index, sessionId, tasks, live);
      const died = seen.died ?? { at: now, state };
      seen.died = died;
      // What it held that a live session may go on with: not told, and looked at again each look (that session may end too).
      if (held.length === 0 && goesOn > 0) continue;
      if (held.length > 0) {
        this.seen.delete(sessionId);
        this.told.add(sessionId);
        deaths.push({ sessionId, state, pid: seen.pid, tasks: held });
      } else if (!seen.toldEmpty && now - died.at >= SETTLE_MS) {
        seen.toldEmpty = true;
        deaths.push({ sessionId, state, pid: seen.pid, tasks: [] });
      }
    }
    return deaths;
  }

  /**
   * Look for the list's sessions by their transcripts now? When a task in progress was
   * written since the last such look (its writer may have come and gone since), and for
   * SETTLE_MS after (its transcript may record the write, or its end, a moment later).
   */
  private deepLook(tasks: readonly Task[], now: number): boolean {
    const working = tasks.filter((t) => t.status === 'in_progress').map((t) => t.id);
    if (working.length === 0) return false;
    const times = taskFileTimes(this.listDir, working);
    const changed = [...times].some(([id, at]) => this.deepTimes.get(id) !== at);
    this.deepTimes = times;
    if (changed) this.deepUntil = now + SETTLE_MS;
    return now <= this.deepUntil;
  }

  /** A session of the list first found dead: followed as dead if it ended since the first look, and surely. */
  private foundDead(s: SessionInfo): void {
    this.known.add(s.sessionId);
    const sure = s.state === 'crashed' || (s.state === 'ended' && s.ended === true && s.replacedBy === undefined);
    const endedAt = s.writtenAt ?? s.lastActivity ?? 0;
    if (!sure || endedAt < (this.startedAt ?? 0) - SLACK_MS) return;
    this.seen.set(s.sessionId, { pid: s.pid, died: { at: this.now(), state: s.state as SessionDeath['state'] } });
  }
  /** Is this session dead, and how? undefined: not known to be. */
  private deathOf(index: SessionIndex, sessionId: string, seen: Seen): SessionDeath['state'] | undefined {
    const info = index.session(sessionId);
    if (seen.pid !== undefined) {
      const start = index.probe.startTime(seen.pid);
      if (start !== undefined && (seen.procStart === undefined || start === seen.procStart)) return undefined;
      // Its process is gone: a live-session file left behind says it crashed; none, it ended.
      return info?.state === 'crashed' ? 'crashed' : 'ended';
    }
    if (info?.state === 'ended' || info?.state === 'crashed') return info.state;
    return undefined;
  }

  /** The tasks in progress this dead session held that no live session may go on with, and how many one may. */
  private held(
    index: SessionIndex,
    sessionId: string,
    tasks: readonly Task[],
    live: ReadonlySet<string>,
  ): { held: Task[]; goesOn: number } {
    const holders = holdersOf(
      index,
      [sessionId, ...[...this.known].filter((id) => id !== sessionId)],
      tasks,
      this.listDir,
      this.transcripts,
    );
    const mine = tasks.filter((t) => holders.get(t.id) === sessionId);
    // What a live session may go on with (a fork of this one, one that took the task up since) is not left unfinished by this death.
    const goesOn = touchedByLive(index, new Map(mine.map((t) => [t.id, sessionId])), [...live]);
    return { held: mine.filter((t) => !goesOn.has(t.id)), goesOn: goesOn.size };
  }
}
