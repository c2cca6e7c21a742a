import { isObject } from './import-todowrite.js';

/**
 * The tool calls and tool results in Claude Code's JSON Lines: stream-json output
 * (`claude -p --output-format stream-json`, the Agent SDK) and session transcripts.
 * Both carry `assistant` entries with `tool_use` blocks and `user` entries with
 * `tool_result` blocks; the structured result sits next to the message, as
 * `tool_use_result` (stream-json) or `toolUseResult` (transcripts).
 */

export interface JsonLine {
  /** 1-based line number in the input. */
  line: number;
  value: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  line: number;
  /** Made by the main agent, not a subagent (`parent_tool_use_id` / `isSidechain`). */
  main: boolean;
}

export interface ToolResult {
  line: number;
  /** In the main agent's thread, not a subagent's. */
  main: boolean;
  isError: boolean;
  /** The text the model was shown. */
  text: string;
  /** The structured result, when it can be told apart (one tool_result in the entry). */
  data: unknown;
}

export type StreamEvent =
  | { kind: 'call'; call: ToolCall }
  | { kind: 'result'; toolUseId: string; call: ToolCall | undefined; result: ToolResult };

/** Calls and results in the order they happened; results are matched to calls by id. */
export function streamEvents(lines: readonly JsonLine[]): StreamEvent[] {
  const calls = new Map<string, ToolCall>();
  const events: StreamEvent[] = [];
  for (const { line, value } of lines) {
    const message = isObject(value.message) ? value.message : undefined;
    const content = Array.isArray(message?.content) ? (message.content as unknown[]) : [];
    const role =
      value.type === 'assistant' || message?.role === 'assistant'
        ? 'assistant'
        : value.type === 'user' || message?.role === 'user'
          ? 'user'
          : undefined;
    const main = (value.parent_tool_use_id === undefined || value.parent_tool_use_id === null) && value.isSidechain !== true;
    if (role === 'assistant') {
      for (const block of content) {
        if (!isObject(block) || block.type !== 'tool_use' || typeof block.id !== 'string' || typeof block.name !== 'string') continue;
        const call: ToolCall = { id: block.id, name: block.name, input: block.input, line, main };
        calls.set(call.id, call);
        events.push({ kind: 'call', call });
      }
    } else if (role === 'user') {
      const results = content.filter(
        (b): b is Record<string, unknown> => isObject(b) && b.type === 'tool_result' && typeof b.tool_use_id === 'string',
      );
      const data = results.length === 1 ? (value.tool_use_result ?? value.toolUseResult) : undefined;
      for (const block of results) {
        const toolUseId = block.tool_use_id as string;
        const result: ToolResult = { line, main, isError: block.is_error === true, text: resultText(block.content), data };
        events.push({ kind: 'result', toolUseId, call: calls.get(toolUseId), result });
      }
    }
  }
  return events;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('');
}
