import type { ListCounts } from '../core/graph/blockers.js';
import type { TaskFilter } from '../core/lists/task-filter.js';
import type { StalledTask, WaitingSession } from '../core/progress/stalled-work.js';
import type { DeathExit } from '../core/runs/run-death.js';
import type { Status, Task } from '../core/store/schema.js';
import { formatElapsed, formatLimit } from './duration.js';
import { waitingSessionText } from './list-notes.js';
import { STATUS_WORD } from './status.js';
import { PLAIN, type Style } from './style.js';
import { renderSummary } from './task-table.js';
import { oneLine } from './text.js';

/** What `tasks watch` says on stderr about how it started and why it ended. */

/** "status pending, owner amy": the filters a live view shows in its header. */
export function renderFilterLabel(filter: TaskFilter): string | undefined {
  const parts: string[] = [];
  if (filter.statuses) parts.push(`status ${filter.statuses.join(',')}`);
  if (filter.owner !== undefined) parts.push(`owner ${filter.owner}`);
  if (filter.unowned) parts.push('unowned');
  if (filter.ready) parts.push('ready');
  if (filter.blocked) parts.push('blocked');
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** `--until task:9:completed` names a task the list does not have (yet). */
export function renderTaskNotYet(id: string, status: Status): string {
  return `task #${id} does not exist (yet); waiting for it to be created and ${STATUS_WORD[status]}`;
}

/** `--session <id>` whose todos live only in its transcript. */
export function renderFollowingTranscript(sessionId: string, transcript: string): string {
  return `following the transcript of session ${sessionId.slice(0, 8)} (it has no task list; its todos are in ${transcript})`;
}

/** "all-completed holds, but session 1a2b3c4d (pid 42) is busy on the list: waiting for it to go idle or end" */
export function renderWaitingForSessions(
  until: string | undefined,
  sessions: ReadonlyArray<{ sessionId?: string | undefined; pid?: number | undefined; state: string }>,
): string {
  const name = (s: (typeof sessions)[number]) =>
    s.sessionId === undefined
      ? `Claude Code process ${s.pid ?? '?'}`
      : `session ${s.sessionId.slice(0, 8)}${s.pid === undefined ? '' : ` (pid ${s.pid})`}`;
  const names = sessions.map(name);
  const first = sessions[0];
  const who =
    sessions.length === 1 && first !== undefined
      ? `${names[0]} ${first.state === 'starting' ? 'is starting' : first.state === 'waiting' ? 'waits for a person in its turn' : first.state === 'background' ? 'runs a command in the background' : 'is busy'}`
      : `${names.slice(0, -1).join(', ')} and ${names.at(-1)} are at work`;
  return `${until ?? 'the condition'} holds, but ${who} on the list: waiting for ${sessions.length === 1 ? 'it' : 'them'} to go idle or end`;
}

/**
 * "session proj-w1 (66666666) waits for a person (permission prompt): #1 of list 66666666
 * waits on it": a watch's agent at a prompt, and the tasks shown that wait on it.
 */
export function renderPersonWaiting(on: WaitingSession, ids: readonly string[], list?: string): string {
  const of = list === undefined ? '' : ` of list ${oneLine(list)}`;
  // Several sessions of the list at a prompt: the one told of, and how many more wait.
  const more = on.others === undefined || on.others < 1 ? '' : `; ${on.others} more session${on.others === 1 ? '' : 's'} waiting too`;
  if (ids.length === 0) return `${waitingSessionText(on)}${list === undefined ? '' : ` on list ${oneLine(list)}`}${more}`;
  const tasks = ids.map((id) => `#${oneLine(id)}`).join(', ');
  return `${waitingSessionText(on)}: ${tasks}${of} ${ids.length === 1 ? 'waits' : 'wait'} on it${more}`;
}

/** "task #2 "Refactor auth" has been in progress without a change for 31m 05s" */
function describeStalled(stalled: readonly StalledTask[]): string {
  const first = stalled[0];
  if (!first) return 'no task stalled';
  const more = stalled.length > 1 ? ` (and ${stalled.length - 1} more)` : '';
  return `task #${first.id} "${first.task.subject}" has been in progress without a change for ${formatElapsed(first.idleMs)}${more}`;
}

function describeRunEnd(reason: string): string {
  if (reason === 'input-ended') return "the run's input ended without a result event";
  if (reason === 'session-ended') return 'the session stopped running';
  return 'the run ended';
}

/**
 * What befell a session, in the words its note and its rows use: "was killed by
 * SIGKILL", "exited with status 3", "exited with status 0" when `tasks run` saw its
 * process end; else its state ("crashed").
 */
export function deathWords(d: { state: string; exit?: DeathExit | undefined }): string {
  if (d.exit?.signal) return `was killed by ${d.exit.signal}`;
  if (d.exit !== undefined && d.exit.code !== null) {
    const on = SIGNAL_STATUS[d.exit.code];
    return `exited with status ${d.exit.code}${on === undefined ? '' : ` (on ${on})`}`;
  }
  return d.state;
}

/** 128 + a signal's number: the status a process that caught the signal and exited gives (Claude Code on SIGTERM: 143). */
const SIGNAL_STATUS: Readonly<Record<number, string>> = {
  129: 'SIGHUP',
  130: 'SIGINT',
  131: 'SIGQUIT',
  134: 'SIGABRT',
  137: 'SIGKILL',
  143: 'SIGTERM',
};

/** "session 2d483082 (pid 4242) crashed holding #2 "Fix" and #3 "Test"" ("was killed by SIGKILL": a run's agent whose exit tasks run saw) */
export function describeDeath(d: {
  sessionId: string;
  state: string;
  pid?: number | undefined;
  exit?: DeathExit | undefined;
  tasks: readonly Task[];
}): string {
  const who = `session ${d.sessionId.slice(0, 8)}${d.pid === undefined ? '' : ` (pid ${d.pid})`}`;
  const how = deathWords(d);
  if (d.tasks.length === 0) return `${who} ${how}; it held no task in progress`;
  const held = d.tasks.map((t) => `#${t.id} "${t.subject}"`);
  const list = held.length === 1 ? held[0] : `${held.slice(0, -1).join(', ')} and ${held.at(-1)}`;
  return `${who} ${how} holding ${list} in progress`;
}

/**
 * A followed run whose session died before its result, holding work: the death as a
 * watched list's is told, and the command that gives the work back.
 * "session 2d483082 (pid 4242) crashed holding #2 "Fix" in progress: its run ended without its result; tasks -l 2d483082 release 2 gives it back"
 */
export function renderRunDied(d: Parameters<typeof describeDeath>[0], release: string): string {
  return `${describeDeath(d)}: its run ended without its result; ${release} gives ${d.tasks.length === 1 ? 'it' : 'them'} back`;
}

/**
 * `tasks run` ended the agent (its stall, its deadline, a signal) while it held work:
 * "the agent was ended holding #1 "Fix" in progress; tasks -l ci-7 release 1 gives it back"
 */
export function renderEndedHolding(tasks: readonly Task[], release: string): string {
  const held = tasks.map((t) => `#${t.id} "${t.subject}"`);
  const list = held.length === 1 ? held[0] : `${held.slice(0, -1).join(', ')} and ${held.at(-1)}`;
  return `the agent was ended holding ${list} in progress; ${release} gives ${tasks.length === 1 ? 'it' : 'them'} back`;
}

/** The errors a watch ends with: each says why, then where the list stands. */
export const watchEndMessage = {
  /** `person`: a session of the list waits for a person as it ends (what the watch waited on, in a CI log). */
  timeout: (
    timeoutMs: number,
    until: string | undefined,
    counts: ListCounts,
    person?: { on: WaitingSession; ids: readonly string[]; list?: string | undefined },
  ): string => {
    const waited = `timed out after ${formatLimit(timeoutMs)}${until ? ` before ${until} held` : ''}`;
    const why = person === undefined ? '' : `, while ${renderPersonWaiting(person.on, person.ids, person.list)}`;
    return `${waited}${why}; ${renderSummary(counts, PLAIN)}`;
  },
  /** `afterMs`: the --fail-if-stalled limit, named as given (the times said are rounded down: never past what was seen). */
  /** `ownAgent`: `tasks run`'s agent, whose own output was silent (another agent's task changes do not count). */
  stalled: (
    stalled: readonly StalledTask[],
    counts: ListCounts,
    afterMs: number | undefined,
    runIdleMs?: number,
    ownAgent?: boolean,
  ): string => {
    const limit = afterMs === undefined ? '' : ` (--fail-if-stalled ${formatLimit(afterMs)})`;
    const silent = ownAgent === true ? 'the agent has been silent' : 'the run has been silent, with no task changing,';
    return runIdleMs === undefined
      ? `${describeStalled(stalled)}${limit}; ${renderSummary(counts, PLAIN)}`
      : `${silent} for ${formatElapsed(runIdleMs)}${limit}${stalled.length > 0 ? ` (${describeStalled(stalled)})` : ''}; ${renderSummary(counts, PLAIN)}`;
  },
  stopped: (until: string, counts: ListCounts): string => `stopped before ${until} held; ${renderSummary(counts, PLAIN)}`,
  died: (deaths: ReadonlyArray<Parameters<typeof describeDeath>[0]>, until: string, counts: ListCounts): string =>
    `${deaths.map(describeDeath).join('; ')}: its work will not finish, so ${until} will not hold; ${renderSummary(counts, PLAIN)}`,
  cleared: (sessionId: string, sure: boolean, until: string, counts: ListCounts): string =>
    `session ${sessionId.slice(0, 8)} was ${sure ? '' : 'probably '}cleared (/clear${sure ? '' : ', by times alone'}) and left this list: nothing works on it any more, so ${until} will not hold; ${renderSummary(counts, PLAIN)}`,
  /** `during`: a followed run's end, judged then (the run was not cut short). */
  deleted: (id: string, until: string, counts: ListCounts, during?: 'run'): string =>
    `task #${id} was deleted${during === 'run' ? ' during the run' : ''} (ids are never used again), so ${until} will not hold; ${renderSummary(counts, PLAIN)}`,
  resultError: (subtype: string | undefined, until: string, counts: ListCounts): string =>
    `the run's result is an error (${subtype ?? 'no subtype'}): the agent says its run failed, though ${until} held; ${renderSummary(counts, PLAIN)}`,
  runEnded: (reason: string, until: string, counts: ListCounts): string =>
    reason === 'run-ended'
      ? `the run ended and ${until} did not hold then; ${renderSummary(counts, PLAIN)}`
      : reason === 'input-ended'
        ? `${describeRunEnd(reason)}: the run did not finish, so ${until} is not met; ${renderSummary(counts, PLAIN)}`
        : `${describeRunEnd(reason)} before ${until} held; ${renderSummary(counts, PLAIN)}`,
};

/**
 * A run passed that changed nothing in its list: what held, held without it (a reused
 * list, or another process's work). The gate's rule stands; the log says so.
 */
export function renderRunChangedNothing(list: string, until: string): string {
  // Not said to be "before it started": another process may have completed the list meanwhile.
  const held = until === 'all-completed' ? 'its tasks were all completed, none by it' : `${until} held, not by its doing`;
  return `the agent changed nothing in list ${list}: ${held}`;
}

/** A followed run's input, still open after its result, handed to a reader of its own (`pid`). */
export function renderInputHandedOff(pid: number, holders: readonly number[]): string {
  const by = holders.length === 0 ? '' : ` (held by ${holders.map((p) => `pid ${p}`).join(', ')})`;
  return `the input stayed open after the run's result${by}: pid ${pid} reads it to its end, so that nothing writing it meets a closed pipe`;
}

/** "✔ all-completed holds", on a terminal's stderr when the watch's condition held. */
export function renderConditionHeld(until: string | undefined, style: Style): string {
  return `${style.green('✔')} ${until} holds`;
}

/**
 * "session 1a2b3c4d cleared: now following list 5e6f7a8b" ("probably cleared (by times
 * alone)" when no process or transcript shows it); with `--no-follow`, that the
 * watch stays. `name`: how a list is shown (a session's by its short id).
 */
export function renderSessionCleared(
  change: { sessionId: string; newSessionId: string; sure: boolean; to: string; followed: boolean; before?: boolean | undefined },
  name: (list: string) => string,
  leftUnfinished: number,
): string {
  // Not sure: only times say so (cleared-lists.ts), and the reader is told.
  const who = `session ${change.sessionId.slice(0, 8)} ${change.sure ? 'cleared' : 'probably cleared (by times alone)'}`;
  if (change.before)
    return `${who} before this watch began: its process now uses list ${name(change.to)} (tasks watch -l ${name(change.to)} follows it); staying on this list`;
  if (!change.followed) return `${who}: its process now uses list ${name(change.to)}; staying on this list (--no-follow)`;
  const left = leftUnfinished === 0 ? '' : ` (${leftUnfinished} unfinished left behind: tasks carry brings them over)`;
  return `${who}: now following list ${name(change.to)}${left}`;
}
