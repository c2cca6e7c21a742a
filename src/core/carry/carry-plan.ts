import { TasksError } from '../base/errors.js';
import { creationOrder } from '../graph/creation-order.js';
import type { Endpoint, ImportPlan, PlannedTask } from '../snapshots/import-plan.js';
import { compareIds } from '../store/ids.js';
import { isInternal, isKnownKey, type Task } from '../store/schema.js';

/**
 * What carrying a list's unfinished work into another list does, decided on the two
 * lists as read (pure; carry-run.ts writes it under the agents' locks):
 *
 * - Which tasks: every task that is not completed, not internal (`metadata._internal`,
 *   agents' own bookkeeping) and not carried already (a `carriedTo` mark); or the ids
 *   named. A carried task keeps waiting for its blockers, so an unfinished blocker left
 *   behind comes along too ("pulled in"), whatever was named.
 * - Dependencies: an edge between two carried tasks is kept, on the new ids; an edge to a
 *   completed task left behind is dropped (it blocks nothing); an edge to a task carried
 *   before into the same list follows it there; any other edge to a task left behind
 *   (a missing id, a task carried elsewhere) is dropped and said. A carried task that
 *   blocks a task left behind does not in its new list.
 * - Owners: an owner whose session is over (`isGone`) is cleared, and an `in_progress`
 *   task without its owner goes back to `pending` (as a release does); people and live
 *   agents keep theirs.
 * - Each new task keeps its subject, description, activeForm, metadata and unknown keys,
 *   with `carriedFrom: {list, id}` added to its metadata; each source task gets
 *   `carriedTo: {list, id}` (or is deleted, with --move).
 * - A source task that has a copy in the target already (a task there `carriedFrom` it)
 *   but no mark: an earlier carry stopped between copying and marking (killed, the
 *   machine went down). It is not copied again; the run marks it (`copied`), and edges
 *   to it follow the copy, as for a task carried before.
 */
export interface CarryMark {
  list: string;
  id: string;
}

export interface CarriedTask {
  /** The task as it stands in its source list. */
  source: Task;
  /** Why it is carried: unfinished, named, or as a blocker of a carried task. */
  reason: 'unfinished' | 'named' | 'blocker';
  /** For a blocker: the carried task that waits for it. */
  pulledBy?: string | undefined;
  /** Its owner, cleared because that owner's session is over. */
  ownerCleared?: string | undefined;
}

export interface DroppedEdge {
  /** The carried task, by its source id. */
  task: string;
  /** The task left behind it waited for (blockedBy) or blocked (blocks). */
  other: string;
  side: 'blockedBy' | 'blocks';
  why: 'completed' | 'missing' | 'carried elsewhere' | 'left behind';
}

export interface CarryPlan {
  sourceList: string;
  targetList: string;
  carried: CarriedTask[];
  /** What creating them means, as the import writes plans (refs: source ids). */
  plan: ImportPlan;
  dropped: DroppedEdge[];
  /** Tasks not carried, by why. */
  left: { completed: number; carriedBefore: number; internal: number };
  /** Unmarked source tasks with a copy in the target already: marked, not copied again. */
  copied: Array<{ source: Task; copy: string }>;
}

export interface CarryInput {
  sourceList: string;
  source: readonly Task[];
  targetList: string;
  /** The target's tasks now (edges to tasks carried there before follow them). */
  target: readonly Task[];
  /** Only these source ids (and their unfinished blockers). */
  ids?: readonly string[] | undefined;
  /** Whose session is over. */
  isGone: (owner: string | undefined) => boolean;
}

const markOf = (t: Task): CarryMark | undefined => {
  const mark = t.metadata?.carriedTo as { list?: unknown; id?: unknown } | undefined;
  return typeof mark?.list === 'string' && typeof mark.id === 'string' ? { list: mark.list, id: mark.id } : undefined;
};

/** The target's copies of the source's tasks, by source id (the first copy of each, by id). */
function copiesIn(target: readonly Task[], sourceList: string): Map<string, string> {
  const copies = new Map<string, string>();
  for (const t of [...target].sort((a, b) => compareIds(a.id, b.id))) {
    const from = t.metadata?.carriedFrom as { list?: unknown; id?: unknown } | undefined;
    if (from?.list === sourceList && typeof from.id === 'string' && !copies.has(from.id)) copies.set(from.id, t.id);
  }
  return copies;
}

export function planCarry(input: CarryInput): CarryPlan {
  const byId = new Map(input.source.map((t) => [t.id, t]));
  const targetIds = new Set(input.target.map((t) => t.id));
  const copies = copiesIn(input.target, input.sourceList);
  const copied = new Map<string, { source: Task; copy: string }>();
  // A task copied into the target already counts as carried there, marked or not.
  const carriedTo = (t: Task): CarryMark | undefined => {
    const mark = markOf(t);
    if (mark !== undefined) return mark;
    const copy = copies.get(t.id);
    return copy === undefined ? undefined : { list: input.targetList, id: copy };
  };
  const unmarkedCopy = (t: Task): boolean => {
    const copy = markOf(t) === undefined ? copies.get(t.id) : undefined;
    if (copy !== undefined) copied.set(t.id, { source: t, copy });
    return copy !== undefined;
  };
  const chosen = new Map<string, CarriedTask>();
  if (input.ids !== undefined) {
    for (const id of input.ids) {
      const t = byId.get(id);
      if (t === undefined)
        throw new TasksError('not_found', `task #${id} not found in list "${input.sourceList}"`, {
          details: { id, list: input.sourceList },
        });
      if (unmarkedCopy(t)) continue;
      const before = carriedTo(t);
      if (before !== undefined)
        throw new TasksError('conflict', `task #${id} of list "${input.sourceList}" was carried already, to ${before.list} #${before.id}`, {
          details: { id, carriedTo: before },
        });
      chosen.set(id, { source: t, reason: 'named' });
    }
  } else {
    for (const t of input.source)
      if (t.status !== 'completed' && !isInternal(t) && !unmarkedCopy(t) && carriedTo(t) === undefined)
        chosen.set(t.id, { source: t, reason: 'unfinished' });
  }
  // Unfinished blockers come along: a carried task keeps waiting for them.
  const queue = [...chosen.keys()];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    for (const b of blockersOf(byId.get(id) as Task, byId)) {
      const blocker = byId.get(b);
      if (
        blocker === undefined ||
        chosen.has(b) ||
        blocker.status === 'completed' ||
        unmarkedCopy(blocker) ||
        carriedTo(blocker) !== undefined
      )
        continue;
      chosen.set(b, { source: blocker, reason: 'blocker', pulledBy: id });
      queue.push(b);
    }
  }
  const dropped: DroppedEdge[] = [];
  const endpoint = (task: string, other: string, side: DroppedEdge['side']): Endpoint | undefined => {
    if (chosen.has(other)) return { kind: 'new', ref: other };
    const t = byId.get(other);
    const mark = t === undefined ? undefined : carriedTo(t);
    if (mark !== undefined && mark.list === input.targetList && targetIds.has(mark.id)) return { kind: 'existing', id: mark.id };
    const why =
      t === undefined ? 'missing' : t.status === 'completed' ? 'completed' : mark !== undefined ? 'carried elsewhere' : 'left behind';
    dropped.push({ task, other, side, why });
    return undefined;
  };
  const order = [...chosen.keys()].sort(compareIds);
  const planned = new Map<string, PlannedTask>();
  for (const id of order) {
    const c = chosen.get(id) as CarriedTask;
    const t = c.source;
    const gone = t.owner !== undefined && t.owner !== '' && input.isGone(t.owner);
    if (gone) c.ownerCleared = t.owner;
    const extra = Object.fromEntries(Object.entries(t).filter(([k]) => !isKnownKey(k)));
    const p: PlannedTask = {
      ref: id,
      subject: t.subject,
      description: t.description,
      status: gone && t.status === 'in_progress' ? 'pending' : t.status,
      metadata: { ...(t.metadata ?? {}), carriedFrom: { list: input.sourceList, id } },
      blockedBy: blockersOf(t, byId).flatMap((b) => endpoint(id, b, 'blockedBy') ?? []),
      blocks: dependentsOf(t, byId).flatMap((d) => endpoint(id, d, 'blocks') ?? []),
    };
    if (t.activeForm !== undefined) p.activeForm = t.activeForm;
    if (t.owner !== undefined && !gone) p.owner = t.owner;
    if (Object.keys(extra).length > 0) p.extra = extra;
    delete (p.metadata as Record<string, unknown>).carriedTo;
    planned.set(id, p);
  }
  // Blockers first, so each task is written with its blockedBy whole; a cycle the agents
  // left (they do not refuse them) is written all the same, its tasks last.
  const sorted = creationOrder(order, (ref) => (planned.get(ref)?.blockedBy ?? []).flatMap((e) => (e.kind === 'new' ? [e.ref] : [])));
  const inOrder = new Set(sorted);
  const create = [...sorted, ...order.filter((id) => !inOrder.has(id))].map((id) => planned.get(id) as PlannedTask);
  const left = { completed: 0, carriedBefore: 0, internal: 0 };
  for (const t of input.source) {
    if (chosen.has(t.id)) continue;
    if (copied.has(t.id)) continue;
    if (carriedTo(t) !== undefined) left.carriedBefore++;
    else if (t.status === 'completed') left.completed++;
    else if (isInternal(t)) left.internal++;
  }
  return {
    sourceList: input.sourceList,
    targetList: input.targetList,
    carried: order.map((id) => chosen.get(id) as CarriedTask),
    plan: { create, skip: [], warnings: [] },
    dropped,
    left,
    copied: [...copied.values()].sort((a, b) => compareIds(a.source.id, b.source.id)),
  };
}

/** A task's blockers, from both sides of the source's edges. */
function blockersOf(t: Task, byId: ReadonlyMap<string, Task>): string[] {
  const out = new Set(t.blockedBy);
  for (const other of byId.values()) if (other.blocks.includes(t.id)) out.add(other.id);
  out.delete(t.id);
  return [...out].sort(compareIds);
}

/** The tasks that wait for `t`, from both sides. */
function dependentsOf(t: Task, byId: ReadonlyMap<string, Task>): string[] {
  const out = new Set(t.blocks);
  for (const other of byId.values()) if (other.blockedBy.includes(t.id)) out.add(other.id);
  out.delete(t.id);
  return [...out].sort(compareIds);
}
