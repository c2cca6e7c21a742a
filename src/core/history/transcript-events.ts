import { forEachMatchingLine } from '../sessions/transcript-lines.js';
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
