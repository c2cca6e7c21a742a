import type { SessionInfo } from '../sessions/session-index.js';

/**
 * How long after a session's last transcript entry a change it made may still have gone
 * unrecorded: Claude Code writes its transcript behind its turns, and a process killed
 * (SIGKILL, out of memory, a machine switched off) just after a Task tool wrote its task
 * file never writes that call's entries (checked against 2.1.328 and 2.1.332: an agent
 * killed as its next request went out left its TaskUpdate on disk and nothing of it in
 * its transcript). A model's streamed reply between two entries can take minutes.
 */
export const CRASH_RECORD_LAG_MS = 5 * 60_000;
/** A file time may read a little before the entry that led to it (clocks of two writes). */
const SLACK_MS = 1000;

/** A session of the list, crashed, with when its transcript last recorded anything. */
export interface CrashedSession {
  sessionId: string;
  lastAt: number;
}

/** The list's sessions that crashed (their live-session file outlived their process), with their last activity. */
export function crashedSessions(sessions: readonly SessionInfo[]): CrashedSession[] {
  return sessions.flatMap((s) =>
    s.state === 'crashed' && s.lastActivity !== undefined ? [{ sessionId: s.sessionId, lastAt: s.lastActivity }] : [],
  );
}

/**
 * The session that most likely made a change no record explains, made at `atMs`: one of
 * the list's crashed sessions whose last entry came shortly before it (the latest such),
 * for it was killed before it could record the change. Undefined when none fits: the
 * change is then a hand edit or an agent whose transcript is not known.
 */
export function crashedAuthor(crashed: readonly CrashedSession[], atMs: number): string | undefined {
  let best: CrashedSession | undefined;
  for (const c of crashed) {
    if (c.lastAt > atMs + SLACK_MS || atMs - c.lastAt > CRASH_RECORD_LAG_MS) continue;
    if (best === undefined || c.lastAt > best.lastAt) best = c;
  }
  return best?.sessionId;
}
