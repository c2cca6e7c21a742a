import { SETTLE_MS } from '../cache/file-stamp.js';
import type { Shard } from '../cache/persistent-cache.js';
import { itemHolders } from '../sessions/evidence-index.js';
import type { LiveSessionFile } from '../sessions/live-sessions.js';
import { LIVE_TRANSCRIPT_MS, type SessionIndex, type SessionInfo } from '../sessions/session-index.js';
import type { TeamProblem } from '../teams/team-config.js';
import { isWithin } from './list-summary.js';
import { type ListsInputs, listsInputs, partPath } from './lists-inputs.js';
import { type ListsRow, type ListsView, listsView } from './lists-view.js';
import { partOfRunning, type Running, runningNow, withRunningRows } from './running-rows.js';

export type { ListsView } from './lists-view.js';

/**
 * `tasks lists` answered from its last answer, kept in the persistent cache (cache/) with
 * the stamps of every file and folder it was worked out from (lists-inputs.ts): a run in
 * which none of them changed looks at the files, compares them, and shows what it kept,
 * with no transcript, task file or cache shard of theirs read. A change outside the
 * running sessions' own files (a transcript of another session appended to, by a resumed
 * session too; another list's task written; a list, live-session file or team config
 * made or removed) gives other stamps, and the answer is worked out again (listsView) and
 * kept in its place.
 *
 * While sessions run, the kept answer is used for every row they cannot change, and
 * their own rows are worked out again each run (running-rows.ts: their state, their
 * list's counts, the tasks their transcripts show), so that what a running session does
 * shows at once. Where a running session's work may change another row (it works on a
 * named or shared list, its tasks match another session's, a Claude Code process has no
 * live-session file), the whole answer is worked out.
 *
 * What files cannot tell is checked on every run instead:
 *
 * - Processes. The running sessions are found again each run (live-session files whose
 *   process runs, the user's processes scanned once); the crashed sessions' files the
 *   answer was worked out with are looked up again, each still a crashed one's.
 * - The clock. A session whose transcript was written in the last LIVE_TRANSCRIPT_MS
 *   counts as live until then; the answer is used only up to the first such moment, and
 *   never by a clock earlier than the one it was worked out by. Ages are shown from the
 *   times kept, by the clock of the run that shows them.
 * - Settling. An answer is kept only when every input other than the running sessions'
 *   own had last been written more than SETTLE_MS before: two writes within one tick of a
 *   file system's clock can leave one stamp.
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
  let kept = keptAnswer(shard.get(ANSWER_KEY));
  // A crashed session's file whose pid runs again (or cannot be looked up) may be a session's again: worked out.
  if (kept !== undefined && !stillCrashed(sessions, kept)) kept = undefined;
  // Looked at before anything is read: a change made while the answer is worked out leaves these stamps behind it.
  const inputs = listsInputs(configDir);
  const liveFiles = inputs.parts.filter((p) => p.startsWith('sessions/')).join(SEPARATOR);
  // The live-session files of a kept answer worked out with none running, unchanged since: crashed sessions' still (stillCrashed).
  const running = runningNow(sessions, kept !== undefined && kept.pids.length === 0 && kept.liveFiles === liveFiles);
  // A process that may be on any session (no live-session file): the answer is worked out, and none is kept.
  if (running === undefined) return listsView(configDir, sessions, o);
  const now = sessions.now();
  let view: ListsView | undefined;
  if (kept !== undefined && kept.at <= now && now <= (kept.until ?? Infinity))
    view = reuse(configDir, sessions, shard, kept, inputs, running);
  if (view === undefined) {
    view = listsView(configDir, sessions, { live: false });
    keep(shard, sessions, view, inputs, liveFiles, now, running);
  }
  return filtered(view, o);
}

/** The shard the answer is kept in (a name no project folder has), its entry, and the tasks sessions worked on (running-rows.ts). */
const ANSWER_SHARD = '_lists-answer';
const ANSWER_KEY = 'lists';
const HOLDERS_KEY = 'holders';
const NOTHING: ReadonlySet<string> = new Set();
const SEPARATOR = '\u0000';

interface KeptAnswer {
  /** The stamps it was worked out from (lists-inputs.ts), joined by NUL (no path holds one): one text to compare. */
  inputs: string;
  /** Those of the live-session files (`sessions/`) alone. */
  liveFiles: string;
  /** When it was worked out, by the run's clock: also what names it. */
  at: number;
  /** The last moment it holds (a session live by its transcript's time turns ended after it); null: no such moment. */
  until: number | null;
  /** The crashed sessions' live-session files it was worked out with: [pid, start time, pid domain]. */
  crashed: Array<[number, string | null, string | null]>;
  /** The sessions running then, and their pids: their rows are always worked out again. */
  running: string[];
  pids: number[];
  /** The answer, as keptViewOf writes it. */
  view: unknown;
}

/** The kept answer, with the running sessions' rows (then and now) worked out again; undefined when it cannot stand. */
function reuse(
  configDir: string,
  sessions: SessionIndex,
  shard: Shard,
  kept: KeptAnswer,
  inputs: ListsInputs,
  now: Running,
): ListsView | undefined {
  const view = viewOf(kept.view);
  if (view === undefined) return undefined;
  const running: Running = { sessions: new Set([...now.sessions, ...kept.running]), pids: new Set([...now.pids, ...kept.pids]) };
  // A live-session file of those pids speaks for its session, whether its process runs or not.
  if (running.pids.size > 0) for (const f of sessions.liveSessionFiles()) if (running.pids.has(f.pid)) running.sessions.add(f.sessionId);
  const changed = changedParts(kept.inputs, inputs.parts);
  if (changed.length === 0 && running.sessions.size === 0) return view;
  if (!changed.every((p) => partOfRunning(p, running))) return undefined;
  const listsChanged = new Set<string>();
  for (const p of changed) if (p.startsWith('tasks/') && p !== 'tasks/') listsChanged.add(p.split('/')[1] as string);
  return withRunningRows(configDir, sessions, view, running, listsChanged, () => holdersOf(sessions, shard, kept.at));
}

/** The paths whose stamps differ between the parts kept (joined) and those now (made, changed or removed). */
function changedParts(kept: string, now: readonly string[]): string[] {
  if (kept === now.join(SEPARATOR)) return [];
  const was = kept.split(SEPARATOR);
  // Folders list their entries in the same order while none is made or removed: a walk side by side.
  if (was.length === now.length) {
    const paths: string[] = [];
    let aligned = true;
    for (let i = 0; i < was.length && aligned; i++) {
      const before = was[i] as string;
      const after = now[i] as string;
      if (before === after) continue;
      const at = partPath(after);
      aligned = at === partPath(before);
      paths.push(at);
    }
    if (aligned) return paths;
  }
  const before = new Set(was);
  const after = new Set(now);
  const paths = new Set<string>();
  for (const p of now) if (!before.has(p)) paths.add(partPath(p));
  for (const p of was) if (!after.has(p)) paths.add(partPath(p));
  return [...paths];
}

/** The tasks sessions worked on (itemHolders), kept beside the answer of `at` once worked out: a run that needs it reads it then. */
function holdersOf(sessions: SessionIndex, shard: Shard, at: number): Map<string, string> {
  const was = shard.get(HOLDERS_KEY) as { at?: unknown; holders?: unknown } | undefined;
  if (was?.at === at && Array.isArray(was.holders) && was.holders.every((h) => Array.isArray(h) && h.length === 2))
    return new Map(was.holders as Array<[string, string]>);
  const holders = itemHolders(sessions);
  shard.set(HOLDERS_KEY, { at, holders: [...holders] });
  return holders;
}

/** Keep this answer, when every input but the running sessions' own has settled. */
function keep(
  shard: Shard,
  sessions: SessionIndex,
  view: ListsView,
  inputs: ListsInputs,
  liveFiles: string,
  now: number,
  running: Running,
): void {
  const unsettled = inputs.times.some((t, i) => t >= now - SETTLE_MS && !partOfRunning(partPath(inputs.parts[i] as string), running));
  if (unsettled) {
    shard.retain(NOTHING); // the answer kept before no longer stands
    return;
  }
  const kept = keptViewOf(view);
  let until = Infinity;
  for (const s of kept.s)
    if (s.liveBy === 'transcript' && s.writtenAt !== undefined) until = Math.min(until, s.writtenAt + LIVE_TRANSCRIPT_MS);
  const answer: KeptAnswer = {
    inputs: inputs.parts.join(SEPARATOR),
    liveFiles,
    at: now,
    until: Number.isFinite(until) ? until : null,
    crashed: sessions
      .liveSessionFiles()
      .filter((f) => sessions.verdict(f) === 'gone')
      .map((f) => [f.pid, f.procStart ?? null, f.pidDomain ?? null]),
    running: [...running.sessions],
    pids: [...running.pids],
    view: kept,
  };
  shard.retain(NOTHING);
  shard.set(ANSWER_KEY, answer);
}

/** Is each crashed session's file the answer was worked out with still a crashed one's (its process gone)? */
function stillCrashed(sessions: SessionIndex, kept: KeptAnswer): boolean {
  for (const [pid, procStart, pidDomain] of kept.crashed) {
    const file: LiveSessionFile = { file: '', sessionId: '', pid, procStart: procStart ?? undefined, pidDomain: pidDomain ?? undefined };
    if (sessions.verdict(file) !== 'gone') return false;
  }
  return true;
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
  if (
    typeof v.inputs !== 'string' ||
    typeof v.liveFiles !== 'string' ||
    typeof v.at !== 'number' ||
    typeof v.view !== 'object' ||
    v.view === null
  )
    return undefined;
  if (!(v.until === null || typeof v.until === 'number') || !Array.isArray(v.crashed)) return undefined;
  if (!Array.isArray(v.running) || !v.running.every((s) => typeof s === 'string')) return undefined;
  if (!Array.isArray(v.pids) || !v.pids.every((p) => Number.isInteger(p))) return undefined;
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
