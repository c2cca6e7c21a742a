import { ABSENT } from '../core/base/absent.js';
import type { EventChange, TimelineEvent } from '../core/history/events.js';
import type { UndoPlan, UndoStep } from '../core/history/undo-plan.js';
import type { Task } from '../core/store/schema.js';
import { type TaskJson, taskJson } from './task-json.js';

/**
 * The `--json` of history's commands, in the contract every output follows
 * (docs/json-output.md): `log` one document (an array of changes), `undo` and `redo` one
 * document each, tasks in the one task shape (with `updatedAt`), and an absent field
 * absent, never `null`, as in a task. History's own records write `null` for an absent
 * field (the journal, the timeline, the undo plan's ABSENT); it is turned into a missing
 * key here, at the edge. A `log` change whose old value no record tells says so with
 * `oldUnknown: true`.
 */
export interface ChangeJson {
  old?: unknown;
  new?: unknown;
  /** No record tells the value before (an agent's change of a task it never read). */
  oldUnknown?: true;
  /** Ids an agent added to `blocks` / `blockedBy` whose list before and after no record tells. */
  added?: string[];
}

/**
 * A field's change as history holds it, in the contract's form. History holds `null` for
 * an absent field; in an update, a missing `old` is one no record tells (in a create or a
 * delete, the side that is missing is absent).
 */
export function changeJson(c: EventChange, op: TimelineEvent['op']): ChangeJson {
  if (c.added !== undefined) return { added: c.added };
  const out: ChangeJson = {};
  if (!('old' in c)) {
    if (op === 'update') out.oldUnknown = true;
  } else if (c.old !== null && c.old !== undefined) out.old = c.old;
  if (c.new !== null && c.new !== undefined) out.new = c.new;
  return out;
}

export type LogEventJson = Omit<TimelineEvent, 'changes'> & { changes: Record<string, ChangeJson> };

/** `log --json`: every change shown, oldest first, as one array (`[]` when none); each change's keys in one order. */
export function logJson(events: readonly TimelineEvent[]): LogEventJson[] {
  return events.map((e) => ({
    at: e.at,
    list: e.list,
    task: e.task,
    op: e.op,
    who: { kind: e.who.kind, name: e.who.name, session: e.who.session },
    changes: Object.fromEntries(Object.entries(e.changes).map(([field, c]) => [field, changeJson(c, e.op)])),
    source: e.source,
    command: e.command,
    txn: e.txn,
    ...(e.cause === undefined ? {} : { cause: e.cause }),
  }));
}

type StepJson =
  | { kind: 'update'; id: string; fields: Record<string, { old?: unknown; new?: unknown }> }
  | { kind: 'create' | 'delete'; id: string; task: TaskJson }
  | { kind: 'rename'; id: string; from: string; to: string }
  | { kind: 'mark'; old?: string; new: string };

/** An undo's field: ABSENT is a key the file lacks (a `null` the file holds stays `null`). */
const present = (key: 'old' | 'new', v: unknown) => (v === ABSENT || v === undefined ? {} : { [key]: v });

/**
 * A step of an undo or redo. `times`: the change times of the tasks its steps name (a
 * task removed again: its file's before the removal; a task restored: its new file's;
 * none for a dry run's restored task, which is not written: `updatedAt: null`).
 */
function stepJson(s: UndoStep, times: ReadonlyMap<string, number>): StepJson {
  switch (s.kind) {
    case 'update':
      return {
        kind: 'update',
        id: s.id,
        fields: Object.fromEntries(Object.entries(s.fields).map(([k, f]) => [k, { ...present('old', f.old), ...present('new', f.new) }])),
      };
    case 'create':
    case 'delete':
      return { kind: s.kind, id: s.id, task: taskJson(s.task as Task, times.get(s.id)) };
    case 'mark':
      return { kind: 'mark', ...(s.old === null ? {} : { old: s.old }), new: s.new };
    default:
      return s;
  }
}

/**
 * `undo --json`, `redo --json`: the real run's shape; a dry run adds `"dryRun": true`.
 * `otherLists`: the same commands' parts in the other lists they changed (a carry's), in
 * the order made.
 */
export function undoJson(
  plan: UndoPlan,
  opts: {
    dryRun: boolean;
    txn: string | undefined;
    times: ReadonlyMap<string, number>;
    others?: ReadonlyArray<{ list: string; plan: UndoPlan; times: ReadonlyMap<string, number> }>;
  },
) {
  return {
    action: plan.action,
    txn: opts.txn ?? null,
    finishing: plan.finishing,
    commands: plan.commands.map((c) => ({ txn: c.txn, command: c.command, actor: c.actor, at: c.at })),
    steps: plan.steps.map((s) => stepJson(s, opts.times)),
    kept: plan.kept,
    otherLists: (opts.others ?? []).map((o) => ({
      list: o.list,
      finishing: o.plan.finishing,
      steps: o.plan.steps.map((s) => stepJson(s, o.times)),
      kept: o.plan.kept,
    })),
    ...(opts.dryRun ? { dryRun: true as const } : {}),
  };
}
