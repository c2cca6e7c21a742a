/**
 * stream-json lines as `claude -p --output-format stream-json --verbose` writes them for
 * Task-tool calls (the shapes of the recorded runs in test/fixtures/.../follow/): an init
 * event naming the session, an assistant message per call, a user message per result
 * (with `tool_use_result`), and the closing `result` event.
 */
export class StreamScript {
  readonly lines: string[] = [];
  private seq = 0;

  constructor(readonly session = '7c0ffee0-1111-4222-8333-944445555666') {}

  init(): this {
    this.lines.push(JSON.stringify({ type: 'system', subtype: 'init', session_id: this.session, claude_code_version: '2.1.328' }));
    return this;
  }

  private call(name: string, input: Record<string, unknown>): string {
    const id = `toolu_${++this.seq}`;
    this.lines.push(
      JSON.stringify({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
        parent_tool_use_id: null,
        session_id: this.session,
      }),
    );
    return id;
  }

  private result(id: string, text: string, data: unknown): void {
    this.lines.push(
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: text }] },
        parent_tool_use_id: null,
        session_id: this.session,
        tool_use_result: data,
      }),
    );
  }

  create(id: string, subject: string, description = `do ${subject}`): this {
    const call = this.call('TaskCreate', { subject, description });
    this.result(call, `Task #${id} created successfully: ${subject}`, { task: { id, subject, description } });
    return this;
  }

  update(taskId: string, fields: Record<string, unknown>): this {
    const call = this.call('TaskUpdate', { taskId, ...fields });
    this.result(call, `Updated task #${taskId} ${Object.keys(fields).join(', ')}`, {
      success: true,
      taskId,
      updatedFields: Object.keys(fields),
    });
    return this;
  }

  /** A plain message: activity that changes no task. */
  say(text: string): this {
    this.lines.push(
      JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, session_id: this.session }),
    );
    return this;
  }

  end(subtype = 'success'): this {
    this.lines.push(JSON.stringify({ type: 'result', subtype, is_error: subtype !== 'success', session_id: this.session }));
    return this;
  }
}
