import type { WaitingSession } from '../core/progress/stalled-work.js';
import type { FileProblem } from '../core/store/list-read.js';
import { formatElapsed, formatLimit } from './duration.js';
import { ago } from './elapsed.js';
import { waitingForText } from './session-text.js';
import { oneLine } from './text.js';

/** What `tasks list` says beside the tasks: under the table in a terminal, on stderr when piped. */

/**
 * `tasks lists` piped: a list whose task files (or folder) cannot be read, or are not
 * valid tasks; its columns count only the tasks read, as a terminal's "(2 unreadable)" says.
 */
export function renderListUnreadable(id: string, problems: number): string {
  return `list ${id}: ${problems} unreadable, left out of its counts; tasks -l ${id} check names them`;
}

/** " (showing 10; --limit)", after the summary, when --limit cut the list. */
export function renderLimitNote(shown: number, matching: number): string {
  return shown < matching ? ` (showing ${shown}; --limit)` : '';
}

export function renderStalledNote(count: number, afterMs: number): string {
  return `${count} task${count === 1 ? ' is' : 's are'} stalled: in progress, unchanged for ${formatLimit(afterMs)} or more, and no session busy on ${count === 1 ? 'it' : 'them'}`;
}

/** "session proj-w1 (66666666) is at a permission prompt": who a task waits on, and for what. */
export function waitingSessionText(on: WaitingSession): string {
  const who = on.name === undefined ? `session ${on.session.slice(0, 8)}` : `session ${oneLine(on.name)} (${on.session.slice(0, 8)})`;
  return `${who} waits for a person${on.waitingFor === undefined ? '' : ` (${waitingForText(on.waitingFor)})`}`;
}

/** Under the table: the tasks in progress that wait for a person, not stalled. */
export function renderWaitingNote(count: number, on: WaitingSession): string {
  return `${count} task${count === 1 ? ' is' : 's are'} in progress and waiting, not stalled: ${waitingSessionText(on)}`;
}

/** Piped, one note a task that waits for a person. */
export function renderWaitingLine(id: string, on: WaitingSession): string {
  return `task #${id} is waiting, not stalled: ${waitingSessionText(on)}`;
}

/** `--stalled`: tasks left out because they wait for a person (the stall time does not apply to them). */
export function renderWaitingLeftOut(ids: readonly string[], on: WaitingSession): string {
  return `not stalled but waiting: ${ids.map((id) => `#${id}`).join(', ')} (${waitingSessionText(on)})`;
}

/** Piped, one warning a stalled task. */
export function renderStalledWarning(id: string, idleMs: number): string {
  return `task #${id} is stalled: in progress, unchanged for ${formatElapsed(idleMs)}`;
}

/**
 * "2 unfinished tasks are owned by agents whose session 2d483082 ended: tasks -l 2d483082
 * release --gone gives them back" (`listArgs`: what names the list, when it was not named).
 */
export function renderGoneNote(count: number, why: string, listArgs: readonly string[] = []): string {
  return `${count} unfinished task${count === 1 ? ' is' : 's are'} owned by agents whose ${why}: ${['tasks', ...listArgs, 'release', '--gone'].join(' ')} gives them back`;
}

/**
 * Under the table: "1 task in progress has no owner and its agent is gone (session
 * 4aa21e64 crashed): tasks -l solo release --gone puts it back to pending".
 */
export function renderAgentGoneNote(count: number, why: string, listArgs: readonly string[] = []): string {
  const one = count === 1;
  return `${count} task${one ? '' : 's'} in progress ${one ? 'has' : 'have'} no owner and ${one ? 'its' : 'their'} agent is gone (${oneLine(why)}): ${['tasks', ...listArgs, 'release', '--gone'].join(' ')} puts ${one ? 'it' : 'them'} back to pending`;
}

/** Piped, one warning a task in progress with no owner whose agent is gone. */
export function renderAgentGoneLine(id: string, why: string, listArgs: readonly string[] = []): string {
  return `task #${oneLine(id)} is in progress with no owner, but its agent is gone (${oneLine(why)} holding it): ${['tasks', ...listArgs, 'release', '--gone'].join(' ')} puts it back to pending`;
}

/** A file of the list that could not be read as a task. */
export function renderSkippedFile(problem: FileProblem): string {
  return `skipped ${problem.file}: ${problem.reason}`;
}

/** The same, while watching: the file gets no events until it reads again. */
export function renderSkippedWhileWatching(problem: FileProblem): string {
  return `${renderSkippedFile(problem)} (no events for it until it reads again)`;
}

/** `list --stalled` of a TodoWrite session whose calls for these items carry no time. */
export function renderUntimedTodos(ids: readonly string[]): string {
  return `${ids.map((id) => `#${id}`).join(', ')}: in progress, but the TodoWrite call that set ${ids.length === 1 ? 'it' : 'them'} has no time in the transcript: whether ${ids.length === 1 ? 'it' : 'they'} stalled cannot be told`;
}

/**
 * `list`, `lists --stalled`: tasks in progress whose file is dated ahead of this machine's
 * clock: by that time they cannot be judged stalled until the clock passes it, so the
 * silence of "nothing stalled" is not to be trusted for them. `aheadMs`: the most ahead.
 */
/** Tasks in progress whose file's time was not kept (dated 1970): why they are not judged stalled. */
export function renderStallTimeNotKept(ids: readonly string[]): string {
  const one = ids.length === 1;
  const names = ids.map((id) => `#${oneLine(id)}`).join(', ');
  const subject = one ? `task ${names}'s file has` : `tasks ${names}: their files have`;
  return `${subject} no time kept (dated 1970: a copy made without times): ${one ? 'it' : 'they'} cannot be judged stalled (watch --fail-if-stalled counts from when it first sees ${one ? 'it' : 'them'})`;
}

export function renderStallTimeAhead(ids: readonly string[], aheadMs: number): string {
  const one = ids.length === 1;
  const names = ids.map((id) => `#${oneLine(id)}`).join(', ');
  const subject = one ? `task ${names}'s file is` : `tasks ${names}: their files are`;
  return `${subject} dated ${ago(aheadMs, 0)} (ahead of this machine's clock): ${one ? 'it' : 'they'} cannot be judged stalled until then (watch --fail-if-stalled counts from when it first sees the time)`;
}
