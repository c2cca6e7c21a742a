import type { Task } from '../store/schema.js';
import { taskFileTimes } from '../store/task-times.js';
import { sessionsOfList } from './list-sessions.js';
import type { ProcessProbe } from './live-sessions.js';
import { SessionIndex, type SessionIndexOptions } from './session-index.js';
import type { TaskWrite } from './transcript-tasks.js';

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
  /** Found dead, holding nothing yet: when, and how it died. */
  died?: { at: number; state: SessionDeath['state'] } | undefined;
}

/**
 * Pure: the tasks in progress that `writes` (a dead session's) hold, against the other
 * sessions' writes and the files' change times (`mtimes`, ms).
 */
export function heldTasks(
  tasks: readonly Task[],
  writes: readonly TaskWrite[],
  others: ReadonlyArray<readonly TaskWrite[]>,
  mtimes: ReadonlyMap<string, number>,
): Task[] {
  const last = lastWrites(writes);
  const othersLast = others.map(lastWrites);
  return tasks.filter((t) => {
    if (t.status !== 'in_progress') return false;
    const mine = last.get(t.id);
    if (mine === undefined || mine.deleted) return false;
    if (othersLast.some((o) => (o.get(t.id)?.at ?? -Infinity) > mine.at)) return false;
    const mtime = mtimes.get(t.id);
    return mtime === undefined || mtime <= mine.end + SLACK_MS;
  });
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
 * with no tasks and forgotten.
 */
export class SessionDeaths {
  /** Sessions seen alive on the list and not yet found dead. */
  private readonly seen = new Map<string, Seen>();
  /** Every session seen on the list: whose writes a dead session's are held against. */
  private readonly known = new Set<string>();

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
    const live = new Set<string>();
    for (const s of sessionsOfList(index, this.listId)) {
      if (s.state !== 'live') continue;
      live.add(s.sessionId);
      this.known.add(s.sessionId);
      const pid = s.liveBy === 'process' ? s.pid : undefined;
      const was = this.seen.get(s.sessionId);
      if (was === undefined || (was.pid === undefined && pid !== undefined)) {
        this.seen.set(s.sessionId, { pid, procStart: pid === undefined ? undefined : index.probe.startTime(pid) });
      }
    }
    const deaths: SessionDeath[] = [];
    const now = this.now();
    for (const [sessionId, seen] of this.seen) {
      if (live.has(sessionId)) {
        seen.died = undefined;
        continue;
      }
      const state = seen.died?.state ?? this.deathOf(index, sessionId, seen);
      if (state === undefined) continue;
      const held = this.held(index, sessionId, tasks);
      const died = seen.died ?? { at: now, state };
      if (held.length === 0 && now - died.at < SETTLE_MS) {
        seen.died = died;
        continue;
      }
      this.seen.delete(sessionId);
      deaths.push({ sessionId, state, pid: seen.pid, tasks: held });
    }
    return deaths;
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

  private held(index: SessionIndex, sessionId: string, tasks: readonly Task[]): Task[] {
    const working = tasks.filter((t) => t.status === 'in_progress');
    if (working.length === 0) return [];
    const writesOf = (id: string) => {
      const transcript = index.transcriptOf(id);
      if (transcript === undefined) return [];
      return index.sessionFiles(id, transcript).flatMap((f) => index.transcriptTasks(f.file).writes ?? []);
    };
    const others = [...this.known].filter((id) => id !== sessionId).map(writesOf);
    const mtimes = taskFileTimes(
      this.listDir,
      working.map((t) => t.id),
    );
    return heldTasks(working, writesOf(sessionId), others, mtimes);
  }
}
