import { digestOf } from '../cache/digest.js';
import { forEachMatchingLine } from './transcript-lines.js';
import type { LineScan } from './transcript-store.js';

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
 *   these are what ties a session to a list named by CLAUDE_CODE_TASK_LIST_ID. A fork's
 *   copies of its parent's entries show the parent's tasks, not its own: a task they
 *   showed counts only once the fork's own TaskUpdate of it succeeds.
 * - `writes`: each TaskCreate and each TaskUpdate that changed a field, in order, with the
 *   time of its call and of its result (the file was written between the two): what ties
 *   a session to the very files it wrote, where another list holds the same tasks (two
 *   builds of one plan), or one it only updated (a worker). A session can write to more
 *   than one list (its settings can change while it runs): a second create of the same
 *   id is another list's task. A fork's copies of its parent's entries are the parent's
 *   writes, not its own.
 * - `retakes`: each TaskUpdate that set a task in progress, or gave it an owner, that it
 *   already had: Claude Code answers `updatedFields: []` and writes nothing (checked with
 *   2.1.332), so it is no write, but the session said it is at work on that task: an agent
 *   taking up a dead one's task in progress does exactly this. Never a fork's copies.
 * - `usesTasks`: a Task tool answered a call of its own (not "No such tool available": a
 *   session gated to TodoWrite may try TaskCreate first).
 * - `todos`: the latest TodoWrite list (the older, in-memory system): the last result's
 *   `newTodos`, else the last call's input; `todoTimes`, when each of them last changed:
 *   the time of the TodoWrite call that gave it its text and status (an item a call
 *   left as it was keeps its time), for stalled todos.
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
  /** The owner this write gave the task (a TaskUpdate's `owner`), when it gave one: whose claim it is. */
  owner?: string | undefined;
  /** A TaskUpdate that set it `in_progress`: with `owner`, a claim (who is at work on it now). */
  started?: boolean | undefined;
  /** ms since the epoch: the call's entry (the write came after) and its result's (it came before). */
  at: number;
  end: number;
}

/** A TaskUpdate that took up a task as it already was (in progress, or that owner): nothing written. */
export interface TaskRetake {
  id: string;
  /** ms since the epoch: the call's entry and its result's. */
  at: number;
  end: number;
}

export interface TranscriptTasks {
  tasks: SeenTask[];
  /** Every write, oldest first (absent: none). */
  writes?: TaskWrite[] | undefined;
  /** Every retake, oldest first (absent: none). */
  retakes?: TaskRetake[] | undefined;
  /** Whether any Task tool (TaskCreate, TaskUpdate, TaskGet, TaskList) answered a call (a tool the session did not have answers none). */
  usesTasks: boolean;
  /** The latest TodoWrite todos; undefined when TodoWrite was never called. */
  todos?: Todo[] | undefined;
  /** With `todos`: when each last changed (ms; null where its call had no time). */
  todoTimes?: Array<number | null> | undefined;
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

interface Call {
  name: TaskTool;
  input: Record<string, unknown>;
  /** Made in a forked session's copy of its parent's entries (docs/task-store.md section 14). */
  copied: boolean;
  /** The call's entry's time (ms; NaN when it has none). */
  at: number;
}

/**
 * Where a read of one transcript stands after some of its lines: what it has seen, and
 * the calls whose results have not come yet. Kept between runs (transcript-store.ts), so
 * that a grown transcript is read from where the last read stopped.
 */
export interface TasksScanState {
  seen: Map<string, SeenTask>;
  /**
   * What a forked session's copies of its parent's entries showed: the parent's, unless the
   * fork's own calls then work on the same task (a fork that shares its parent's list).
   */
  copiedSeen: Map<string, SeenTask>;
  calls: Map<string, Call>;
  writes: TaskWrite[];
  retakes: TaskRetake[];
  usesTasks: boolean;
  todos?: Todo[] | undefined;
  todoTimes?: Array<number | null> | undefined;
}

/** Read one transcript; an unreadable one says nothing. */
export function readTranscriptTasks(file: string): TranscriptTasks {
  const state = TASKS_SCAN.start();
  try {
    forEachMatchingLine(file, STEMS, (line) => TASKS_SCAN.feed(state, line));
  } catch {
    // unreadable: what was read so far
  }
  return tasksOf(state);
}

/** What a transcript says of its tasks, from a read that has seen all of it. */
export function tasksOf(state: TasksScanState): TranscriptTasks {
  return {
    tasks: [...state.seen.values()],
    ...(state.writes.length > 0 ? { writes: state.writes } : {}),
    ...(state.retakes.length > 0 ? { retakes: state.retakes } : {}),
    usesTasks: state.usesTasks,
    ...(state.todos !== undefined ? { todos: state.todos, todoTimes: state.todoTimes ?? state.todos.map(() => null) } : {}),
  };
}

/**
 * A new TodoWrite list, with when each item last changed: an item whose text and status
 * the list before had keeps its time; any other changed at `at` (the call's time).
 */
function setTodos(state: TasksScanState, todos: Todo[], at: number): void {
  const before = state.todos ?? [];
  const times = state.todoTimes ?? before.map(() => null);
  const kept = new Map<string, number | null>(before.map((t, i) => [`${t.status}\u0000${t.content}`, times[i] ?? null]));
  state.todos = todos;
  state.todoTimes = todos.map((t) => kept.get(`${t.status}\u0000${t.content}`) ?? (Number.isNaN(at) ? null : at));
}

/** The read of Task-tool and TodoWrite calls and results, line by line (transcript-store.ts keeps where it stands). */
export const TASKS_SCAN: LineScan<TasksScanState> & { digest(state: TasksScanState): string } = {
  // tasks/8: with the TaskUpdates that took a task up as it was; tasks/7: with the writes that started a task; tasks/6: with when each todo last changed; tasks/5: used only where a Task tool answered; tasks/4: with the owner each write gave.
  id: 'tasks/8',
  needles: STEMS,
  start: () => ({ seen: new Map(), copiedSeen: new Map(), calls: new Map(), writes: [], retakes: [], usesTasks: false }),
  feed(state, line) {
    if (!NEEDLES.some((n) => line.includes(n))) return;
    const entry = parse(line);
    const content = (entry?.message as { content?: unknown } | undefined)?.content;
    if (!entry || !Array.isArray(content)) return;
    if (entry.type === 'assistant') {
      // A forked session's copies of its parent's entries: their request was another
      // session's (docs/task-store.md section 14).
      const copied = typeof entry.requestSessionId === 'string' && entry.requestSessionId !== entry.sessionId;
      const at = time(entry.timestamp);
      for (const block of content as Array<Record<string, unknown> | null>) {
        if (block?.type !== 'tool_use' || typeof block.name !== 'string' || !TOOLS.has(block.name) || typeof block.id !== 'string')
          continue;
        const input = (typeof block.input === 'object' && block.input !== null ? block.input : {}) as Record<string, unknown>;
        state.calls.set(block.id, { name: block.name as TaskTool, input: keptInput(input), copied, at });
        if (copied) continue;
        if (block.name === 'TodoWrite') {
          const todos = todosOf(input.todos);
          if (todos !== undefined) setTodos(state, todos, at);
        }
      }
      return;
    }
    if (entry.type !== 'user') return;
    const useId = (content as Array<Record<string, unknown> | null>).find((b) => b?.type === 'tool_result')?.tool_use_id;
    const call = typeof useId === 'string' ? state.calls.get(useId) : undefined;
    const result = entry.toolUseResult;
    if (call === undefined || typeof result !== 'object' || result === null) {
      // "No such tool available": a call of a tool the session did not have uses no Task tool.
      if (call !== undefined) state.calls.delete(useId as string);
      return;
    }
    state.calls.delete(useId as string);
    // A Task tool answered (even "Task not found"): the session had and used the Task tools.
    if (call.name !== 'TodoWrite' && !call.copied) state.usesTasks = true;
    const outcome = result as Record<string, unknown>;
    if (call.copied) {
      apply(call, outcome, state.copiedSeen, () => undefined);
      return;
    }
    // The fork's own update of a task its copies showed: the fork works on that list too.
    const updated =
      call.name === 'TaskUpdate' && outcome.success === true && typeof outcome.taskId === 'string' ? outcome.taskId : undefined;
    const fromCopy = updated === undefined || state.seen.has(updated) ? undefined : state.copiedSeen.get(updated);
    if (fromCopy !== undefined) state.seen.set(fromCopy.id, { ...fromCopy, created: false });
    apply(call, outcome, state.seen, (todos) => setTodos(state, todos, call.at));
    const end = time(entry.timestamp);
    const write = Number.isNaN(call.at) || Number.isNaN(end) ? undefined : writeOf(call, outcome);
    if (write !== undefined) state.writes.push({ ...write, at: call.at, end });
    else if (!Number.isNaN(call.at) && !Number.isNaN(end) && isRetake(call, outcome))
      state.retakes.push({ id: outcome.taskId as string, at: call.at, end });
  },
  copy: (state) => ({
    ...state,
    seen: new Map(state.seen),
    copiedSeen: new Map(state.copiedSeen),
    calls: new Map(state.calls),
    writes: [...state.writes],
    retakes: [...state.retakes],
    ...(state.todoTimes !== undefined ? { todoTimes: [...state.todoTimes] } : {}),
  }),
  // Most transcripts never touch a task or a todo: their state is kept as 0.
  save: (state) =>
    isStart(state)
      ? 0
      : {
          s: savedTasks(state.seen),
          p: savedTasks(state.copiedSeen),
          c: [...state.calls].map(([id, call]) => [id, call.name, call.input, call.copied ? 1 : 0, Number.isNaN(call.at) ? null : call.at]),
          w: state.writes.map((w) => [
            w.id,
            w.created ? 1 : 0,
            w.subject ?? null,
            w.deleted ? 1 : 0,
            w.at,
            w.end,
            w.owner ?? null,
            w.started ? 1 : 0,
          ]),
          ...(state.retakes.length > 0 ? { r: state.retakes.map((r) => [r.id, r.at, r.end]) } : {}),
          u: state.usesTasks ? 1 : 0,
          ...(state.todos !== undefined ? { t: state.todos, tt: state.todoTimes ?? null } : {}),
        },
  digest: tasksDigest,
  load(json) {
    if (json === 0) return TASKS_SCAN.start();
    if (typeof json !== 'object' || json === null) return undefined;
    const { s, p, c, w, r, u, t, tt } = json as Record<string, unknown>;
    if (!Array.isArray(c) || !Array.isArray(w) || (u !== 0 && u !== 1)) return undefined;
    const seen = loadedTasks(s);
    const copiedSeen = loadedTasks(p);
    if (seen === undefined || copiedSeen === undefined) return undefined;
    const calls = new Map<string, Call>();
    for (const item of c as unknown[]) {
      if (!Array.isArray(item) || typeof item[0] !== 'string' || !TOOLS.has(item[1]) || typeof item[2] !== 'object' || item[2] === null)
        return undefined;
      const at = typeof item[4] === 'number' ? item[4] : Number.NaN;
      calls.set(item[0], { name: item[1] as TaskTool, input: item[2] as Record<string, unknown>, copied: item[3] === 1, at });
    }
    const writes: TaskWrite[] = [];
    for (const item of w as unknown[]) {
      if (!Array.isArray(item) || typeof item[0] !== 'string' || typeof item[4] !== 'number' || typeof item[5] !== 'number')
        return undefined;
      writes.push({
        id: item[0],
        created: item[1] === 1,
        ...(typeof item[2] === 'string' ? { subject: item[2] } : {}),
        ...(item[3] === 1 ? { deleted: true } : {}),
        ...(typeof item[6] === 'string' ? { owner: item[6] } : {}),
        ...(item[7] === 1 ? { started: true } : {}),
        at: item[4],
        end: item[5],
      });
    }
    const retakes: TaskRetake[] = [];
    if (r !== undefined && !Array.isArray(r)) return undefined;
    for (const item of (r ?? []) as unknown[]) {
      if (!Array.isArray(item) || typeof item[0] !== 'string' || typeof item[1] !== 'number' || typeof item[2] !== 'number')
        return undefined;
      retakes.push({ id: item[0], at: item[1], end: item[2] });
    }
    const todos = t === undefined ? undefined : todosOf(t);
    if (t !== undefined && todos === undefined) return undefined;
    const todoTimes = Array.isArray(tt) && tt.length === todos?.length ? tt.map((x) => (typeof x === 'number' ? x : null)) : undefined;
    return { seen, copiedSeen, calls, writes, retakes, usesTasks: u === 1, ...(todos !== undefined ? { todos, todoTimes } : {}) };
  },
};

/**
 * The digest of what a transcript says of its tasks (tasksOf): three flags, then a hash.
 * `u`: it used a Task tool; `i`: it showed or wrote a task; `t`: it kept TodoWrite todos
 * (each `-` when not). Equal digests, equal TranscriptTasks.
 */
export function tasksDigest(state: TasksScanState): string {
  const { tasks, writes, retakes, usesTasks, todos, todoTimes } = tasksOf(state);
  const flags = `${usesTasks ? 'u' : '-'}${tasks.length > 0 || writes !== undefined ? 'i' : '-'}${todos !== undefined ? 't' : '-'}`;
  // Nothing used, shown or kept: the flags say it all (a retake is a Task tool's answer: `u`).
  if (flags === '---') return flags;
  return (
    flags +
    digestOf([
      tasks.map((t) => [t.id, t.subject, t.created]),
      (writes ?? []).map((w) => [w.id, w.created, w.subject ?? null, w.deleted === true, w.at, w.end, w.owner ?? null, w.started === true]),
      (todos ?? []).map((t, i) => [t.content, t.status, t.activeForm ?? null, todoTimes?.[i] ?? null]),
      (retakes ?? []).map((r) => [r.id, r.at, r.end]),
    ])
  );
}

/** What a transcript's tasks digest says without the state: see tasksDigest. `nothing`: no Task tool, task or todo. */
export const digestFlags = (digest: string) => ({
  usesTasks: digest[0] === 'u',
  hasTasks: digest[1] === 'i',
  hasTodos: digest[2] === 't',
  nothing: digest.startsWith('---'),
});

/** A state that has seen nothing (what most transcripts leave). */
function isStart(state: TasksScanState): boolean {
  return (
    state.seen.size === 0 &&
    state.copiedSeen.size === 0 &&
    state.calls.size === 0 &&
    state.writes.length === 0 &&
    state.retakes.length === 0 &&
    !state.usesTasks &&
    state.todos === undefined
  );
}

/** The write a TaskCreate or a TaskUpdate that changed a field made (without its times). */
function writeOf(call: Call, result: Record<string, unknown>): Omit<TaskWrite, 'at' | 'end'> | undefined {
  if (call.copied) return undefined;
  if (call.name === 'TaskCreate') {
    const t = result.task as { id?: unknown; subject?: unknown } | null;
    if (typeof t?.id !== 'string') return undefined;
    return { id: t.id, created: true, subject: typeof t.subject === 'string' ? t.subject : undefined };
  }
  if (call.name !== 'TaskUpdate' || result.success !== true || typeof result.taskId !== 'string') return undefined;
  if (call.input.status === 'deleted') return { id: result.taskId, created: false, deleted: true };
  // An update that changed no field leaves the file as it was (checked with 2.1.328): no time to go by.
  if (!Array.isArray(result.updatedFields) || result.updatedFields.length === 0) return undefined;
  const owner = typeof call.input.owner === 'string' && call.input.owner !== '' ? call.input.owner : undefined;
  return {
    id: result.taskId,
    created: false,
    subject: typeof call.input.subject === 'string' ? call.input.subject : undefined,
    ...(owner !== undefined ? { owner } : {}),
    ...(call.input.status === 'in_progress' && result.updatedFields.includes('status') ? { started: true } : {}),
  };
}

/**
 * A TaskUpdate that took a task up as it already was: it set it in progress, or gave it
 * a non-empty owner, and changed nothing (`updatedFields: []`: the task was so already).
 */
function isRetake(call: Call, result: Record<string, unknown>): boolean {
  if (call.copied || call.name !== 'TaskUpdate' || result.success !== true || typeof result.taskId !== 'string') return false;
  if (!Array.isArray(result.updatedFields) || result.updatedFields.length > 0) return false;
  return call.input.status === 'in_progress' || (typeof call.input.owner === 'string' && call.input.owner !== '');
}

function time(v: unknown): number {
  return typeof v === 'string' ? Date.parse(v) : Number.NaN;
}

function savedTasks(seen: Map<string, SeenTask>): unknown[] {
  return [...seen.values()].map((t) => [t.id, t.subject, t.created ? 1 : 0]);
}

function loadedTasks(json: unknown): Map<string, SeenTask> | undefined {
  if (!Array.isArray(json)) return undefined;
  const seen = new Map<string, SeenTask>();
  for (const item of json as unknown[]) {
    if (!Array.isArray(item) || typeof item[0] !== 'string' || typeof item[1] !== 'string') return undefined;
    seen.set(item[0], { id: item[0], subject: item[1], created: item[2] === 1 });
  }
  return seen;
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

/**
 * What a call's result is read with (its status, owner and subject), all a call awaiting
 * its result keeps: the rest of an input is anyone's to write, and one too deep to copy
 * (arrays nested 500,000 deep) made the kept state fail to save, losing the whole transcript.
 */
function keptInput(input: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const key of ['status', 'owner', 'subject'] as const) if (typeof input[key] === 'string') kept[key] = input[key];
  return kept;
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
