import fs from 'node:fs';
import path from 'node:path';
import type { FieldChange } from './journal.js';

/**
 * Task changes an agent made, read from its session's transcript: each TaskCreate /
 * TaskUpdate is an `assistant` entry's `tool_use` block, and its outcome the next `user`
 * entry's `toolUseResult`, with the time it happened (spec sections 9 and 10). The file is
 * read in pieces and only lines that can hold one of these are parsed: transcripts grow
 * to megabytes.
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

/** Feed every line of `file` to `visit`, reading it in pieces; lines over MAX_LINE are skipped. */
export function forEachLine(file: string, visit: (line: string) => void): void {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) return;
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer[] = [];
    let carried = 0;
    let skipping = false;
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, CHUNK, null);
      if (n <= 0) break;
      let start = 0;
      for (let nl = buffer.indexOf(10, 0); nl !== -1 && nl < n; nl = buffer.indexOf(10, start)) {
        if (!skipping) {
          const piece = buffer.subarray(start, nl);
          const line = carried > 0 ? Buffer.concat([...carry, piece]).toString('utf8') : piece.toString('utf8');
          if (line.length > 0) visit(line);
        }
        carry = [];
        carried = 0;
        skipping = false;
        start = nl + 1;
      }
      if (start < n && !skipping) {
        carry.push(Buffer.from(buffer.subarray(start, n)));
        carried += n - start;
        if (carried > MAX_LINE) {
          carry = [];
          carried = 0;
          skipping = true;
        }
      }
    }
    if (carried > 0 && !skipping) visit(Buffer.concat(carry).toString('utf8'));
  } finally {
    fs.closeSync(fd);
  }
}

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
    forEachLine(file, (line) => {
      const isCall = line.includes('"tool_use"') && (line.includes('"TaskCreate"') || line.includes('"TaskUpdate"'));
      const isResult = line.includes('"toolUseResult":{');
      if (!isCall && !isResult) return;
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
