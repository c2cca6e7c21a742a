import fs from 'node:fs';
import { MAX_JSON_DEPTH, nestingExceeds } from '../base/json-depth.js';
import type { FieldChange } from './journal.js';
import { forEachLineBackward, offsetAfter, openRegular, type ScanOptions, scanMatchingLines } from './line-scan.js';

/**
 * Task changes an agent made, read from its session's transcript: each TaskCreate /
 * TaskUpdate is an `assistant` entry's `tool_use` block, and its outcome the next `user`
 * entry's `toolUseResult`, with the time it happened (docs/task-store.md sections 9 and
 * 10). What is read is a function of the transcript's bytes alone, so it can be kept per
 * file (its path, size and time).
 *
 * A session resumed with `--fork-session` starts its transcript with copies of its
 * parent's entries: the same `uuid`, `parentUuid` and `timestamp`, `sessionId` rewritten
 * to the fork's, and, on each copied `assistant` entry, `requestSessionId` naming the
 * session whose request made it (docs/task-store.md section 14). Those changes happened
 * in the parent's list: a call whose entry names another session's request, and its
 * result, are copies, counted apart and never as this session's changes.
 */
export interface AgentChange {
  at: number;
  taskId: string;
  op: 'create' | 'update' | 'delete';
  /** New values as the agent set them; `old` only where the transcript says it (status). */
  fields: Record<string, FieldChange>;
  sessionId: string;
  /** A subagent's or teammate's id or name; undefined for the session's main agent. */
  agent?: string | undefined;
  /** The `uuid` of the entry that recorded the result: the same in a fork's copy of it. */
  uuid?: string | undefined;
}

export interface TranscriptChanges {
  changes: AgentChange[];
  /** Changes in entries copied from a parent session (a fork): not this session's. */
  copied: number;
  /** Of those, when each parent session made them (by its id, the copies' `requestSessionId`; ms, its results' times). */
  copiedFrom: Map<string, number[]>;
  /** Some TaskCreate result told the agent that the app keeps statuses itself (docs/task-store.md section 13). */
  appKeepsStatuses: boolean;
  /** The transcript was read from this byte (0: whole; more: it is larger than the scan's cap). */
  from: number;
}

/** Transcripts past this are read from their end (a 1 GB transcript is read whole). */
export const MAX_TRANSCRIPT_SCAN = 1024 * 1024 * 1024;

/** What a Task-tool call or its result always holds, as Claude Code writes its transcripts. */
const NEEDLES = ['"name":"TaskCreate"', '"name":"TaskUpdate"', '"toolUseResult":{"task":', '"toolUseResult":{"success":'];

interface PendingCall {
  name: 'TaskCreate' | 'TaskUpdate';
  input: Record<string, unknown>;
  /** Made by another session's request: a fork's copy. */
  copied: boolean;
  /** That session (a copy's `requestSessionId`). */
  from?: string | undefined;
}

const time = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : Number.NaN);

function parseLine(line: string): Record<string, unknown> | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  // A tool input nested deeper than a task may nest is no change any agent made.
  if (nestingExceeds(entry, MAX_JSON_DEPTH + 8)) return undefined;
  return entry as Record<string, unknown>;
}

/** Pairs calls with results, line by line, in file order. */
class TranscriptReader {
  readonly calls = new Map<string, PendingCall>();
  readonly out: TranscriptChanges = { changes: [], copied: 0, copiedFrom: new Map(), appKeepsStatuses: false, from: 0 };

  constructor(
    private readonly sessionId: string,
    private readonly agent: string | undefined,
  ) {}

  feed(line: string): void {
    const entry = parseLine(line);
    if (entry === undefined) return;
    const content = (entry.message as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return;
    if (entry.type === 'assistant') {
      const copied = typeof entry.requestSessionId === 'string' && entry.requestSessionId !== entry.sessionId;
      for (const block of content as Array<Record<string, unknown> | null>) {
        if (block?.type === 'tool_use' && (block.name === 'TaskCreate' || block.name === 'TaskUpdate') && typeof block.id === 'string') {
          const input = typeof block.input === 'object' && block.input !== null ? (block.input as Record<string, unknown>) : {};
          this.calls.set(block.id, { name: block.name, input, copied, from: copied ? (entry.requestSessionId as string) : undefined });
        }
      }
      return;
    }
    if (entry.type !== 'user') return;
    const result = entry.toolUseResult as Record<string, unknown> | undefined;
    const useId = (content as Array<Record<string, unknown> | null>).find((b) => b?.type === 'tool_result')?.tool_use_id;
    const call = typeof useId === 'string' ? this.calls.get(useId) : undefined;
    const at = time(entry.timestamp);
    if (!call || typeof result !== 'object' || result === null || !Number.isFinite(at)) return;
    this.calls.delete(useId as string);
    if (call.name === 'TaskCreate' && result.appKeepsStatuses === true) this.out.appKeepsStatuses = true;
    const change = toChange(call, result, at);
    if (change === undefined) return;
    if (call.copied) {
      this.out.copied++;
      if (call.from !== undefined) this.out.copiedFrom.set(call.from, [...(this.out.copiedFrom.get(call.from) ?? []), at]);
      return;
    }
    this.out.changes.push({
      ...change,
      sessionId: this.sessionId,
      agent: this.agent,
      uuid: typeof entry.uuid === 'string' ? entry.uuid : undefined,
    });
  }
}

/**
 * Every Task-tool change recorded in one transcript, oldest first, read forward in
 * bounded steps (a signal stops it between two reads) and at most `maxBytes` from its
 * end. Unreadable: none.
 */
export async function readAgentChanges(
  file: string,
  sessionId: string,
  agent?: string,
  opts: ScanOptions = {},
): Promise<TranscriptChanges> {
  const reader = new TranscriptReader(sessionId, agent);
  try {
    const scanned = await scanMatchingLines(file, NEEDLES, (line) => reader.feed(line), {
      signal: opts.signal,
      maxBytes: opts.maxBytes ?? MAX_TRANSCRIPT_SCAN,
    });
    reader.out.from = scanned.from;
  } catch (err) {
    if (opts.signal?.aborted) throw err;
  }
  return reader.out;
}

/** How far back `get` reads a transcript from the time of a task's last change. */
const NEAR_BYTES = 16 * 1024 * 1024;
/** A result and its call are a few entries apart. */
const CALL_BYTES = 4 * 1024 * 1024;

/** A transcript line's `timestamp` (ms), read without parsing the line; undefined where it has none. */
export const timeOfEntry = (line: Buffer): number | undefined => {
  const at = line.lastIndexOf('"timestamp":"');
  if (at === -1) return undefined;
  const t = Date.parse(line.toString('latin1', at + 13, at + 13 + 30).split('"')[0] as string);
  return Number.isFinite(t) ? t : undefined;
};

/**
 * An agent's last change to task `taskId` recorded at or before `before` (ms), read from
 * the transcript's end: bisection to that time, then backward at most NEAR_BYTES, stopping
 * at the first entry older than `notBefore`; of the changes `keep` keeps. For `get`, which
 * needs one task's last change.
 */
export function lastAgentChange(
  file: string,
  sessionId: string,
  agent: string | undefined,
  taskId: string,
  window: { before: number; notBefore: number },
  /** The changes to look among (the others are passed over): a moved session's on one list. */
  keep: (change: AgentChange) => boolean = () => true,
): AgentChange | undefined {
  const open = openRegular(file);
  if (open === undefined) return undefined;
  const id = JSON.stringify(taskId);
  const needles = [Buffer.from(`"taskId":${id}`), Buffer.from(`"task":{"id":${id}`)];
  try {
    const end = offsetAfter(open.fd, open.size, window.before, timeOfEntry);
    let found: AgentChange | undefined;
    forEachLineBackward(
      open.fd,
      end,
      (line, offset) => {
        if (!line.includes('"toolUseResult"')) {
          const t = timeOfEntry(line);
          return t !== undefined && t < window.notBefore;
        }
        if (!needles.some((n) => line.includes(n))) return false;
        const entry = parseLine(line.toString('utf8'));
        if (entry?.type !== 'user') return false;
        if (time(entry.timestamp) < window.notBefore) return true;
        if (time(entry.timestamp) > window.before) return false;
        const content = (entry.message as { content?: unknown } | undefined)?.content;
        const useId = Array.isArray(content)
          ? (content as Array<Record<string, unknown> | null>).find((b) => b?.type === 'tool_result')?.tool_use_id
          : undefined;
        if (typeof useId !== 'string') return false;
        const call = callBefore(open.fd, offset, useId);
        if (call === undefined) return false;
        const reader = new TranscriptReader(sessionId, agent);
        reader.calls.set(useId, call);
        reader.feed(line.toString('utf8'));
        const change = reader.out.changes[0];
        if (change === undefined || change.taskId !== taskId || !keep(change)) return false;
        found = change;
        return true;
      },
      NEAR_BYTES,
    );
    return found;
  } finally {
    fs.closeSync(open.fd);
  }
}

/** The Task-tool call `useId`, read backward from `end`. */
function callBefore(fd: number, end: number, useId: string): PendingCall | undefined {
  const needle = Buffer.from(`"id":${JSON.stringify(useId)}`);
  let call: PendingCall | undefined;
  forEachLineBackward(
    fd,
    end,
    (line) => {
      if (!line.includes(needle)) return false;
      const reader = new TranscriptReader('', undefined);
      reader.feed(line.toString('utf8'));
      call = reader.calls.get(useId);
      return call !== undefined;
    },
    CALL_BYTES,
  );
  return call;
}

const FIELDS = ['subject', 'description', 'activeForm', 'status', 'owner', 'metadata'] as const;

function toChange(call: PendingCall, result: Record<string, unknown>, at: number): Omit<AgentChange, 'sessionId' | 'agent'> | undefined {
  if (call.name === 'TaskCreate') {
    const task = result.task as { id?: unknown } | undefined;
    if (typeof task?.id !== 'string') return undefined;
    const fields: Record<string, FieldChange> = {};
    for (const key of ['subject', 'description', 'activeForm', 'metadata'] as const) {
      if (call.input[key] !== undefined) fields[key] = { new: call.input[key] };
    }
    fields.status = { new: 'pending' };
    return { at, taskId: task.id, op: 'create', fields };
  }
  if (result.success !== true || typeof result.taskId !== 'string') return undefined;
  if (call.input.status === 'deleted') return { at, taskId: result.taskId, op: 'delete', fields: {} };
  const fields: Record<string, FieldChange> = {};
  for (const key of FIELDS) if (call.input[key] !== undefined) fields[key] = { new: call.input[key] };
  const statusChange = result.statusChange as { from?: unknown; to?: unknown } | undefined;
  if (statusChange && typeof statusChange.to === 'string') fields.status = { old: statusChange.from, new: statusChange.to };
  if (Array.isArray(call.input.addBlockedBy)) fields.addBlockedBy = { new: call.input.addBlockedBy };
  if (Array.isArray(call.input.addBlocks)) fields.addBlocks = { new: call.input.addBlocks };
  // Only what the agent's tool reports as changed (an owner set to the same name is not a change).
  const updated = Array.isArray(result.updatedFields) ? (result.updatedFields as unknown[]) : undefined;
  if (updated) {
    for (const key of Object.keys(fields)) {
      const reported = key === 'addBlockedBy' ? 'blockedBy' : key === 'addBlocks' ? 'blocks' : key;
      if (!updated.includes(reported)) delete fields[key];
    }
  }
  return Object.keys(fields).length > 0 ? { at, taskId: result.taskId, op: 'update', fields } : undefined;
}
