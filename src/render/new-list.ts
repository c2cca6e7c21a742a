import { tildePath } from './session-text.js';
import { oneLine } from './text.js';

/**
 * A list in a sentence: `list "build-9"`, or, for a session's own list (named by its
 * session's id, shown by its short id), `the list of session 7c1e2f30`: a quoted short
 * id reads as a list of that name.
 */
export function listWords(shown: string, ofSession: boolean): string {
  return ofSession ? `the list of session ${shown}` : `list "${shown}"`;
}

/**
 * `new list "build-9" (note: "build-99" exists)`: a write made a list; a near name shows
 * a typo at once. A session's own list: `new list: the list of session 7c1e2f30`.
 */
export function renderNewList(id: string, near: readonly string[], ofSession = false): string {
  const note = near.length === 0 ? '' : ` (note: ${near.map((n) => `"${n}"`).join(', ')} exist${near.length === 1 ? 's' : ''})`;
  return oneLine(`${ofSession ? `new list: ${listWords(id, true)}` : `new list "${id}"`}${note}`);
}

/** `list "named-lst" does not exist yet (did you mean named-list?); waiting for it`: watch, at once. */
export function renderWaitingFor(id: string, near: readonly string[]): string {
  return `${renderNotThereYet(id, near)}; waiting for it`;
}

/** `list "named-lst" does not exist yet (did you mean named-list?)`. */
export function renderNotThereYet(id: string, near: readonly string[]): string {
  const meant = near.length === 0 ? '' : ` (did you mean ${near.join(' or ')}?)`;
  return oneLine(`list "${id}" does not exist yet${meant}`);
}

/**
 * `list "refactor" has no tasks yet: bound by ~/api/.claude/settings.local.json, it is
 * made by the first task a Claude Code session started here (or tasks) creates`.
 */
/** A list named that `tasks use` moved a running session to, before the session's first task there. */
export function renderMovedNotYet(id: string): string {
  return oneLine(
    `list "${id}" has no tasks yet: a session was moved to it (tasks use) and has made none there; its first task makes the list`,
  );
}

export function renderBoundNotYet(id: string, file: string | undefined, home: string): string {
  const by = file === undefined ? 'bound here' : `bound by ${tildePath(file, home)}`;
  return oneLine(
    `list "${id}" has no tasks yet: ${by}, it is made by the first task a Claude Code session started here (or tasks) creates`,
  );
}
