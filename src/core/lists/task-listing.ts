import { type BlockerAnswers, blockerAnswers, countTasks, indexTasks, type ListCounts, missingBlockers } from '../graph/blockers.js';
import { type RestingWork, stalledInList, stalledOrGone, stalledTodos, type WaitingSession } from '../progress/stalled-work.js';
import type { GoneHeld, GoneOwners } from '../sessions/gone-owners.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { restatesSubject } from '../store/active-form.js';
import type { FileProblem } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { taskFileTimes } from '../store/task-times.js';
import { teamForList, unknownOwnerWarning } from '../teams/teams.js';
import { readChosen } from './chosen-tasks.js';
import type { ListChoice } from './list-choice-types.js';
import { filterTasks, type TaskFilter } from './task-filter.js';
import { type SortKey, sortTasks } from './task-sort.js';

/** What `tasks list` asks for. */
export interface ListingRequest {
  choice: ListChoice;
  configDir: string;
  filter: TaskFilter;
  sort: SortKey;
  limit?: number | undefined;
  /** `--stalled`: only the tasks in progress that stalled. */
  stalledOnly: boolean;
  /** How long a task in progress goes without a change before it has stalled. */
  stalledAfterMs: number;
  now: number;
  sessions: SessionIndex;
  /** How it is shown: JSON (each task's change time), a table (file times, owners gone), or lines. */
  output: 'json' | 'table' | 'lines';
  /** Owners in the list whose session is over: asked only when a matching unfinished task has an owner, and never for JSON. */
  goneOwners: () => GoneOwners | undefined;
  /** Of these tasks, those in progress whose agent is gone (history/list-owners.ts): asked only when a shown task is in progress. */
  goneHeld: (tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>;
}

/** A list as `tasks list` shows it: every answer its views need, worked out here. */
export interface TaskListing {
  /** Files skipped as unreadable (agents skip them too). */
  problems: FileProblem[];
  /** `--owner` names nobody in the list or its team: likely a typo. */
  unknownOwner?: string | undefined;
  /** The tasks shown: those that match, in order, cut to the limit. */
  tasks: Task[];
  /** How many match: the summary counts every one, shown or not. */
  matching: number;
  /** A TodoWrite session's items in progress whose TodoWrite call has no time: whether they stalled cannot be told. */
  untimedTodos?: string[] | undefined;
  /** Each task's change time, for JSON's `updatedAt`. */
  times?: ReadonlyMap<string, number> | undefined;
  /** Tasks in progress whose session waits for a person (a permission prompt): never stalled. */
  waiting: ReadonlyMap<string, WaitingSession>;
  /** `--stalled`: the tasks left out because they wait for a person, not stalled, with how long unchanged where known. */
  waitingLeftOut?: Array<{ id: string; on: WaitingSession }> | undefined;
  /** Shown tasks in progress whose agent is gone (its session ended or crashed holding it): marked gone, not stalled. */
  gone: ReadonlyMap<string, GoneHeld>;
  /** Tasks in progress whose file is dated ahead of the clock (id -> by how much, ms): not judged stalled until then. */
  ahead: ReadonlyMap<string, number>;
  /** Tasks in progress whose file's time was not kept (dated 1970), id order: not judged stalled. */
  undated: readonly string[];
  /** What a person is shown besides the tasks (not worked out for JSON). */
  rows?: ListingRows | undefined;
}

/** What the table and the piped lines say besides each task's fields. */
export interface ListingRows {
  /** The matching tasks by status, and how many wait on a blocker. */
  counts: ListCounts;
  /** The shown tasks' blockers, judged against every task of the list. */
  blockers: BlockerAnswers;
  /** When each shown task's file last changed: the table's column, and `--sort updated`. */
  updated: ReadonlyMap<string, number>;
  /** Tasks in progress that stalled, with for how long (ms). */
  stalled: ReadonlyMap<string, number>;
  /** Matching unfinished tasks whose owner's session is over, and why it is said to be. */
  /** Shown tasks whose owner is gone, by id, each with why (its owner's sessions' end). */
  gone: ReadonlyMap<string, string> | undefined;
  /** Shown unfinished tasks whose blockedBy names tasks that do not exist. */
  missing: Array<{ id: string; missing: string[] }>;
  /** Shown tasks whose activeForm only says the subject again. */
  restated: ReadonlySet<string>;
}

/** The list `tasks list` shows: read once, filtered, sorted, cut, with what each row says. */
export function listTasks(req: ListingRequest): TaskListing {
  const { choice, filter } = req;
  const { id: listId, dir } = choice;
  const real = choice.exists && choice.todos === undefined;
  const snapshot = readChosen(choice, { times: req.output === 'json' });
  // A typo in a name shows as an empty list; say so rather than leave it to guessing.
  const unknownOwner =
    filter.owner === undefined ? undefined : unknownOwnerWarning(filter.owner, snapshot.tasks, teamForList(req.configDir, listId));
  // Blockers are judged against every task, shown or not.
  const index = indexTasks(snapshot.tasks);
  // A TodoWrite session's items are judged by the times of its TodoWrite calls in its transcript.
  const todos =
    choice.todos !== undefined && choice.session !== undefined
      ? stalledTodos(req.sessions, choice.session, snapshot.tasks, { afterMs: req.stalledAfterMs, now: req.now })
      : undefined;
  // JSON carries no stalled mark, only the waiting (cheap: the live-session folder): the stall
  // is judged only when shown or filtered by (it may ask the sessions).
  const judgeStalled = req.output !== 'json' || req.stalledOnly;
  const rest: RestingWork = real
    ? stalledInList(dir, listId, snapshot.tasks, {
        afterMs: req.stalledAfterMs,
        now: req.now,
        sessions: req.sessions,
        times: snapshot.times,
        waitingOnly: !judgeStalled,
      })
    : (todos ?? { stalled: new Map(), waiting: new Map() });
  const { stalled, waiting, ahead, undated } = rest;
  const filtered = filterTasks(snapshot.tasks, filter, index);
  // --stalled shows work whose agent is gone too, whatever its age and the other sessions (stalledOrGone): asked of every
  // matching task in progress, before the stall picks any.
  const goneOfMatching =
    req.stalledOnly && real && filtered.some((t) => t.status === 'in_progress')
      ? req.goneHeld(filtered.filter((t) => t.status === 'in_progress'))
      : undefined;
  const shownStalled = req.stalledOnly
    ? stalledOrGone(
        filtered,
        stalled,
        (id) => goneOfMatching?.has(id) === true,
        () => undefined,
        req.now,
      )
    : undefined;
  const matching = shownStalled === undefined ? filtered : filtered.filter((t) => shownStalled.has(t.id));
  // --stalled leaves out work that waits for a person; it is said apart, so that nobody takes the silence for "nothing stuck".
  // Work whose agent is gone waits on nobody: it is shown, not left out.
  const waitingLeftOut = req.stalledOnly
    ? filtered.flatMap((t) => {
        const on = waiting.get(t.id);
        return on === undefined || goneOfMatching?.has(t.id) ? [] : [{ id: t.id, on }];
      })
    : undefined;
  // File times are read only when shown (the table) or sorted by: one stat a task.
  const needTimes = real && (req.sort === 'updated' || req.output === 'table');
  const updated = needTimes
    ? taskFileTimes(
        dir,
        matching.map((t) => t.id),
      )
    : new Map<string, number>();
  const sorted = req.sort === 'id' ? matching : sortTasks(matching, req.sort, updated);
  const tasks = req.limit === undefined ? sorted : sorted.slice(0, req.limit);
  // Whose agent is gone: the sessions are asked only when a shown task is in progress (a list with none costs nothing more),
  // and, as the stall, never for JSON unless --stalled asks: it can read every transcript of a named list's sessions.
  const gone =
    goneOfMatching !== undefined
      ? new Map(tasks.filter((t) => goneOfMatching.has(t.id)).map((t) => [t.id, goneOfMatching.get(t.id) as GoneHeld]))
      : real && judgeStalled && tasks.some((t) => t.status === 'in_progress')
        ? req.goneHeld(tasks)
        : new Map<string, GoneHeld>();
  const listing = {
    problems: snapshot.problems,
    unknownOwner,
    untimedTodos: todos?.untimed,
    tasks,
    matching: matching.length,
    times: snapshot.times,
    waiting,
    waitingLeftOut,
    gone,
    ahead: ahead ?? new Map<string, number>(),
    undated: undated ?? [],
  };
  if (req.output === 'json') return listing;
  // Owners are asked about only when some matching task has one unfinished.
  const owners = real && matching.some((t) => t.status !== 'completed' && t.owner) ? req.goneOwners() : undefined;
  const blockers = blockerAnswers(tasks, index);
  return {
    ...listing,
    rows: {
      counts: countTasks(matching, index),
      blockers,
      updated,
      stalled,
      gone:
        owners === undefined
          ? undefined
          : new Map(matching.filter((t) => t.status !== 'completed' && owners.isGone(t.owner)).map((t) => [t.id, owners.whyOf(t.owner)])),
      missing: missingBlockers(tasks, blockers),
      // Only the table shows an activeForm beside its subject.
      restated: new Set(
        req.output === 'table' ? tasks.filter((t) => t.status === 'in_progress' && restatesSubject(t)).map((t) => t.id) : [],
      ),
    },
  };
}
