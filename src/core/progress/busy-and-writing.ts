import fs from 'node:fs';
import type { SessionInfo } from '../sessions/session-index.js';

/**
 * A session counts as at work on a turn only while its transcript keeps growing: a
 * headless `claude -p` is "busy" for its whole life, so a session busy but silent (its
 * transcript unwritten) for as long as a task may stay unchanged is stalled too, not
 * working. true: some session is busy and wrote its transcript within `withinMs`; false:
 * the sessions are known and none is; undefined: none is known.
 */
export function busyAndWriting(sessions: readonly SessionInfo[], withinMs: number, now: number): boolean | undefined {
  if (sessions.length === 0) return undefined;
  return sessions.some((s) => s.state === 'live' && s.activity === 'busy' && transcriptWrittenSince(s.transcript, now - withinMs));
}

/** Was this transcript written at or after `since` (ms)? A missing one never was. */
export function transcriptWrittenSince(transcript: string | undefined, since: number): boolean {
  if (transcript === undefined) return false;
  const mtime = fs.statSync(transcript, { throwIfNoEntry: false })?.mtimeMs;
  return mtime !== undefined && mtime >= since;
}
