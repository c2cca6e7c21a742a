/**
 * What the board's server and its page say to each other: the JSON of the API and of
 * the server-sent events. Types only, importing nothing, so the page (built for the
 * browser) and the server (Node) share them.
 *
 * GET  <token>/api/overview            OverviewPayload
 * GET  <token>/api/list?id=<list>      ListPayload
 * GET  <token>/api/history?list=&task= HistoryPayload
 * GET  <token>/api/undo?list=<list>    UndoPreviewPayload
 * GET  <token>/api/gone?list=<list>    GonePreviewPayload
 * GET  <token>/api/cost?list=<list>    CostPayload
 * GET  <token>/api/carry?list=<list>&to=<session>  CarryPreviewPayload
 * GET  <token>/api/gone-lists          GoneListsPayload
 * GET  <token>/api/restore?list=<list>[&from=<session>...] RestorePreviewPayload
 * GET  <token>/api/now                 NowPayload
 * GET  <token>/api/events?list=<list>  text/event-stream: `clock` (the server's time, ms: first, then every 15 s), `overview`, `row`, `list`, `now`;
 *                                      on a board of hosts, `host-clock` too: {"host":"h0","at":ms}, each host's time as it comes
 * POST <token>/api/action              ActionRequest -> ActionResult (409 on a conflict)
 */

export type BoardStatus = 'pending' | 'in_progress' | 'completed';

/** A task exactly as its file holds it. */
export interface BoardTask {
  id: string;
  subject: string;
  description: string;
  activeForm?: string;
  owner?: string;
  status: BoardStatus;
  blocks: string[];
  blockedBy: string[];
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What core says about a task in its list: the answers the page shows and filters on. */
export interface TaskFacts {
  /** Unfinished, with an open blocker. */
  blocked: boolean;
  /** Pending, unowned, no open blocker: what an agent could claim. */
  ready: boolean;
  /** metadata._internal: hidden from agents' TaskList, and from the board unless asked. */
  internal: boolean;
  openBlockers: string[];
  missingBlockers: string[];
  /** In progress and unchanged this long while no session is busy (ms). */
  stalledMs?: number;
  /** In progress while its session waits for a person (never stalled): what for, in Claude Code's words, or null when it does not say. */
  waitingFor?: string | null;
  /** Its owner's session is over. */
  ownerGone: boolean;
  /**
   * In progress with no owner, and the session that held it is over (ended or crashed): its
   * agent is gone, as `tasks list` marks it ("agent gone: session 4aa21e64 crashed 15 min
   * ago") in place of a stall; `tasks release --gone` puts it back to pending.
   */
  agentGone?: AgentGoneView;
  /**
   * Its file's last change (ms since the epoch); for a file dated ahead of the server's
   * clock (`aheadMs`), when the board first saw that time: its stall counts from then.
   */
  changedAt?: number;
  /**
   * How far its file's time is ahead of `changedAt` (ms; a second or more): the file is
   * dated ahead of the server's clock (clock skew, a file copied from another machine, a
   * VM resumed), so `changedAt` is when the board first saw it, not the file's time.
   */
  aheadMs?: number;
}

/** The session over that held a task in progress (core's GoneHeld). */
export interface AgentGoneView {
  /** The session's id (null: none known). */
  session: string | null;
  /** "session 4aa21e64 crashed" (or "was cleared"). */
  why: string;
  /**
   * When the session was last seen at work (ms since the epoch; null: not known); that
   * time dated ahead of its machine's clock (`aheadMs`): when the board first saw it.
   */
  since: number | null;
  /** How far the session's last activity is dated ahead of `since` (a second or more). */
  aheadMs?: number;
}

export type SessionStateName = 'live' | 'ended' | 'crashed' | 'unknown';

/** A Claude Code session as `tasks lists` knows it (core's session index). */
export interface SessionView {
  sessionId: string;
  state: SessionStateName;
  activity: 'busy' | 'waiting' | 'idle' | null;
  /** Its state in the words of `tasks lists`: "live, busy", "ended", "cleared → 1a2b3c4d". */
  stateText: string;
  /** How the page marks it: busy, waiting (for a person), idle, live, ended, crashed, cleared or unknown. */
  look: 'busy' | 'waiting' | 'idle' | 'live' | 'ended' | 'crashed' | 'cleared' | 'unknown';
  /** Its process went on as this session (`/clear`). */
  replacedBy: string | null;
  name: string | null;
  /** The working directory, with the home folder as ~. */
  project: string | null;
  branch: string | null;
  prompt: string | null;
  lastActivity: number | null;
  /**
   * Its last activity dated ahead of its machine's clock (a transcript copied from a machine
   * ahead, clock skew, a VM resumed): when the board first saw that time, and by how much it
   * is ahead (a second or more), as a list's row has them (ListRowView).
   */
  seenAt?: number;
  aheadMs?: number;
}

/**
 * `tasks`: a list folder; `new`: the list a live session writes to, before its first task
 * makes the folder; `todowrite`: a session's latest TodoWrite todos (read-only, no folder).
 */
export type ListKind = 'tasks' | 'new' | 'todowrite';

export interface ListRowView {
  id: string;
  /** The host (-H) the list is on, as the user named it; absent on a board of this machine. */
  host?: string;
  shortId: string;
  kind: ListKind;
  total: number;
  counts: Record<BoardStatus, number>;
  /** Files agents cannot read. */
  problems: number;
  /** Its newest file's time, as `tasks lists` orders by it. */
  changedAt: number;
  /**
   * Its last change dated ahead of its machine's clock (clock skew, a file copied from a
   * machine ahead, a VM resumed): when the board first saw that time, as its card and the
   * Now view count the task whose file it is; `aheadMs` says by how much (a second or more).
   */
  seenAt?: number;
  aheadMs?: number;
  /** The session to show (live, else the latest), if any is known. */
  session: SessionView | null;
  /** The list's next sessions after it, live first, then the latest (a named list's: those its tasks tie to it): the first few. */
  others: SessionView[];
  /** How many sessions the list has in all. */
  sessionCount: number;
  /** How many sessions may have worked on it, which their transcripts cannot tell from another list's: not its sessions. */
  unsure: number;
  team: { name: string; members: string[] } | null;
}

/** The list Claude Code sessions started in the board's folder use, by its settings (`tasks use`). */
export interface BindingView {
  list: string;
  /** The settings file that says so, with the home folder as ~. */
  file: string;
  scope: string;
}

/** A host of a board of several hosts (-H): reached (live), being reached, or not (down, and why). */
export interface HostStateView {
  label: string;
  state: 'connecting' | 'live' | 'down';
  /** Why it is down (one line naming the cause), or null. */
  message: string | null;
  /** Since when it is in this state (ms). */
  since: number;
  /** Down because it stopped answering: connected, and nothing came back within the deadline (board-feed-client.ts). */
  silent?: true;
  /** When the host last answered (ms), on a host down that had answered before. */
  answeredAt?: number;
  /**
   * When the host's board started, on the host's clock (its overview's `startedAt`), on a
   * live host: a file dated ahead that it first saw then was there before it.
   */
  startedAt?: number;
}

export interface OverviewPayload {
  at: number;
  readOnly: boolean;
  /** A board of hosts (-H): each host and whether it is reached; its lists are in `lists`, each naming it. Absent on a board of this machine. */
  hosts?: HostStateView[];
  /** As `tasks lists` orders them: newest change first. */
  lists: ListRowView[];
  /** The board's folder's binding, if it has one. */
  binding: BindingView | null;
  /** Lists whose sessions cannot be told apart, in the words of `tasks lists`. */
  unsureNotes: string[];
  /** TodoWrite sessions shown before "more": the most recent, as `tasks lists` shows them. */
  todoWriteShown: number;
  /** When the board started: a file dated ahead that it first saw then was there before it. Absent on a board of hosts: each host's is in `hosts`. */
  startedAt?: number;
}

/** A change on the undo stack: what undo would take back, or redo apply again. */
export interface StackChangeView {
  txn: string;
  command: string;
  actor: { kind: 'person' | 'agent'; name: string };
  at: string;
  tasks: string[];
  /** An undo or redo stopped half-way (`txn` is its own): the next undo finishes it first. */
  finishing?: boolean;
  /**
   * `at` dated ahead of its machine's clock (a journal copied from a machine ahead, clock
   * skew, a VM resumed): when the board first saw it, and by how much (a second or more).
   */
  seenAt?: number;
  aheadMs?: number;
}

/** What undo or redo would do now, as `tasks undo --dry-run` says it; or why it would be refused. */
export type StackPreview = { lines: string[] } | { refused: string } | null;

export interface UndoPreviewPayload {
  /** The changes these previews are of (the stack's ends as read with them): shown only with those. */
  undoTxn: string | null;
  redoTxn: string | null;
  undo: StackPreview;
  redo: StackPreview;
}

export interface TodoView {
  content: string;
  status: BoardStatus;
  activeForm?: string;
}

export interface ListPayload {
  at: number;
  id: string;
  kind: ListKind;
  exists: boolean;
  /** Id order. */
  tasks: BoardTask[];
  /** A TodoWrite session's todos (kind `todowrite`), in its order. */
  todos: TodoView[];
  facts: Record<string, TaskFacts>;
  row: ListRowView | null;
  /** Why owners are gone ("session 2d483082 ended"), when they are. */
  goneWhy: string | null;
  /** The first sign of life of the list (core's signs of life), when one remains. */
  life: { why: string; busy: boolean } | null;
  problems: Array<{ file: string; reason: string }>;
  /**
   * Why the list cannot be read at all, as `tasks list` says it (its path is a file, a
   * FIFO, a device, a folder that cannot be read): then there are no tasks, and it is
   * not a list agents can use either. Null for a list that reads (or does not exist yet).
   */
  unreadable: string | null;
  /** The top of the undo stack (what undo would take back), if any. */
  undo: StackChangeView | null;
  /** What redo would apply again (the first of it), if an undo left anything to redo. */
  redo: StackChangeView | null;
  /**
   * The stall rule's threshold (core/progress/stalled-work.ts): a task in progress whose
   * file has not changed for this long, while no session of the list is at work, is
   * stalled. The page counts it on from `changedAt` between reads, as time alone brings it.
   */
  stalledAfterMs: number;
  /** A session of the list was at work (busy on a turn) as the list was read: nothing stalls until it is read again. */
  atWork: boolean;
}

/** One change of a task's history, in the words of `tasks log`. */
export interface HistoryEventView {
  at: string;
  task: string | null;
  op: 'create' | 'update' | 'delete' | 'aside' | 'mark' | 'removed' | 'unrecorded';
  who: { kind: 'person' | 'agent' | 'unknown'; text: string };
  what: string;
  source: 'journal' | 'transcript' | 'files';
  command: string | null;
  txn: string | null;
  /**
   * Its record dated ahead of its machine's clock (a transcript or a journal copied from a
   * machine ahead, clock skew, a VM resumed): when the board first read it, and by how much
   * `at` is ahead of then (a second or more).
   */
  seenAt?: number;
  aheadMs?: number;
}

export interface HistoryPayload {
  events: HistoryEventView[];
  /** What `tasks log <id>` says on stderr: where the record starts, what it reads, what predates it. */
  notes: string[];
}

/** What releasing the gone owners' tasks would do now (`release --gone --dry-run`). */
export interface GonePreviewPayload {
  /** Why the owners are gone ("session 2d483082 ended"); null when none is. */
  why: string | null;
  targets: Array<{ id: string; owner: string; subject: string; status: BoardStatus }>;
  /** A live session that may pick the work up: releasing anyway needs a confirmation (`--force`). */
  live: string | null;
  /** With nothing to release: why, in the words of `release --gone`. */
  none: string | null;
}

/** A live session the unfinished work of a list may be carried to: the list it writes to now. */
export interface CarryTargetView {
  sessionId: string;
  /** The list that session writes to (its folder may not exist before its first task). */
  list: string;
  /** `cleared`: the session the source's own went on as after /clear; `project`: a live session of the same project. */
  why: 'cleared' | 'project';
  /** "session 7baec0ff (live, idle) · ~/work/web", for the button and the dialog. */
  label: string;
}

/** What `tasks --session <to> carry --from <list> --dry-run` says now, and where else the work could go. */
export interface CarryPreviewPayload {
  /** The sessions offered as targets: the one /clear went on as first, then the project's live sessions. */
  targets: CarryTargetView[];
  /** The target of this preview (null: none to offer). */
  target: CarryTargetView | null;
  /** The dry run's lines (what stdout shows) and its summary and warnings (stderr). */
  lines: string[];
  notes: string[];
  warnings: string[];
  /** How many tasks a real run would carry. */
  count: number;
  /** A live agent works on the source: a real run is refused unless the person confirms (`--force`). */
  live: string | null;
  /** Nothing to offer, and why: no live session to carry to, or a refusal of the dry run itself. */
  none: string | null;
}

/** A list whose folder is gone while its sessions' transcripts remain (`tasks lists --all`). */
export interface GoneListView {
  id: string;
  /** The host (-H) the list was on; absent on a board of this machine. */
  host?: string;
  shortId: string;
  /** Its latest session. */
  session: SessionView | null;
  sessionCount: number;
  /** The tasks the record ends with, by status. */
  counts: Record<BoardStatus, number>;
  total: number;
  /** Its latest session's last activity, as `tasks lists --all` has it. */
  changedAt: number;
  /** That time dated ahead of its machine's clock: when the board first saw it, and by how much (as ListRowView's). */
  seenAt?: number;
  aheadMs?: number;
  /** Its sessions may have worked on a list named otherwise: restored by name with --from. */
  mayBeElsewhere: boolean;
}

export interface GoneListsPayload {
  lists: GoneListView[];
}

/** What `tasks restore --dry-run` says now of a list; or why nothing would be restored. */
/** A session whose transcript a restore reads, or may read (`restore --from`). */
export interface RestoreSourceView {
  sessionId: string;
  /** "session 6a6a6a6a (ended) · ~/work/api". */
  label: string;
  /** Why it is read: the list's own session, one its tasks tie to it, a binding, shared tasks, named by the person; `candidate`: may hold it (nothing else records the list). */
  why: 'own' | 'tasks' | 'binding' | 'shares' | 'named' | 'candidate';
  /** The list's Task-tool changes its transcript holds (null: not read). */
  changes: number | null;
}

export interface RestorePreviewPayload {
  list: string;
  /** `--from` as asked (empty: the transcripts found for the list). */
  from: string[];
  /** The transcripts read, and the sessions that may hold the list when nothing records it: what `--from` may name. */
  sources: RestoreSourceView[];
  lines: string[];
  summary: string;
  warnings: string[];
  /** How many tasks a real run would write. */
  count: number;
  /** Nothing to restore, in the words of `tasks restore`: a real run would be refused. */
  none: string | null;
}

/** What some work cost (`tasks cost`): tokens of every kind, time in progress, an estimate in USD. */
export interface CostView {
  tokens: number;
  activeMs: number;
  messages: number;
  models: string[];
  /** null: a model with no known price. */
  costUsd: number | null;
  /** In the words of `tasks get`: "12m 40s in progress · 1.2M tokens (8 messages, …) · $0.42 estimated". */
  text: string;
}

/** What a list's tasks cost: those with recorded work, the whole list, its sessions' work on no task. */
export interface CostPayload {
  list: string;
  tasks: Record<string, CostView>;
  total: CostView;
  unattributed: CostView;
  /** The price table's date. */
  pricesDate: string;
  /** Why no cost could be worked out (a bad price file), or null. */
  error: string | null;
}

/** The state the card showed: the change is made only if the task still has it. */
export interface Expectation {
  status: BoardStatus;
  owner: string | null;
}

export type ActionRequest =
  | { action: 'start' | 'reopen' | 'release' | 'delete'; list: string; id: string; expect: Expectation }
  /** Assign to me: claimed as the person (the agents' claim rule: unowned, no open blocker) and started, as `tasks claim <id> --as @me --start`. */
  | { action: 'claim'; list: string; id: string; expect: Expectation }
  /** `hooks: false`: as `tasks done --no-hooks`. */
  | { action: 'done'; list: string; id: string; expect: Expectation; hooks?: boolean }
  | { action: 'reassign'; list: string; id: string; expect: Expectation; owner: string | null }
  | { action: 'block' | 'unblock'; list: string; id: string; expect: Expectation; by: string[] }
  | { action: 'create'; list: string; subject: string; description?: string; owner?: string; blockedBy?: string[]; hooks?: boolean }
  /** The change shown: undo takes it back only if it is still the top of the stack; redo only if it is still what redo applies. */
  | { action: 'undo' | 'redo'; list: string; txn: string }
  /** `release --gone`: the tasks shown (each still held by the owner shown); `force` once the person confirmed despite a live session. */
  | { action: 'release-gone'; list: string; ids: string[]; force: boolean }
  /**
   * `tasks --session <to> carry --from <list>`: the unfinished work of `list` into the list
   * session `to` writes to now, only while that session is live; `force` once the person
   * confirmed despite a live agent on `list`.
   */
  | { action: 'carry'; list: string; to: string; force: boolean }
  /** `tasks -l <list> restore`: the list rebuilt from its sessions' transcripts. */
  | { action: 'restore'; list: string; from: string[] };

export interface ActionError {
  code: string;
  message: string;
  /** A precondition that failed: which, what the card showed, what the file holds. */
  precondition?: string;
  expected?: string | null;
  actual?: string | null;
  id?: string;
  /** A hook's block: its reasons in full, as `tasks` prints them under the error. */
  details?: string[];
  /** The change may be made again without hooks (as with `--no-hooks`). */
  withoutHooks?: boolean;
  /** What the lifecycle said before the refusal (hooks that failed, settings skipped). */
  warnings?: string[];
}

export type ActionResult =
  | {
      ok: true;
      message: string;
      /** Further lines of the outcome (an undo's steps, each task released). */
      lines?: string[];
      /** What happened around the change, in the words of the commands' notes and warnings. */
      notes?: string[];
      warnings?: string[];
      task?: BoardTask;
    }
  | { ok: false; error: ActionError };

/** What `tasks notify` tells a person of (core's events, `--on`'s words). */
export type NowEventType =
  | 'list-completed'
  | 'needs-you'
  | 'ready-for-person'
  | 'stalled'
  | 'agent-died'
  | 'work-left'
  | 'hook-refused'
  | 'blocked-cycle'
  | 'damage';

/** The list a Now entry belongs to. */
export interface NowListRef {
  list: string;
  /** The host (-H) the list is on; absent on a board of this machine. */
  host?: string;
  shortId: string;
  /** The project folder of its latest session, with the home folder as ~. */
  project: string | null;
}

/** One of `tasks notify`'s events, active now, in its words. */
export interface NowEventView extends NowListRef {
  /** Names the condition: unchanged while it lasts (a browser notification is shown once per key). */
  key: string;
  type: NowEventType;
  title: string;
  text: string;
  /** The command that acts on it, as `tasks notify` says it. */
  action: string;
  tasks: Array<{ id: string; subject: string; status: BoardStatus; owner: string | null }>;
  /** When it happened (ms): a session's end, a refusal's record, a file's time; where no record says, when this board first saw it. */
  since: number;
  /** `since` is only when this board first saw it (no record says when it happened): shown as "seen …". */
  seen: boolean;
  /** Its record is dated ahead of the clock by this much (a second or more): `since` is when the board first saw it. */
  aheadMs?: number;
  /**
   * How many of its list's tasks a carry would take (unfinished, not agents' own
   * bookkeeping, not carried before: store/schema.ts isLeftWork). Carry is offered only
   * when there are some: an agent gone holding only internal tasks, or work carried
   * already, leaves nothing to carry.
   */
  leftWork: number;
}

export interface NowTaskView {
  id: string;
  subject: string;
  owner: string | null;
  activeForm: string | null;
  stalled: boolean;
  /** Its agent's session is over (an agent-died event holds it): its owner's, or, with no owner, the one that held it. */
  ownerGone: boolean;
  /** Its session waits for a person (a needs-you event names it): no work goes on meanwhile. */
  waiting: boolean;
  /** Its file's last change; for a file dated ahead of the clock (`aheadMs`), when the board first saw that time. */
  changedAt: number | null;
  /** How far its file is dated ahead of `changedAt` (ms, a second or more): clock skew, a copied file, a VM resumed. */
  aheadMs?: number;
}

/** A list's work in progress. */
export interface NowWorkView extends NowListRef {
  tasks: NowTaskView[];
}

/** One line of the activity feed: a task's change (as `tasks watch` sees it) or an event that began. */
export interface NowFeedItem extends NowListRef {
  /** When it happened (ms): the task file's time, a session's end, a refusal's record; else when the board saw it. */
  at: number;
  /** `at` is only when the board saw it: shown as "seen …". */
  seen: boolean;
  /** Its file (its record) is dated ahead of the clock by this much (a second or more): `at` is when the board saw it. */
  aheadMs?: number;
  kind: 'change' | NowEventType;
  text: string;
  task: string | null;
}

/** The Now view: every list at once, what `tasks notify` and `tasks watch` see. */
export interface NowPayload {
  at: number;
  /** The lists have been looked at (before: the view is still being worked out). */
  ready: boolean;
  /** What waits for a person: waiting, stalled, died and problems together (the tab title's count). */
  needsPerson: number;
  working: NowWorkView[];
  waiting: NowEventView[];
  stalled: NowEventView[];
  died: NowEventView[];
  problems: NowEventView[];
  /** Lists whose every task is done, most recent first (those finished in the last day). */
  finished: NowEventView[];
  /** Newest first. */
  feed: NowFeedItem[];
}
