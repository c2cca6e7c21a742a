import { pushAll } from '../base/many-items.js';
import { isObject } from '../snapshots/import-todowrite.js';
import { streamEvents, type ToolCall } from '../snapshots/stream-events.js';
import { parseTodoItems, type TodoItem } from '../snapshots/todo-schema.js';
import type { Task } from '../store/schema.js';
import { type ChangeEvent, diffSnapshots, snapshotOf } from '../watch/watch-diff.js';
import type { RunEnd } from '../watch/watch-source.js';
import { applyTaskResult } from './task-calls.js';
import { assignTodoIds, NO_TODO_IDS, type TodoIdState } from './todo-ids.js';

/**
 * The list of a run as its stream-json output (or transcript) tells it, one line at a
 * time, each applied once: the main agent's latest TodoWrite snapshot, or the tasks its
 * TaskCreate / TaskUpdate calls made (docs/task-store.md section 9), whichever it used
 * last, as `tasks import` reads a finished stream. A change is applied when its result
 * comes back, so a call the agent's tool refused changes nothing; each line gives the
 * events it caused, in order. Also: the session id (the `system` event, or a transcript
 * entry's `sessionId`), the list the init names, and the end of the run (the `result`
 * event).
 */
export interface LineEffect {
  /** What this line changed in the list shown, in order. */
  events: ChangeEvent[];
  /** A Task tool's result came back: the run's list folder may exist now. */
  taskTool: boolean;
  /** The run changed its list (a Task tool or TodoWrite result that was applied). */
  acted: boolean;
  /** The run's `result` event. */
  end?: RunEnd | undefined;
  /** Something about this line worth a warning (it is otherwise skipped). */
  warning?: string | undefined;
  /** A task a successful TaskUpdate changed that the list does not hold. */
  unknownTask?: string | undefined;
}

const FOLLOWED = new Set(['TodoWrite', 'TaskCreate', 'TaskUpdate']);

export class RunModel {
  sessionId: string | undefined;
  /**
   * The session of the latest `system` init: the run's command may start another after a
   * `result` (a script: `claude -p`, then `claude -p --resume`); its death is that one's.
   */
  latestSessionId: string | undefined;
  /** Calls waiting for their result, by tool_use id. */
  private readonly calls = new Map<string, ToolCall>();
  private todoIds: TodoIdState = NO_TODO_IDS;
  private todos = new Map<string, Task>();
  /** The Task-tools list: built from the results, or the list folder's files when followed. */
  private tasks = new Map<string, Task>();
  private using: 'todos' | 'tasks' | undefined;
  /** The tasks the run took up (its TaskUpdate set them in progress or gave them an owner): the work it holds. */
  private readonly claimed = new Set<string>();
  /**
   * TaskUpdate calls that take a task up, awaiting their result, by tool_use id: an agent
   * killed between writing the file and printing the result took it up all the same, as
   * its file (followed) says.
   */
  private readonly claiming = new Map<string, string>();

  /** The list now, by id. */
  shown(): ReadonlyMap<string, Task> {
    return this.using === 'todos' ? this.todos : this.tasks;
  }

  /**
   * The tasks in progress the run holds on its list: those its TaskUpdate took up (a task
   * another session works on in a shared list is not the run's). What a run that ends
   * without its result leaves for someone to give back; a TodoWrite run's todos are its
   * session's own, on no list, and are held by none.
   */
  held(): Task[] {
    if (this.using !== 'tasks') return [];
    const mine = new Set([...this.claimed, ...this.claiming.values()]);
    return [...this.tasks.values()].filter((t) => t.status === 'in_progress' && mine.has(t.id));
  }

  /**
   * The files of the run's list, followed from the start: their tasks are the Task-tools
   * list (a reused list's old tasks included), and results apply to them.
   */
  adoptFiles(files: ReadonlyMap<string, Task>): void {
    this.tasks = new Map(files);
    if (this.using !== 'todos') this.using = 'tasks';
  }

  /**
   * Tasks the files show differently from what the run's results told (what someone
   * else changed, or what a result does not say): the list takes the files' version.
   */
  reconcile(files: ReadonlyMap<string, Task>): ChangeEvent[] {
    const events = diffSnapshots(this.tasks, files);
    // Equal values: the files' objects carry their exact key order.
    this.tasks = new Map(files);
    if (events.length > 0 && this.using === undefined) this.using = 'tasks';
    return this.using === 'tasks' ? events : [];
  }

  /** Would the files change the Task-tools list as the results told it? */
  reconcileWouldChange(files: ReadonlyMap<string, Task>): boolean {
    return diffSnapshots(this.tasks, files).length > 0;
  }

  apply(value: Record<string, unknown>, line: number): LineEffect {
    const effect: LineEffect = { events: [], taskTool: false, acted: false };
    if (this.sessionId === undefined) {
      const id = value.type === 'system' ? value.session_id : value.sessionId;
      if (typeof id === 'string' && id !== '') this.sessionId = id;
    }
    if (isSessionStart(value)) this.latestSessionId = value.session_id as string;
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
        const taking = event.call.name === 'TaskUpdate' ? claimOf(event.call, undefined) : undefined;
        if (taking !== undefined) this.claiming.set(event.call.id, taking);
        continue;
      }
      const call = this.calls.get(event.toolUseId);
      if (call) this.calls.delete(event.toolUseId);
      this.claiming.delete(event.toolUseId);
      const withCall = { ...event, call };
      if (call?.name === 'TaskCreate' || call?.name === 'TaskUpdate') {
        effect.taskTool = true;
        const before = this.using;
        const shownBefore = this.shown();
        const step = applyTaskResult(this.tasks, withCall);
        const claim = call.name === 'TaskUpdate' ? claimOf(call, event.result) : undefined;
        if (claim !== undefined) this.claimed.add(claim);
        if (step.warning !== undefined) effect.warning = step.warning;
        if (step.unknownTask !== undefined) effect.unknownTask = step.unknownTask;
        if (step.events.length === 0) continue;
        effect.acted = true;
        this.using = 'tasks';
        if (before === 'todos') pushAll(effect.events, diffSnapshots(shownBefore, this.tasks));
        else pushAll(effect.events, step.events);
        continue;
      }
      const todos = this.todosOf(withCall, call);
      if (todos === undefined) continue;
      if (typeof todos === 'string') {
        effect.warning = todos;
        continue;
      }
      const shownBefore = this.shown();
      this.todos = todos;
      this.using = 'todos';
      effect.acted = true;
      pushAll(effect.events, diffSnapshots(shownBefore, todos));
    }
    return effect;
  }

  /** A TodoWrite result of the main agent: its list (ids kept by text); a string: a warning; undefined: none. */
  private todosOf(
    event: { kind: 'result'; result: { data: unknown; main: boolean; isError: boolean; line: number } },
    call: ToolCall | undefined,
  ): Map<string, Task> | string | undefined {
    const data = isObject(event.result.data) ? event.result.data : undefined;
    const bareResult = !call && data !== undefined && Array.isArray(data.newTodos) && 'oldTodos' in data;
    if (call?.name !== 'TodoWrite' && !bareResult) return undefined;
    // Subagents keep todo lists of their own; a refused write changed nothing.
    if (!(call ? call.main : event.result.main) || event.result.isError) return undefined;
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
    return snapshotOf(items.map((item, i) => todoTask(ids[i] as string, item)));
  }
}

/**
 * The task a successful TaskUpdate took up (set in progress, or gave an owner), even one
 * that changed nothing (updatedFields: []: a retake); undefined for any other call.
 * `result` undefined: the call as made, its result not yet back.
 */
function claimOf(call: ToolCall, result: { data: unknown; isError: boolean } | undefined): string | undefined {
  const input = isObject(call.input) ? call.input : undefined;
  const data = isObject(result?.data) ? result.data : undefined;
  if (input === undefined || result?.isError === true || data?.success === false) return undefined;
  const takes = input.status === 'in_progress' || (typeof input.owner === 'string' && input.owner !== '');
  const id = typeof input.taskId === 'string' ? input.taskId : typeof data?.taskId === 'string' ? data.taskId : undefined;
  return takes ? id : undefined;
}

/** A stream's `system` init: a session starts (and names itself). */
export function isSessionStart(value: Record<string, unknown>): boolean {
  return value.type === 'system' && value.subtype === 'init' && typeof value.session_id === 'string' && value.session_id !== '';
}

function todoTask(id: string, item: TodoItem): Task {
  if (item.activeForm !== undefined && item.activeForm.trim() !== '') {
    return { id, subject: item.content, description: '', activeForm: item.activeForm, status: item.status, blocks: [], blockedBy: [] };
  }
  return { id, subject: item.content, description: '', status: item.status, blocks: [], blockedBy: [] };
}
