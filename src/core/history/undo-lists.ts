import { TasksError } from '../base/errors.js';
import { isDirectory } from '../base/is-directory.js';
import { isMissing } from '../store/not-a-folder.js';
import { listDirOf, sanitizeListId } from '../store/paths.js';
import type { UndoPlan } from './undo-plan.js';
import { listsOf, planOnly, runUndo, stackOf, type UndoRequest, type UndoResult } from './undo-run.js';
import type { Command } from './undo-stack.js';

/**
 * Undo and redo of a command that changed several lists under its one txn (a carry: the
 * list carried into, then each list carried from; their journal lines name them all in
 * `lists`): taken back, or applied again, in every one of them, as one step, from any of
 * them.
 *
 * Every list's part is planned first, nothing locked and nothing written: a part that
 * would be refused (a task changed since) refuses the whole, naming its list, and no list
 * is touched. Then the parts are made one list at a time, each atomic under its own locks
 * as any undo is (undo-run.ts): an undo in the reverse of the order the command wrote the
 * lists (a carry's sources first, its target last), a redo in that order. They all record
 * under one txn. A list whose folder is gone has no part (it is said).
 *
 * A run stopped between two lists' parts (a kill) has made the first lists' parts whole
 * and left the others as they were. The next undo or redo run in a list whose part is
 * made finds the others behind and finishes their parts, and does nothing else; in a list
 * left behind, the command is still on top of its stack, and an undo takes it back there.
 */
export interface ListPart {
  list: string;
  dir: string;
  result: UndoResult;
}

export interface UndoAcrossResult {
  /** This list's part (an empty plan when this run only finished other lists' parts). */
  here: UndoResult;
  /** The parts in the other lists, in the order made. */
  others: ListPart[];
  /** Other lists the commands changed that have no part: their folder is gone, or nothing of it is left there. */
  passed: Array<{ list: string; why: string }>;
  /** This run only finished the parts an earlier run left behind in other lists. */
  catchingUp: boolean;
}

/** What each list's part needs from the caller: its refusals' words, its record. */
export type PartHooks = (list: string, dir: string) => Pick<UndoRequest, 'changedBy' | 'recording' | 'end'>;

export interface UndoAcrossInput {
  configDir: string;
  list: { id: string; dir: string };
  request: Omit<UndoRequest, 'changedBy' | 'recording' | 'end' | 'txns'>;
  hooks: PartHooks;
}

/** A list id a journal line names, believed only when it is one (a journal line is anyone's to write). */
const isListId = (id: string) => id !== '' && id.length <= 255 && sanitizeListId(id) === id;

export async function undoAcrossLists(input: UndoAcrossInput): Promise<UndoAcrossResult> {
  const { configDir, list, request } = input;
  const behind = request.expectTxn === undefined ? partsBehind(configDir, list) : undefined;
  if (behind !== undefined) return catchUp(input, behind);
  // Another undo or redo of the same command, run from another of its lists, may take
  // this list's part first: then this run starts again and takes what is on top now, as a
  // second undo in one list takes back the command before the first's.
  for (let attempt = 1; ; attempt++) {
    const done = await oneRun(input);
    if (done !== 'again') return done;
    if (attempt >= 3)
      throw new TasksError('busy', `cannot ${request.action}: the lists kept changing under it; nothing written, try again`);
  }
}

async function oneRun(input: UndoAcrossInput): Promise<UndoAcrossResult | 'again'> {
  const { list, request } = input;
  const first = await planOnly(list.dir, { ...request, ...input.hooks(list.id, list.dir) });
  const named = first.lists.filter(isListId);
  if (named.filter((l) => l !== list.id).length === 0) {
    if (request.dryRun) return { here: first, others: [], passed: [], catchingUp: false };
    const here = await runUndo(list.dir, { ...request, ...input.hooks(list.id, list.dir) });
    return { here, others: [], passed: [], catchingUp: false };
  }
  if (!named.includes(list.id)) named.unshift(list.id);
  const txns = first.plan.commands.map((c) => c.txn);
  const { planned, passed } = await planOthers(input, named, txns, request.action);
  if (request.dryRun) return { here: first, others: planned, passed, catchingUp: false };

  // Each list's part with the commands this list's plan chose, whatever came on top since.
  const order = request.action === 'undo' ? [...named].reverse() : named;
  const others: ListPart[] = [];
  let here: UndoResult | undefined;
  let shared: string | undefined;
  for (const id of order) {
    const dir = id === list.id ? list.dir : planned.find((p) => p.list === id)?.dir;
    if (dir === undefined) continue;
    const hooks = input.hooks(id, dir);
    const result = await runUndo(dir, {
      action: request.action,
      dryRun: false,
      ...(first.plan.finishing && id === list.id ? {} : { txns }),
      ...hooks,
      // One txn for the whole: the first part's record chooses it, the others follow.
      recording: (marks) => {
        shared ??= marks.txn;
        hooks.recording?.({ ...marks, ...(shared === undefined ? {} : { txn: shared }) });
      },
    }).catch((err: unknown) => {
      // Made meanwhile by another undo or redo of the same command.
      if (isMissing(err)) return undefined;
      throw partFailed(err, id, others, here, request.action);
    });
    if (result === undefined) {
      // This list's part gone before this run made any: start again.
      if (id === list.id && others.length === 0) return 'again';
      passed.push({ list: id, why: `nothing of it is left to ${request.action} there` });
    } else if (id === list.id) here = result;
    else others.push({ list: id, dir, result });
  }
  return { here: here ?? emptyPart(first), others, passed, catchingUp: false };
}

/** This list's part, made meanwhile by another run: nothing written here by this one. */
function emptyPart(planned: UndoResult): UndoResult {
  return { ...planned, plan: { ...planned.plan, steps: [], kept: [] }, times: new Map() };
}

/** Plan each other list's part; a refusal there refuses the whole. */
async function planOthers(
  input: UndoAcrossInput,
  named: readonly string[],
  txns: readonly string[],
  action: 'undo' | 'redo',
): Promise<{ planned: ListPart[]; passed: Array<{ list: string; why: string }> }> {
  const planned: ListPart[] = [];
  const passed: Array<{ list: string; why: string }> = [];
  for (const id of named) {
    if (id === input.list.id) continue;
    const dir = listDirOf(input.configDir, id);
    if (!isDirectory(dir)) {
      // Nothing is left there to take back; but a redo cannot make its part there again.
      if (action === 'redo') {
        throw new TasksError(
          'conflict',
          `list "${id}", which it changed too, is gone (its folder was removed); nothing redone in any list`,
          {
            details: { list: id },
          },
        );
      }
      passed.push({ list: id, why: 'its folder is gone' });
      continue;
    }
    try {
      const result = await planOnly(dir, { action, dryRun: input.request.dryRun, txns, ...input.hooks(id, dir) });
      planned.push({ list: id, dir, result });
    } catch (err) {
      if (isMissing(err)) {
        passed.push({ list: id, why: `nothing of it is left to ${action} there` });
        continue;
      }
      throw inList(err, id, `; nothing ${action === 'undo' ? 'undone' : 'redone'} in any list`);
    }
  }
  return { planned, passed };
}

/** An error of another list's part, with that list named. */
function inList(err: unknown, id: string, tail: string): unknown {
  if (!(err instanceof TasksError)) return err;
  return new TasksError(err.code, `in list "${id}": ${err.message}${tail}`, {
    ...(err.hint === undefined ? {} : { hint: err.hint }),
    details: { ...err.details, list: id },
  });
}

/** A part refused or failed after others were made: say what stands, and how to finish. */
function partFailed(err: unknown, id: string, made: readonly ListPart[], here: UndoResult | undefined, action: string): unknown {
  const done = [...made.map((p) => p.list), ...(here === undefined ? [] : ['this list'])];
  if (done.length === 0 || !(err instanceof TasksError)) return err;
  return new TasksError(
    err.code,
    `in list "${id}": ${err.message}; the ${action} is made in ${done.map((d) => (d === 'this list' ? d : `"${d}"`)).join(', ')}`,
    {
      hint: `tasks ${action} in list "${id}" finishes it once that is settled`,
      details: { ...err.details, list: id, madeIn: done },
    },
  );
}

/**
 * The parts an earlier undo or redo run here left undone in other lists (it was stopped
 * between lists): the last undo or redo recorded here, when its commands changed other
 * lists and one of them still stands as before it.
 */
function partsBehind(
  configDir: string,
  list: { id: string; dir: string },
): { action: 'undo' | 'redo'; own: string; targets: Command[]; lists: Array<{ id: string; dir: string }> } | undefined {
  const stack = stackOf(list.dir);
  if (stack.interrupted !== undefined) return undefined;
  const last = [...stack.byTxn.values()].reverse().find((c) => c.entries.some((e) => e.undoes !== undefined || e.redoes !== undefined));
  if (last === undefined) return undefined;
  const entry = last.entries.find((e) => e.undoes !== undefined || e.redoes !== undefined);
  const action: 'undo' | 'redo' = entry?.redoes !== undefined ? 'redo' : 'undo';
  const raw = entry?.redoes ?? entry?.undoes;
  const txns = new Set(typeof raw === 'string' ? [raw] : (raw ?? []));
  const targets = [...txns].map((t) => stack.byTxn.get(t)).filter((c): c is Command => c !== undefined);
  const lagging: Array<{ id: string; dir: string }> = [];
  for (const id of listsOf(targets).filter(isListId)) {
    if (id === list.id) continue;
    const dir = listDirOf(configDir, id);
    if (!isDirectory(dir)) continue;
    const there = stackOf(dir);
    const halfway = there.interrupted?.targets.some((c) => txns.has(c.txn)) ?? false;
    const standing =
      action === 'undo' ? there.done.some((c) => txns.has(c.txn)) : there.redoable.some((g) => g.some((c) => txns.has(c.txn)));
    if (halfway || standing) lagging.push({ id, dir });
  }
  return lagging.length === 0 ? undefined : { action, own: last.txn, targets, lists: lagging };
}

/** Finish the parts left behind, under the txn of the run that left them. */
async function catchUp(input: UndoAcrossInput, behind: NonNullable<ReturnType<typeof partsBehind>>): Promise<UndoAcrossResult> {
  const txns = behind.targets.map((c) => c.txn);
  const others: ListPart[] = [];
  const passed: Array<{ list: string; why: string }> = [];
  for (const { id, dir } of behind.lists) {
    const hooks = input.hooks(id, dir);
    const result = await runUndo(dir, {
      action: behind.action,
      dryRun: input.request.dryRun,
      txns,
      ...hooks,
      recording: (marks) => hooks.recording?.({ ...marks, txn: behind.own }),
    }).catch((err: unknown) => {
      // The run that seemed stopped was still going: it made this part meanwhile.
      if (isMissing(err)) return undefined;
      throw inList(err, id, '');
    });
    if (result === undefined) passed.push({ list: id, why: `nothing of it is left to ${behind.action} there` });
    else others.push({ list: id, dir, result });
  }
  const plan: UndoPlan = {
    action: behind.action,
    commands: behind.targets.map(({ entries: _entries, ...c }) => c),
    steps: [],
    kept: [],
    finishing: true,
  };
  return {
    here: { plan, txn: behind.own, removedList: false, lists: [], times: new Map() },
    others,
    passed,
    catchingUp: true,
  };
}
