import { indexTasks, type TaskBlockers, type TaskIndex, taskBlockers } from '../graph/blockers.js';
import { getChosen, readChosen } from '../lists/chosen-tasks.js';
import type { ListChoice } from '../lists/list-choice-types.js';
import type { GoneHeld, GoneOwners } from '../sessions/gone-owners.js';
import { sessionsThatMayHaveChanged } from '../sessions/list-sessions.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { sessionMovesOf } from '../sessions/session-segments.js';
import { readTasks } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { taskFileTimes } from '../store/task-times.js';
import { getTask } from '../writes/task-writes.js';
import { CRASH_RECORD_LAG_MS, crashedBy, crashedRunsOf } from './crashed-author.js';
import { SLACK_MS } from './journal-read.js';
import { type LastChange, lastChangeOf } from './last-change.js';

/**
 * When a record of the task's last change can have been written at the earliest: its
 * file's time, less the records' slack; where a run of some session crashed by then, as
 * far back as an agent killed just after its change may have last written its transcript
 * (crashed-author.ts). Otherwise no transcript older than the change is read.
 */
function changedSince(index: SessionIndex, dir: string, id: string): number {
  const at = taskFileTimes(dir, [id]).get(id);
  if (at === undefined) return 0;
  return at - SLACK_MS - (crashedBy(index, at) ? CRASH_RECORD_LAG_MS : 0);
}

/** One task as `tasks get` shows it: for JSON, the task and its time; for a person, its detail too. */
export interface ShownTask {
  task: Task;
  /** When its file last changed: JSON's `updatedAt` (JSON only). */
  changedAt?: number | undefined;
  /** In progress, and its agent is gone (its session ended or crashed holding it): JSON's `gone`, and the detail's mark. */
  gone?: GoneHeld | undefined;
  /** What a person is shown beside the task's fields (not for JSON). */
  detail?: TaskDetail | undefined;
}

export interface TaskDetail {
  /** The tasks it names (blockers, blocked), by id, with itself: their subjects and states are shown. */
  refs: TaskIndex;
  /** Its blockers, judged against the tasks it names. */
  blockers: TaskBlockers;
  /** Its unfinished owner's session is over: why it is said to be. */
  goneWhy?: string | undefined;
  /** Its last recorded change, and a later one no record explains (a list folder only). */
  last?: LastChange | undefined;
}

/**
 * The task `id` of the chosen list, with what `get` says of it. For a person, only the
 * tasks it names are read (a 10,000-task list is not read to show one task), and its
 * last change is read from the records' ends, in the sessions tied to the list as `log`
 * ties them.
 */
export function showTask(
  choice: ListChoice,
  id: string,
  o: {
    json: boolean;
    sessions: SessionIndex;
    goneOwners: () => GoneOwners | undefined;
    /** Of these tasks, those in progress whose agent is gone (list-owners.ts): asked only when the task is in progress. */
    goneHeld: (tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>;
  },
): ShownTask {
  const { id: listId, dir } = choice;
  const real = choice.exists && choice.todos === undefined;
  const task = real ? getTask(dir, id) : getChosen(choice, id);
  const gone = real && task.status === 'in_progress' ? o.goneHeld([task]).get(task.id) : undefined;
  if (o.json) return { task, changedAt: taskFileTimes(dir, [id]).get(id), gone };
  if (!real) {
    const index = indexTasks(readChosen(choice).tasks);
    return { task, detail: { refs: index, blockers: taskBlockers(task, index) } };
  }
  const refs = indexTasks(readTasks(dir, [...task.blockedBy, ...task.blocks]));
  refs.set(task.id, task);
  const owners = task.status !== 'completed' && task.owner ? o.goneOwners() : undefined;
  const mayHaveChanged = sessionsThatMayHaveChanged(o.sessions, listId, changedSince(o.sessions, dir, id));
  return {
    task,
    gone,
    detail: {
      refs,
      blockers: taskBlockers(task, refs),
      // Its owner gone: as the list's owners are judged, or as the task's own holder is (a named list's sessions found by their transcripts).
      goneWhy: owners?.isGone(task.owner) ? owners.whyOf(task.owner) : gone?.unowned === false ? gone.why : undefined,
      last: lastChangeOf(dir, id, {
        listId,
        sessions: mayHaveChanged,
        movesOf: sessionMovesOf(o.sessions, listId, { kept: true }),
        crashedRuns: crashedRunsOf(o.sessions, mayHaveChanged),
      }),
    },
  };
}
