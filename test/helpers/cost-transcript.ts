import fs from 'node:fs';
import path from 'node:path';

/**
 * A session transcript with the model's usage on every message, in the shape Claude Code
 * 2.1.328 and 2.1.332 write it (checked against both): each `assistant` entry carries
 * `message.id`, `message.model` and `message.usage`; a message with several content blocks
 * is several entries with the same id and usage; each Task-tool call's result is the next
 * `user` entry's `toolUseResult`; a subagent's transcript is `<session>/subagents/agent-
 * <id>.jsonl` with `isSidechain: true`; a fork's copies of its parent's entries carry
 * `requestSessionId` naming the parent. Times are given per entry (ms), so a test states
 * exactly when each message began and each result came.
 */
export interface Usage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  cacheWrite1h?: number;
}

export class CostTranscript {
  private readonly entries: unknown[] = [];
  private seq = 0;
  private calls = 0;

  constructor(
    readonly sessionId: string,
    readonly cwd: string,
    private readonly o: { model?: string; sidechain?: boolean; agentId?: string; requestSessionId?: string } = {},
  ) {}

  private base(at: number) {
    return {
      isSidechain: this.o.sidechain ?? false,
      ...(this.o.agentId === undefined ? {} : { agentId: this.o.agentId }),
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: '2.1.328',
      gitBranch: 'main',
      timestamp: new Date(at).toISOString(),
      uuid: `e-${this.sessionId.slice(0, 8)}-${this.entries.length}`,
    };
  }

  prompt(at: number, text: string): this {
    this.entries.push({ ...this.base(at), parentUuid: null, type: 'user', message: { role: 'user', content: text } });
    return this;
  }

  /** One model message, written as `blocks` entries (the same id and usage), `gap` ms apart. */
  message(at: number, usage: Usage, opts: { blocks?: unknown[]; model?: string; id?: string; gap?: number } = {}): this {
    const id = opts.id ?? `msg_${this.sessionId.slice(0, 8)}${this.o.agentId ?? ''}_${++this.seq}`;
    const blocks = opts.blocks ?? [{ type: 'text', text: 'working' }];
    blocks.forEach((block, i) => {
      this.entries.push({
        ...this.base(at + i * (opts.gap ?? 5)),
        parentUuid: null,
        type: 'assistant',
        ...(this.o.requestSessionId === undefined ? {} : { requestSessionId: this.o.requestSessionId }),
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: opts.model ?? this.o.model ?? 'claude-opus-5-5',
          content: [block],
          stop_reason: 'tool_use',
          usage: {
            input_tokens: usage.input ?? 0,
            cache_creation_input_tokens: usage.cacheWrite ?? 0,
            cache_read_input_tokens: usage.cacheRead ?? 0,
            output_tokens: usage.output ?? 0,
            cache_creation: {
              ephemeral_1h_input_tokens: usage.cacheWrite1h ?? 0,
              ephemeral_5m_input_tokens: (usage.cacheWrite ?? 0) - (usage.cacheWrite1h ?? 0),
            },
            service_tier: 'standard',
            speed: 'standard',
          },
        },
      });
    });
    return this;
  }

  /** A TaskCreate call in a message at `at` (with `usage`), its result at `resultAt`. */
  create(at: number, task: { id: string; subject: string }, resultAt: number, usage: Usage = {}): this {
    const useId = `toolu_${this.sessionId.slice(0, 8)}${this.o.agentId ?? ''}_${++this.calls}`;
    this.message(at, usage, {
      blocks: [{ type: 'tool_use', id: useId, name: 'TaskCreate', input: { subject: task.subject, description: '' } }],
    });
    return this.result(resultAt, useId, `Task #${task.id} created successfully: ${task.subject}`, {
      task: { id: task.id, subject: task.subject },
    });
  }

  /** A TaskUpdate call in a message at `at` (with `usage`), its result at `resultAt`. */
  update(at: number, input: Record<string, unknown> & { taskId: string }, resultAt: number, usage: Usage = {}, ok = true): this {
    const useId = `toolu_${this.sessionId.slice(0, 8)}${this.o.agentId ?? ''}_${++this.calls}`;
    this.message(at, usage, { blocks: [{ type: 'tool_use', id: useId, name: 'TaskUpdate', input }] });
    const fields = Object.keys(input).filter((k) => k !== 'taskId');
    return this.result(
      resultAt,
      useId,
      ok ? `Updated task #${input.taskId} ${fields.join(', ')}` : 'Task not found',
      ok
        ? { success: true, taskId: input.taskId, updatedFields: fields }
        : { success: false, taskId: input.taskId, updatedFields: [], error: 'Task not found' },
    );
  }

  private result(at: number, useId: string, text: string, toolUseResult: unknown): this {
    this.entries.push({
      ...this.base(at),
      parentUuid: null,
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: useId, type: 'tool_result', content: text }] },
      toolUseResult,
    });
    return this;
  }

  /** Another transcript's entries, copied as a fork copies its parent's (requestSessionId names the parent). */
  copiedFrom(parent: CostTranscript): this {
    for (const e of parent.entries as Array<Record<string, unknown>>) {
      this.entries.push({
        ...e,
        sessionId: this.sessionId,
        ...(e.type === 'assistant' ? { requestSessionId: parent.sessionId } : {}),
      });
    }
    return this;
  }

  lines(): string[] {
    return this.entries.map((e) => JSON.stringify(e));
  }

  /**
   * Write it where Claude Code keeps it (a subagent's under its session's folder), dated
   * a minute in the past so that what tasks keeps of it is trusted. Returns its path.
   */
  write(config: string): string {
    const folder = path.join(config, 'projects', this.cwd.replace(/[^a-zA-Z0-9]/g, '-'));
    const file =
      this.o.agentId === undefined
        ? path.join(folder, `${this.sessionId}.jsonl`)
        : path.join(folder, this.sessionId, 'subagents', `agent-${this.o.agentId}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${this.lines().join('\n')}\n`);
    return file;
  }
}

/** A task file as Claude Code writes it. */
export function writeTaskFile(config: string, list: string, task: { id: string; subject: string; status?: string; owner?: string }): void {
  const dir = path.join(config, 'tasks', list);
  fs.mkdirSync(dir, { recursive: true });
  const body = {
    id: task.id,
    subject: task.subject,
    description: '',
    ...(task.owner === undefined ? {} : { owner: task.owner }),
    status: task.status ?? 'pending',
    blocks: [],
    blockedBy: [],
  };
  fs.writeFileSync(path.join(dir, `${task.id}.json`), JSON.stringify(body, null, 2));
}
