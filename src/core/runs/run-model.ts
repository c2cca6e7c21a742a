import type { SnapshotItem } from '../snapshots/import-snapshot.js';
import { isObject } from '../snapshots/import-todowrite.js';
import { type StreamEvent, streamEvents, type ToolCall } from '../snapshots/stream-events.js';
import { replayTaskCalls } from '../snapshots/stream-tasks.js';
import { parseTodoItems, type TodoItem } from '../snapshots/todo-schema.js';
import { compareIds } from '../store/ids.js';
import type { Task } from '../store/schema.js';
import type { RunEnd } from '../watch/watch-source.js';
import { assignTodoIds, NO_TODO_IDS, type TodoIdState } from './todo-ids.js';

/**
 * The list of a run as its stream-json output (or transcript) tells it so far, one line
 * at a time: the main agent's latest TodoWrite snapshot, or the tasks its TaskCreate /
 * TaskUpdate calls made (docs/task-store.md section 9), whichever it used last, as `tasks
 * import` reads a finished stream. A change is applied when its result comes back, so a
 * call the agent's tool refused changes nothing. Also: the session id (the `system`
 * event, or a transcript entry's `sessionId`) and the end of the run (the `result`
 * event).
 */
export interface LineEffect {
  /** The list changed. */
  changed: boolean;
  /** A Task tool's result came back: the run's list folder may exist now. */
  taskTool: boolean;
  /** The run's `result` event. */
  end?: RunEnd | undefined;
  /** Something about this line worth a warning (it is otherwise skipped). */
  warning?: string | undefined;
}

const FOLLOWED = new Set(['TodoWrite', 'TaskCreate', 'TaskUpdate']);

export class RunModel {
  sessionId: string | undefined;
  private readonly calls = new Map<string, ToolCall>();
  /** TaskCreate / TaskUpdate calls and their results, for the replay. */
  private readonly taskEvents: StreamEvent[] = [];
  private todoIds: TodoIdState = NO_TODO_IDS;
  private todoTasks: Task[] = [];
  private taskTasks: Task[] = [];
  private using: 'todos' | 'tasks' | undefined;

  /** The list now, in id order. */
  tasks(): Task[] {
    return this.using === 'tasks' ? this.taskTasks : this.todoTasks;
  }

  apply(value: Record<string, unknown>, line: number): LineEffect {
    const effect: LineEffect = { changed: false, taskTool: false };
    if (this.sessionId === undefined) {
      const id = value.type === 'system' ? value.session_id : value.sessionId;
      if (typeof id === 'string' && id !== '') this.sessionId = id;
    }
    if (value.type === 'result') {
      effect.end = {
        how: 'result',
        subtype: typeof value.subtype === 'string' ? value.subtype : undefined,
        isError: typeof value.is_error === 'boolean' ? value.is_error : undefined,
      };
      return effect;
    }
    for (const event of streamEvents([{ line, value }])) {
      if (event.kind === 'call') {
        if (FOLLOWED.has(event.call.name)) this.calls.set(event.call.id, event.call);
        if (event.call.name !== 'TodoWrite' && FOLLOWED.has(event.call.name)) this.taskEvents.push(event);
        continue;
      }
      const call = this.calls.get(event.toolUseId);
      const withCall: StreamEvent = { ...event, call };
      if (call?.name === 'TaskCreate' || call?.name === 'TaskUpdate') {
        effect.taskTool = true;
        const warning = this.replayWith(withCall);
        if (warning !== undefined) effect.warning = warning;
        else effect.changed = true;
      } else {
        const warning = this.applyTodos(withCall, call);
        if (warning === null) continue;
        if (warning !== undefined) effect.warning = warning;
        else effect.changed = true;
      }
    }
    return effect;
  }

  /** Returns a warning when the result cannot be applied. */
  private replayWith(event: StreamEvent): string | undefined {
    this.taskEvents.push(event);
    try {
      const replay = replayTaskCalls(this.taskEvents);
      if (replay.created === 0 && this.using !== 'tasks') return undefined;
      this.taskTasks = itemsToTasks(replay.items);
      this.using = 'tasks';
      return undefined;
    } catch (err) {
      // An input the agent's tool would not have taken: leave it out and go on.
      this.taskEvents.pop();
      return `${(err as Error).message}: skipped`;
    }
  }

  /** null: not a TodoWrite result of the main agent; a string: a warning; undefined: applied. */
  private applyTodos(event: StreamEvent, call: ToolCall | undefined): string | null | undefined {
    if (event.kind !== 'result') return null;
    const data = isObject(event.result.data) ? event.result.data : undefined;
    const bareResult = !call && data !== undefined && Array.isArray(data.newTodos) && 'oldTodos' in data;
    if (call?.name !== 'TodoWrite' && !bareResult) return null;
    // Subagents keep todo lists of their own; a refused write changed nothing.
    if (!(call ? call.main : event.result.main) || event.result.isError) return null;
    const raw = call ? (isObject(call.input) ? call.input.todos : call.input) : data?.newTodos;
    let items: TodoItem[];
    try {
      items = parseTodoItems(raw, `line ${call?.line ?? event.result.line}: TodoWrite todos`);
    } catch (err) {
      return `${(err as Error).message}: skipped`;
    }
    const { ids, state } = assignTodoIds(
      this.todoIds,
      items.map((t) => t.content),
    );
    this.todoIds = state;
    this.todoTasks = items.map((item, i) => todoTask(ids[i] as string, item)).sort((a, b) => compareIds(a.id, b.id));
    this.using = 'todos';
    return undefined;
  }
}

function todoTask(id: string, item: TodoItem): Task {
  const task: Task = { id, subject: item.content, description: '', status: item.status, blocks: [], blockedBy: [] };
  if (item.activeForm !== undefined && item.activeForm.trim() !== '') {
    return { id, subject: item.content, description: '', activeForm: item.activeForm, status: item.status, blocks: [], blockedBy: [] };
  }
  return task;
}

/** Replayed items -> tasks in the shape of their files (schema key order, both sides of each edge). */
function itemsToTasks(items: readonly SnapshotItem[]): Task[] {
  return items.map((item) => {
    const blocks = items
      .filter((other) => other.blockedBy.includes(item.ref))
      .map((other) => other.ref)
      .sort(compareIds);
    const task: Record<string, unknown> = { id: item.ref, subject: item.subject, description: item.description };
    if (item.activeForm !== undefined) task.activeForm = item.activeForm;
    if (item.owner !== undefined) task.owner = item.owner;
    task.status = item.status;
    task.blocks = blocks;
    task.blockedBy = [...item.blockedBy];
    if (item.metadata !== undefined) task.metadata = item.metadata;
    return task as unknown as Task;
  });
}
