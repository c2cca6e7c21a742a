import type { Task } from '../store/schema.js';
import { orderKeys } from '../store/serialize.js';
import type { Endpoint, ImportPlan, PlannedTask } from './import-plan.js';

/** From a plan to task files: once ids are allocated (import-apply.ts), or predicted (a dry run). */

/**
 * The task file for a planned task, once ids are known. `idOf` gives the id of an
 * endpoint, or undefined while it has none yet (a new task of a later batch): such an
 * edge is added later by a task-locked update of this task.
 */
export function materializeTask(p: PlannedTask, id: string, idOf: (e: Endpoint) => string | undefined): Task {
  const ids = (es: readonly Endpoint[]) => es.map(idOf).filter((x): x is string => x !== undefined);
  return orderKeys({
    ...(p.extra ?? {}),
    id,
    subject: p.subject,
    description: p.description,
    activeForm: p.activeForm,
    owner: p.owner,
    status: p.status,
    blocks: ids(p.blocks),
    blockedBy: ids(p.blockedBy),
    metadata: p.metadata,
  } as Task);
}

export interface ExistingChange {
  id: string;
  addBlocks: string[];
  addBlockedBy: string[];
}

/** What a dry run predicts: ids from `firstId` on, in creation order, and the edges existing tasks gain. */
export function predictImport(plan: ImportPlan, firstId: string | number): { tasks: Task[]; existing: ExistingChange[] } {
  const first = BigInt(firstId);
  return predictWithIds(
    plan,
    plan.create.map((_, i) => String(first + BigInt(i))),
  );
}

/** What a dry run predicts when the ids are known (`ids[i]` for the i-th task the plan creates). */
export function predictWithIds(plan: ImportPlan, newIds: readonly string[]): { tasks: Task[]; existing: ExistingChange[] } {
  const ids = new Map(plan.create.map((p, i) => [p.ref, newIds[i] as string]));
  const idOf = (e: Endpoint) => (e.kind === 'existing' ? e.id : ids.get(e.ref));
  const tasks = plan.create.map((p) => materializeTask(p, ids.get(p.ref) as string, idOf));
  return { tasks, existing: existingChanges(plan, idOf) };
}

/** The other side of every edge between a new task and an existing one. */
export function existingChanges(plan: ImportPlan, idOf: (e: Endpoint) => string | undefined): ExistingChange[] {
  const changes = new Map<string, ExistingChange>();
  const get = (id: string) => {
    let c = changes.get(id);
    if (!c) changes.set(id, (c = { id, addBlocks: [], addBlockedBy: [] }));
    return c;
  };
  for (const p of plan.create) {
    const self = idOf({ kind: 'new', ref: p.ref });
    if (self === undefined) continue;
    for (const e of p.blockedBy) if (e.kind === 'existing') get(e.id).addBlocks.push(self);
    for (const e of p.blocks) if (e.kind === 'existing') get(e.id).addBlockedBy.push(self);
  }
  return [...changes.values()];
}
