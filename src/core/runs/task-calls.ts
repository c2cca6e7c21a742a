import { isObject } from '../snapshots/import-todowrite.js';
import type { StreamEvent } from '../snapshots/stream-events.js';
import { alias, CREATE_ALIASES, CREATED_TEXT, parseInput, taskToolInputs, UPDATE_ALIASES } from '../snapshots/stream-tasks.js';
import { applyPatch, type TaskPatch } from '../store/patch.js';
import type { Task } from '../store/schema.js';
import { orderKeys } from '../store/serialize.js';
import { type ChangeEvent, fieldChanges } from '../watch/watch-diff.js';

/**
 * One TaskCreate / TaskUpdate result applied to a list, once, by the agents' own rules
 * (docs/task-store.md section 6), as it comes back in a run's stream: the list is the
 * caller's (the run's list as told so far, or the files' when they are followed), and
 * what changed comes back as the events of this one step, in the order the agent's
 * writes made them. Each call costs its own work only (a delete also scans the list for
 * references), so following a run is linear in its events.
 *
 * A call the agent's tool refused (`is_error`, `success: false`) changes nothing; an
 * update of a task the list does not hold is passed over (the list was made before the
 * stream began, and its folder is not followed).
 */
export interface TaskCallStep {
  events: ChangeEvent[];
  /** A successful update of a task the list does not hold: the run writes to another list (or one made before it). */
  unknownTask?: string | undefined;
  /** The input does not parse as the tool would take it: nothing applied. */
  warning?: string | undefined;
}

/** Apply one result. `tasks` is changed in place. */
export function applyTaskResult(tasks: Map<string, Task>, event: Extract<StreamEvent, { kind: 'result' }>): TaskCallStep {
  const { call, result } = event;
  if (!call || result.isError) return { events: [] };
  try {
    if (call.name === 'TaskCreate') return { events: create(tasks, event) };
    if (call.name === 'TaskUpdate') {
      const id = updatedId(event);
      if (id !== undefined && !tasks.has(id)) return { events: [], unknownTask: id };
      return { events: update(tasks, event) };
    }
  } catch (err) {
    return { events: [], warning: `${(err as Error).message}: skipped` };
  }
  return { events: [] };
}

function create(tasks: Map<string, Task>, { call, result }: Extract<StreamEvent, { kind: 'result' }>): ChangeEvent[] {
  if (!call) return [];
  const data = isObject(result.data) && isObject(result.data.task) ? result.data.task : undefined;
  const id = data && (typeof data.id === 'string' || typeof data.id === 'number') ? String(data.id) : CREATED_TEXT.exec(result.text)?.[1];
  const input = parseInput(taskToolInputs().Create, alias(call.input, CREATE_ALIASES), call);
  const subject = typeof data?.subject === 'string' ? data.subject : input.subject;
  if (id === undefined || subject === undefined || subject.trim() === '') return [];
  const description = typeof data?.description === 'string' ? data.description : (input.description ?? subject);
  const fields: Record<string, unknown> = { id, subject, description, status: 'pending', blocks: [], blockedBy: [] };
  if (input.activeForm !== undefined) fields.activeForm = input.activeForm;
  if (input.metadata !== undefined) fields.metadata = input.metadata;
  const task = orderKeys(fields as unknown as Task);
  const event = put(tasks, task);
  return event ? [event] : [];
}

function update(tasks: Map<string, Task>, { call, result }: Extract<StreamEvent, { kind: 'result' }>): ChangeEvent[] {
  if (!call) return [];
  const input = parseInput(taskToolInputs().Update, alias(call.input, UPDATE_ALIASES), call);
  const data = isObject(result.data) ? result.data : undefined;
  if (data?.success === false) return [];
  const id = input.taskId ?? (typeof data?.taskId === 'string' ? data.taskId : undefined);
  const old = id === undefined ? undefined : tasks.get(id);
  if (id === undefined || old === undefined) return [];
  if (input.status === 'deleted') return remove(tasks, old);
  const patch: TaskPatch = {};
  if (input.subject !== undefined) patch.subject = input.subject;
  if (input.description !== undefined) patch.description = input.description;
  if (input.activeForm !== undefined) patch.activeForm = input.activeForm;
  if (input.owner !== undefined) patch.owner = input.owner;
  if (input.metadata !== undefined) patch.metadata = input.metadata;
  if (input.status !== undefined) patch.status = input.status;
  // An edge is made only when both tasks exist, on both sides, as the agents' blockTask does.
  const blocks = (input.addBlocks ?? []).filter((other) => other !== id && tasks.has(other));
  const blockedBy = (input.addBlockedBy ?? []).filter((other) => other !== id && tasks.has(other));
  if (blocks.length > 0) patch.addBlocks = blocks;
  if (blockedBy.length > 0) patch.addBlockedBy = blockedBy;
  const events: ChangeEvent[] = [];
  const changed = change(tasks, old, patch);
  if (changed) events.push(changed);
  for (const other of blocks) pushIf(events, change(tasks, tasks.get(other) as Task, { addBlockedBy: [id] }));
  for (const other of blockedBy) pushIf(events, change(tasks, tasks.get(other) as Task, { addBlocks: [id] }));
  return events;
}

/** The task a successful update names; undefined for a refused one or one that names none. */
function updatedId({ call, result }: Extract<StreamEvent, { kind: 'result' }>): string | undefined {
  if (!call) return undefined;
  const input = parseInput(taskToolInputs().Update, alias(call.input, UPDATE_ALIASES), call);
  const data = isObject(result.data) ? result.data : undefined;
  if (data?.success === false) return undefined;
  return input.taskId ?? (typeof data?.taskId === 'string' ? data.taskId : undefined);
}

/** As the agents' delete: the task goes, and so does every reference to it. */
function remove(tasks: Map<string, Task>, old: Task): ChangeEvent[] {
  tasks.delete(old.id);
  const events: ChangeEvent[] = [{ type: 'deleted', task: old }];
  for (const other of [...tasks.values()]) {
    if (!other.blocks.includes(old.id) && !other.blockedBy.includes(old.id)) continue;
    const after = { ...other, blocks: other.blocks.filter((x) => x !== old.id), blockedBy: other.blockedBy.filter((x) => x !== old.id) };
    tasks.set(other.id, after);
    events.push({ type: 'updated', task: after, before: other, changes: fieldChanges(other, after) });
  }
  return events;
}

function change(tasks: Map<string, Task>, old: Task, patch: TaskPatch): ChangeEvent | undefined {
  const { task, changed } = applyPatch(old, patch);
  if (changed.length === 0) return undefined;
  tasks.set(task.id, task);
  return { type: 'updated', task, before: old, changes: fieldChanges(old, task) };
}

/** A task the list gains: created, or (an id it held already) updated to what the result says. */
function put(tasks: Map<string, Task>, task: Task): ChangeEvent | undefined {
  const old = tasks.get(task.id);
  tasks.set(task.id, task);
  if (old === undefined) return { type: 'created', task };
  const changes = fieldChanges(old, task);
  return Object.keys(changes).length === 0 ? undefined : { type: 'updated', task, before: old, changes };
}

function pushIf(events: ChangeEvent[], e: ChangeEvent | undefined): void {
  if (e) events.push(e);
}
