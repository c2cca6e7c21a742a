import fs from 'node:fs';
import type { SessionInfo } from '../sessions/session-index.js';
import { endsInToolCall } from '../sessions/tool-calls.js';

/**
 * A session that may be at work (live, and not idle nor waiting for a person by its
 * live-session file: busy on a turn, or its turn state unknown, a session known live by
 * its transcript alone) counts as at work only while its transcript keeps growing, or while
 * it is inside a tool call: a headless `claude -p` is "busy" for its whole life, so a
 * session busy but silent (its transcript unwritten) for as long as a task may stay
 * unchanged is stalled too, not working, unless its transcript ends in a tool call still
 * awaiting its result (a long test suite, a build: Claude Code writes nothing until it
 * returns). true: some session is busy and at work so; false: the sessions are known and
 * none is; undefined: none is known.
 */
export function busyAndWriting(sessions: readonly SessionInfo[], withinMs: number, now: number): boolean | undefined {
  if (sessions.length === 0) return undefined;
  return sessions.some((s) => mayWork(s) && busyAtWork(s.transcript, withinMs, now));
}

/** Live (or running where it cannot be checked), and not idle nor at a prompt: as sessions/signs-of-life.ts counts a sign of work. */
function mayWork(s: SessionInfo): boolean {
  return (s.state === 'live' || s.state === 'unknown') && s.activity !== 'idle' && s.activity !== 'waiting';
}

/** A busy session's transcript says it is at work: written within `withinMs`, or ending in a tool call in flight. */
export function busyAtWork(transcript: string | undefined, withinMs: number, now: number): boolean {
  return transcriptWrittenSince(transcript, now - withinMs) || endsInToolCall(transcript);
}

/** Was this transcript written at or after `since` (ms)? A missing one never was. */
function transcriptWrittenSince(transcript: string | undefined, since: number): boolean {
  if (transcript === undefined) return false;
  const mtime = fs.statSync(transcript, { throwIfNoEntry: false })?.mtimeMs;
  return mtime !== undefined && mtime >= since;
}
