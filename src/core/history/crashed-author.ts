import fs from 'node:fs';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { forEachLineBackward, openRegular } from './line-scan.js';
import { timeOfEntry } from './transcript-events.js';

/**
 * Who made a change no record explains, when it was an agent killed before its transcript
 * said so. Claude Code writes its transcript behind its turns, in order: a process killed
 * (SIGKILL, out of memory, a machine switched off) just after a Task tool wrote its task
 * file never writes that call's entries (checked against 2.1.328 and 2.1.332: an agent
 * killed as its next request went out left its TaskUpdate on disk and nothing of it in its
 * transcript). A crashed run is known by the live-session file it left behind (its process
 * gone), which says when it started; the session may have been resumed since, its
 * transcript going on.
 *
 * The change at T is laid on a crashed run of a session of the list when:
 * - the run had started by T, and no other run of the session started between its start
 *   and T (a live-session file's start, or a `cost-state` entry's `startTime`, which a run
 *   writes as it ends; read back to the crashed run's start): it was the session's process at T;
 * - its last entry at or before T (or its start) is at most CRASH_RECORD_LAG_MS before T:
 *   it was at work then;
 * - no entry after T is the run's own: the session's next entry, if any, comes after a
 *   later run began (a run that wrote on after T would have written the change's entries
 *   first).
 * Where a transcript cannot be read that far (more than SCAN_BYTES after T), nothing is laid.
 */
export const CRASH_RECORD_LAG_MS = 5 * 60_000;
/** File times and entry times come from two writes: a little apart. */
const SLACK_MS = 1000;
/** How far back from a transcript's end the entries around a change are looked for. */
const SCAN_BYTES = 16 * 1024 * 1024;

/** A run of a session of the list that crashed: its live-session file outlived its process. */
export interface CrashedRun {
  sessionId: string;
  startedAt: number;
  transcript: string | undefined;
  /** When the session's other runs known by their live-session files started (crashed ones, the live one). */
  otherStarts: readonly number[];
}

/** The crashed runs of these sessions (a list's), from the live-session files their processes left behind. */
export function crashedRunsOf(index: SessionIndex, sessions: readonly SessionInfo[]): CrashedRun[] {
  const bySession = new Map(sessions.map((s) => [s.sessionId, s]));
  const files = index.liveSessionFiles().filter((f) => bySession.has(f.sessionId) && f.startedAt !== undefined);
  return index
    .leftoverFiles()
    .filter((f) => files.includes(f))
    .map((f) => ({
      sessionId: f.sessionId,
      startedAt: f.startedAt as number,
      transcript: bySession.get(f.sessionId)?.transcript,
      otherStarts: files.filter((o) => o !== f && o.sessionId === f.sessionId).map((o) => o.startedAt as number),
    }));
}

/** Had a run of any session of this config folder crashed (its live-session file left behind) by `atMs`? A look at the live-session files alone. */
export function crashedBy(index: SessionIndex, atMs: number): boolean {
  return index.leftoverFiles().some((f) => f.startedAt !== undefined && f.startedAt <= atMs + SLACK_MS);
}

/** The session whose crashed run most likely made a change at `atMs` no record explains (the latest such run); undefined: none fits. */
export function crashedAuthor(runs: readonly CrashedRun[], atMs: number): string | undefined {
  let best: { sessionId: string; from: number } | undefined;
  for (const run of runs) {
    if (run.transcript === undefined || run.startedAt > atMs + SLACK_MS) continue;
    const around = entriesAround(run.transcript, atMs + SLACK_MS, run.startedAt - SLACK_MS);
    if (around === undefined) continue;
    const starts = [...run.otherStarts, ...around.runStarts];
    // Another run of the session began after this one, by T: this one was over by then.
    if (starts.some((s) => s > run.startedAt + SLACK_MS && s <= atMs)) continue;
    const from = Math.max(run.startedAt, around.before ?? Number.NEGATIVE_INFINITY);
    if (atMs - from > CRASH_RECORD_LAG_MS) continue;
    // An entry after T with no later run begun before it is this run's: it wrote on, and would have written the change.
    const after = around.after;
    if (after !== undefined && !starts.some((s) => s > atMs - SLACK_MS && s <= after + SLACK_MS)) continue;
    if (best === undefined || from > best.from) best = { sessionId: run.sessionId, from };
  }
  return best?.sessionId;
}

interface Around {
  /** The last entry's time at or before the moment. */
  before: number | undefined;
  /** The first entry's time after it. */
  after: number | undefined;
  /** The starts of runs that ended after the moment (their `cost-state` entries). */
  runStarts: number[];
}

const COST_STATE = Buffer.from('"type":"cost-state"');

function startTimeOf(line: Buffer): number | undefined {
  try {
    const v = JSON.parse(line.toString('utf8')) as { startTime?: unknown };
    return typeof v.startTime === 'number' && Number.isFinite(v.startTime) ? v.startTime : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The entries of a transcript around a moment, read backward from its end down to `since`
 * (the crashed run's start: every run that ended after it is seen); undefined when
 * unreadable, or when that is more than SCAN_BYTES back.
 */
function entriesAround(file: string, at: number, since: number): Around | undefined {
  const open = openRegular(file);
  if (open === undefined) return undefined;
  const found: Around = { before: undefined, after: undefined, runStarts: [] };
  try {
    const reached = forEachLineBackward(
      open.fd,
      open.size,
      (line) => {
        if (line.includes(COST_STATE)) {
          const start = startTimeOf(line);
          if (start !== undefined) found.runStarts.push(start);
        }
        const t = timeOfEntry(line);
        if (t === undefined) return false;
        if (t > at) {
          found.after = t;
          return false;
        }
        found.before ??= t;
        return t < since;
      },
      SCAN_BYTES,
    );
    return reached ? found : undefined;
  } finally {
    fs.closeSync(open.fd);
  }
}
