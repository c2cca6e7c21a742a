import type { LineScan } from '../sessions/transcript-store.js';
import type { MarkStatus } from './cost-rule.js';
import { bucketKey, LONG_PROMPT_TOKENS, type Tokens } from './usage-tally.js';

/**
 * What one transcript says for the cost rule (cost-rule.ts), as a pure function of its
 * bytes, read line by line and kept between runs by the transcript store (a grown
 * transcript is read from where the last read stopped):
 *
 * - every model message of the session, counted once: Claude Code writes a message with
 *   several content blocks as several `assistant` entries with the same `message.id` and
 *   the same usage (checked with 2.1.328 and 2.1.332); they are one message, at its first
 *   entry's time. Entries of one message follow one another: later ones are merged into
 *   it by id among the last RECENT messages. `<synthetic>` messages (written by Claude
 *   Code itself, not a model) are not messages.
 * - the status each successful TaskUpdate call set, at its result's time, and the subjects
 *   TaskCreate and TaskUpdate gave tasks (to name a task deleted since).
 * - where the session's process ended and where a resumed run of it began again: Claude
 *   Code ends a process's part of the transcript with a `cost-state` entry, and `--resume`
 *   appends the next process's entries to the same transcript (docs/task-store.md section
 *   14). The time between is no one's: the process ended at the last entry read before the
 *   `cost-state`, and the resumed run began at the first entry read after it (its queued
 *   prompt, the prompt, or else its first message).
 * - where a process that crashed (killed, the machine off: no `cost-state`) ended, when a
 *   later run's `cost-state` places it: that entry's `startTime` is the run's own start
 *   when it restored no earlier state, and else, with the earlier entry's `startTime`
 *   restored, its `totalDuration` grew by the run's own time (both seen with 2.1.328, a
 *   run SIGKILLed and resumed). Every entry of the run is at or after its start, and every
 *   entry of the dead process before it: the silence that holds that start is no one's.
 *   A silence the records do not place, after which a new request chain began (an
 *   `api-request` with no `base`: a new process, or a chain the same process began
 *   again), is kept as unsure: counted, and said to be so.
 *
 * A forked session's copies of its parent's entries (their `requestSessionId` names
 * another session: docs/task-store.md section 14) are the parent's: neither their messages
 * nor their calls are read here.
 */
export interface UsageScanState {
  models: string[];
  /** Per message, FIELDS numbers: at (NaN: none), model index, input, output, cache read, cache write, 1-hour cache write, flags. */
  m: number[];
  /** The last RECENT messages' ids, with their index. */
  ids: Array<[string, number]>;
  /** Task-tool calls whose result has not come yet, by tool_use id. */
  calls: Map<string, PendingCall>;
  /** [result time, task id, status] of each successful TaskUpdate that set a status. */
  marks: Array<[number, string, MarkStatus]>;
  /**
   * [result time (NaN: none), task id, subject] of each subject this transcript gave a
   * task, oldest first (one the same as the task's last is not kept again): a session
   * moved between lists gave each list's task of that id its own.
   */
  subjects: Array<[number, string, string]>;
  /** The latest time of a line read (NaN: none yet). */
  last: number;
  /** [process ended, resumed run began (NaN: not yet)] for each `cost-state` a line with a time preceded. */
  gaps: Array<[number, number]>;
  /**
   * The silences of the run since the last `cost-state` (SILENCE_MS or more before a line
   * that no model or tool wrote): [last time before, the line's time, RESTART / SAME / PENDING:
   * whether a request that began a new chain came before the next model message].
   */
  run: Array<[number, number, number]>;
  /** The last `cost-state`'s [startTime, totalDuration] (NaN: not given), or null: none yet. */
  cs: [number, number] | null;
  /** Silences of ended runs that may have been a crashed process's end: [from, to]. */
  unsure: Array<[number, number]>;
}

/** A pause this long or longer before a prompt may be a crashed process's end (a shorter one costs little). */
const SILENCE_MS = 1000;
const RESTART = 1;
const SAME = 0;
const PENDING = -1;

interface PendingCall {
  name: 'TaskCreate' | 'TaskUpdate';
  status?: MarkStatus | undefined;
  subject?: string | undefined;
}

const FIELDS = 8;
const FAST = 1;
const LONG = 2;
const RECENT = 64;
const STATUSES = new Set<string>(['in_progress', 'pending', 'completed', 'deleted']);

/**
 * An `assistant` entry holds its usage; the results read are TaskUpdate's and TaskCreate's
 * (other tools' results, file contents among them, are not decoded).
 */
const NEEDLES = [
  '"usage":{',
  '"toolUseResult":{"success":',
  '"toolUseResult":{"task":',
  // A process's end, and the first lines of a run (a queued prompt; a prompt typed or given).
  '"type":"cost-state"',
  '"operation":"enqueue"',
  '"promptSource"',
  // A request that begins a chain: it names no earlier one (`base`), so it keeps none of its
  // messages (`keep` 0; always so in 2.1.328 and 2.1.332). Those that go on from the last, the
  // most of a transcript's bytes, are not read at all.
  '"keep":0,',
];

export interface TranscriptUsage {
  messages: Array<{ at: number; bucket: string; tokens: Tokens }>;
  marks: Array<{ at: number; task: string; status: MarkStatus }>;
  subjects: Array<{ at: number; task: string; subject: string }>;
  /** Stretches with no process of the session: from its end to a resumed run's first line (Infinity: none yet). */
  gaps: Array<{ from: number; to: number }>;
  /** Silences of ended runs that may have been a crashed process's end, which no record places: counted, but unsure. */
  unsure: Array<{ from: number; to: number }>;
  /**
   * The silences of the run no `cost-state` closed yet (running, or ended by a crash), and
   * whether a new request chain began after each: the start of the process running now,
   * where it is known, places a crashed one's end among them (placeOpenRun).
   */
  open: Array<{ from: number; to: number; restart: boolean }>;
}

/**
 * The open run's silences with the start of the session's process running now (`start`,
 * a moment at or before it; undefined: none known): the one that holds that start was no
 * one's (every entry of the running process is after it, every entry before it another's),
 * and those after it were that process's own pauses. Any other after which a new chain
 * began is unsure.
 */
export function placeOpenRun(
  open: TranscriptUsage['open'],
  start: number | undefined,
): { gaps: TranscriptUsage['gaps']; unsure: TranscriptUsage['unsure'] } {
  const gaps: TranscriptUsage['gaps'] = [];
  const unsure: TranscriptUsage['unsure'] = [];
  for (const s of open) {
    if (start !== undefined && s.from < start && start <= s.to) gaps.push({ from: s.from, to: s.to });
    else if (s.restart && !(start !== undefined && s.from >= start)) unsure.push({ from: s.from, to: s.to });
  }
  return { gaps, unsure };
}

/** What the rule needs of a transcript, from a read that has seen all of it. */
export function usageOf(state: UsageScanState): TranscriptUsage {
  const messages: TranscriptUsage['messages'] = [];
  for (let i = 0; i < state.m.length; i += FIELDS) {
    const f = state.m;
    const flags = f[i + 7] as number;
    messages.push({
      at: f[i] as number,
      bucket: bucketKey({ model: state.models[f[i + 1] as number] as string, fast: (flags & FAST) !== 0, long: (flags & LONG) !== 0 }),
      tokens: {
        input: f[i + 2] as number,
        output: f[i + 3] as number,
        cacheRead: f[i + 4] as number,
        cacheCreation: f[i + 5] as number,
        cacheCreation1h: f[i + 6] as number,
      },
    });
  }
  return {
    messages,
    marks: state.marks.map(([at, task, status]) => ({ at, task, status })),
    subjects: state.subjects.map(([at, task, subject]) => ({ at, task, subject })),
    gaps: state.gaps.map(([from, to]) => ({ from, to: Number.isNaN(to) ? Number.POSITIVE_INFINITY : to })),
    unsure: state.unsure.map(([from, to]) => ({ from, to })),
    open: state.run.map(([from, to, how]) => ({ from, to, restart: how === RESTART })),
  };
}

/**
 * A run ends (its `cost-state`): its own start, from what the entry says, places a crashed
 * process's end among its silences; the other silences after which a new chain began, before
 * that start, stay unsure (after it, the run's own process ran throughout).
 */
function endRun(state: UsageScanState, entry: Record<string, unknown>): void {
  const startTime = typeof entry.startTime === 'number' ? entry.startTime : Number.NaN;
  const total = typeof entry.totalDuration === 'number' ? entry.totalDuration : Number.NaN;
  const prev = state.cs;
  let start = Number.NaN;
  // Restored from the last entry: the run's own time is what it added; else its start is its own.
  if (prev !== null && startTime === prev[0]) start = total >= prev[1] ? state.last - (total - prev[1]) : Number.NaN;
  else start = startTime;
  if (!(start <= state.last)) start = Number.NaN;
  for (const [a, b, how] of state.run) {
    if (a < start && start <= b) state.gaps.push([a, b]);
    else if (how === RESTART && !(a >= start)) state.unsure.push([a, b]);
  }
  state.run = [];
  state.cs = [startTime, total];
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const time = (v: unknown): number => (typeof v === 'string' ? Date.parse(v) : Number.NaN);

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function readMessage(state: UsageScanState, entry: Record<string, unknown>, message: Record<string, unknown>): void {
  const usage = message.usage as Record<string, unknown> | undefined;
  const model = message.model;
  if (typeof usage !== 'object' || usage === null || typeof model !== 'string' || model === '<synthetic>') return;
  const hour = count((usage.cache_creation as Record<string, unknown> | undefined)?.ephemeral_1h_input_tokens);
  const read = [
    count(usage.input_tokens),
    count(usage.output_tokens),
    count(usage.cache_read_input_tokens),
    count(usage.cache_creation_input_tokens),
  ];
  const at = time(entry.timestamp);
  const fast = usage.speed === 'fast' ? FAST : 0;
  const id = typeof message.id === 'string' ? message.id : undefined;
  const known = id === undefined ? undefined : state.ids.find(([seen]) => seen === id);
  if (known !== undefined) {
    // A later entry of the same message: the same usage (the fullest of them is kept).
    const i = known[1] * FIELDS;
    const f = state.m;
    if (Number.isFinite(at) && !(at >= (f[i] as number))) f[i] = at;
    for (let k = 0; k < 4; k++) f[i + 2 + k] = Math.max(f[i + 2 + k] as number, read[k] as number);
    f[i + 6] = Math.min(Math.max(f[i + 6] as number, hour), f[i + 5] as number);
    f[i + 7] = ((f[i + 7] as number) & FAST) | fast | longFlag(f[i + 2] as number, f[i + 4] as number, f[i + 5] as number);
    return;
  }
  let modelIndex = state.models.indexOf(model);
  if (modelIndex === -1) modelIndex = state.models.push(model) - 1;
  const [input, output, cacheRead, cacheWrite] = read as [number, number, number, number];
  state.m.push(
    at,
    modelIndex,
    input,
    output,
    cacheRead,
    cacheWrite,
    Math.min(hour, cacheWrite),
    fast | longFlag(input, cacheRead, cacheWrite),
  );
  if (id !== undefined) {
    state.ids.push([id, state.m.length / FIELDS - 1]);
    if (state.ids.length > RECENT) state.ids.shift();
  }
}

/** A model's message or a tool's result: never the first line of a process's run. */
function byModelOrTool(entry: Record<string, unknown>): boolean {
  const message = entry.message as Record<string, unknown> | undefined;
  if (entry.type === 'assistant') return message?.model !== '<synthetic>';
  if (entry.type !== 'user') return false;
  const content = message?.content;
  return (
    entry.toolUseResult !== undefined ||
    (Array.isArray(content) && content.some((b) => (b as { type?: unknown } | null)?.type === 'tool_result'))
  );
}

const longFlag = (input: number, cacheRead: number, cacheWrite: number) => (input + cacheRead + cacheWrite > LONG_PROMPT_TOKENS ? LONG : 0);

function readCalls(state: UsageScanState, content: unknown[]): void {
  for (const block of content as Array<Record<string, unknown> | null>) {
    if (block?.type !== 'tool_use' || typeof block.id !== 'string') continue;
    if (block.name !== 'TaskUpdate' && block.name !== 'TaskCreate') continue;
    const input = (typeof block.input === 'object' && block.input !== null ? block.input : {}) as Record<string, unknown>;
    const status = typeof input.status === 'string' && STATUSES.has(input.status) ? (input.status as MarkStatus) : undefined;
    const subject = typeof input.subject === 'string' ? input.subject : undefined;
    state.calls.set(block.id, { name: block.name, status, subject });
  }
}

/** A memo of each scan state: task id -> the subject it was last given (`subjects` looked up; made again for a state copied or loaded). */
const lastSubjects = new WeakMap<UsageScanState, Map<string, string>>();

/** A subject given a task, kept unless it is the one the task was last given. */
function nameTask(state: UsageScanState, at: number, task: string, subject: string): void {
  let last = lastSubjects.get(state);
  if (last === undefined) {
    last = new Map(state.subjects.map(([, id, was]) => [id, was]));
    lastSubjects.set(state, last);
  }
  if (last.get(task) === subject) return;
  last.set(task, subject);
  state.subjects.push([at, task, subject]);
}

function readResult(state: UsageScanState, entry: Record<string, unknown>, content: unknown[]): void {
  const useId = (content as Array<Record<string, unknown> | null>).find((b) => b?.type === 'tool_result')?.tool_use_id;
  const call = typeof useId === 'string' ? state.calls.get(useId) : undefined;
  const result = entry.toolUseResult as Record<string, unknown> | undefined;
  if (call === undefined || typeof result !== 'object' || result === null) return;
  state.calls.delete(useId as string);
  if (call.name === 'TaskCreate') {
    const task = result.task as { id?: unknown; subject?: unknown } | null;
    if (typeof task?.id === 'string' && typeof task.subject === 'string') nameTask(state, time(entry.timestamp), task.id, task.subject);
    return;
  }
  if (result.success !== true || typeof result.taskId !== 'string') return;
  const at = time(entry.timestamp);
  if (call.subject !== undefined) nameTask(state, at, result.taskId, call.subject);
  if (call.status !== undefined && Number.isFinite(at)) state.marks.push([at, result.taskId, call.status]);
}

export const USAGE_SCAN: LineScan<UsageScanState> = {
  id: 'usage/5',
  needles: NEEDLES,
  start: () => ({
    models: [],
    m: [],
    ids: [],
    calls: new Map(),
    marks: [],
    subjects: [],
    last: Number.NaN,
    gaps: [],
    run: [],
    cs: null,
    unsure: [],
  }),
  feed(state, line) {
    if (line.startsWith('{"type":"api-request"')) {
      // The first request after a silence began a new chain (a new process, or the same one starting over).
      const silence = state.run.at(-1);
      if (silence !== undefined && silence[2] === PENDING) silence[2] = line.includes('"base":"') ? SAME : RESTART;
      return;
    }
    const entry = parse(line);
    if (entry === undefined) return;
    if (entry.type === 'cost-state') {
      // No message goes on past its process: a resumed run's ids are its own.
      state.ids = [];
      endRun(state, entry);
      const open = state.gaps.at(-1);
      if (Number.isFinite(state.last) && (open === undefined || !Number.isNaN(open[1]))) state.gaps.push([state.last, Number.NaN]);
      return;
    }
    const at = time(entry.timestamp);
    if (Number.isFinite(at)) {
      const open = state.gaps.at(-1);
      const resumed = open !== undefined && Number.isNaN(open[1]);
      if (resumed) open[1] = Math.max(at, open[0]);
      // A silence before a line no model or tool wrote (a prompt, a queued one): a crashed process may have ended in it.
      else if (at - state.last >= SILENCE_MS && !byModelOrTool(entry)) state.run.push([state.last, at, PENDING]);
      if (!(at <= state.last)) state.last = at;
    }
    const message = entry.message as Record<string, unknown> | undefined;
    if (typeof message !== 'object' || message === null) return;
    const content = Array.isArray(message.content) ? (message.content as unknown[]) : [];
    if (entry.type === 'assistant') {
      // A model's answer, and no new chain began before it since the silence: the same process went on.
      const silence = state.run.at(-1);
      if (silence !== undefined && silence[2] === PENDING && message.model !== '<synthetic>') silence[2] = SAME;
      // A fork's copy of its parent's entry: the parent's message and call.
      if (typeof entry.requestSessionId === 'string' && entry.requestSessionId !== entry.sessionId) return;
      readMessage(state, entry, message);
      readCalls(state, content);
    } else if (entry.type === 'user') readResult(state, entry, content);
  },
  copy: (s) => ({
    models: [...s.models],
    m: [...s.m],
    ids: s.ids.map(([id, i]) => [id, i]),
    calls: new Map(s.calls),
    marks: [...s.marks],
    subjects: s.subjects.map(([at, task, subject]) => [at, task, subject]),
    last: s.last,
    gaps: s.gaps.map(([from, to]) => [from, to]),
    run: s.run.map(([a, b, how]) => [a, b, how]),
    cs: s.cs === null ? null : [s.cs[0], s.cs[1]],
    unsure: s.unsure.map(([a, b]) => [a, b]),
  }),
  save: (s) =>
    s.m.length === 0 && s.calls.size === 0 && s.marks.length === 0 && s.subjects.length === 0 && Number.isNaN(s.last) && s.cs === null
      ? 0
      : {
          v: s.models,
          m: s.m.map((n) => (Number.isNaN(n) ? null : n)),
          i: s.ids,
          c: [...s.calls].map(([id, c]) => [id, c.name, c.status ?? null, c.subject ?? null]),
          k: s.marks,
          s: s.subjects.map(([at, task, subject]) => [Number.isNaN(at) ? null : at, task, subject]),
          l: Number.isNaN(s.last) ? null : s.last,
          g: s.gaps.map(([from, to]) => [from, Number.isNaN(to) ? null : to]),
          r: s.run,
          p: s.cs === null ? null : s.cs.map((n) => (Number.isNaN(n) ? null : n)),
          u: s.unsure,
        },
  load(json) {
    if (json === 0) return USAGE_SCAN.start();
    if (typeof json !== 'object' || json === null) return undefined;
    const { v, m, i, c, k, s, l, g, r, p, u } = json as Record<string, unknown>;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return undefined;
    if (!Array.isArray(m) || m.length % FIELDS !== 0 || !m.every((n) => n === null || typeof n === 'number')) return undefined;
    const numbers = m.map((n) => (n === null ? Number.NaN : (n as number)));
    for (let at = 1; at < numbers.length; at += FIELDS) if (!((numbers[at] as number) < v.length)) return undefined;
    if (!Array.isArray(i) || !i.every((x) => Array.isArray(x) && typeof x[0] === 'string' && typeof x[1] === 'number')) return undefined;
    if (!Array.isArray(c) || !Array.isArray(k) || !Array.isArray(s)) return undefined;
    const calls = new Map<string, PendingCall>();
    for (const x of c as unknown[]) {
      if (!Array.isArray(x) || typeof x[0] !== 'string' || (x[1] !== 'TaskCreate' && x[1] !== 'TaskUpdate')) return undefined;
      calls.set(x[0], {
        name: x[1],
        status: typeof x[2] === 'string' && STATUSES.has(x[2]) ? (x[2] as MarkStatus) : undefined,
        subject: typeof x[3] === 'string' ? x[3] : undefined,
      });
    }
    const marks: UsageScanState['marks'] = [];
    for (const x of k as unknown[]) {
      if (!Array.isArray(x) || typeof x[0] !== 'number' || typeof x[1] !== 'string' || !STATUSES.has(x[2])) return undefined;
      marks.push([x[0], x[1], x[2] as MarkStatus]);
    }
    const subjects: UsageScanState['subjects'] = [];
    for (const x of s as unknown[]) {
      if (!Array.isArray(x) || (x[0] !== null && typeof x[0] !== 'number') || typeof x[1] !== 'string' || typeof x[2] !== 'string')
        return undefined;
      subjects.push([x[0] === null ? Number.NaN : x[0], x[1], x[2]]);
    }
    if (l !== null && typeof l !== 'number') return undefined;
    if (!Array.isArray(g)) return undefined;
    const gaps: UsageScanState['gaps'] = [];
    for (const x of g as unknown[]) {
      if (!Array.isArray(x) || typeof x[0] !== 'number' || (x[1] !== null && typeof x[1] !== 'number')) return undefined;
      gaps.push([x[0], x[1] === null ? Number.NaN : x[1]]);
    }
    const last = l === null ? Number.NaN : l;
    const triples = (x: unknown, n: number) =>
      Array.isArray(x) && x.every((y) => Array.isArray(y) && y.length === n && y.every((z) => typeof z === 'number'));
    if (!triples(r, 3) || !triples(u, 2)) return undefined;
    if (p !== null && !(Array.isArray(p) && p.length === 2 && p.every((z) => z === null || typeof z === 'number'))) return undefined;
    const cs = p === null ? null : ((p as Array<number | null>).map((z) => (z === null ? Number.NaN : z)) as [number, number]);
    return {
      models: v as string[],
      m: numbers,
      ids: i as Array<[string, number]>,
      calls,
      marks,
      subjects,
      last,
      gaps,
      run: r as Array<[number, number, number]>,
      cs,
      unsure: u as Array<[number, number]>,
    };
  },
};
