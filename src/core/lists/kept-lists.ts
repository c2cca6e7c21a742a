import { SETTLE_MS } from '../cache/file-stamp.js';
import type { Shard } from '../cache/persistent-cache.js';
import type { LiveSessionFile } from '../sessions/live-sessions.js';
import { LIVE_TRANSCRIPT_MS, type SessionIndex, type SessionInfo } from '../sessions/session-index.js';
import type { TeamProblem } from '../teams/team-config.js';
import { isWithin } from './list-summary.js';
import { listsInputs } from './lists-inputs.js';
import { type ListsRow, type ListsView, listsView } from './lists-view.js';

export type { ListsView } from './lists-view.js';

/**
 * `tasks lists` answered from its last answer, kept in the persistent cache (cache/) with
 * the stamps of every file and folder it was worked out from (lists-inputs.ts): a run in
 * which none of them changed looks at the files, compares one text, and shows what it
 * kept, with no transcript, task file or cache shard of theirs read. Any change (a
 * transcript appended to, by a resumed session too; a task written; a list, project,
 * live-session file or team config made or removed) gives another text, and the answer
 * is worked out again (listsView) and kept in its place.
 *
 * What files cannot tell is checked on every run instead:
 *
 * - Processes. An answer is kept only when no session was running: every live-session
 *   file was a crashed session's (its process gone) and no Claude Code process of this
 *   config folder ran. A run uses it only while that still holds (each crashed file's
 *   pid looked up again, the user's processes scanned once). While any session runs,
 *   every run works its answer out.
 * - The clock. A session whose transcript was written in the last LIVE_TRANSCRIPT_MS
 *   counts as live until then; the answer is used only up to the first such moment, and
 *   never by a clock earlier than the one it was worked out by. Ages are shown from the
 *   times kept, by the clock of the run that shows them.
 * - Settling. An answer is kept only when every input had last been written more than
 *   SETTLE_MS before: two writes within one tick of a file system's clock can leave one stamp.
 *
 * Nothing is stale: the answer used is the one working it out would give. `--all` and
 * `--stalled` always work theirs out.
 */
export function keptListsView(configDir: string, sessions: SessionIndex, o: Parameters<typeof listsView>[2]): ListsView {
  // `--all` and `--stalled` work theirs out: they read what no stamp here covers, or depend on the clock throughout.
  const shard =
    sessions.store.cache?.dir === undefined || o.gone !== undefined || o.stalled !== undefined
      ? undefined
      : sessions.store.cache.shard(ANSWER_SHARD);
  if (shard === undefined) return listsView(configDir, sessions, o);
  const kept = keptAnswer(shard.get(ANSWER_KEY));
  // While a session runs the answer depends on processes: it is worked out, and none is kept
  // (nor the files looked at for one). Judged by the kept answer's crashed sessions, else by the index's.
  if (kept !== undefined ? !stillSettled(sessions, kept) : anyRunning(sessions)) {
    if (kept !== undefined) shard.retain(NOTHING);
    return listsView(configDir, sessions, o);
  }
  // Looked at before anything is read: a change made while the answer is worked out leaves these stamps behind it.
  const inputs = listsInputs(configDir);
  const now = sessions.now();
  let view =
    kept !== undefined && kept.inputs === inputs.text && kept.at <= now && now <= (kept.until ?? Infinity) ? viewOf(kept.view) : undefined;
  if (view === undefined) {
    view = listsView(configDir, sessions, { live: false });
    keep(shard, sessions, view, inputs, now);
  }
  return filtered(view, o);
}

/** The shard the answer is kept in (a name no project folder has), and its one entry. */
const ANSWER_SHARD = '_lists-answer';
const ANSWER_KEY = 'lists';
const NOTHING: ReadonlySet<string> = new Set();

interface KeptAnswer {
  inputs: string;
  /** When it was worked out, by the run's clock. */
  at: number;
  /** The last moment it holds (a session live by its transcript's time turns ended after it); null: no such moment. */
  until: number | null;
  /** The crashed sessions' live-session files it was worked out with: [pid, start time, pid domain]. */
  crashed: Array<[number, string | null, string | null]>;
  /** The answer, as keptViewOf writes it. */
  view: unknown;
}

/** Keep this answer, when nothing in it depends on a running process and every input has settled. */
function keep(shard: Shard, sessions: SessionIndex, view: ListsView, inputs: { text: string; newest: number }, now: number): void {
  if (anyRunning(sessions) || inputs.newest >= now - SETTLE_MS) {
    shard.retain(NOTHING); // the answer kept before no longer stands
    return;
  }
  const kept = keptViewOf(view);
  let until = Infinity;
  for (const s of kept.s)
    if (s.liveBy === 'transcript' && s.writtenAt !== undefined) until = Math.min(until, s.writtenAt + LIVE_TRANSCRIPT_MS);
  const answer: KeptAnswer = {
    inputs: inputs.text,
    at: now,
    until: Number.isFinite(until) ? until : null,
    crashed: sessions.liveSessionFiles().map((f) => [f.pid, f.procStart ?? null, f.pidDomain ?? null]),
    view: kept,
  };
  shard.set(ANSWER_KEY, answer);
}

/** Does a session run (or may one: a process that cannot be looked up here), by its live-session file or a Claude Code process of this config folder? */
function anyRunning(sessions: SessionIndex): boolean {
  return (
    sessions.liveSessionFiles().some((f) => sessions.verdict(f) !== 'gone') ||
    sessions.claudeProcesses().some((p) => sessions.usesThisConfig(p))
  );
}

/** Does no session run now, as none did when the answer was worked out? */
function stillSettled(sessions: SessionIndex, kept: KeptAnswer): boolean {
  for (const [pid, procStart, pidDomain] of kept.crashed) {
    const file: LiveSessionFile = { file: '', sessionId: '', pid, procStart: procStart ?? undefined, pidDomain: pidDomain ?? undefined };
    if (sessions.verdict(file) !== 'gone') return false;
  }
  return !sessions.claudeProcesses().some((p) => sessions.usesThisConfig(p));
}

function filtered(view: ListsView, o: { here?: string | undefined; live: boolean }): ListsView {
  const { here } = o;
  if (here === undefined && !o.live) return view;
  const lists = view.lists.filter(
    (l) =>
      (here === undefined || l.sessions.some((s) => s.cwd !== undefined && isWithin(s.cwd, here))) &&
      (!o.live || l.sessions.some((s) => s.state === 'live')),
  );
  const elsewhere = view.elsewhere.filter((s) => here === undefined || (s.cwd !== undefined && isWithin(s.cwd, here)));
  return { ...view, lists, elsewhere };
}

/**
 * An answer as kept: each session once (`s`), each set of unsure sessions once (`u`, by
 * their places in `s`: lists that hold one plan share one set), the rows with their
 * sessions by place. Rows share sessions, and at a year of history hundreds of lists
 * share one set of hundreds of unsure sessions: written out in full it would be
 * megabytes of the same records.
 */
interface KeptView {
  s: SessionInfo[];
  u: number[][];
  r: Array<Omit<ListsRow, 'sessions' | 'unsure'> & { sessions: number[]; unsure?: number }>;
  f: string[];
  t: TeamProblem[];
}

function keptViewOf(view: ListsView): KeptView {
  const s: SessionInfo[] = [];
  const places = new Map<SessionInfo, number>();
  const place = (session: SessionInfo) => {
    let at = places.get(session);
    if (at === undefined) places.set(session, (at = s.push(session) - 1));
    return at;
  };
  const u: number[][] = [];
  // Rows of one plan hold equal sets, each its own array: kept once, and shared again when read back.
  const sets = new Map<readonly SessionInfo[], number>();
  const byContent = new Map<string, number>();
  const r = view.lists.map(({ sessions, unsure, ...row }) => {
    let set: number | undefined;
    if (unsure !== undefined) {
      set = sets.get(unsure);
      if (set === undefined) {
        const places = unsure.map(place);
        const key = places.join(',');
        set = byContent.get(key);
        if (set === undefined) byContent.set(key, (set = u.push(places) - 1));
        sets.set(unsure, set);
      }
    }
    return { ...row, sessions: sessions.map(place), ...(set === undefined ? {} : { unsure: set }) };
  });
  return { s, u, r, f: view.foreign, t: view.teamProblems };
}

/** The answer kept, as listsView gives it; undefined when it is not what this module writes. */
function viewOf(value: unknown): ListsView | undefined {
  const kept = value as KeptView | undefined;
  if (!Array.isArray(kept?.s) || !Array.isArray(kept.u) || !Array.isArray(kept.r) || !Array.isArray(kept.f) || !Array.isArray(kept.t))
    return undefined;
  const { s } = kept;
  const sessionAt = (i: number): SessionInfo => {
    const found = s[i];
    if (found === undefined) throw new RangeError('no such session');
    return found;
  };
  try {
    const unsure = kept.u.map((set) => set.map(sessionAt));
    const lists = kept.r.map(({ sessions, unsure: set, ...row }): ListsRow => {
      const shared = set === undefined ? undefined : unsure[set];
      if (set !== undefined && shared === undefined) throw new RangeError('no such set');
      return { ...row, sessions: sessions.map(sessionAt), ...(shared === undefined ? {} : { unsure: shared }) };
    });
    return { lists, foreign: kept.f, teamProblems: kept.t, elsewhere: [] };
  } catch {
    return undefined; // damaged: worked out again
  }
}

function keptAnswer(value: unknown): KeptAnswer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<KeptAnswer>;
  if (typeof v.inputs !== 'string' || typeof v.at !== 'number' || typeof v.view !== 'object' || v.view === null) return undefined;
  if (!(v.until === null || typeof v.until === 'number') || !Array.isArray(v.crashed)) return undefined;
  const crashedOk = v.crashed.every(
    (c) =>
      Array.isArray(c) &&
      c.length === 3 &&
      Number.isInteger(c[0]) &&
      (c[1] === null || typeof c[1] === 'string') &&
      (c[2] === null || typeof c[2] === 'string'),
  );
  return crashedOk ? (v as KeptAnswer) : undefined;
}
