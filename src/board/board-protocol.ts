/**
 * What the board's server and its page say to each other: the JSON of the API and of
 * the server-sent events. Types only, importing nothing, so the page (built for the
 * browser) and the server (Node) share them.
 *
 * GET  <token>/api/overview            OverviewPayload
 * GET  <token>/api/list?id=<list>      ListPayload
 * GET  <token>/api/history?list=&task= HistoryPayload
 * GET  <token>/api/events?list=<list>  text/event-stream: `overview`, `row`, `list`, `gone`
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
  /** Its owner's session is over. */
  ownerGone: boolean;
  /** Its file's last change (ms since the epoch). */
  changedAt?: number;
}

export type SessionStateName = 'live' | 'ended' | 'crashed' | 'unknown';

export interface SessionView {
  sessionId: string;
  state: SessionStateName;
  activity: 'busy' | 'idle' | null;
  name: string | null;
  /** The working directory, with the home folder as ~. */
  project: string | null;
  branch: string | null;
  prompt: string | null;
  lastPrompt: string | null;
  lastActivity: number | null;
}

export interface ListRowView {
  id: string;
  shortId: string;
  total: number;
  counts: Record<BoardStatus, number>;
  /** Files agents cannot read. */
  problems: number;
  changedAt: number;
  /** The session to show (live, else the latest), if any is known. */
  session: SessionView | null;
  sessions: number;
  team: { name: string; members: string[] } | null;
}

export interface OverviewPayload {
  at: number;
  readOnly: boolean;
  lists: ListRowView[];
}

export interface LastChangeView {
  txn: string;
  command: string;
  actor: { kind: 'person' | 'agent'; name: string };
  at: string;
  tasks: string[];
}

export interface ListPayload {
  at: number;
  id: string;
  exists: boolean;
  /** Id order. */
  tasks: BoardTask[];
  facts: Record<string, TaskFacts>;
  row: ListRowView | null;
  /** Why owners are gone ("session 2d483082 ended"), when they are. */
  goneWhy: string | null;
  problems: Array<{ file: string; reason: string }>;
  /** The last change made with tasks (what undo would take back), if any. */
  lastChange: LastChangeView | null;
  stalledAfterMs: number;
}

/**
 * One change, as history's timeline holds it (core/history/events.ts: `null` is an absent
 * field, a missing `old` one no record tells); `tasks log --json` prints the same change in
 * the output contract's form (render/history-json.ts).
 */
export interface HistoryEventView {
  at: string;
  list: string;
  task: string | null;
  op: 'create' | 'update' | 'delete' | 'aside' | 'mark' | 'removed' | 'unrecorded';
  who: { kind: 'person' | 'agent' | 'unknown'; name: string | null; session: string | null };
  changes: Record<string, { old?: unknown; new?: unknown; added?: string[] }>;
  source: 'journal' | 'transcript' | 'files';
  command: string | null;
  txn: string | null;
  cause?: 'app-status' | 'unknown-agent' | 'hand-edit';
}

export interface HistoryPayload {
  events: HistoryEventView[];
}

/** The state the card showed: the change is made only if the task still has it. */
export interface Expectation {
  status: BoardStatus;
  owner: string | null;
}

export type ActionRequest =
  | { action: 'start' | 'done' | 'reopen' | 'release' | 'delete'; list: string; id: string; expect: Expectation }
  | { action: 'reassign'; list: string; id: string; expect: Expectation; owner: string | null }
  | { action: 'block' | 'unblock'; list: string; id: string; expect: Expectation; by: string[] }
  | { action: 'create'; list: string; subject: string; description?: string; owner?: string; blockedBy?: string[] }
  | { action: 'undo'; list: string; txn: string };

export type ActionName = ActionRequest['action'];

export interface ActionError {
  code: string;
  message: string;
  /** A precondition that failed: which, what the card showed, what the file holds. */
  precondition?: string;
  expected?: string | null;
  actual?: string | null;
  id?: string;
}

export type ActionResult = { ok: true; message: string; task?: BoardTask } | { ok: false; error: ActionError };
