import { sessionsOfList } from './list-sessions.js';
import { namedListOfProcess } from './live-lists.js';
import type { SessionIndex, SessionInfo } from './session-index.js';

/**
 * A session at work on a list right now: its agent may yet add tasks or reopen some, so a
 * gate that sees the list done must not pass while it works (`watch --until
 * all-completed`: an agent that plans a step at a time completes #1 before it makes #2).
 *
 * - busy: a live session of the list (its own list, or the one its settings or environment
 *   name: live-lists.ts) whose live-session file says "busy". Checked against 2.1.328: a
 *   headless `claude -p` run is busy from its start to its exit, between turns too; an
 *   interactive session is busy on a turn and idle at its prompt.
 * - waiting: the same, but its file says "waiting" for a person in the middle of a turn (a
 *   permission prompt, an MCP server's question, a sandbox request): the turn goes on once
 *   a person answers (an agent that completed #1 and asks to run a command may make #2
 *   next). Not "dialog open": Claude Code says so for a screen of its own (`/config`,
 *   `/model`) shown while no reply is streaming, at its prompt, between turns.
 * - background: the same, idle at its prompt while a command it ran in the background
 *   goes on (its file says "shell"): Claude Code starts a turn by itself when that command
 *   ends (checked against 2.1.328: "Background command ... completed" reaches the model with
 *   no person's word), and that turn may find work (the tests it ran failed). Only for
 *   BACKGROUND_WAIT_MS: a command that runs longer is a server left running, which no
 *   turn follows.
 * - starting: a running Claude Code process of this config folder that names the list
 *   (CLAUDE_CODE_TASK_LIST_ID, its settings), or resumes the session whose own list it is
 *   (`--resume <id>`), and has no live-session file yet: an agent just started, before its
 *   first turn.
 */
export interface BusyOnList {
  sessionId?: string | undefined;
  pid?: number | undefined;
  state: 'busy' | 'waiting' | 'background' | 'starting';
  /** When its live-session file's status last changed (ms): a turn that began since a moment began after it. */
  statusSince?: number | undefined;
}

/** How long a session idle while its background command runs counts as at work (see `background` above). */
const BACKGROUND_WAIT_MS = 10 * 60_000;

export function busyOnList(index: SessionIndex, listId: string): BusyOnList[] {
  const found: BusyOnList[] = [];
  const pids = new Set<number>();
  const now = index.now();
  for (const s of sessionsOfList(index, listId)) {
    if (s.state !== 'live' || s.liveBy !== 'process') continue;
    const background = s.activity === 'idle' && s.background === true && now - (s.statusSince ?? now) < BACKGROUND_WAIT_MS;
    if (!(s.activity === 'busy' || inTurnWaiting(s) || background)) continue;
    const state = s.activity === 'busy' ? 'busy' : background ? 'background' : 'waiting';
    found.push({ sessionId: s.sessionId, pid: s.pid, state, statusSince: s.statusSince });
    if (s.pid !== undefined) pids.add(s.pid);
  }
  const onFile = index.processes();
  const running = new Set(index.runningFiles().map((f) => f.pid));
  const all = index.claudeProcesses();
  // A launcher (`timeout claude ...`, a wrapper) is taken for Claude Code by its command
  // line: the process it started is the session.
  const launchers = new Set(all.flatMap((p) => (p.parentPid === undefined ? [] : [p.parentPid])));
  for (const p of all) {
    if (pids.has(p.pid) || onFile.has(p.pid) || running.has(p.pid) || launchers.has(p.pid) || !index.usesThisConfig(p)) continue;
    // Its list: the one its settings or environment name, else (`claude --resume <id>`) the session's own.
    const named = namedListOfProcess(index, p);
    if (named === listId || (named === undefined && p.sessionArg === listId)) {
      found.push({ ...(p.sessionArg === undefined ? {} : { sessionId: p.sessionArg }), pid: p.pid, state: 'starting' });
    }
  }
  return found;
}

/** Waiting for a person inside a turn: any wait but a dialog of Claude Code's own, which it shows between turns too. */
export function inTurnWaiting(s: Pick<SessionInfo, 'activity' | 'waitingFor'>): boolean {
  return s.activity === 'waiting' && s.waitingFor !== 'dialog open';
}

/**
 * How much later than a command's start its own session's status may be written and still
 * be the turn that runs it: a status written as the command was let run (a permission
 * prompt answered) may land just after it started.
 */
const OWN_STATUS_SLACK_MS = 1000;

/**
 * Whether a session at work on the list is left out of a gate because it is the one the
 * gate runs in (`isOwn`: started from its shell, a hook of its own; a notify or a watch
 * started at `startedAt`). That session is busy for as long as the command runs in its
 * turn, so it is never waited for then. Left running in the background, the command
 * outlives that turn: once the session's status changed since the command began (its
 * turn ended; a later one, or a `/clear`'s new session in the same process), the session
 * is at work on its own turns, and a list it works a step at a time is not finished
 * between its steps. Its background command keeps it at its prompt "with a command in
 * the background" for as long as the gate runs: that one is the gate, and is not waited
 * for (another of the agent's, its tests, cannot be told from it).
 */
export function leftOutAsOwn(b: BusyOnList, isOwn: ((b: BusyOnList) => boolean) | undefined, startedAt: number): boolean {
  if (isOwn?.(b) !== true) return false;
  return b.state === 'background' || !(b.statusSince !== undefined && b.statusSince > startedAt + OWN_STATUS_SLACK_MS);
}
