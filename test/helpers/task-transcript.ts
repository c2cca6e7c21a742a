import fs from 'node:fs';
import path from 'node:path';
import { projectFolder as claudeProjectFolder } from './session-files.mjs';

/**
 * A session transcript in the shape Claude Code writes (docs/task-store.md section 10;
 * the entries copy the fields of test/fixtures/claude-code-2.1.328/sessions/
 * transcript-tasks-named.jsonl): a prompt, the model attachment, the deferred tools the
 * session had, then each Task-tool call as an `assistant` entry with its `tool_use` and
 * a `user` entry with its result, one second apart, and `cost-state` when the session
 * ended. For scenarios the real agent cannot be made to write (a list made anew, a
 * collision) and for what a transcript says of its session (model, tools).
 */
export type Call = (
  | { create: { id: string; subject: string; description?: string; activeForm?: string; metadata?: Record<string, unknown> } }
  | { update: Record<string, unknown> & { taskId: string }; fails?: boolean }
  /** A TaskList call: the tasks it showed. */
  | { list: Array<{ id: string; subject: string; status?: string }> }
  /** A call of a tool the session no longer has, answered "No such tool available" (as 2.1.328 and 2.1.332 answer it). */
  | { unavailable: string; input?: Record<string, unknown> }
  /** A TodoWrite call: the todos it set. */
  | { todos: Array<{ content: string; status: string; activeForm?: string }> }
) & {
  /** When the call was made (ms; its result a second later): by default a second after the entry before. */
  time?: number;
};

export interface TranscriptOptions {
  sessionId: string;
  cwd: string;
  prompt?: string;
  /** ms of the first entry (default: an hour ago). */
  start?: number;
  /** The model Claude Code says it runs (the `model` attachment). */
  model?: string;
  /** The tools the `deferred_tools_delta` attachment names (none: no such entry). */
  deferredTools?: string[];
  /** `cli` (interactive) or `sdk-cli` (headless). */
  entrypoint?: string;
  calls?: Call[];
  /** Ended: a last `cost-state` entry (default true). */
  ended?: boolean;
  /** `requestSessionId` on the assistant entries: a fork's copies of its parent's entries. */
  requestSessionId?: string;
}

/** Claude Code's project folder name for a working directory (a deep one cut and hashed: session-files.mjs). */
export function projectFolder(cwd: string): string {
  return claudeProjectFolder(cwd);
}

export function transcriptLines(o: TranscriptOptions): string[] {
  const start = o.start ?? Date.now() - 3_600_000;
  let tick = 0;
  const at = () => new Date(start + 1000 * tick++).toISOString();
  const base = {
    userType: 'external',
    entrypoint: o.entrypoint ?? 'sdk-cli',
    cwd: o.cwd,
    sessionId: o.sessionId,
    version: '2.1.328',
    gitBranch: 'main',
  };
  const lines: unknown[] = [
    {
      parentUuid: null,
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content: o.prompt ?? 'follow the plan' },
      uuid: 'u-0',
      timestamp: at(),
      ...base,
    },
  ];
  if (o.model !== undefined) {
    lines.push({
      isSidechain: false,
      attachment: { type: 'model', identity: { modelId: o.model, marketingName: o.model }, text: `The exact model ID is ${o.model}.` },
      type: 'attachment',
      uuid: 'a-model',
      timestamp: at(),
      ...base,
    });
  }
  if (o.deferredTools !== undefined) {
    lines.push({
      isSidechain: false,
      attachment: { type: 'deferred_tools_delta', addedNames: o.deferredTools, addedLines: o.deferredTools, removedNames: [] },
      type: 'attachment',
      uuid: 'a-tools',
      timestamp: at(),
      ...base,
    });
  }
  (o.calls ?? []).forEach((call, i) => {
    if (call.time !== undefined) tick = (call.time - start) / 1000;
    const useId = `toolu_${i}`;
    const name =
      'create' in call
        ? 'TaskCreate'
        : 'list' in call
          ? 'TaskList'
          : 'unavailable' in call
            ? call.unavailable
            : 'todos' in call
              ? 'TodoWrite'
              : 'TaskUpdate';
    const input =
      'create' in call
        ? { subject: call.create.subject, description: call.create.description ?? '', ...rest(call.create) }
        : 'list' in call
          ? {}
          : 'unavailable' in call
            ? (call.input ?? {})
            : 'todos' in call
              ? { todos: call.todos }
              : call.update;
    lines.push({
      isSidechain: false,
      message: { role: 'assistant', model: 'claude-mock', content: [{ type: 'tool_use', id: useId, name, input }] },
      type: 'assistant',
      uuid: `c-${i}`,
      timestamp: at(),
      ...(o.requestSessionId === undefined ? {} : { requestSessionId: o.requestSessionId }),
      ...base,
    });
    let text: string;
    let result: Record<string, unknown> | string;
    if ('unavailable' in call) {
      lines.push({
        isSidechain: false,
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              content: `<tool_use_error>Error: No such tool available: ${call.unavailable}</tool_use_error>`,
              is_error: true,
              tool_use_id: useId,
            },
          ],
        },
        uuid: `r-${i}`,
        timestamp: at(),
        toolUseResult: `Error: No such tool available: ${call.unavailable}`,
        ...base,
      });
      return;
    }
    if ('todos' in call) {
      text = 'Todos have been modified successfully.';
      result = { oldTodos: [], newTodos: call.todos };
    } else if ('list' in call) {
      const tasks = call.list.map((t) => ({ id: t.id, subject: t.subject, status: t.status ?? 'pending', blockedBy: [] }));
      text = tasks.map((t) => `#${t.id} [${t.status}] ${t.subject}`).join('\n');
      result = { tasks };
    } else if ('create' in call) {
      text = `Task #${call.create.id} created successfully: ${call.create.subject}`;
      result = { task: { id: call.create.id, subject: call.create.subject, description: call.create.description ?? '' } };
    } else if (call.fails) {
      text = 'Task not found';
      result = { success: false, taskId: call.update.taskId, updatedFields: [], error: 'Task not found' };
    } else {
      const fields = ['subject', 'description', 'activeForm', 'owner', 'metadata', 'status'].filter((k) => k in call.update);
      if ('addBlocks' in call.update) fields.push('blocks');
      if ('addBlockedBy' in call.update) fields.push('blockedBy');
      text = `Updated task #${call.update.taskId} ${fields.join(', ')}`;
      result = { success: true, taskId: call.update.taskId, updatedFields: fields };
    }
    lines.push({
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: useId, type: 'tool_result', content: text }] },
      uuid: `r-${i}`,
      timestamp: at(),
      toolUseResult: result,
      ...base,
    });
  });
  if (o.ended !== false) lines.push({ type: 'cost-state', sessionId: o.sessionId, costUSD: 0 });
  return lines.map((l) => JSON.stringify(l));
}

function rest(create: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, subject: _s, description: _d, ...others } = create;
  return others;
}

/** Write the transcript where Claude Code keeps it: `<config>/projects/<cwd folder>/<session>.jsonl`. Returns its path. */
export function writeTaskTranscript(config: string, o: TranscriptOptions): string {
  const dir = path.join(config, 'projects', projectFolder(o.cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${o.sessionId}.jsonl`);
  fs.writeFileSync(file, `${transcriptLines(o).join('\n')}\n`);
  const end = (o.start ?? Date.now() - 3_600_000) / 1000 + 60;
  fs.utimesSync(file, end, end);
  return file;
}
