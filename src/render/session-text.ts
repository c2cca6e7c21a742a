import type { SessionInfo } from '../core/sessions/session-index.js';
import { oneLine, truncate } from './text.js';

/** Paths under the home directory as a person writes them: `~/work/myproj`. */
export { tildePath } from '../core/base/tilde-path.js';

/** A prompt on one line, cut to `max` columns ("fix the login bug in…"). */
export function promptText(prompt: string | undefined, max: number): string {
  return prompt === undefined ? '' : truncate(oneLine(prompt.replace(/\s+/g, ' ')), Math.max(4, max));
}

/** Claude Code's words for what a session waits for are a few ("permission prompt"); longer is damage. */
const WAITING_FOR_MAX = 100;

/** What a waiting session waits for, as a person reads it: on one line, cut with an ellipsis. JSON keeps it whole. */
export function waitingForText(waitingFor: string): string {
  return truncate(oneLine(waitingFor), WAITING_FOR_MAX);
}

/** "live, busy", "live, idle", "live, waiting (permission prompt)", "ended", "crashed", "cleared → 7baec0ff" ("probably cleared → …": by times alone): a session's state in words. */
export function stateText(
  session: Pick<SessionInfo, 'sessionId' | 'state' | 'activity' | 'waitingFor' | 'replacedBy' | 'clearProof'> | undefined,
): string {
  if (session === undefined) return '';
  if (session.state === 'live') {
    if (session.activity === undefined) return 'live';
    // Waiting for a person: what for, as Claude Code says it ("permission prompt", "dialog open").
    if (session.activity === 'waiting' && session.waitingFor !== undefined) return `live, waiting (${waitingForText(session.waitingFor)})`;
    return `live, ${session.activity}`;
  }
  // Its process went on as another session (/clear): the agent no longer sees this list.
  // "probably": only times say so (core's clearOf), which another session of the project can match.
  if (session.replacedBy !== undefined)
    return `${session.clearProof === 'times' ? 'probably ' : ''}cleared → ${session.replacedBy.slice(0, 8)}`;
  return session.state;
}
