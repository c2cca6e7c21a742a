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
 * - whether it called a Task tool, or TodoWrite.
 */
export interface SessionTools {
  model?: string | undefined;
  deferredTools?: Set<string> | undefined;
  entrypoint?: string | undefined;
  calledTasks: boolean;
  calledTodoWrite: boolean;
}

const NEEDLES = ['"type":"model"', '"deferred_tools_delta"', '"name":"Task', '"name":"TodoWrite"'];
const TASK_TOOLS = new Set(['TaskCreate', 'TaskUpdate', 'TaskGet', 'TaskList']);

export function readSessionTools(file: string): SessionTools {
  const out: SessionTools = { calledTasks: false, calledTodoWrite: false };
  try {
    forEachMatchingLine(file, NEEDLES, (line) => {
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
        for (const block of content as Array<{ type?: unknown; name?: unknown } | null>) {
          if (block?.type !== 'tool_use' || typeof block.name !== 'string') continue;
          if (TASK_TOOLS.has(block.name)) out.calledTasks = true;
          if (block.name === 'TodoWrite') out.calledTodoWrite = true;
        }
      }
    });
  } catch {
    // unreadable: what was read
  }
  return out;
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
