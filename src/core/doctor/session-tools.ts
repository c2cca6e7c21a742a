import { forEachMatchingLine } from '../sessions/transcript-lines.js';

/**
 * What a session's transcript says of the tools it had (docs/task-store.md sections 9,
 * 10 and 12), read in bounded pieces with only the matching lines decoded:
 * - `model`: the `model` attachment Claude Code writes when a session starts or its
 *   model changes (`attachment.identity.modelId`, e.g. `claude-opus-5-5`); the last one;
 * - `deferredTools`: the tools the `deferred_tools_delta` attachments announce (added
 *   less removed): TaskCreate and the other Task tools, or TodoWrite, are among them
 *   when the session had them (checked with 2.1.328 and 2.1.332); undefined when the
 *   transcript has no such entry;
 * - `entrypoint`: `cli` for an interactive session, `sdk-cli` for a headless one (`-p`);
 * - whether it called a Task tool, or TodoWrite;
 * - `unavailable`: its last Task-tool call answered "No such tool available: <tool>" (the
 *   tools went off while it ran: a setting changed, checked with 2.1.328 and 2.1.332; or
 *   a session gated to TodoWrite tried one), when no Task-tool call succeeded after it.
 */
export interface SessionTools {
  model?: string | undefined;
  deferredTools?: Set<string> | undefined;
  entrypoint?: string | undefined;
  calledTasks: boolean;
  calledTodoWrite: boolean;
  unavailable?: { tool: string; at: string } | undefined;
}

const NEEDLES = [
  '"type":"model"',
  '"deferred_tools_delta"',
  '"name":"Task',
  '"name":"TodoWrite"',
  'No such tool available: Task',
  '"toolUseResult":{',
];
const UNAVAILABLE = /^Error: No such tool available: (Task(?:Create|Update|Get|List))$/;
const TASK_TOOLS = new Set(['TaskCreate', 'TaskUpdate', 'TaskGet', 'TaskList']);

export function readSessionTools(file: string): SessionTools {
  const out: SessionTools = { calledTasks: false, calledTodoWrite: false };
  // Task-tool calls by id, until their results say whether the tool was there.
  const taskCalls = new Set<string>();
  let called = 0;
  let failed = 0;
  try {
    forEachMatchingLine(file, NEEDLES, (line) => {
      if (line.includes('"toolUseResult"')) {
        const entry = parse(line);
        const useId = toolUseIdOf(entry);
        if (entry === undefined || useId === undefined || !taskCalls.has(useId)) return;
        taskCalls.delete(useId);
        const tool = typeof entry.toolUseResult === 'string' ? UNAVAILABLE.exec(entry.toolUseResult)?.[1] : undefined;
        if (tool !== undefined) {
          failed++;
          out.unavailable = { tool, at: typeof entry.timestamp === 'string' ? entry.timestamp : '' };
        } else if (typeof entry.toolUseResult === 'object' && entry.toolUseResult !== null) out.unavailable = undefined;
        return;
      }
      if (!line.includes('"type":"model"') && !line.includes('"deferred_tools_delta"') && !line.includes('"tool_use"')) return;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (typeof entry.entrypoint === 'string') out.entrypoint ??= entry.entrypoint;
      const attachment = entry.attachment as Record<string, unknown> | undefined;
      if (attachment?.type === 'model') {
        const id = (attachment.identity as { modelId?: unknown } | undefined)?.modelId;
        if (typeof id === 'string' && id !== '') out.model = id;
      } else if (attachment?.type === 'deferred_tools_delta') {
        out.deferredTools ??= new Set();
        for (const name of names(attachment.addedNames)) out.deferredTools.add(name);
        for (const name of names(attachment.removedNames)) out.deferredTools.delete(name);
      } else if (entry.type === 'assistant' && entry.isSidechain !== true) {
        const content = (entry.message as { content?: unknown } | undefined)?.content;
        if (!Array.isArray(content)) return;
        for (const block of content as Array<{ type?: unknown; name?: unknown; id?: unknown } | null>) {
          if (block?.type !== 'tool_use' || typeof block.name !== 'string') continue;
          if (TASK_TOOLS.has(block.name) && typeof block.id === 'string') taskCalls.add(block.id);
          if (TASK_TOOLS.has(block.name)) called++;
          if (block.name === 'TodoWrite') out.calledTodoWrite = true;
        }
      }
    });
  } catch {
    // unreadable: what was read
  }
  // A call answered "No such tool available" used no Task tool.
  out.calledTasks = called > failed;
  return out;
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The tool call a `user` entry's result answers. */
function toolUseIdOf(entry: Record<string, unknown> | undefined): string | undefined {
  const content = (entry?.message as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  const id = (content as Array<{ tool_use_id?: unknown } | null>).find((b) => typeof b?.tool_use_id === 'string')?.tool_use_id;
  return typeof id === 'string' ? id : undefined;
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
