/** A tool call in flight, from a transcript's entries or a run's stream-json events: what keeps a silent agent "at work". */
import { describe, expect, it } from 'vitest';
import { OpenToolCalls } from '../../src/core/base/open-tool-calls.js';

const use = (id: string, extra: Record<string, unknown> = {}) => ({
  type: 'assistant',
  message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] },
  ...extra,
});
const result = (id: string, extra: Record<string, unknown> = {}) => ({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
  ...extra,
});
const prompt = (extra: Record<string, unknown> = {}) => ({ type: 'user', message: { role: 'user', content: 'go on' }, ...extra });

const open = (entries: Array<Record<string, unknown>>) => {
  const calls = new OpenToolCalls();
  for (const e of entries) calls.apply(e);
  return calls.any;
};

describe('OpenToolCalls', () => {
  it('a tool_use without its result is in flight; with it, not', () => {
    expect(open([prompt(), use('a')])).toBe(true);
    expect(open([prompt(), use('a'), result('a')])).toBe(false);
  });

  it('calls made together: in flight until the last result', () => {
    expect(open([use('a'), use('b'), result('a')])).toBe(true);
    expect(open([use('a'), use('b'), result('b'), result('a')])).toBe(false);
  });

  it("a subagent's prompt (parent_tool_use_id, isSidechain) leaves its Task call in flight; a new prompt of the main thread, the run's result do not", () => {
    expect(open([use('task'), prompt({ parent_tool_use_id: 'task' }), use('x', { parent_tool_use_id: 'task' })])).toBe(true);
    expect(open([use('task'), prompt({ isSidechain: true })])).toBe(true);
    expect(open([use('a'), prompt()])).toBe(false);
    expect(open([use('a'), { type: 'result', subtype: 'error_during_execution' }])).toBe(false);
  });

  it("other entries (Claude Code's api-request blobs, attachments) change nothing", () => {
    expect(
      open([use('a'), { type: 'api-request-blob', message: { content: [{ type: 'text', text: 'x' }] } }, { type: 'attachment' }]),
    ).toBe(true);
  });
});
