import { forEachMatchingLine } from './transcript-lines.js';

/**
 * What one transcript says about the task lists its session worked on (docs/task-store.md
 * sections 9 and 10), as a pure function of the file's content: so it can be kept per
 * file (path, size, mtime) and only new or grown transcripts read again.
 *
 * - `tasks`: every task the session's Task tools showed it, by id, with the subject it
 *   last saw: TaskCreate results (`{task: {id, subject}}`), TaskGet results, TaskList
 *   results (the whole list as it was then), subjects it changed with TaskUpdate; a task
 *   it deleted is dropped. `created` marks those it made. Transcripts never name the list
 *   itself (checked against 2.1.328: neither the list id nor the environment appear), so
 *   these are what ties a session to a list named by CLAUDE_CODE_TASK_LIST_ID.
 * - `writes`: each TaskCreate and each successful TaskUpdate, in order, with the time of
 *   its call and of its result (the file was written between the two): what ties a
 *   session to the very files it wrote, where another list holds the same tasks (two
 *   builds of one plan), or one it only updated (a worker). A session can write to more
 *   than one list (its settings can change while it runs): a second create of the same
 *   id is another list's task. A forked session's copies of its parent's entries are the
 *   parent's writes, not its own.
 * - `todos`: the latest TodoWrite list (the older, in-memory system): the last result's
 *   `newTodos`, else the last call's input.
 */
export interface SeenTask {
  id: string;
  subject: string;
  /** This session's TaskCreate made it. */
  created: boolean;
}

export interface Todo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  activeForm?: string | undefined;
}

/** One write of a session's Task tools to a task file. */
export interface TaskWrite {
  id: string;
  /** TaskCreate made the file; else a TaskUpdate changed it. */
  created: boolean;
  /** The subject this write left it with, when it set one. */
  subject?: string | undefined;
  /** A TaskUpdate to `deleted`: the file is gone. */
  deleted?: boolean | undefined;
  /** ms since the epoch: the call's entry (the write came after) and its result's (it came before). */
  at: number;
  end: number;
}

export interface TranscriptTasks {
  tasks: SeenTask[];
  /** Every write, oldest first (absent: none). */
  writes?: TaskWrite[] | undefined;
  /** Whether any Task tool (TaskCreate, TaskUpdate, TaskGet, TaskList) was called. */
  usesTasks: boolean;
  /** The latest TodoWrite todos; undefined when TodoWrite was never called. */
  todos?: Todo[] | undefined;
}

/**
 * What a line must hold to be one of the calls or results read here. The file is searched
 * for the three stems they share (each search is a pass over the bytes: three, not
 * nine; a shorter stem such as `"name":"T` would also catch every ToolSearch line, tens
 * of KB each); a line that holds a stem is checked for a whole needle, as bytes, before
 * it is decoded and parsed.
 */
const STEMS = ['"name":"Task', '"name":"TodoWrite"', '"toolUseResult":{"'];
const NEEDLES = [
  '"name":"TaskCreate"',
  '"name":"TaskUpdate"',
  '"name":"TaskGet"',
  '"name":"TaskList"',
  '"name":"TodoWrite"',
  '"toolUseResult":{"task":',
  '"toolUseResult":{"tasks":',
  '"toolUseResult":{"success":',
  '"toolUseResult":{"oldTodos":',
];

type TaskTool = 'TaskCreate' | 'TaskUpdate' | 'TaskGet' | 'TaskList' | 'TodoWrite';
const TOOLS = new Set<string>(['TaskCreate', 'TaskUpdate', 'TaskGet', 'TaskList', 'TodoWrite']);

/** Read one transcript; an unreadable one says nothing. */
export function readTranscriptTasks(file: string): TranscriptTasks {
  const seen = new Map<string, SeenTask>();
  const calls = new Map<string, { name: TaskTool; input: Record<string, unknown>; at: number; copied: boolean }>();
  const writes: TaskWrite[] = [];
  const out: TranscriptTasks = { tasks: [], usesTasks: false };
  try {
    forEachMatchingLine(file, STEMS, (line) => {
      if (!NEEDLES.some((n) => line.includes(n))) return;
      const entry = parse(line);
      const content = (entry?.message as { content?: unknown } | undefined)?.content;
      if (!entry || !Array.isArray(content)) return;
      if (entry.type === 'assistant') {
        const at = time(entry.timestamp);
        // A forked session's copies of its parent's entries: their request was the parent's.
        const copied = typeof entry.requestSessionId === 'string' && entry.requestSessionId !== entry.sessionId;
        for (const block of content as Array<Record<string, unknown> | null>) {
          if (block?.type !== 'tool_use' || typeof block.name !== 'string' || !TOOLS.has(block.name) || typeof block.id !== 'string')
            continue;
          const input = (typeof block.input === 'object' && block.input !== null ? block.input : {}) as Record<string, unknown>;
          calls.set(block.id, { name: block.name as TaskTool, input, at, copied });
          if (block.name === 'TodoWrite') {
            const todos = todosOf(input.todos);
            if (todos !== undefined) out.todos = todos;
          } else out.usesTasks = true;
        }
        return;
      }
      if (entry.type !== 'user') return;
      const useId = (content as Array<Record<string, unknown> | null>).find((b) => b?.type === 'tool_result')?.tool_use_id;
      const call = typeof useId === 'string' ? calls.get(useId) : undefined;
      const result = entry.toolUseResult;
      if (call === undefined || typeof result !== 'object' || result === null) return;
      calls.delete(useId as string);
      apply(call, result as Record<string, unknown>, seen, (todos) => (out.todos = todos));
      const end = time(entry.timestamp);
      const write =
        call.copied || Number.isNaN(call.at) || Number.isNaN(end) ? undefined : writeOf(call, result as Record<string, unknown>);
      if (write !== undefined) writes.push({ ...write, at: call.at, end });
    });
  } catch {
    // unreadable: what was read so far
  }
  out.tasks = [...seen.values()];
  if (writes.length > 0) out.writes = writes;
  return out;
}

/** The write a TaskCreate or a successful TaskUpdate made (without its times). */
function writeOf(
  call: { name: TaskTool; input: Record<string, unknown> },
  result: Record<string, unknown>,
): Omit<TaskWrite, 'at' | 'end'> | undefined {
  if (call.name === 'TaskCreate') {
    const t = result.task as { id?: unknown; subject?: unknown } | null;
    if (typeof t?.id !== 'string') return undefined;
    return { id: t.id, created: true, subject: typeof t.subject === 'string' ? t.subject : undefined };
  }
  if (call.name !== 'TaskUpdate' || result.success !== true || typeof result.taskId !== 'string') return undefined;
  if (call.input.status === 'deleted') return { id: result.taskId, created: false, deleted: true };
  // An update that changed no field may have left the file as it was: no time to go by.
  if (!Array.isArray(result.updatedFields) || result.updatedFields.length === 0) return undefined;
  return { id: result.taskId, created: false, subject: typeof call.input.subject === 'string' ? call.input.subject : undefined };
}

function time(v: unknown): number {
  return typeof v === 'string' ? Date.parse(v) : Number.NaN;
}

function apply(
  call: { name: TaskTool; input: Record<string, unknown> },
  result: Record<string, unknown>,
  seen: Map<string, SeenTask>,
  setTodos: (todos: Todo[]) => void,
): void {
  const see = (task: unknown, created: boolean) => {
    const t = task as { id?: unknown; subject?: unknown } | null;
    if (typeof t?.id !== 'string' || typeof t.subject !== 'string') return;
    const before = seen.get(t.id);
    seen.set(t.id, { id: t.id, subject: t.subject, created: created || (before?.created ?? false) });
  };
  switch (call.name) {
    case 'TaskCreate':
      see(result.task, true);
      return;
    case 'TaskGet':
      see(result.task, false);
      return;
    case 'TaskList':
      if (Array.isArray(result.tasks)) for (const t of result.tasks) see(t, false);
      return;
    case 'TaskUpdate': {
      if (result.success !== true || typeof result.taskId !== 'string') return;
      if (call.input.status === 'deleted') {
        seen.delete(result.taskId);
        return;
      }
      const before = seen.get(result.taskId);
      if (before !== undefined && typeof call.input.subject === 'string')
        seen.set(result.taskId, { ...before, subject: call.input.subject });
      return;
    }
    case 'TodoWrite': {
      const todos = todosOf(result.newTodos);
      if (todos !== undefined) setTodos(todos);
      return;
    }
  }
}

function todosOf(value: unknown): Todo[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const todos: Todo[] = [];
  for (const item of value as Array<Record<string, unknown> | null>) {
    if (typeof item?.content !== 'string') continue;
    const status = item.status === 'in_progress' || item.status === 'completed' ? item.status : 'pending';
    todos.push({ content: item.content, status, ...(typeof item.activeForm === 'string' ? { activeForm: item.activeForm } : {}) });
  }
  return todos;
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
