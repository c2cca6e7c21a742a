import fs from 'node:fs';
import path from 'node:path';
import type { FieldChange } from './journal.js';

/**
 * Task changes an agent made, read from its session's transcript: each TaskCreate /
 * TaskUpdate is an `assistant` entry's `tool_use` block, and its outcome the next `user`
 * entry's `toolUseResult`, with the time it happened (docs/task-store.md sections 9 and
 * 10). The file is read in pieces and only lines that can hold one of these are parsed:
 * transcripts grow to megabytes.
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
}

const CHUNK = 1024 * 1024;
/** A line past this is no Task-tool call or result (they are small): skipped unread. */
const MAX_LINE = 4 * 1024 * 1024;

/**
 * Feed `visit` every line of `file` that holds one of `needles`, in file order. The file
 * is read in 1 MB pieces and searched as bytes; only the lines that match are decoded.
 * A line over MAX_LINE bytes is skipped.
 */
function forEachMatchingLine(file: string, needles: readonly string[], visit: (line: string) => void): void {
  const patterns = needles.map((n) => Buffer.from(n));
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) return;
    let buffer = Buffer.allocUnsafe(CHUNK);
    let kept = 0; // an unfinished line carried over at the start of `buffer`
    for (;;) {
      if (kept === buffer.length) {
        if (buffer.length >= MAX_LINE)
          kept = 0; // too long to be a Task-tool entry: dropped
        else {
          const bigger = Buffer.allocUnsafe(buffer.length * 2);
          buffer.copy(bigger, 0, 0, kept);
          buffer = bigger;
        }
      }
      const n = fs.readSync(fd, buffer, kept, buffer.length - kept, null);
      const end = kept + n;
      if (n <= 0) {
        if (end > 0) visitMatches(buffer.subarray(0, end), patterns, visit); // a last line with no newline
        break;
      }
      const last = buffer.lastIndexOf(10, end - 1);
      if (last < 0) {
        kept = end;
        continue;
      }
      visitMatches(buffer.subarray(0, last + 1), patterns, visit);
      buffer.copy(buffer, 0, last + 1, end);
      kept = end - last - 1;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The lines of `region` (whole lines) that hold a pattern, decoded, in order, each once. */
function visitMatches(region: Buffer, patterns: readonly Buffer[], visit: (line: string) => void): void {
  const starts = new Set<number>();
  for (const p of patterns) {
    for (let at = region.indexOf(p); at !== -1; at = region.indexOf(p, at + p.length)) {
      starts.add(region.lastIndexOf(10, at) + 1);
    }
  }
  for (const start of [...starts].sort((a, b) => a - b)) {
    const nl = region.indexOf(10, start);
    visit(region.toString('utf8', start, nl === -1 ? region.length : nl));
  }
}

/** What a Task-tool call or its result always holds, as Claude Code writes its transcripts. */
const NEEDLES = ['"name":"TaskCreate"', '"name":"TaskUpdate"', '"toolUseResult":{"task":', '"toolUseResult":{"success":'];

interface PendingCall {
  name: 'TaskCreate' | 'TaskUpdate';
  input: Record<string, unknown>;
}

const time = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : NaN);

/** Every Task-tool change recorded in one transcript, oldest first. Unreadable: none. */
export function readAgentChanges(file: string, sessionId: string, agent?: string): AgentChange[] {
  const calls = new Map<string, PendingCall>();
  const changes: AgentChange[] = [];
  try {
    forEachMatchingLine(file, NEEDLES, (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const content = (entry.message as { content?: unknown } | undefined)?.content;
      if (!Array.isArray(content)) return;
      if (entry.type === 'assistant') {
        for (const block of content as Array<Record<string, unknown>>) {
          if (block?.type === 'tool_use' && (block.name === 'TaskCreate' || block.name === 'TaskUpdate') && typeof block.id === 'string') {
            calls.set(block.id, { name: block.name, input: (block.input ?? {}) as Record<string, unknown> });
          }
        }
        return;
      }
      if (entry.type !== 'user') return;
      const result = entry.toolUseResult as Record<string, unknown> | undefined;
      const useId = (content as Array<Record<string, unknown>>).find((b) => b?.type === 'tool_result')?.tool_use_id;
      const call = typeof useId === 'string' ? calls.get(useId) : undefined;
      const at = time(entry.timestamp);
      if (!call || !result || !Number.isFinite(at)) return;
      calls.delete(useId as string);
      const change = toChange(call, result, at);
      if (change) changes.push({ ...change, sessionId, agent });
    });
  } catch {
    return changes;
  }
  return changes;
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

/** A session's transcripts: its own, and its subagents' (`<session>/subagents/*.jsonl`). */
export function sessionTranscripts(transcript: string, sessionId: string): Array<{ file: string; agent?: string | undefined }> {
  const files: Array<{ file: string; agent?: string | undefined }> = [{ file: transcript }];
  const dir = path.join(path.dirname(transcript), sessionId, 'subagents');
  try {
    for (const name of fs.readdirSync(dir)) {
      if (name.endsWith('.jsonl')) files.push({ file: path.join(dir, name), agent: name.replace(/\.jsonl$/, '') });
    }
  } catch {
    // no subagents
  }
  return files;
}
