import { SETTLE_MS } from '../cache/file-stamp.js';
import type { Shard } from '../cache/persistent-cache.js';
import { itemHolders } from '../sessions/evidence-index.js';
import type { LiveSessionFile } from '../sessions/live-sessions.js';
import { LIVE_TRANSCRIPT_MS, type SessionIndex, type SessionInfo } from '../sessions/session-index.js';
import type { TeamProblem } from '../teams/team-config.js';
import { isWithin } from './list-summary.js';
import { type ListsInputs, listsInputs, partPath } from './lists-inputs.js';
import { type ListsRow, type ListsView, listsView } from './lists-view.js';
import { folderOfRunning, partOfRunning, type Running, runningNow, withRunningRows } from './running-rows.js';

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
 * Between two full looks (FULL_LOOK_MS apart at most), a run looks at the folders alone
 * (lists-inputs.ts with `folders`): the project and list folders, `sessions/` and its
 * live-session files, the team configs. Every write of Claude Code or `tasks` to a list
 * changes its folder (a lock folder made and removed beside the file; files made,
 * removed, renamed into place), and a session writes its transcript only while it runs,
 * which makes and removes its live-session file (checked against the 2.1.328 binary with
 * strace). A sign of change there, and every file is looked at, as before. What waits
 * for the next full look (or `--fresh`): a task file rewritten in place by a program that
 * takes no lock, a transcript written with no live-session file made (by hand, or by a
 * Claude Code older than those files, started and ended between two runs). A full look
 * whose answer stands keeps the stamps it saw, and starts the period again.
 *
 * Apart from those, the answer used is the one working it out would give. `--all` and
 * `--stalled` always work theirs out.
 */
export function keptListsView(
  configDir: string,
  sessions: SessionIndex,
  o: Parameters<typeof listsView>[2] & { fresh?: boolean },
): ListsView {
  // `--all` and `--stalled` work theirs out: they read what no stamp here covers, or depend on the clock throughout.
  const cache = sessions.store.cache;
  const shard = cache?.dir === undefined || o.gone !== undefined || o.stalled !== undefined ? undefined : cache.shard(ANSWER_SHARD);
  if (shard === undefined || cache === undefined) return listsView(configDir, sessions, o);
  let kept = keptAnswer(shard.get(ANSWER_KEY));
  // A crashed session's file whose pid runs again (or cannot be looked up) may be a session's again: worked out.
  if (kept !== undefined && !stillCrashed(sessions, kept)) kept = undefined;
  const now = sessions.now();
  const inTime = kept !== undefined && kept.at <= now && now <= (kept.until ?? Infinity);
  const base = inTime && kept !== undefined ? viewOf(kept.view) : undefined;
  // Between two full looks, only the folders (lists-inputs.ts): see quickLookHolds.
  const quick =
    base !== undefined && o.fresh !== true && quickLookHolds(kept as KeptAnswer, now) ? listsInputs(configDir, 'folders') : undefined;
  // Looked at before anything is read: a change made while the answer is worked out leaves these stamps behind it.
  let inputs = quick ?? listsInputs(configDir);
  const liveFiles = liveFilesOf(inputs.parts);
  // The live-session files of a kept answer worked out with none running, unchanged since: crashed sessions' still (stillCrashed).
  const running = runningNow(sessions, kept !== undefined && kept.pids.length === 0 && kept.liveFiles === liveFiles);
  // A process that may be on any session (no live-session file): the answer is worked out, and none is kept.
  if (running === undefined) return listsView(configDir, sessions, o);
  let view: ListsView | undefined;
  if (base !== undefined && quick !== undefined) {
    const changed = changedParts((kept as KeptAnswer).folders ?? '', quick.parts);
    view = reuse(configDir, sessions, shard, kept as KeptAnswer, base, changed, running, 'folders')?.view;
    if (view === undefined) inputs = listsInputs(configDir); // a sign of change: every file looked at
  }
  if (view === undefined && base !== undefined) {
    const k = kept as KeptAnswer;
    const reused = reuse(configDir, sessions, shard, k, base, changedParts(k.inputs, inputs.parts), running, 'files');
    if (reused !== undefined) {
      view = reused.view;
      // The answer stands for every file as it is now: kept so, the next runs look at the folders against these
      // (not while a session is live by its transcript's time: every run looks at every file then, and writes nothing).
      if (k.until === null && !unsettled(inputs, now, reused.running))
        shard.set(ANSWER_KEY, {
          ...k,
          ...stampsOf(inputs, now),
          running: [...reused.running.sessions],
          pids: [...reused.running.pids],
        } satisfies KeptAnswer);
    }
  }
  if (view === undefined) {
    view = listsView(configDir, sessions, { live: false });
    keep(shard, sessions, view, inputs, now, running);
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
  /** Those a look at the folders alone takes (lists-inputs.ts), and when every file was last looked at (absent: kept by an older build). */
  folders?: string;
  fullAt?: number;
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

/**
 * How long an answer is used on a look at the folders alone (lists-inputs.ts) before
 * every file is looked at again: the longest a task file rewritten in place by a program
 * that takes no lock (an editor saving in place), or a transcript written with no
 * live-session file made (by hand, or by a Claude Code older than live-session files,
 * run and ended between two runs), goes unseen. `--fresh` looks at every file at once.
 * A full look costs about what looking at every file costs (the floor): at most one in
 * this long, however often `lists` runs (a `watch -n 2` runs it 150 times).
 */
export const FULL_LOOK_MS = 5 * 60_000;

/**
 * May this run look at the folders alone? While the last full look is recent, by a clock
 * not earlier than it, and no session counts as live by its transcript's time alone (its
 * process not seen here: its transcript may grow with no sign in `sessions/`).
 */
function quickLookHolds(kept: KeptAnswer, now: number): boolean {
  const { folders, fullAt } = kept;
  return folders !== undefined && fullAt !== undefined && kept.until === null && fullAt <= now && now - fullAt < FULL_LOOK_MS;
}

/** The kept answer, with the running sessions' rows (then and now) worked out again; undefined when it cannot stand. */
function reuse(
  configDir: string,
  sessions: SessionIndex,
  shard: Shard,
  kept: KeptAnswer,
  view: ListsView,
  changed: string[],
  now: Running,
  depth: 'files' | 'folders',
): { view: ListsView; running: Running } | undefined {
  const running: Running = { sessions: new Set([...now.sessions, ...kept.running]), pids: new Set([...now.pids, ...kept.pids]) };
  // A live-session file of those pids speaks for its session, whether its process runs or not.
  if (running.pids.size > 0) for (const f of sessions.liveSessionFiles()) if (running.pids.has(f.pid)) running.sessions.add(f.sessionId);
  if (changed.length === 0 && running.sessions.size === 0) return { view, running };
  const explained = depth === 'files' ? partOfRunning : folderOfRunning;
  if (!changed.every((p) => explained(p, running))) return undefined;
  const listsChanged = new Set<string>();
  for (const p of changed) if (p.startsWith('tasks/') && p !== 'tasks/') listsChanged.add(p.split('/')[1] as string);
  const rows = withRunningRows(configDir, sessions, view, running, listsChanged, () => holdersOf(sessions, shard, kept.at));
  return rows === undefined ? undefined : { view: rows, running };
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
function keep(shard: Shard, sessions: SessionIndex, view: ListsView, inputs: ListsInputs, now: number, running: Running): void {
  if (unsettled(inputs, now, running)) {
    shard.retain(NOTHING); // the answer kept before no longer stands
    return;
  }
  const kept = keptViewOf(view);
  let until = Infinity;
  for (const s of kept.s)
    if (s.liveBy === 'transcript' && s.writtenAt !== undefined) until = Math.min(until, s.writtenAt + LIVE_TRANSCRIPT_MS);
  const answer: KeptAnswer = {
    ...stampsOf(inputs, now),
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

/** Was an input other than the running sessions' own written within SETTLE_MS of `now`? Its stamp cannot stand for it yet. */
function unsettled(inputs: ListsInputs, now: number, running: Running): boolean {
  return inputs.times.some((t, i) => t >= now - SETTLE_MS && !partOfRunning(partPath(inputs.parts[i] as string), running));
}

/** What a full look (every file) at `now` saw, as kept: every stamp, the folders' alone, the live-session files'. */
function stampsOf(inputs: ListsInputs, now: number): Pick<KeptAnswer, 'inputs' | 'folders' | 'liveFiles' | 'fullAt'> {
  return {
    inputs: inputs.parts.join(SEPARATOR),
    folders: inputs.parts.filter((p) => isFolderPart(partPath(p))).join(SEPARATOR),
    liveFiles: liveFilesOf(inputs.parts),
    fullAt: now,
  };
}

/** Is this a part a look at the folders alone takes too (listsInputs with `folders`)? */
function isFolderPart(at: string): boolean {
  if (!at.startsWith('projects/') && !at.startsWith('tasks/')) return true;
  return at.endsWith('/') && at.split('/').length <= 3;
}

function liveFilesOf(parts: readonly string[]): string {
  return parts.filter((p) => p.startsWith('sessions/')).join(SEPARATOR);
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
  if (!(v.folders === undefined || typeof v.folders === 'string') || !(v.fullAt === undefined || typeof v.fullAt === 'number'))
    return undefined;
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
