import fs from 'node:fs';
import { TasksError } from '../core/base/errors.js';
import { isDirectory } from '../core/base/is-directory.js';
import { blockerState, indexTasks } from '../core/graph/blockers.js';
import { newTxn, startRecording } from '../core/history/recorder.js';
import type { HookPolicySources } from '../core/hooks/hook-settings.js';
import { HookBlockedError } from '../core/hooks/hooks.js';
import { claimWithLifecycle } from '../core/lifecycle/claim-change.js';
import { personLifecycle } from '../core/lifecycle/person-change.js';
import { releaseOne } from '../core/lifecycle/release-change.js';
import { createTaskWithLifecycle, emptyReport, type LifecycleReport, updateTaskWithLifecycle } from '../core/lifecycle/task-lifecycle.js';
import { liveSessionsNear } from '../core/sessions/gone-owners.js';
import type { SessionIndex } from '../core/sessions/session-index.js';
import { readTasks } from '../core/store/list-read.js';
import type { TaskPatch } from '../core/store/patch.js';
import { listDirOf } from '../core/store/paths.js';
import type { Task } from '../core/store/schema.js';
import { deleteOne } from '../core/writes/deletion.js';
import { blockTask, unblockTask } from '../core/writes/dependencies.js';
import { type Preconditions, preconditionGuard } from '../core/writes/preconditions.js';
import type { Guard } from '../core/writes/task-writes.js';
import { describeRefusal } from '../render/claim-result.js';
import { renderBlockDetails, renderLifecycleReport } from '../render/lifecycle-report.js';
import { renderJournalCut, renderJournalNotWritten } from '../render/log-lines.js';
import { renderStillBlocked } from '../render/refs.js';
import { oneLine } from '../render/text.js';
import { carryAction } from './board-carry.js';
import { releaseGoneAction } from './board-gone.js';
import type { ActionError, ActionRequest, ActionResult, BoardTask, Expectation } from './board-protocol.js';
import { parseRequest } from './board-requests.js';
import { restoreAction } from './board-restore.js';
import { type UndoRecord, undoAction } from './board-undo.js';

/**
 * The board's actions: each one the CLI's own core call (lifecycle with its hooks and
 * team inboxes, claims' release, edges, delete, the undo stack, release of gone owners),
 * recorded in the list's journal as the person's (their login name, as a command without
 * `--as` records it), and made only if the task still is as the card showed it (status
 * and owner, checked inside the task lock): an agent's change in between is a conflict
 * (HTTP 409), never a lost update. What the commands say around a change (hooks that
 * failed, settings skipped, owners told) comes back with the outcome, in their words; a
 * hook's block is a refusal with its reasons. One action at a time: the journal records
 * each action's writes as one change.
 */
export interface ActionContext {
  configDir: string;
  /** Who the journal names: the person who started the board. */
  person: string;
  /** The home folder, resolved: shown as ~. */
  home: string;
  hookPolicy: HookPolicySources;
  /** Where project hooks are looked for: the folder the board was started in (undefined: it was deleted). */
  projectDir: string | undefined;
  env: NodeJS.ProcessEnv;
  /** The board's process, named in hook input as a command's is. */
  pid: number;
  /** Aborted when the board stops: running hooks are stopped. */
  signal: AbortSignal;
  /**
   * The sessions read now (a fresh index), asked once per action and only by the actions
   * that judge them: who moved a task on, whether owners are gone, whether a session is
   * live. Not the index the board's views read through: that one is renewed when a
   * live-session file changes or the overview is read again, and a session's Task-tool
   * call in the middle of a turn changes neither (a live agent taking a gone one's task
   * up would be unseen for seconds).
   */
  sessions: () => SessionIndex;
  /** Said where the board runs too (a journal that cannot be written). */
  warn: (message: string) => void;
}

export interface ActionOutcome {
  status: number;
  result: ActionResult;
}

const HTTP_OF: Record<string, number> = {
  usage: 400,
  not_found: 404,
  conflict: 409,
  corrupt: 409,
  busy: 503,
  interrupted: 503,
  timeout: 504,
};

/** The journal's command for each action: what `tasks log` and `tasks undo` name. */
const COMMAND: Record<ActionRequest['action'], string> = {
  start: 'start',
  claim: 'claim',
  done: 'done',
  reopen: 'update',
  reassign: 'update',
  release: 'release',
  block: 'block',
  unblock: 'unblock',
  create: 'create',
  delete: 'delete',
  undo: 'undo',
  redo: 'redo',
  'release-gone': 'release',
  carry: 'carry',
  restore: 'restore',
};

/** How a skip of hooks the person asked for is said (the command says `--no-hooks`). */
const WITHOUT_HOOKS = 'without hooks, as asked';

let queue: Promise<unknown> = Promise.resolve();

/** Run one action after the ones before it. Never throws: every failure is an outcome. */
export function runAction(ctx: ActionContext, body: unknown): Promise<ActionOutcome> {
  const next = queue.then(() => perform(ctx, body));
  queue = next.catch(() => undefined);
  return next;
}

interface Done {
  message: string;
  lines?: string[];
  notes?: string[];
  warnings?: string[];
  task?: BoardTask;
}

async function perform(ctx: ActionContext, body: unknown): Promise<ActionOutcome> {
  let req: ActionRequest;
  try {
    req = parseRequest(body);
  } catch (err) {
    return failure(err, emptyReport(), []);
  }
  // A list whose path is a FIFO, a device or a file is no list: not found, as `tasks` says it
  // for every command (exit 3), before anything is tried there.
  const dir = listDirOf(ctx.configDir, req.list);
  if (fs.existsSync(dir) && !isDirectory(dir))
    return failure(new TasksError('not_found', `${dir} is not a folder; nothing written`), emptyReport(), []);
  const own = newTxn(Date.now(), ctx.pid);
  const record: UndoRecord = { marks: {} };
  const journalWarnings: string[] = [];
  const recording = startRecording({
    actor: { kind: 'person', name: ctx.person },
    command: COMMAND[req.action],
    txn: () => record.txn ?? own,
    marks: () => record.marks,
    now: () => new Date(),
    onCut: (_listDir, ids) => journalWarnings.push(renderJournalCut([...new Set(ids)])),
    onError: (listDir, err) => {
      const message = renderJournalNotWritten(listDir, err);
      journalWarnings.push(message);
      ctx.warn(message);
    },
  });
  record.end = (listDir) => recording.mark(listDir, { end: true });
  const report = emptyReport();
  try {
    const done = await apply(ctx, req, record, report);
    const told = renderLifecycleReport(report, WITHOUT_HOOKS);
    const notes = [...(done.notes ?? []), ...told.notes.map((n) => n.text)];
    const warnings = [...(done.warnings ?? []), ...told.warnings.map((w) => w.text), ...journalWarnings];
    return {
      status: 200,
      result: {
        ok: true,
        message: done.message,
        ...(done.lines?.length ? { lines: done.lines } : {}),
        ...(notes.length > 0 ? { notes } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
        ...(done.task ? { task: done.task } : {}),
      },
    };
  } catch (err) {
    return failure(err, report, journalWarnings, req);
  } finally {
    recording.stop();
  }
}

async function apply(ctx: ActionContext, req: ActionRequest, record: UndoRecord, report: LifecycleReport): Promise<Done> {
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
    hooks: !('hooks' in req) || req.hooks !== false,
    notify: true,
    now: () => new Date(),
  });
  // One reading of the sessions for the whole action, made when first asked.
  let index: SessionIndex | undefined;
  const sessions = () => (index ??= ctx.sessions());
  const update = async (id: string, patch: TaskPatch, expect: Expectation, verb: string): Promise<Done> => {
    const { result } = await updateTaskWithLifecycle(lifecycle, id, patch, guardFor(expect), report);
    return { message: result.changed.length === 0 ? `#${id} unchanged` : `${verb} #${id}`, task: result.task as BoardTask };
  };
  switch (req.action) {
    case 'start': {
      const done = await update(req.id, { status: 'in_progress' }, req.expect, 'Started');
      // As `tasks start` says on stderr: open blockers do not stop it, but the person is told.
      const blocked = done.task === undefined ? undefined : stillBlocked(dir, done.task);
      return blocked === undefined ? done : { ...done, warnings: [blocked] };
    }
    case 'claim': {
      const { outcome } = await claimWithLifecycle(
        lifecycle,
        {
          agent: ctx.person,
          id: req.id,
          busyCheck: false,
          start: true,
          now: Date.now(),
          preconditions: asPreconditions(req.expect),
          // As tasks claim: a task in progress with no owner is a live session's work while one is on the list.
          liveOnList: {
            sessions: () =>
              liveSessionsNear(sessions(), req.list).map((s) => ({
                sessionId: s.sessionId,
                // A pid of another machine names no process here: not said.
                pid: s.state === 'live' ? s.pid : undefined,
                cwd: s.cwd,
              })),
            override: `tasks -l ${req.list} claim ${req.id} --force claims it all the same`,
          },
        },
        report,
      );
      if (!outcome.success)
        throw new TasksError(outcome.reason === 'task_not_found' ? 'not_found' : 'conflict', describeRefusal(req.id, outcome));
      return { message: `Assigned #${req.id} to ${oneLine(ctx.person)} and started it`, task: outcome.task as BoardTask };
    }
    case 'done':
      return update(req.id, { status: 'completed' }, req.expect, 'Completed');
    case 'reopen':
      return update(req.id, { status: 'pending' }, req.expect, 'Reopened');
    case 'reassign':
      return update(req.id, { owner: req.owner }, req.expect, req.owner === null ? 'Unassigned' : `Gave ${oneLine(req.owner)}`);
    case 'release': {
      const r = await releaseOne(dir, req.id, asPreconditions(req.expect));
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
        report,
      );
      return { message: `Created #${task.id}`, task: task as BoardTask };
    }
    case 'delete': {
      const r = await deleteOne(dir, req.id, { preconditions: asPreconditions(req.expect) });
      return { message: `Deleted #${req.id}`, task: r.task as BoardTask };
    }
    case 'undo':
    case 'redo':
      return undoAction(sessions(), ctx.configDir, req, record);
    case 'release-gone':
      return releaseGoneAction(sessions(), { configDir: ctx.configDir, person: ctx.person, home: ctx.home }, req);
    case 'carry':
      // Every list the carry may change, recorded with each of its journal lines: one undo takes it back in all (as `tasks carry`).
      return carryAction(
        sessions(),
        { configDir: ctx.configDir, person: ctx.person, home: ctx.home },
        req,
        (lists) => {
          record.marks = { ...record.marks, lists };
        },
        ctx.signal,
      );
    case 'restore':
      return restoreAction(sessions(), ctx.configDir, req, ctx.signal);
  }
}

/** What `tasks start` warns of for a task started with open blockers, in its words (undefined: none open). */
function stillBlocked(dir: string, task: BoardTask): string | undefined {
  const t = task as unknown as Task;
  if (t.blockedBy.length === 0) return undefined;
  const index = indexTasks([t, ...readTasks(dir, t.blockedBy)]);
  const { open } = blockerState(t, index);
  return open.length === 0 ? undefined : renderStillBlocked(t, open, index);
}

/** The card's state as core preconditions: this status, and this owner or none. */
function asPreconditions(expect: Expectation): Preconditions {
  return expect.owner === null ? { status: [expect.status], unowned: true } : { status: [expect.status], owner: expect.owner };
}

function guardFor(expect: Expectation): Guard | undefined {
  return preconditionGuard(asPreconditions(expect));
}

function failure(err: unknown, report: LifecycleReport, journalWarnings: string[], req?: ActionRequest): ActionOutcome {
  const warnings = [...renderLifecycleReport(report, WITHOUT_HOOKS).warnings.map((w) => w.text), ...journalWarnings];
  const withWarnings = (error: ActionError): ActionError => (warnings.length > 0 ? { ...error, warnings } : error);
  if (err instanceof HookBlockedError) {
    // A hook's no: its reasons in full; done and create may be made again without hooks, as with --no-hooks.
    const details = renderBlockDetails(err);
    const error: ActionError = {
      code: 'hook',
      message: err.message,
      ...(details.length > 0 ? { details } : {}),
      withoutHooks: req?.action === 'done' || req?.action === 'create',
    };
    return { status: 409, result: { ok: false, error: withWarnings(error) } };
  }
  if (err instanceof TasksError) {
    const d = err.details ?? {};
    const error: ActionError = { code: err.code, message: err.message };
    if (typeof d.precondition === 'string') error.precondition = d.precondition;
    if ('expected' in d) error.expected = d.expected === null ? null : String(d.expected);
    if ('actual' in d) error.actual = d.actual === null ? null : String(d.actual);
    if (typeof d.id === 'string') error.id = d.id;
    return { status: HTTP_OF[err.code] ?? 500, result: { ok: false, error: withWarnings(error) } };
  }
  return {
    status: 500,
    result: { ok: false, error: { code: 'internal', message: `unexpected: ${err instanceof Error ? err.message : String(err)}` } },
  };
}
