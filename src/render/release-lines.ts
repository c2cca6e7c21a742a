import type { ReleaseResult } from '../core/claims/release-apply.js';
import { tildePath } from './session-text.js';
import { oneLine } from './text.js';

/** What `tasks release` says of each task, one line each. */

/** Why `release --gone` took a task: its agent's end, and whether it had no owner (it only went back to pending). */
interface GoneWhy {
  why: string;
  unowned: boolean;
}

export function renderReleaseLine(r: ReleaseResult, gone?: GoneWhy): string {
  const subject = oneLine(r.task.subject);
  if (!r.released) return `Task #${r.id} has no owner and is pending; nothing to release: ${subject}`;
  if (gone?.unowned) return `Put task #${r.id} back to pending${unownedChange(r, gone)}: ${subject}`;
  return `Released task #${r.id}${releaseChange(r)}: ${subject}`;
}

/** A task with no owner that a session over held: " (no owner; in_progress -> pending; session 2d483082 crashed holding it)". */
function unownedChange(r: ReleaseResult, gone: GoneWhy): string {
  return ` (no owner; ${r.previousStatus} -> ${r.task.status}; ${oneLine(gone.why)} holding it)`;
}

/** " from <owner> (<old status> -> <new status>[; <why>])": what a release changes, as both lines say it. */
function releaseChange(r: ReleaseResult, why?: string): string {
  const from = r.previousOwner ? ` from ${oneLine(r.previousOwner)}` : '';
  const said = [r.previousStatus !== r.task.status ? `${r.previousStatus} -> ${r.task.status}` : undefined, why].filter(
    (part) => part !== undefined,
  );
  return `${from}${said.length === 0 ? '' : ` (${said.join('; ')})`}`;
}

/** `release --owner <agent>` with nothing to release. */
export function renderNothingHeld(owner: string): string {
  return `${oneLine(owner)} holds no unfinished task; nothing released`;
}

/**
 * `release --gone` with nothing to release: some owners are gone but hold no unfinished
 * task (`gone`), or what they hold a live session may go on with (`gone` and `alive`: "session
 * 0ea1b2eb, a fork of d3f0527f, is live and may go on with #1"); a sign of life keeps every
 * owner from being gone (`alive`: what it is); or no session of the list is known.
 */
export function renderNoneGone(why: { gone: boolean; alive?: string | undefined }): string {
  if (why.gone && why.alive !== undefined) return `nothing released: ${oneLine(why.alive)}`;
  if (why.gone) return 'no unfinished task is held by a gone owner; nothing released';
  if (why.alive !== undefined) return `no owner here is gone: ${oneLine(why.alive)}; nothing released`;
  return 'no owner here is known to be gone: no session of this list is known to have ended or crashed';
}

/**
 * `release --gone --dry-run`, a task it would release: what the real run's line would say
 * (the owner, the status it goes back from), and why its owner is gone; a task with no
 * owner that a session over held is said to go back to pending.
 */
export function renderWouldRelease(r: ReleaseResult, gone: GoneWhy | undefined): string {
  if (gone?.unowned) return `Would put task #${r.id} back to pending${unownedChange(r, gone)}: ${oneLine(r.task.subject)}`;
  return `Would release task #${r.id}${releaseChange(r, gone === undefined ? undefined : oneLine(gone.why))}: ${oneLine(r.task.subject)}`;
}

/** `release --gone` while a live session can see the list: it may be about to pick the work up. */
export function renderLiveInProject(sessions: readonly { sessionId: string; cwd?: string | undefined }[], home: string): string {
  const first = sessions[0];
  const where = first?.cwd === undefined ? '' : ` in ${tildePath(first.cwd, home)}`;
  const more = sessions.length > 1 ? ` (and ${sessions.length - 1} more)` : '';
  return `session ${first?.sessionId.slice(0, 8) ?? '?'} is live${where}${more} and can see this list: it may be about to pick this work up`;
}
