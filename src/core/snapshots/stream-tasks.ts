import type { z } from 'zod';
import { TasksError } from '../base/errors.js';
import { lazySchemas } from '../base/zod.js';
import { compareIds } from '../store/ids.js';
import { STATUSES, type Status } from '../store/schema.js';
import type { SnapshotItem } from './import-snapshot.js';
import { isObject } from './import-todowrite.js';
import type { StreamEvent, ToolCall, ToolResult } from './stream-events.js';
import { describeIssue } from './todo-schema.js';

/**
 * Rebuild the task list a stream's TaskCreate / TaskUpdate calls ended with, by the
 * agents' own rules (docs/task-store.md section 6), applied in the order their results
 * came back (results of one turn can arrive out of order). A create's id is in its result
 * (`{task: {id, subject}}`, else the text "Task #N created successfully"); a call refused
 * by the agent (`is_error`, `success: false`) changed nothing; a call with no result in
 * the stream is not applied (the run ended before it), with a warning.
 */

interface SimTask {
  id: string;
  subject: string;
  description: string;
  activeForm?: string;
  owner?: string;
  status: Status;
  blocks: string[];
  blockedBy: string[];
  metadata?: Record<string, unknown>;
}

export interface TaskReplay {
  items: SnapshotItem[];
  /** Line of the last call that changed the list; 0 when none did. */
  lastLine: number;
  created: number;
  updated: number;
  deleted: number;
  warnings: string[];
}

export const taskToolInputs = lazySchemas((z) => {
  const Id = z.union([z.string(), z.number()]).transform(String);
  const Create = z
    .object({
      subject: z.string().optional(),
      description: z.string().optional(),
      activeForm: z.string().optional(),
      metadata: z.record(z.unknown()).optional(),
    })
    .passthrough();
  const Update = z
    .object({
      taskId: Id.optional(),
      subject: z.string().optional(),
      description: z.string().optional(),
      activeForm: z.string().optional(),
      status: z.enum([...STATUSES, 'deleted']).optional(),
      owner: z.string().optional(),
      metadata: z.record(z.unknown()).optional(),
      addBlocks: z.array(Id).optional(),
      addBlockedBy: z.array(Id).optional(),
    })
    .passthrough();
  return { Create, Update };
});

export const CREATE_ALIASES = [
  ['title', 'subject'],
  ['name', 'subject'],
  ['content', 'description'],
  ['active_form', 'activeForm'],
] as const;
export const UPDATE_ALIASES = [
  ['id', 'taskId'],
  ['task_id', 'taskId'],
  ['active_form', 'activeForm'],
] as const;

export const CREATED_TEXT = /^Task #(\S+) created successfully/;

/** The aliases Claude Code accepts before validating (`id`/`task_id`, `title`/`name`, `active_form`...). */
export function alias(input: unknown, pairs: ReadonlyArray<readonly [string, string]>): unknown {
  if (!isObject(input)) return input;
  const out: Record<string, unknown> = { ...input };
  for (const [from, to] of pairs) {
    if (!(to in out) && typeof out[from] === 'string' && (out[from] as string).trim() !== '') {
      out[to] = out[from];
      delete out[from];
    }
  }
  return out;
}

export function parseInput<T extends z.ZodTypeAny>(schema: T, input: unknown, call: ToolCall): z.infer<T> {
  if (!isObject(input)) throw new TasksError('usage', `line ${call.line}: ${call.name} input: expected an object`);
  const result = schema.safeParse(input);
  if (!result.success) throw new TasksError('usage', describeIssue(`line ${call.line}: ${call.name} input`, result.error.issues[0]));
  return result.data;
}

export function replayTaskCalls(events: readonly StreamEvent[]): TaskReplay {
  const tasks = new Map<string, SimTask>();
  const warnings: string[] = [];
  const answered = new Set<string>();
  const replay: TaskReplay = { items: [], lastLine: 0, created: 0, updated: 0, deleted: 0, warnings };

  const create = (call: ToolCall, result: ToolResult) => {
    const data = isObject(result.data) && isObject(result.data.task) ? result.data.task : undefined;
    const rawId =
      data && (typeof data.id === 'string' || typeof data.id === 'number') ? String(data.id) : CREATED_TEXT.exec(result.text)?.[1];
    const input = parseInput(taskToolInputs().Create, alias(call.input, CREATE_ALIASES), call);
    const subject = typeof data?.subject === 'string' ? data.subject : input.subject;
    if (rawId === undefined) {
      warnings.push(
        `line ${call.line}: TaskCreate ${JSON.stringify(subject ?? '')} has no task id in its result (line ${result.line}): not imported`,
      );
      return;
    }
    if (subject === undefined || subject.trim() === '')
      throw new TasksError('usage', `line ${call.line}: TaskCreate input: subject: missing (expected string)`);
    const description = typeof data?.description === 'string' ? data.description : (input.description ?? subject);
    const task: SimTask = { id: rawId, subject, description, status: 'pending', blocks: [], blockedBy: [] };
    if (input.activeForm !== undefined) task.activeForm = input.activeForm;
    if (input.metadata !== undefined) task.metadata = input.metadata;
    if (tasks.has(rawId)) warnings.push(`line ${result.line}: task #${rawId} created a second time; the later one kept`);
    tasks.set(rawId, task);
    replay.created++;
    replay.lastLine = result.line;
  };

  const update = (call: ToolCall, result: ToolResult) => {
    const input = parseInput(taskToolInputs().Update, alias(call.input, UPDATE_ALIASES), call);
    const data = isObject(result.data) ? result.data : undefined;
    if (data?.success === false) return;
    const id = input.taskId ?? (typeof data?.taskId === 'string' ? data.taskId : undefined);
    if (id === undefined) throw new TasksError('usage', `line ${call.line}: TaskUpdate input: taskId: missing (expected string)`);
    const task = tasks.get(id);
    if (!task) {
      warnings.push(`line ${call.line}: TaskUpdate of #${id}, a task this stream did not create (made before it began?): ignored`);
      return;
    }
    replay.lastLine = result.line;
    if (input.status === 'deleted') {
      // As the agents' delete: the task goes, and so does every reference to it.
      tasks.delete(id);
      for (const other of tasks.values()) {
        other.blocks = other.blocks.filter((x) => x !== id);
        other.blockedBy = other.blockedBy.filter((x) => x !== id);
      }
      replay.deleted++;
      return;
    }
    if (input.subject !== undefined) task.subject = input.subject;
    if (input.description !== undefined) task.description = input.description;
    if (input.activeForm !== undefined) task.activeForm = input.activeForm;
    if (input.owner !== undefined) task.owner = input.owner;
    else if (Array.isArray(data?.updatedFields) && data.updatedFields.includes('owner')) {
      // In a team, an agent that starts an unowned task becomes its owner without saying so.
      warnings.push(
        `line ${result.line}: the agent made itself owner of #${id} (a team's auto-claim); its name is not in the stream: left unset`,
      );
    }
    if (input.metadata !== undefined) {
      const merged: Record<string, unknown> = { ...(task.metadata ?? {}), ...input.metadata };
      for (const [key, value] of Object.entries(input.metadata)) if (value === null) delete merged[key];
      task.metadata = merged;
    }
    if (input.status !== undefined) task.status = input.status;
    // An edge is made only when both tasks exist, as the agents' blockTask does.
    for (const other of input.addBlocks ?? []) link(tasks, id, other);
    for (const other of input.addBlockedBy ?? []) link(tasks, other, id);
    replay.updated++;
  };

  for (const event of events) {
    if (event.kind !== 'result' || !event.call) continue;
    const { call, result } = event;
    if (call.name !== 'TaskCreate' && call.name !== 'TaskUpdate') continue;
    answered.add(call.id);
    if (result.isError) continue;
    if (call.name === 'TaskCreate') create(call, result);
    else update(call, result);
  }
  for (const event of events) {
    if (event.kind !== 'call' || answered.has(event.call.id)) continue;
    if (event.call.name === 'TaskCreate' || event.call.name === 'TaskUpdate') {
      warnings.push(`line ${event.call.line}: ${event.call.name} has no result in the stream (the run ended before it?): not applied`);
    }
  }
  replay.items = [...tasks.values()]
    .sort((a, b) => compareIds(a.id, b.id))
    .map((t) =>
      replayedItem(
        t,
        (x) => x.id,
        (id) => tasks.has(id),
        tasks.values(),
      ),
    );
  return replay;
}

function link(tasks: Map<string, SimTask>, blocker: string, blocked: string): void {
  const a = tasks.get(blocker);
  const b = tasks.get(blocked);
  if (!a || !b || a === b) return;
  if (!a.blocks.includes(blocked)) a.blocks.push(blocked);
  if (!b.blockedBy.includes(blocker)) b.blockedBy.push(blocker);
}

/** What a replayed task needs to become an import item. */
export interface ReplayedTask {
  subject: string;
  description: string;
  activeForm?: string | undefined;
  owner?: string | undefined;
  status: Status;
  blocks: readonly string[];
  blockedBy: readonly string[];
  metadata?: Record<string, unknown> | undefined;
}

/**
 * A replayed task as an import item (`ref` its id in the record): its blockers are those it
 * names that exist, and every task of `all` that says it blocks it.
 */
export function replayedItem<T extends ReplayedTask>(
  t: T,
  refOf: (task: T) => string,
  exists: (ref: string) => boolean,
  all: Iterable<T>,
): SnapshotItem {
  const ref = refOf(t);
  const blockedBy = new Set(t.blockedBy.filter(exists));
  for (const other of all) if (other.blocks.includes(ref)) blockedBy.add(refOf(other));
  const item: SnapshotItem = {
    ref,
    subject: t.subject,
    description: t.description,
    status: t.status,
    blockedBy: [...blockedBy].sort(compareIds),
  };
  if (t.activeForm !== undefined) item.activeForm = t.activeForm;
  if (t.owner !== undefined) item.owner = t.owner;
  if (t.metadata !== undefined) item.metadata = t.metadata;
  return item;
}
