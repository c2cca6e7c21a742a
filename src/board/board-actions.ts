import { TasksError } from '../core/base/errors.js';
import { releaseTask } from '../core/claims/release-apply.js';
import { newTxn, startRecording } from '../core/history/recorder.js';
import { runUndo } from '../core/history/undo-run.js';
import type { HookPolicySources } from '../core/hooks/hook-settings.js';
import { HookBlockedError } from '../core/hooks/hooks.js';
import { personLifecycle } from '../core/lifecycle/person-change.js';
import { createTaskWithLifecycle, emptyReport, updateTaskWithLifecycle } from '../core/lifecycle/task-lifecycle.js';
import { isTaskId } from '../core/store/ids.js';
import type { TaskPatch } from '../core/store/patch.js';
import { listDirOf } from '../core/store/paths.js';
import { blockTask, unblockTask } from '../core/writes/dependencies.js';
import { preconditionGuard } from '../core/writes/preconditions.js';
import { deleteTask, type Guard } from '../core/writes/task-writes.js';
import type { ActionError, ActionRequest, ActionResult, BoardTask, Expectation } from './board-protocol.js';

/**
 * The board's actions: each one the CLI's own core call (lifecycle with its hooks and
 * team inboxes, claims' release, edges, delete, undo), recorded in the list's journal as
 * the person's, and made only if the task still is as the card showed it (status and
 * owner, checked inside the task lock): an agent's change in between is a conflict
 * (HTTP 409), never a lost update. One action at a time: the journal records each
 * action's writes as one change.
 */
export interface ActionContext {
  configDir: string;
  /** Who the journal names: the person who started the board. */
  person: string;
  hookPolicy: HookPolicySources;
  /** Where project hooks are looked for: the folder the board was started in (undefined: it was deleted). */
  projectDir: string | undefined;
  env: NodeJS.ProcessEnv;
  /** The board's process, named in hook input as a command's is. */
  pid: number;
  /** Aborted when the board stops: running hooks are stopped. */
  signal: AbortSignal;
  /** A journal that cannot be written: the change stands, and the person is told where the board runs. */
  warn: (message: string) => void;
}

export interface ActionOutcome {
  status: number;
  result: ActionResult;
}

const LIST_ID = /^[A-Za-z0-9_-]{1,255}$/;
const MAX_TEXT = 100_000;
const HTTP_OF: Record<string, number> = { usage: 400, not_found: 404, conflict: 409, busy: 503, interrupted: 503, timeout: 504 };

/** The journal's command for each action: what `tasks log` and `tasks undo` name. */
const COMMAND: Record<ActionRequest['action'], string> = {
  start: 'start',
  done: 'done',
  reopen: 'update',
  reassign: 'update',
  release: 'release',
  block: 'block',
  unblock: 'unblock',
  create: 'create',
  delete: 'delete',
  undo: 'undo',
};

let queue: Promise<unknown> = Promise.resolve();

/** Run one action after the ones before it. Never throws: every failure is an outcome. */
export function runAction(ctx: ActionContext, body: unknown): Promise<ActionOutcome> {
  const next = queue.then(() => perform(ctx, body));
  queue = next.catch(() => undefined);
  return next;
}

async function perform(ctx: ActionContext, body: unknown): Promise<ActionOutcome> {
  let req: ActionRequest;
  try {
    req = parseRequest(body);
  } catch (err) {
    return failure(err);
  }
  const own = newTxn(Date.now(), ctx.pid);
  const record: UndoRecord = { marks: {} };
  const recording = startRecording({
    actor: { kind: 'person', name: ctx.person },
    command: COMMAND[req.action],
    txn: () => record.txn ?? own,
    marks: () => record.marks,
    now: () => new Date(),
    onError: (listDir, err) =>
      ctx.warn(`could not record this change in ${listDir}/.tasks-journal.jsonl: ${(err as Error).message}; the change itself is made`),
  });
  record.end = (listDir) => recording.mark(listDir, { end: true });
  try {
    const done = await apply(ctx, req, record);
    return { status: 200, result: { ok: true, ...done } };
  } catch (err) {
    return failure(err);
  } finally {
    recording.stop();
  }
}

/** What an undo tells the action's record: the txn to record under and what it takes back; its end. */
interface UndoRecord {
  txn?: string | undefined;
  marks: { undoes?: string[]; redoes?: string[] };
  end?: (listDir: string) => void;
}

async function apply(ctx: ActionContext, req: ActionRequest, record: UndoRecord): Promise<{ message: string; task?: BoardTask }> {
  const dir = listDirOf(ctx.configDir, req.list);
  // Hooks run and owners are told, as a command without --no-hooks / --no-notify does.
  const lifecycle = personLifecycle({
    configDir: ctx.configDir,
    listId: req.list,
    listDir: dir,
    projectDir: ctx.projectDir,
    hookPolicy: ctx.hookPolicy,
    env: ctx.env,
    pid: ctx.pid,
    signal: ctx.signal,
    hooks: true,
    notify: true,
    now: () => new Date(),
  });
  const update = async (id: string, patch: TaskPatch, expect: Expectation, verb: string) => {
    const { result } = await updateTaskWithLifecycle(lifecycle, id, patch, guardFor(expect), emptyReport());
    return { message: result.changed.length === 0 ? `#${id} unchanged` : `${verb} #${id}`, task: result.task as BoardTask };
  };
  switch (req.action) {
    case 'start':
      return update(req.id, { status: 'in_progress' }, req.expect, 'Started');
    case 'done':
      return update(req.id, { status: 'completed' }, req.expect, 'Completed');
    case 'reopen':
      return update(req.id, { status: 'pending' }, req.expect, 'Reopened');
    case 'reassign':
      return update(req.id, { owner: req.owner }, req.expect, req.owner === null ? 'Unassigned' : `Gave ${req.owner}`);
    case 'release': {
      const r = await releaseTask(dir, req.id, guardFor(req.expect));
      return { message: r.released ? `Released #${req.id}` : `#${req.id} had nothing to release`, task: r.task as BoardTask };
    }
    case 'block': {
      const r = await blockTask(dir, req.id, req.by, guardFor(req.expect));
      return {
        message:
          r.added.length === 0
            ? `#${req.id} was already blocked by those`
            : `#${req.id} now waits for ${req.by.map((b) => `#${b}`).join(', ')}`,
        task: r.task as BoardTask,
      };
    }
    case 'unblock': {
      const r = await unblockTask(dir, req.id, req.by.length === 0 ? undefined : req.by, guardFor(req.expect));
      return {
        message:
          r.removed.length === 0
            ? `#${req.id} was not blocked by those`
            : `#${req.id} no longer waits for ${r.removed.map((b) => `#${b}`).join(', ')}`,
        task: r.task as BoardTask,
      };
    }
    case 'create': {
      const { task } = await createTaskWithLifecycle(
        lifecycle,
        { subject: req.subject, description: req.description ?? '', owner: req.owner, blockedBy: req.blockedBy ?? [] },
        emptyReport(),
      );
      return { message: `Created #${task.id}`, task: task as BoardTask };
    }
    case 'delete': {
      const r = await deleteTask(dir, req.id, guardFor(req.expect));
      return { message: `Deleted #${req.id}`, task: r.task as BoardTask };
    }
    case 'undo': {
      // Only the change shown: the top of the undo stack, as `tasks undo` takes it.
      const { plan } = await runUndo(dir, {
        action: 'undo',
        expectTxn: req.txn,
        dryRun: false,
        recording: (marks) => {
          record.txn = marks.txn;
          record.marks = { ...(marks.undoes ? { undoes: marks.undoes } : {}), ...(marks.redoes ? { redoes: marks.redoes } : {}) };
        },
        end: () => record.end?.(dir),
      });
      const first = plan.commands[0];
      return { message: first === undefined ? 'Nothing to undo' : `Undid ${first.command} by ${first.actor.name}` };
    }
  }
}

/** The card's state as core preconditions: this status, and this owner or none. */
function guardFor(expect: Expectation): Guard | undefined {
  return preconditionGuard(
    expect.owner === null ? { status: [expect.status], unowned: true } : { status: [expect.status], owner: expect.owner },
  );
}

function failure(err: unknown): ActionOutcome {
  if (err instanceof HookBlockedError) {
    return { status: 409, result: { ok: false, error: { code: 'hook', message: err.message } } };
  }
  if (err instanceof TasksError) {
    const d = err.details ?? {};
    const error: ActionError = { code: err.code, message: err.message };
    if (typeof d.precondition === 'string') error.precondition = d.precondition;
    if ('expected' in d) error.expected = d.expected === null ? null : String(d.expected);
    if ('actual' in d) error.actual = d.actual === null ? null : String(d.actual);
    if (typeof d.id === 'string') error.id = d.id;
    return { status: HTTP_OF[err.code] ?? 500, result: { ok: false, error } };
  }
  return {
    status: 500,
    result: { ok: false, error: { code: 'internal', message: `unexpected: ${err instanceof Error ? err.message : String(err)}` } },
  };
}

function bad(message: string): TasksError {
  return new TasksError('usage', message);
}

function text(value: unknown, what: string, opts: { optional?: boolean; max?: number } = {}): string | undefined {
  if (value === undefined && opts.optional) return undefined;
  if (typeof value !== 'string') throw bad(`${what} must be text`);
  if (value.length > (opts.max ?? MAX_TEXT)) throw bad(`${what} is too long`);
  return value;
}

function taskId(value: unknown, what = 'id'): string {
  if (typeof value !== 'string' || !isTaskId(value)) throw bad(`${what} must be a task id`);
  return value;
}

function ownerName(value: unknown, what: string): string {
  const name = text(value, what, { max: 200 }) as string;
  if (name.trim() === '') throw bad(`${what} must not be empty`);
  return name;
}

function expectation(value: unknown): Expectation {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null) throw bad('expect: the state the card showed is required');
  if (v.status !== 'pending' && v.status !== 'in_progress' && v.status !== 'completed') throw bad('expect.status must be a status');
  if (v.owner !== null && typeof v.owner !== 'string') throw bad('expect.owner must be a name or null');
  return { status: v.status, owner: v.owner === '' ? null : v.owner };
}

function ids(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.length > 1000) throw bad(`${what} must be a list of task ids`);
  return [...new Set(value.map((v) => taskId(v, what)))];
}

/** The request as the page sends it, checked field by field; anything else is a usage error (400). */
export function parseRequest(body: unknown): ActionRequest {
  const b = body as Record<string, unknown> | null;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw bad('an action is a JSON object');
  const list = b.list;
  if (typeof list !== 'string' || !LIST_ID.test(list)) throw bad('list must be a list id');
  switch (b.action) {
    case 'start':
    case 'done':
    case 'reopen':
    case 'release':
    case 'delete':
      return { action: b.action, list, id: taskId(b.id), expect: expectation(b.expect) };
    case 'reassign':
      return {
        action: 'reassign',
        list,
        id: taskId(b.id),
        expect: expectation(b.expect),
        owner: b.owner === null ? null : ownerName(b.owner, 'owner'),
      };
    case 'block':
    case 'unblock': {
      const by = ids(b.by ?? [], 'by');
      if (b.action === 'block' && by.length === 0) throw bad('by: at least one task id');
      return { action: b.action, list, id: taskId(b.id), expect: expectation(b.expect), by };
    }
    case 'create': {
      const subject = text(b.subject, 'subject', { max: 10_000 }) as string;
      if (subject.trim() === '') throw bad('subject must not be empty');
      const owner = b.owner === undefined || b.owner === '' ? undefined : ownerName(b.owner, 'owner');
      return {
        action: 'create',
        list,
        subject,
        description: text(b.description, 'description', { optional: true }),
        owner,
        blockedBy: b.blockedBy === undefined ? [] : ids(b.blockedBy, 'blockedBy'),
      };
    }
    case 'undo':
      return { action: 'undo', list, txn: text(b.txn, 'txn', { max: 200 }) as string };
    default:
      throw bad('unknown action');
  }
}
