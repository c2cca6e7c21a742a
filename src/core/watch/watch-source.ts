import type { NoteCode, WarningCode } from '../base/notices.js';
import type { FileProblem } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import type { ChangeEvent, TaskSnapshot } from './watch-diff.js';

/**
 * What a watch follows: a list folder (ListWatcher), or an agent's run read from its
 * stream-json output or transcript (runs/run-watcher.ts). Either gives a first state,
 * then updates through the handlers until closed; a run also ends on its own.
 */
export interface WatchSource {
  /** The first state; a run's source reads up to its first `system` event first. */
  start(): WatchUpdate | Promise<WatchUpdate>;
  close(): void;
  /** Read what is followed again now, its changes delivered before this returns (a list folder's source). */
  rescan?(): void;
  /** A run's source: when its input last brought anything (a line, a chunk). */
  activityAt?(): number;
  /**
   * The input is the agent's own output, read straight from the process (`tasks run`): its
   * silence alone is the run's, and a task changed meanwhile (another agent's, on a shared
   * list) is not its work. A stream piped through other programs may come late in bursts:
   * there a task changing counts as life too.
   */
  activityOnly?: boolean | undefined;
}

/** A session of the list that died holding work in progress (sessions/session-deaths.ts). */
export interface DiedSession {
  sessionId: string;
  /**
   * crashed: its process is gone; ended: it ended with its work in progress (a run's
   * agent: it exited with status 0 before its result).
   */
  state: 'crashed' | 'ended';
  pid?: number | undefined;
  /** A followed run's own session under `tasks run`: how its process ended (a signal, or its status). */
  exit?: { code: number | null; signal: string | null } | undefined;
  /** The tasks in progress it held. */
  tasks: Task[];
}

/** How a followed run ended. */
export interface RunEnd {
  /**
   * result: the stream's `result` event; input-ended: the input ended without one (the
   * agent was killed, or the pipe closed); session-ended: a followed transcript's session
   * is no longer running.
   */
  how: 'result' | 'input-ended' | 'session-ended';
  /** The result event's `subtype` ("success", "error_max_turns"...). */
  subtype?: string | undefined;
  isError?: boolean | undefined;
  /**
   * input-ended: the run's session, dead before its result, with the tasks in progress it
   * held (runs/run-model.ts); absent when it held none. As a watched list's deaths are told,
   * with how its process ended when `tasks run` started it (`exit`).
   */
  died?: DiedSession[] | undefined;
}

export interface WatchSourceHandlers extends ListWatcherHandlers {
  /** The run ended (only sources that follow a run call it); called once, last. */
  onRunEnd?(end: RunEnd): void;
}

/**
 * The session whose own list was watched was cleared (`/clear`): the watch moved to the
 * list its process uses now (watch/list-follow.ts).
 */
export interface ListSwitch {
  /** The list left behind. */
  from: string;
  /** The list followed from now on. */
  to: string;
  /** The session that was cleared, and the one its process runs now. */
  sessionId: string;
  newSessionId: string;
  /** Known, not taken from times alone ("probably cleared": cleared-lists.ts). */
  sure: boolean;
  /** false with `--no-follow`, or when it was left before the watch began: the watch stays on it. */
  followed: boolean;
  /** The session was cleared before the watch began (a list already left behind is watched as asked). */
  before?: boolean | undefined;
}

/** A list the followed session left, as it is now (a person may still finish or carry its work). */
export interface LeftList {
  list: string;
  exists: boolean;
  snapshot: TaskSnapshot;
}

export interface WatchUpdate {
  at: number;
  /** Set on the update that moves the watch to another list: its snapshot is that list's first. */
  switched?: ListSwitch | undefined;
  /** The lists the followed session left, oldest first, as they are now. */
  left?: readonly LeftList[] | undefined;
  /** The list's id, when the source learnt it itself (a run names its session's list). */
  list?: string | undefined;
  /** What changed since the last update, in order; empty when only `exists` or `problems` did. */
  events: ChangeEvent[];
  /** Some of these events are the followed run's own changes to its list (it has begun its work). */
  runActed?: boolean | undefined;
  exists: boolean;
  snapshot: TaskSnapshot;
  /** When each task last changed (ms): its file's mtime, or when a followed run changed it. */
  times?: ReadonlyMap<string, number> | undefined;
  /** Files that stayed unreadable; their last good version stays in the snapshot. */
  problems: FileProblem[];
  /**
   * The ids of task files that do not read now and have no last good version in the
   * snapshot (a file caught half-written, or broken), reported or not yet: such a task may
   * be anything, so all-completed and empty are not judged to hold (watch-session.ts).
   */
  unread?: readonly string[] | undefined;
  /**
   * The list's path is no folder that can be read now (a FIFO, a file, mode 000): what it
   * is. The snapshot is the last one read; no condition is judged on it (watch-session.ts).
   */
  unreadable?: string | undefined;
}

export interface ListWatcherHandlers {
  onUpdate(update: WatchUpdate): void;
  /** A rescan failed for a reason other than the folder missing; the watcher stops. */
  onError(err: unknown): void;
  /** Something the user should know that does not stop watching; `code` names it for --json. */
  onWarning?(message: string, code?: WarningCode, facts?: Record<string, unknown>): void;
  /** Something worth telling that is not a problem (an input waited for, the run's list found). */
  onNote?(message: string, code?: NoteCode, facts?: Record<string, unknown>): void;
}
