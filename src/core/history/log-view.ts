import { TasksError } from '../base/errors.js';
import { readChosen } from '../lists/chosen-tasks.js';
import type { ListChoice } from '../lists/list-choice-types.js';
import { everyList } from '../lists/list-folders.js';
import { sessionsOfList } from '../sessions/list-sessions.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { sessionMovesOf } from '../sessions/session-segments.js';
import { crashedRunsOf } from './crashed-author.js';
import { createdOutsideRecord, mergeTimelines, readTimeline, type Timeline, type TimelineEvent } from './timeline.js';

/** What `tasks log` asks for. */
export interface LogRequest {
  /** One list (the chosen one), or every list under the config folder. */
  lists: ListChoice | { all: string };
  /** Only this task's changes. */
  task?: string | undefined;
  /** Only changes at or after / at or before these times (ms). */
  since?: number | undefined;
  until?: number | undefined;
  /** Only the last this many. */
  limit?: number | undefined;
  sessions: SessionIndex;
  /** A person reads the notes on one list's record too; JSON does not. */
  json: boolean;
  /** Aborted: reading stops (interrupted). */
  signal: AbortSignal;
}

/** The changes `tasks log` shows, and what it says about its records. */
export interface LogView {
  /** The lists read: none with `all` means there are none. */
  listCount: number;
  /** Each list's timeline: its unreadable journal and skipped lines are said. */
  timelines: Timeline[];
  /** The changes, merged, filtered, oldest first. */
  events: TimelineEvent[];
  /** The task asked about has no recorded change and is not on disk: the error to end with, once the records' problems are said. */
  notFound?: TasksError | undefined;
  /** One list, for a person: its timeline, and its tasks that no record saw created. */
  single?: { timeline: Timeline; createdOutside: string[] } | undefined;
}

/**
 * The changes of one list or of every list: the journal's and the sessions' transcripts'
 * (a named list's sessions are found by their transcripts: the Task tools' results name
 * its tasks), each counted once. A task that has no recorded change and is not on disk
 * is not found (`notFound`).
 */
export async function readLog(req: LogRequest): Promise<LogView> {
  const chosen = 'all' in req.lists ? undefined : req.lists;
  const targets = 'all' in req.lists ? everyList(req.lists.all) : [req.lists];
  const timelines: Timeline[] = [];
  try {
    for (const { id, dir } of targets) {
      const sessions = sessionsOfList(req.sessions, id, { deep: true, goneTasks: true });
      const movesOf = sessionMovesOf(req.sessions, id);
      timelines.push(
        await readTimeline(dir, {
          listId: id,
          sessions,
          movesOf: (s) => movesOf(s),
          signal: req.signal,
          unrecorded: true,
          crashedRuns: crashedRunsOf(req.sessions, sessions),
        }),
      );
    }
  } catch (err) {
    if ((err as Error)?.name === 'AbortError') throw new TasksError('interrupted', 'log stopped');
    throw err;
  }
  const { task } = req;
  const single = timelines[0];
  // The list's tasks now (none yet for a live session's list before its first task).
  const onDisk = () => (chosen === undefined ? [] : readChosen(chosen).tasks.map((t) => t.id));
  if (task !== undefined && single !== undefined) {
    const known = single.events.some((e) => e.task === task) || onDisk().some((id) => id === task);
    if (!known) {
      const notFound = new TasksError('not_found', `task #${task} not found, and no change to it is recorded`, { details: { id: task } });
      return { listCount: targets.length, timelines, events: [], notFound };
    }
  }
  let events = mergeTimelines(timelines).filter((e) => task === undefined || e.task === task);
  if (req.since !== undefined) events = events.filter((e) => Date.parse(e.at) >= (req.since as number));
  if (req.until !== undefined) events = events.filter((e) => Date.parse(e.at) <= (req.until as number));
  if (req.limit !== undefined) events = events.slice(-req.limit);
  if (req.json || chosen === undefined || single === undefined) return { listCount: targets.length, timelines, events };
  const ids = onDisk();
  return {
    listCount: targets.length,
    timelines,
    events,
    single: {
      timeline: single,
      createdOutside: createdOutsideRecord(single.events, task === undefined ? ids : ids.filter((id) => id === task)),
    },
  };
}
