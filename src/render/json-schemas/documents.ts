/**
 * The document each command prints with --json (or, for the streams, each line of it).
 * The shared pieces are in shapes.ts; output-schemas.ts names each output and its file in
 * docs/schemas/.
 */
import { z } from 'zod/v4';
import { Counts, FailedId, FailedList, Iso, Status, Task } from './shapes.js';

const Ids = z.array(z.string());
const DryRun = z.literal(true).optional().describe('a dry run: what the real run would print, nothing written');

export const TaskList = z.array(Task).describe('tasks, in id order (or the order asked for)');

/** `list --json`, `get --json`: beside a task in progress whose session waits for a person (render/task-json.ts waitingJson). */
export const TaskWaiting = z
  .strictObject({
    for: z
      .string()
      .nullable()
      .describe('what for, in Claude Code\'s words ("permission prompt", "dialog open", ...); null: it does not say'),
    session: z.string().describe('the session that waits'),
    name: z.string().nullable().describe("the session's name in Claude Code"),
    since: Iso.nullable().describe('when it began to wait, when its live-session file says'),
  })
  .describe('only on a task in progress whose session waits for a person (a permission prompt): waiting, never stalled');

/** `list --json`, `get --json`: beside a task in progress whose agent is gone (render/task-json.ts goneJson). */
export const TaskGone = z
  .strictObject({
    session: z
      .string()
      .nullable()
      .describe("the session over that held it; null: no one session is known (its owner's sessions are all over)"),
    name: z.string().nullable().describe("the session's name in Claude Code"),
    state: z.enum(['ended', 'crashed']).nullable().describe('how the session ended, as the session index says'),
    since: Iso.nullable().describe('when the session was last seen at work (its last transcript entry or live-session change)'),
    why: z.string().describe('"session 4aa21e64 crashed", "... was cleared": in the words release --gone uses'),
    unowned: z.boolean().describe('true: it has no owner (release --gone puts it back to pending); false: its owner is gone'),
  })
  .describe('only on a task in progress whose agent is gone (its session ended or crashed holding it): tasks release --gone gives it back');

export const DeleteItem = z.union([
  z.strictObject({
    id: z.string(),
    ok: z.literal(true),
    deleted: z.literal(true),
    task: Task.describe('the task as it was'),
    references: Ids.describe('tasks whose blocks / blockedBy named it, cleaned'),
    dryRun: DryRun,
  }),
  FailedId,
]);

export const DeleteResult = z.array(DeleteItem).describe('one item per id given, in the order given');

export const UpdateResult = z.union([Task, DeleteItem.options[0]]).describe('the task after the change; --status deleted: a delete item');

export const ReleaseItem = z.union([
  z.strictObject({
    id: z.string(),
    ok: z.literal(true),
    released: z.boolean().describe('false: it had no owner and was pending already'),
    previousOwner: z.string().optional(),
    previousStatus: Status,
    task: Task.describe('the task after the release (a dry run: as it would be, updatedAt null)'),
    dryRun: DryRun,
  }),
  FailedId,
]);

export const ReleaseResult = z.array(ReleaseItem);

const Session = z.strictObject({
  sessionId: z.string().nullable(),
  state: z.enum(['live', 'ended', 'crashed', 'unknown']).nullable(),
  activity: z
    .enum(['busy', 'waiting', 'idle'])
    .nullable()
    .describe('while live: busy on a turn, waiting for a person (see waitingFor), or idle; null when not known'),
  waitingFor: z
    .string()
    .nullable()
    .describe(
      'while waiting: what for, in Claude Code\'s words: "permission prompt", "dialog open", "input needed", "sandbox request", "worker request", "goal proposal" (others may come)',
    ),
  pid: z.int().nullable(),
  sessionName: z.string().nullable(),
  cwd: z.string().nullable(),
  branch: z.string().nullable(),
  prompt: z.string().nullable(),
  lastPrompt: z.string().nullable(),
  firstActivity: Iso.nullable(),
  lastActivity: Iso.nullable(),
  transcript: z.string().nullable(),
  replacedBy: z.string().nullable().describe('the session that replaced it (/clear), when known'),
  replacedHow: z
    .enum(['process', 'transcripts', 'times'])
    .nullable()
    .describe(
      'how replacedBy is known: process, the same process was seen on both sessions; transcripts, they tie both to one process; times, only that one ended as the other began ("probably cleared"): another session of the project can look the same',
    ),
  forkOf: z
    .string()
    .nullable()
    .describe('the session it was forked from (--fork-session); then prompt and lastPrompt are its own, after the copied entries'),
});

export const ListsResult = z.array(
  Session.extend({
    host: z.string().optional().describe('-H: the host the list is on, as it was named (the first field)'),
    id: z.string(),
    shortId: z.string(),
    kind: z
      .enum(['tasks', 'new', 'todowrite', 'gone'])
      .describe(
        "a list folder; a live session's list before its first task; a session's TodoWrite todos; (--all) a list whose folder is gone while its sessions' transcripts remain",
      ),
    path: z.string().nullable(),
    counts: z.strictObject({
      total: z.int().nonnegative(),
      completed: z.int().nonnegative(),
      inProgress: z.int().nonnegative(),
      pending: z.int().nonnegative(),
    }),
    problems: z.int().nonnegative(),
    changedAt: Iso,
    team: z.string().nullable(),
    members: z.array(z.string()),
    aliases: z
      .array(z.string())
      .describe(
        'the other names of this list folder: symlinks under tasks/ that reach it, each shown once, under this id (any of them names it for --list); [] when none',
      ),
    sessions: z.array(Session),
    todos: z.array(z.strictObject({ content: z.string(), status: Status, activeForm: z.string().optional() })).optional(),
    unsureSessions: z
      .array(z.string())
      .optional()
      .describe('sessions that worked on this list or on another holding the same tasks, which their transcripts cannot tell apart'),
    unsure: z
      .literal(true)
      .optional()
      .describe(
        'gone lists: its sessions may have worked on a list named only in their environment instead, and this one may never have existed',
      ),
  }).strict(),
);

export const StalledAcrossLists = z
  .array(
    z.strictObject({
      host: z.string().optional().describe('-H: the host it is on, as it was named (the first field)'),
      list: z.string(),
      kind: z.enum(['tasks', 'todowrite']).describe("todowrite: a session's TodoWrite todos (ids are their order)"),
      session: z
        .strictObject({
          sessionId: z.string(),
          state: z.enum(['live', 'ended', 'crashed', 'unknown']),
          activity: z.enum(['busy', 'waiting', 'idle']).nullable(),
          cwd: z.string().nullable(),
          branch: z.string().nullable(),
        })
        .nullable()
        .describe('the session the list belongs to (the live one, else the latest)'),
      stalled: z.array(
        z.strictObject({
          task: Task.describe('updatedAt: when it last changed (its file; a todo: its TodoWrite call)'),
          idleMs: z.int().nonnegative(),
          gone: TaskGone.optional(),
        }),
      ),
      untimed: z.array(z.string()).describe('TodoWrite items in progress whose call has no time: not judged'),
    }),
  )
  .describe('the lists with stalled work, newest change first');
const Point = z.strictObject({ x: z.number(), y: z.number() });
export const GraphResult = z.strictObject({
  host: z.string().optional().describe('-H: the host it is on, as it was named (the first field)'),
  list: z.string(),
  nodes: z.array(
    z
      .strictObject({
        id: z.string(),
        subject: z.string().nullable(),
        status: Status.nullable(),
        owner: z.string().nullable(),
        activeForm: z.string().nullable(),
        blocked: z.boolean(),
        openBlockers: z.array(z.string()),
        layer: z.int(),
        order: z.int(),
        x: z.number(),
        y: z.number(),
        width: z.number(),
        height: z.number(),
      })
      .describe('a node of the drawing: its task (null fields: a task named by an edge that no file holds) and its place'),
  ),
  edges: z.array(z.strictObject({ from: z.string(), to: z.string(), open: z.boolean(), reversed: z.boolean(), points: z.array(Point) })),
  layers: z.array(z.array(z.string())),
  cycles: z.array(z.array(z.string())),
  selfLoops: z.array(z.string()),
});

export const BoardResult = z.strictObject({
  url: z.string(),
  port: z.int(),
  host: z.string(),
  readOnly: z.boolean(),
  pid: z.int(),
});

export const UseResult = z.union([
  z
    .strictObject({
      list: z.string().nullable(),
      value: z.string().nullable(),
      file: z.string().nullable(),
      scope: z.string().nullable(),
      target: z.string(),
    })
    .describe('tasks use: the binding of this project'),
  z
    .strictObject({
      list: z.string().nullable(),
      file: z.string(),
      reach: z.enum(['tree', 'folder']),
      dir: z.string(),
      worktrees: z.array(z.string()),
      changed: z.boolean(),
      created: z.boolean(),
      previous: z.string().nullable(),
      bound: z.string().nullable(),
      moved: z
        .array(z.strictObject({ sessionId: z.string(), cwd: z.string().nullable(), from: z.string(), to: z.string() }))
        .describe('running sessions the change moves to another list at their next task call'),
    })
    .describe('tasks use <list> / --clear: what was written'),
]);

const FieldChange = z.strictObject({ old: z.unknown().optional(), new: z.unknown().optional() });

const WatchAt = { at: Iso };
/** Whether a /clear is known or taken from times alone (core/sessions/cleared-lists.ts). */
const ClearSure = z
  .boolean()
  .describe(
    'known: the same process was seen on both sessions, or their transcripts tie them to one process; false: probably, by times alone (another session of the project that began as this one ended looks the same)',
  );

/** A task of the watch: with `waiting` as `list --json` gives it, while its session waits for a person. */
const WatchTask = Task.extend({ waiting: TaskWaiting.optional() });
/** The session a watch's list waits on (a permission prompt): `waiting` as `list --json` gives it, with the tasks that wait. */
const PersonWait = TaskWaiting.extend({
  ids: Ids.describe('the tasks shown that wait on it: every one in progress (which session holds which task is not in the files)'),
  others: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('how many more sessions of the list wait for a person besides this one (absent: none)'),
}).describe('a session of the list waits for a person (a permission prompt): waiting, never stalled');

export const WatchEvent = z.discriminatedUnion('event', [
  z.strictObject({ event: z.literal('snapshot'), ...WatchAt, list: z.string().nullable(), exists: z.boolean(), tasks: z.array(WatchTask) }),
  z.strictObject({ event: z.literal('created'), ...WatchAt, task: WatchTask }),
  z.strictObject({ event: z.literal('updated'), ...WatchAt, task: WatchTask, changes: z.record(z.string(), FieldChange) }),
  z.strictObject({ event: z.literal('deleted'), ...WatchAt, task: Task.describe('its last known version') }),
  z.strictObject({ event: z.literal('list-cleared'), ...WatchAt, tasks: z.array(Task) }),
  z
    .strictObject({
      event: z.literal('session-cleared'),
      ...WatchAt,
      session: z.string().describe('the session that was cleared (its own list was watched)'),
      newSession: z.string().describe('the session its process runs now'),
      sure: ClearSure,
      from: z.string().describe('the list left behind'),
      to: z.string().describe('the list that process uses now'),
      followed: z.boolean().describe('the watch moved to `to`; false: it stays on `from` (--no-follow, or cleared before the watch began)'),
      before: z.boolean().describe('the session was cleared before the watch began'),
      exists: z.boolean().optional().describe("followed: whether the new list's folder exists yet"),
      tasks: z.array(WatchTask).optional().describe("followed: the new list's first state; the events after it are that list's"),
    })
    .describe('/clear: the session whose own list is watched went on as a new session'),
  z
    .strictObject({
      event: z.literal('waiting'),
      ...WatchAt,
      until: z.string().nullable().describe('the --until condition that holds'),
      sessions: z
        .array(
          z.strictObject({
            session: z.string().nullable().describe('its session id; null for a process not on a session yet'),
            pid: z.int().positive().nullable(),
            state: z
              .enum(['busy', 'waiting', 'background', 'starting'])
              .describe(
                'busy on a turn (its live-session file says so); waiting: in a turn, for a person (a permission prompt); background: at its prompt while a command it ran in the background goes on (its end starts a turn; for 10 minutes at most); starting: no live-session file yet',
              ),
          }),
        )
        .min(1),
    })
    .describe(
      'all-completed or empty holds, but sessions of the list are at work: the watch waits for them to go idle or end (said again when who it waits for changes)',
    ),
  z
    .strictObject({
      event: z.literal('needs-you'),
      ...WatchAt,
      waiting: PersonWait.nullable().describe('null: no session of the list waits for a person any more'),
    })
    .describe(
      'a session of the list waits for a person (at the start, or since), waits for something else, or no longer waits: after it, the tasks in ids carry waiting and no other does',
    ),
  z.strictObject({
    event: z.literal('end'),
    ...WatchAt,
    list: z.string().nullable().describe("the list watched as it ended (a run's may have been found on the way)"),
    reason: z.enum([
      'condition-met',
      'timeout',
      'stopped',
      'run-ended',
      'input-ended',
      'session-ended',
      'session-died',
      'session-cleared',
      'task-deleted',
      'stalled',
    ]),
    until: z.string().optional(),
    met: z.boolean().optional(),
    run: z.strictObject({ result: z.string().nullable(), isError: z.boolean().nullable() }).optional(),
    stalled: z.array(z.strictObject({ id: z.string(), idleMs: z.int().nonnegative() })).optional(),
    idleMs: z.int().nonnegative().optional(),
    gone: z.array(z.string()).optional().describe('every session of the list ended: the owners of unfinished tasks, gone with them'),
    died: z
      .array(
        z.strictObject({
          sessionId: z.string(),
          state: z.enum(['crashed', 'ended']),
          pid: z.int().nullable(),
          exit: z
            .strictObject({ code: z.int().nullable(), signal: z.string().nullable() })
            .optional()
            .describe(
              "a run's agent that tasks run started: how its process ended (signal: the one that killed it, code null; else its status). state is the session's end as its files tell it (list's answer: ended when Claude Code wrote its end, as on SIGTERM with status 143; crashed when it left its live-session file), else ended for status 0 and crashed otherwise. Absent when the session's file names another process than the one started (a wrapper script ran the agent): pid is then the agent's own",
            ),
          tasks: z.array(z.string()).describe('the ids of the tasks in progress it held'),
        }),
      )
      .optional()
      .describe(
        "sessions of the list that died holding work in progress (reason session-died); a followed run's own session, when its input ended before its result holding tasks it took up (reason input-ended)",
      ),
    nudge: z.strictObject({ code: z.string(), message: z.string() }).optional(),
    left: z
      .array(z.strictObject({ list: z.string(), unfinished: z.array(z.string()).describe('ids of the work still there') }))
      .optional()
      .describe('after a followed /clear: the lists left behind, which --until also speaks of'),
    cleared: z
      .strictObject({ session: z.string(), newSession: z.string(), sure: ClearSure, to: z.string() })
      .optional()
      .describe('reason session-cleared: the session that left the list, and where its process went'),
    deleted: z
      .string()
      .optional()
      .describe(
        'the task --until task:<id>:<status> names was deleted (reason task-deleted; or a run judged at its end): ids are never used again',
      ),
    runChanged: z
      .boolean()
      .optional()
      .describe(
        'a followed run: whether it changed its list itself; false: what holds held without it (a reused list, or the work of another process)',
      ),
    waiting: PersonWait.optional().describe('a session of the list waits for a person as the watch ends: what a timeout waited on'),
    exists: z.boolean(),
    counts: Counts,
    tasks: z.array(WatchTask),
  }),
]);

/** `tasks run`: the watch's events, then the run's own last line. */
export const RunEvent = z.union([
  WatchEvent,
  z
    .strictObject({
      event: z.literal('run'),
      ...WatchAt,
      verdict: z.enum(['passed', 'run-ended', 'stalled', 'timeout', 'interrupted', 'agent-failed', 'not-stream-json', 'error']),
      exit: z.int().nonnegative().describe('the status tasks run exits with'),
      list: z.string().nullable(),
      session: z.string().nullable().describe("the run's session, named by the stream's first event"),
      agent: z.strictObject({
        command: z.string(),
        pid: z.int(),
        exitCode: z.int().nullable().describe('null: a signal ended it'),
        signal: z.string().nullable(),
        endedBy: z.enum(['itself', 'SIGTERM', 'SIGKILL']).describe('who ended the agent: itself, or tasks run'),
      }),
      result: z
        .strictObject({ subtype: z.string().nullable(), isError: z.boolean().nullable() })
        .nullable()
        .describe("the run's result event (is_error: the agent says its run failed, verdict agent-failed); null: it had none"),
      record: z.string().nullable().describe('--record, as given'),
    })
    .describe('last: the verdict, the agent and the list'),
]);

export const ImportResult = z.strictObject({
  host: z.string().optional().describe('-H: the host it is on, as it was named (the first field)'),
  list: z.string(),
  format: z.enum(['todowrite', 'stream-json', 'transcript', 'tasks']),
  found: z.string(),
  dryRun: DryRun,
  created: z.array(Task).describe('the new tasks (a dry run: predicted ids, updatedAt null)'),
  skipped: z.array(
    z.strictObject({ ref: z.string(), subject: z.string(), existingId: z.string(), status: Status, existingStatus: Status }),
  ),
  updated: z.array(z.strictObject({ id: z.string(), addBlocks: Ids, addBlockedBy: Ids })),
  ids: z
    .record(z.string(), z.string())
    .optional()
    .describe('tasks that came with ids (exported tasks, a Task-tools run): each old id -> its id in the list; absent for todos'),
  warnings: z.array(z.string()),
});

const Finding = z.looseObject({
  code: z.string(),
  severity: z.enum(['error', 'warning']),
  message: z.string(),
  fixable: z.boolean(),
  fix: z.string().optional(),
  hint: z.string().optional(),
  repair: z.strictObject({ status: z.enum(['fixed', 'gone', 'failed']), message: z.string() }).optional(),
});

export const CheckReport = z.strictObject({
  list: z.string(),
  ok: z.literal(true),
  path: z.string(),
  checkedAt: Iso,
  files: z.int().nonnegative(),
  clean: z.boolean().describe('nothing found (with --fix: nothing left)'),
  findings: z.array(Finding),
  remaining: z.array(Finding).optional().describe('--fix: what a second look still finds'),
});

export const CheckResult = z.union([CheckReport, z.array(z.union([CheckReport, FailedList])).describe('--all: one report per list')]);

export const TrustResult = z.strictObject({
  folder: z.string().describe('the folder the record names (or that trusts it already)'),
  configFile: z.string(),
  already: z.boolean().describe('trusted already: nothing written'),
});

const NotifyTaskShape = z.strictObject({ id: z.string(), subject: z.string(), status: Status, owner: z.string().nullable() });

/** What a webhook and an `exec:` command get for each event (core/notify/deliver.ts). */
export const NotifyMessage = z.strictObject({
  event: z.enum([
    'list-completed',
    'needs-you',
    'ready-for-person',
    'stalled',
    'agent-died',
    'work-left',
    'hook-refused',
    'blocked-cycle',
    'damage',
  ]),
  list: z.string().describe('the list id'),
  shortId: z.string().describe('the list as tasks names it (-l <shortId>)'),
  project: z.string().nullable().describe('the folder its latest session ran in (~ for the home folder), when known'),
  tasks: z.array(NotifyTaskShape).describe('the tasks the event is about'),
  session: z.string().nullable().describe("the session it concerns (agent-died, work-left: the one that ended), else the list's latest"),
  at: Iso.describe('when the event was seen'),
  host: z.string().describe('the machine notify runs on'),
  title: z.string(),
  text: z.string().describe('one sentence for a person'),
  action: z.string().describe('the command that acts on it'),
});

/** `tasks notify --json`: a line per notification sent or given up. */
export const NotifyLine = z.strictObject({
  at: Iso,
  outcome: z.enum(['sent', 'failed']),
  target: z.string().describe("as shown: a URL's path, query and credentials are never printed"),
  via: z.string().describe('desktop: notify-send, osascript or terminal; else ntfy, webhook, slack, discord, exec'),
  attempts: z.int().nonnegative(),
  error: z.string().optional(),
  againInMs: z
    .int()
    .nonnegative()
    .optional()
    .describe('failed, in a following run: how long until it is tried again, if it still holds (absent: the next run tells it)'),
  notification: NotifyMessage,
});
