import fs from 'node:fs';
import path from 'node:path';
import { TasksError } from '../base/errors.js';
import { minOf } from '../base/many-items.js';
import { withOwnFileLock } from '../locks/locks.js';
import { highestUsedId } from '../store/ids.js';
import { fileIds, readHighWaterMark } from '../store/list-read.js';
import { taskPath } from '../store/paths.js';
import { readTaskFile } from '../store/task-file.js';
import { taskFileTimes } from '../store/task-times.js';
import { removeEmptyList } from '../writes/list-removal.js';
import { type JournalEntry, journalPath, journalTypeProblem, previousJournalPath } from './journal.js';
import { confirmedEntries, type JournalRead, readJournal } from './journal-read.js';
import { applyUndoPlan, OtherLocksNeeded } from './undo-apply.js';
import { type Current, planUndo, type UndoPlan } from './undo-plan.js';
import { type Command, type UndoStack, undoStack } from './undo-stack.js';

/**
 * `tasks undo` and `tasks redo` (undo-stack.ts): which commands to take back or apply
 * again, planned on the files as they are (undo-plan.ts), then, for a real run, planned
 * again and applied under a lock of our own on the journal (two undos take turns, and
 * the second sees the first's record) and every lock its tasks need (undo-apply.ts).
 * Planned first without any lock: a dry run, nothing to undo, a damaged last line or a
 * task that moved on leaves the list exactly as it was.
 */
export interface UndoRequest {
  action: 'undo' | 'redo';
  /** `undo --txn`: this command, wherever it is in the stack. */
  txn?: string | undefined;
  /** `undo --since`: every command recorded since this time (ms)... */
  since?: number | undefined;
  /** ...by this actor only. */
  who?: string | undefined;
  dryRun: boolean;
  /**
   * A plain undo only if the command it takes back is this one; a redo only if the first
   * command it applies again is this one (the board's "undo / redo the change shown").
   */
  expectTxn?: string | undefined;
  /**
   * These commands (by txn), as another list's undo or redo of the same commands chose
   * them (undo-lists.ts): an undo takes back those still done here; a redo applies again
   * the group an undo here took them back in. not_found when none is left to take back or
   * apply again here.
   */
  txns?: readonly string[] | undefined;
  /**
   * Who changed a task (a field of it) since the first of the commands chosen began (`since`),
   * in words, when the journal does not say (an agent's transcript); for refusals.
   */
  changedBy?: (id: string, field?: string, since?: string) => string | undefined;
  /** Before the first write: the txn the record must use (an interrupted one's, to finish it) and what it undoes or redoes. */
  recording?: (marks: { txn?: string; undoes?: string[]; redoes?: string[] }) => void;
  /** After the last write, under the locks: append the record's `end` line. */
  end?: () => void;
}

export interface UndoResult {
  plan: UndoPlan;
  /** The record's txn: an interrupted undo's own when finishing it. */
  txn: string | undefined;
  /** A command taken back made the list folder, and with it undone the folder was empty: it went too. */
  removedList: boolean;
  /** Every list the commands chosen changed (their journal's `lists`), when they changed more than one. */
  lists: string[];
  /**
   * The change times (mtime, ms) of the tasks whose whole task a step shows: a task
   * removed again, its file's just before (under the locks); a task restored, its new
   * file's. A dry run writes nothing: only the tasks it would remove.
   */
  times: Map<string, number>;
}

const idsOf = (plan: UndoPlan, kind: 'create' | 'delete') => plan.steps.flatMap((s) => (s.kind === kind ? [s.id] : []));

function journalProblem(listDir: string, action: string): void {
  const problem = journalTypeProblem(journalPath(listDir)) ?? journalTypeProblem(previousJournalPath(listDir));
  if (problem !== undefined) {
    throw new TasksError('conflict', `cannot ${action}: ${problem}; nothing changed`, {
      hint: 'the journal of changes made with tasks must be a regular file; move it aside to start a new one',
    });
  }
}

function lastLineProblem(read: JournalRead, action: string): void {
  const after = read.damagedAtEnd;
  if (after.length === 0) return;
  const where = after.map((d) => (d.line === undefined ? d.file : String(d.line))).join(', ');
  throw new TasksError(
    'conflict',
    `cannot ${action}: the journal's last line${after.length === 1 ? ' is' : 's are'} damaged (line ${where}: ${after[0]?.reason}), so its last change is not known`,
    { hint: 'tasks log shows what is recorded' },
  );
}

const current =
  (listDir: string): Current =>
  (id) => {
    const read = readTaskFile(taskPath(listDir, id));
    return read.kind === 'ok' ? read.task : read.kind === 'missing' ? undefined : 'unreadable';
  };

interface Chosen {
  action: 'undo' | 'redo';
  commands: Command[];
  finishing: boolean;
  txn?: string;
}

/** Every list the commands changed, as their journal lines name them (in the order first named). */
export function listsOf(commands: readonly Command[]): string[] {
  return [...new Set(commands.flatMap((c) => c.entries.flatMap((e) => e.lists ?? [])))];
}

/** These commands, as another list's undo or redo chose them (UndoRequest.txns). */
function chooseNamed(stack: UndoStack, req: UndoRequest, txns: ReadonlySet<string>): Chosen {
  const i = stack.interrupted;
  if (i !== undefined) {
    // Finishing this same undo or redo, stopped half-way here, is its part in this list.
    if (i.action === req.action && i.targets.every((c) => txns.has(c.txn))) {
      return { action: i.action, commands: i.targets, finishing: true, txn: i.txn };
    }
    throw new TasksError('conflict', `an ${i.action} of this list was stopped half-way: tasks undo here finishes it first`, {
      details: { txns: [...txns] },
    });
  }
  if (req.action === 'undo') {
    const picked = stack.done.filter((c) => txns.has(c.txn));
    if (picked.length === 0) throw new TasksError('not_found', 'nothing of it is left to undo here');
    return { action: 'undo', commands: picked, finishing: false };
  }
  const group = [...stack.redoable].reverse().find((g) => g.some((c) => txns.has(c.txn)));
  if (group !== undefined) return { action: 'redo', commands: group, finishing: false };
  if ([...txns].every((t) => stack.done.some((c) => c.txn === t) || !stack.byTxn.has(t))) {
    throw new TasksError('not_found', 'nothing of it is left to redo here');
  }
  throw new TasksError('conflict', 'a change made here since the undo cleared what was left to redo', {
    details: { txns: [...txns] },
  });
}

function choose(entries: readonly JournalEntry[], req: UndoRequest): Chosen {
  const stack = undoStack(entries);
  if (req.txns !== undefined) return chooseNamed(stack, req, new Set(req.txns));
  if (req.expectTxn !== undefined && req.action === 'undo') {
    const top = stack.interrupted === undefined ? stack.done.at(-1) : undefined;
    if (top?.txn !== req.expectTxn) {
      const now = top === undefined ? 'no change is left to undo' : `${top.command} by ${top.actor.name} came after it`;
      throw new TasksError('conflict', `the last change is no longer the one shown (${now}); nothing undone`, {
        details: { precondition: 'last-change', expected: req.expectTxn, actual: top?.txn ?? null },
      });
    }
  }
  if (req.expectTxn !== undefined && req.action === 'redo') {
    const top = stack.interrupted === undefined ? stack.redoable.at(-1)?.[0] : undefined;
    if (top?.txn !== req.expectTxn) {
      const now = top === undefined ? 'nothing is left to redo' : `the last undo took back ${top.command} by ${top.actor.name}`;
      throw new TasksError('conflict', `what redo would apply again is no longer the one shown (${now}); nothing redone`, {
        details: { precondition: 'last-undo', expected: req.expectTxn, actual: top?.txn ?? null },
      });
    }
  }
  if (stack.interrupted !== undefined) {
    const i = stack.interrupted;
    return { action: i.action, commands: i.targets, finishing: true, txn: i.txn };
  }
  if (req.action === 'redo') {
    const group = stack.redoable.at(-1);
    if (group === undefined || group.length === 0) {
      throw new TasksError('not_found', 'nothing to redo: no undo since the last change made with tasks', {
        hint: 'tasks log shows its history',
      });
    }
    return { action: 'redo', commands: group, finishing: false };
  }
  if (req.txn !== undefined) {
    const matches = [...stack.byTxn.keys()].filter((t) => t === req.txn || t.startsWith(req.txn as string));
    if (matches.length === 0)
      throw new TasksError('not_found', `no change with txn ${req.txn} is recorded in this list`, {
        hint: 'tasks log --json shows each change with its txn',
      });
    if (matches.length > 1 && !matches.includes(req.txn))
      throw new TasksError('usage', `txn ${req.txn} is ambiguous: ${matches.slice(0, 5).join(', ')}`);
    const txn = matches.includes(req.txn) ? req.txn : (matches[0] as string);
    const cmd = stack.done.find((c) => c.txn === txn);
    if (cmd === undefined) {
      const it = stack.byTxn.get(txn) as Command;
      const isAction = it.entries.some((e) => e.undoes !== undefined || e.redoes !== undefined);
      throw new TasksError(
        'conflict',
        isAction
          ? `txn ${txn} is an ${it.command}: tasks redo takes back an undo`
          : `txn ${txn} (${it.command} by ${it.actor.name}) is undone already`,
        {
          details: { txn },
        },
      );
    }
    return { action: 'undo', commands: [cmd], finishing: false };
  }
  if (req.since !== undefined) {
    const since = req.since;
    const picked = stack.done.filter((c) => Date.parse(c.at) >= since && (req.who === undefined || c.actor.name === req.who));
    if (picked.length === 0) {
      throw new TasksError(
        'not_found',
        `nothing to undo: no change made with tasks${req.who === undefined ? '' : ` by ${req.who}`} since ${new Date(since).toISOString()}`,
        {
          hint: 'tasks log shows its history',
        },
      );
    }
    return { action: 'undo', commands: picked, finishing: false };
  }
  const top = stack.done.at(-1);
  if (top === undefined) {
    throw new TasksError('not_found', 'nothing to undo: no change made with tasks is recorded in this list', {
      hint: 'tasks log shows its history',
    });
  }
  return { action: 'undo', commands: [top], finishing: false };
}

/** Who changed `id` (its `field`) in a line after `start`, but for `mine`, by the journal: "by bob with update at <time>". */
function changedAfter(
  entries: readonly JournalEntry[],
  start: number,
  mine: ReadonlySet<string>,
  id: string,
  field: string | undefined,
): string | undefined {
  const touches = (c: JournalEntry['changes'][number]) =>
    'id' in c && c.id === id && (field === undefined || c.op !== 'update' || Object.hasOwn(c.fields, field));
  for (let i = entries.length - 1; i > start; i--) {
    const e = entries[i] as JournalEntry;
    if (mine.has(e.txn)) continue;
    if (e.changes.some(touches)) return `by ${e.actor.name} with ${e.command} at ${e.at}`;
  }
  return undefined;
}

/** When the first of the commands chosen was recorded. */
const firstAt = (chosen: Chosen): string | undefined => chosen.commands.map((c) => c.at).sort()[0];

/** Who changed `id` (its `field`) after `chosen` began, by the journal. */
function journalChangedBy(entries: readonly JournalEntry[], chosen: Chosen, id: string, field: string | undefined): string | undefined {
  const mine = new Set(chosen.commands.map((c) => c.txn));
  const start = minOf(chosen.commands.map((c) => entries.findIndex((e) => e.txn === c.txn)).filter((i) => i >= 0));
  return changedAfter(entries, start, mine, id, field);
}

/**
 * Finishing an undo or redo stopped half-way: who changed `id` (its `field`) with a command
 * recorded after its last line. That write came later and stands: finishing leaves it.
 */
function supersededAfter(entries: readonly JournalEntry[], chosen: Chosen) {
  if (!chosen.finishing || chosen.txn === undefined) return undefined;
  const own = chosen.txn;
  let last = -1;
  entries.forEach((e, i) => {
    if (e.txn === own) last = i;
  });
  return (id: string, field?: string) => changedAfter(entries, last, new Set([own]), id, field);
}

function plan(listDir: string, req: UndoRequest, action: string): { plan: UndoPlan; chosen: Chosen } {
  journalProblem(listDir, action);
  const read = readJournal(listDir);
  lastLineProblem(read, action);
  const entries = confirmedEntries(read.entries, listDir);
  const chosen = choose(entries, req);
  const planned = planUndo({
    action: chosen.action,
    commands: chosen.commands,
    current: current(listDir),
    exists: (name) => fileExists(listDir, name),
    highestUsed: highestUsedId(fileIds(listDir), readHighWaterMark(listDir)),
    mark: readHighWaterMark(listDir),
    finishing: chosen.finishing,
    supersededBy: supersededAfter(entries, chosen),
    changedBy: (id, field) => journalChangedBy(entries, chosen, id, field) ?? req.changedBy?.(id, field, firstAt(chosen)),
  });
  return { plan: planned, chosen };
}

/**
 * The plan a real run starts from. Made without a lock, so that a refusal leaves the list
 * as it was; but another undo or redo may be writing at that moment, its record read
 * before its writes or after (two undos at once: the second reads the block the first is
 * taking back, then finds the files already without it). A refusal is therefore final only
 * when a plan made under the journal's lock, once that other one has finished, refuses
 * too. A dry run is never retried: it takes no lock.
 */
async function firstPlan(listDir: string, req: UndoRequest, action: string): Promise<{ plan: UndoPlan; chosen: Chosen }> {
  try {
    return plan(listDir, req, action);
  } catch (err) {
    if (req.dryRun || !(err instanceof TasksError) || err.code !== 'conflict') throw err;
    // A journal that is no regular file takes no lock: that refusal stands as it is.
    if (journalTypeProblem(journalPath(listDir)) !== undefined || journalTypeProblem(previousJournalPath(listDir)) !== undefined) throw err;
    return withOwnFileLock(journalPath(listDir), 'the journal', () => plan(listDir, req, action));
  }
}

/** The undo stack of a list as its journal has it now (nothing locked: for a look, not a write). */
export function stackOf(listDir: string): UndoStack {
  return undoStack(confirmedEntries(readJournal(listDir).entries, listDir));
}

function fileExists(listDir: string, name: string): boolean {
  return fs.lstatSync(path.join(listDir, name), { throwIfNoEntry: false }) !== undefined;
}

/**
 * The plan alone, nothing written: what a dry run prints, and what a real run will start
 * from (for a real request, a refusal is final only once made again under the journal's
 * lock, as in runUndo).
 */
export async function planOnly(listDir: string, req: UndoRequest): Promise<UndoResult> {
  const first = await firstPlan(listDir, req, req.action);
  return {
    plan: first.plan,
    txn: first.chosen.txn,
    removedList: false,
    lists: listsOf(first.chosen.commands),
    times: taskFileTimes(listDir, idsOf(first.plan, 'delete')),
  };
}

export async function runUndo(listDir: string, req: UndoRequest): Promise<UndoResult> {
  const action = req.action;
  if (req.dryRun) return planOnly(listDir, req);
  let first = await firstPlan(listDir, req, action);
  return withOwnFileLock(journalPath(listDir), 'the journal', async () => {
    // The locks come from the plan made before; under them it is made again. When that
    // one needs a lock not taken (a command came in between), nothing is written and the
    // whole is done again with the locks it needs.
    for (let attempt = 1; ; attempt++) {
      let txn = first.chosen.txn;
      let lists = listsOf(first.chosen.commands);
      let madeList = false;
      let removedTimes = new Map<string, number>();
      try {
        const done = await applyUndoPlan(listDir, first.plan, {
          replan: () => {
            const { plan: fresh, chosen } = plan(listDir, req, action);
            const txns = chosen.commands.map((c) => c.txn);
            txn = chosen.txn;
            lists = listsOf(chosen.commands);
            madeList = chosen.action === 'undo' && chosen.commands.some((c) => c.entries.some((e) => e.newList === true));
            req.recording?.({
              ...(chosen.txn === undefined ? {} : { txn: chosen.txn }),
              ...(chosen.action === 'undo' ? { undoes: txns } : { redoes: txns }),
            });
            removedTimes = taskFileTimes(listDir, idsOf(fresh, 'delete'));
            return fresh;
          },
          end: () => req.end?.(),
        });
        const times = new Map([...removedTimes, ...taskFileTimes(listDir, idsOf(done, 'create'))]);
        // Undoing the change that made the list takes the folder back too, while nothing else is in it.
        return { plan: done, txn, removedList: madeList ? await removeEmptyList(listDir) : false, lists, times };
      } catch (err) {
        if (!(err instanceof OtherLocksNeeded)) throw err;
        if (attempt >= 3) throw new TasksError('busy', `cannot ${action}: the list kept changing under it; nothing written, try again`);
        first = plan(listDir, req, action);
      }
    }
  });
}
