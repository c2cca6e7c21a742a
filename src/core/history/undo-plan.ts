import { ABSENT } from '../base/absent.js';
import { TasksError } from '../base/errors.js';
import { sameValue } from '../base/same-value.js';
import { isTaskId, MAX_ALLOCATABLE_ID } from '../store/ids.js';
import { type Task, validateTask } from '../store/schema.js';
import { orderKeys } from '../store/serialize.js';
import { holdsCut, type JournalChange } from './journal.js';
import type { Command } from './undo-stack.js';

/**
 * Undo and redo as one pure function: the changes to apply (a command's changes turned
 * around for an undo, as recorded for a redo), planned against the files as they are. A
 * step is planned only where the file still holds what the change expects (what the
 * command wrote, for an undo); otherwise the whole plan is refused, naming each task that
 * moved on. Nothing a journal line says is believed without a check, since any process
 * that can write the folder can append one: ids must be task ids that this list handed
 * out, a restored task must be a valid task of that id, a task changed back must still be
 * one agents can read, and an id is never changed.
 */
type Value = unknown;

export type UndoStep =
  | { kind: 'update'; id: string; fields: Record<string, { old: Value; new: Value }> }
  | { kind: 'create'; id: string; task: Task }
  | { kind: 'delete'; id: string; task: Task }
  | { kind: 'rename'; id: string; from: string; to: string }
  | { kind: 'mark'; old: string | null; new: string };

export interface UndoPlan {
  action: 'undo' | 'redo';
  /** The commands taken back or applied again, newest first for an undo. */
  commands: Array<Omit<Command, 'entries'>>;
  steps: UndoStep[];
  /** What is left as it is, in words (the high-water mark never goes down; a lock removed stays removed). */
  kept: string[];
  /** Finishing an undo or redo that was stopped half-way: steps already made are passed over. */
  finishing: boolean;
}

/** What a task is now: undefined when missing, 'unreadable' when its file is not a task. */
export type Current = (id: string) => Task | undefined | 'unreadable';

export interface PlanInput {
  action: 'undo' | 'redo';
  commands: readonly Command[];
  current: Current;
  /** Whether `<list>/<name>` exists (for files moved aside). */
  exists: (name: string) => boolean;
  /** The highest id this list has handed out: max(file ids, high-water mark). */
  highestUsed: bigint;
  /** The high-water mark now. */
  mark: bigint;
  finishing?: boolean;
  /**
   * Finishing: who changed task `id` (its `field`) with a command recorded after the one
   * being finished; undefined: nobody. Such a change came later and stands: left as it is.
   */
  supersededBy?: ((id: string, field?: string) => string | undefined) | undefined;
  /** Who changed task `id` (its `field`, when one) since, in words, for a refusal ("by bob with update at 12:40"); undefined: not known. */
  changedBy?: (id: string, field?: string) => string | undefined;
}

/** A value for a person, cut when long: a refusal never prints a whole huge value. */
export function shortValue(v: unknown): string {
  if (v === ABSENT || v === undefined) return '(none)';
  const text = JSON.stringify(v) ?? String(v);
  return text.length <= 80 ? text : `${text.slice(0, 60)}…(${text.length.toLocaleString('en-US')} characters)`;
}

const fieldOf = (task: Task | undefined, key: string): Value => (task !== undefined && Object.hasOwn(task, key) ? task[key] : ABSENT);
const same = (a: Value, b: Value) => (a === ABSENT || b === ABSENT ? a === b : sameValue(a, b));
const stored = (f: { old?: unknown; new?: unknown }, side: 'old' | 'new'): Value => (side in f ? f[side] : ABSENT);
const ASIDE_NAME = /^([1-9][0-9]*)\.json\.corrupt-[0-9A-Za-z-]+$/;

/** A change as a transition: what the file must hold, and what it gets. */
type Transition =
  | { kind: 'update'; id: string; fields: Record<string, { expect: Value; write: Value }> }
  | { kind: 'create'; id: string; task: Task }
  | { kind: 'delete'; id: string; task: Task }
  | { kind: 'rename'; id: string; from: string; to: string }
  | { kind: 'mark'; old: string | null; new: string }
  | { kind: 'kept'; text: string };

function transition(change: JournalChange, action: 'undo' | 'redo'): Transition {
  const back = action === 'undo';
  switch (change.op) {
    case 'update':
      return {
        kind: 'update',
        id: change.id,
        fields: Object.fromEntries(
          Object.entries(change.fields).map(([k, f]) => [
            k,
            back ? { expect: stored(f, 'new'), write: stored(f, 'old') } : { expect: stored(f, 'old'), write: stored(f, 'new') },
          ]),
        ),
      };
    case 'create':
      return back ? { kind: 'delete', id: change.id, task: change.task } : { kind: 'create', id: change.id, task: change.task };
    case 'delete':
      return back ? { kind: 'create', id: change.id, task: change.task } : { kind: 'delete', id: change.id, task: change.task };
    case 'aside':
      return back
        ? { kind: 'rename', id: change.id, from: change.to, to: change.file }
        : { kind: 'rename', id: change.id, from: change.file, to: change.to };
    case 'mark':
      return back
        ? { kind: 'kept', text: `the high-water mark stays at ${change.new} (ids are never handed out again)` }
        : { kind: 'mark', old: change.old, new: change.new };
    case 'removed':
      return {
        kind: 'kept',
        text: `${change.file} stays removed (${change.what === 'lock' ? 'a stale lock' : 'an abandoned temp file'}: nothing to put back)`,
      };
  }
}

/** Why a step must not be made, whatever the files say; undefined when it may. */
function hostile(t: Transition, highestUsed: bigint): string | undefined {
  if (t.kind === 'kept') return undefined;
  if (t.kind === 'mark')
    return isTaskId(t.new) && BigInt(t.new) <= MAX_ALLOCATABLE_ID ? undefined : `the mark ${shortValue(t.new)} is not a task id`;
  if (!isTaskId(t.id)) return `${shortValue(t.id)} is not a task id`;
  const ref = `#${t.id}`;
  if (BigInt(t.id) > MAX_ALLOCATABLE_ID || BigInt(t.id) > highestUsed) {
    if (t.kind === 'create' || t.kind === 'rename') return `${ref} was never handed out in this list`;
  }
  if (t.kind === 'create' || t.kind === 'delete') {
    if (holdsCut(t.task)) return `the journal keeps only part of a long value of task ${ref}`;
    const verdict = validateTask(t.task);
    if (!verdict.ok) return `${ref} would not be a valid task (${verdict.reason})`;
    if (verdict.task.id !== t.id) return `${ref}: the task recorded names id ${shortValue(verdict.task.id).replace(/^"(.*)"$/, '$1')}`;
  }
  if (t.kind === 'update') {
    if ('id' in t.fields) return `${ref}: undo never changes a task's id`;
    if (holdsCut(t.fields)) return `the journal keeps only part of a long value of task ${ref}`;
  }
  if (t.kind === 'rename') {
    const aside = t.from.endsWith('.json') ? t.to : t.from;
    const plain = t.from.endsWith('.json') ? t.from : t.to;
    if (plain !== `${t.id}.json` || ASIDE_NAME.exec(aside)?.[1] !== t.id)
      return `${ref}: ${shortValue(t.from)} and ${shortValue(t.to)} are not its file and a file moved aside`;
  }
  return undefined;
}

/**
 * The steps that apply `input.commands` (taken back, or again), checked against the
 * files; a conflict (exit 4) naming what changed, and who where known, when anything
 * has moved on, or when a recorded change fails its checks.
 */
export function planUndo(input: PlanInput): UndoPlan {
  const { action } = input;
  const finishing = input.finishing ?? false;
  // An undo takes back the newest change first; a redo applies them as they happened.
  const ordered = action === 'undo' ? [...input.commands].reverse() : [...input.commands];
  const changes = ordered.flatMap((c) => {
    const all = c.entries.flatMap((e) => e.changes);
    return action === 'undo' ? all.reverse() : all;
  });
  const problems: string[] = [];
  const steps: UndoStep[] = [];
  const kept: string[] = [];
  // What each task is after the steps planned so far (undefined: missing).
  const expected = new Map<string, Task | undefined>();
  const files = new Map<string, boolean>();
  const now = (id: string): Task | undefined | 'unreadable' => (expected.has(id) ? expected.get(id) : input.current(id));
  const exists = (name: string) => files.get(name) ?? input.exists(name);
  // One refusal a task and field: the newest change meets it first, and the older ones would only repeat it.
  const told = new Set<string>();
  const moved = (id: string, what: string, field = '') => {
    if (told.has(`${id}\0${field}`)) return;
    told.add(`${id}\0${field}`);
    const by = input.changedBy?.(id, field === '' ? undefined : field);
    problems.push(`#${id} ${what}${by === undefined ? '' : ` (changed ${by})`}`);
  };
  // Deleting tasks of this plan cleans their ids out of the others: not a change by anyone else.
  const deleting = new Set<string>();
  for (const change of changes) {
    const t = transition(change, action);
    if (t.kind === 'delete') deleting.add(t.id);
  }
  const withoutDeleted = (task: Task): Task => ({
    ...task,
    blocks: task.blocks.filter((x) => !deleting.has(x)),
    blockedBy: task.blockedBy.filter((x) => !deleting.has(x)),
  });

  for (const change of changes) {
    const t = transition(change, action);
    const refused = hostile(t, input.highestUsed);
    if (refused !== undefined) {
      problems.push(refused);
      continue;
    }
    if (t.kind === 'kept') {
      kept.push(t.text);
      continue;
    }
    if (t.kind === 'mark') {
      // The mark only goes up: a redo raises it again only where it is lower now.
      if (BigInt(t.new) > input.mark) steps.push({ kind: 'mark', old: input.mark === 0n ? null : String(input.mark), new: t.new });
      continue;
    }
    if (t.kind === 'rename') {
      const [fromThere, toThere] = [exists(t.from), exists(t.to)];
      if (finishing && !fromThere && toThere) continue;
      if (!fromThere) moved(t.id, `${t.from} is gone`);
      else if (toThere) moved(t.id, `${t.to} exists again`);
      else steps.push({ kind: 'rename', id: t.id, from: t.from, to: t.to });
      files.set(t.from, false);
      files.set(t.to, true);
      continue;
    }
    const later = finishing && t.kind !== 'update' ? input.supersededBy?.(t.id) : undefined;
    if (later !== undefined) {
      kept.push(`#${t.id} left as it is: changed since ${later}`);
      continue;
    }
    const task = now(t.id);
    if (task === 'unreadable') {
      moved(t.id, 'is not a readable task now');
      continue;
    }
    if (t.kind === 'update') {
      if (task === undefined) {
        moved(t.id, 'was deleted since');
        continue;
      }
      const fields: Record<string, { old: Value; new: Value }> = {};
      for (const [key, { expect, write }] of Object.entries(t.fields)) {
        const later = finishing ? input.supersededBy?.(t.id, key) : undefined;
        if (later !== undefined) {
          kept.push(`#${t.id} ${key} left as it is: changed since ${later}`);
          continue;
        }
        const is = fieldOf(task, key);
        if (same(is, write) && (finishing || same(expect, write))) continue;
        if (!same(is, expect)) {
          moved(
            t.id,
            `${key} is ${shortValue(is)} now (${action === 'undo' ? 'the change set' : 'the undo left'} ${shortValue(expect)})`,
            key,
          );
          continue;
        }
        fields[key] = { old: is, new: write };
      }
      const next: Task = { ...task };
      for (const [key, f] of Object.entries(fields)) {
        if (f.new === ABSENT) delete next[key];
        else next[key] = f.new;
      }
      const verdict = validateTask(next);
      if (!verdict.ok) {
        problems.push(`#${t.id} would not be a valid task (${verdict.reason})`);
        continue;
      }
      if (Object.keys(fields).length > 0) steps.push({ kind: 'update', id: t.id, fields });
      expected.set(t.id, orderKeys(next));
    } else if (t.kind === 'delete') {
      if (task === undefined) {
        if (!finishing) moved(t.id, 'was deleted since');
      } else if (!sameValue(withoutDeleted(task), withoutDeleted(t.task))) {
        moved(t.id, `was changed since it was ${action === 'undo' ? 'created' : 'restored'}`);
      } else steps.push({ kind: 'delete', id: t.id, task });
      expected.set(t.id, undefined);
    } else {
      if (task !== undefined) {
        if (!(finishing && sameValue(task, t.task))) moved(t.id, 'exists again');
      } else steps.push({ kind: 'create', id: t.id, task: t.task });
      expected.set(t.id, t.task);
    }
  }
  const first = ordered[0];
  if (problems.length > 0) {
    const what =
      first === undefined
        ? action
        : `${action} ${first.command} by ${first.actor.name}${ordered.length > 1 ? ` and ${ordered.length - 1} more` : ''}`;
    throw new TasksError('conflict', `cannot ${what}: ${problems.join('; ')}`, {
      hint: 'tasks log shows what changed since',
      details: { txns: ordered.map((c) => c.txn), changed: problems },
    });
  }
  return {
    action,
    commands: ordered.map(({ entries: _entries, ...c }) => c),
    steps: foldIntoCreates(steps),
    kept: [...new Set(kept)],
    finishing,
  };
}

/**
 * A task the plan brings back and then changes (a command that changed a task, then
 * deleted it: a carry with --move marks each task before it deletes it) comes back as it
 * ends, in one write; one brought back and removed again is left out. Each step that
 * writes a task that exists is made under that task's lock, taken before any write: a
 * task the plan itself brings back has no file to lock then, and needs none, since no
 * agent can be changing a task that is not there.
 */
function foldIntoCreates(steps: readonly UndoStep[]): UndoStep[] {
  const out: Array<UndoStep | undefined> = [];
  const created = new Map<string, number>();
  for (const step of steps) {
    const at = step.kind === 'mark' ? undefined : created.get(step.id);
    if (at !== undefined && step.kind === 'update') {
      const create = out[at] as Extract<UndoStep, { kind: 'create' }>;
      const next: Task = { ...create.task };
      for (const [key, f] of Object.entries(step.fields)) {
        if (f.new === ABSENT) delete next[key];
        else next[key] = f.new;
      }
      out[at] = { ...create, task: orderKeys(next) };
      continue;
    }
    if (at !== undefined && step.kind === 'delete') {
      out[at] = undefined;
      created.delete(step.id);
      continue;
    }
    if (step.kind === 'create') created.set(step.id, out.length);
    else if (step.kind === 'rename') created.delete(step.id);
    out.push(step);
  }
  return out.filter((s): s is UndoStep => s !== undefined);
}
