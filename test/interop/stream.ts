/**
 * What an agent was told, from `claude -p --output-format stream-json --verbose`: every
 * tool call it made, paired with the result its tool returned, both as the text the
 * model saw and as the structured `tool_use_result` (e.g. TaskList's `{tasks: [...]}`).
 * Pure: text in, data out.
 */

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** The tool_result text the model was given ("Task #5 created successfully: ..."). */
  text: string;
  /** The tool's structured result (`tool_use_result`), when the stream carries it. */
  data: unknown;
  isError: boolean;
  /** Whether a result came back at all (a run that dies mid-turn leaves calls without one). */
  answered: boolean;
}

export interface AgentStream {
  /** `claude_code_version` from the init event. */
  version: string | undefined;
  /** `session_id` from the init event: the session's UUID, which names its own list. */
  sessionId: string | undefined;
  /** Every tool call, in the order the agent made them. */
  calls: ToolCall[];
  /** The final `result` event: `success` when the conversation ended normally. */
  resultSubtype: string | undefined;
  resultIsError: boolean | undefined;
  /** The `result` event's `total_cost_usd`: what Claude Code itself priced the run at, by its own price table. */
  resultCostUsd: number | undefined;
  /** Lines that were not JSON (should be none). */
  junk: string[];
}

interface ContentBlock {
  type?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

interface StreamEvent {
  type?: string;
  subtype?: string;
  is_error?: boolean;
  claude_code_version?: string;
  session_id?: string;
  message?: { content?: ContentBlock[] | string };
  tool_use_result?: unknown;
  total_cost_usd?: number;
}

function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c: unknown) => (c && typeof c === 'object' && 'text' in c ? String((c as { text: unknown }).text) : '')).join('');
  }
  return '';
}

export function parseStream(stdout: string): AgentStream {
  const out: AgentStream = {
    version: undefined,
    sessionId: undefined,
    calls: [],
    resultSubtype: undefined,
    resultIsError: undefined,
    resultCostUsd: undefined,
    junk: [],
  };
  const byId = new Map<string, ToolCall>();
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    let event: StreamEvent;
    try {
      event = JSON.parse(line) as StreamEvent;
    } catch {
      out.junk.push(line);
      continue;
    }
    if (event.type === 'system' && event.subtype === 'init') {
      out.version = event.claude_code_version;
      out.sessionId = event.session_id;
    }
    if (event.type === 'result') {
      out.resultSubtype = event.subtype;
      out.resultIsError = event.is_error;
      out.resultCostUsd = event.total_cost_usd;
    }
    const content = event.message?.content;
    if (!Array.isArray(content)) continue;
    if (event.type === 'assistant') {
      for (const block of content) {
        if (block.type !== 'tool_use' || !block.id) continue;
        const call: ToolCall = {
          id: block.id,
          name: String(block.name),
          input: block.input ?? {},
          text: '',
          data: undefined,
          isError: false,
          answered: false,
        };
        byId.set(block.id, call);
        out.calls.push(call);
      }
    } else if (event.type === 'user') {
      // Claude Code sends one tool_result per user event, with its structured twin beside it.
      const results = content.filter((b) => b.type === 'tool_result');
      for (const block of results) {
        const call = byId.get(String(block.tool_use_id));
        if (!call) continue;
        call.text = blockText(block.content);
        call.isError = block.is_error === true;
        call.answered = true;
        if (results.length === 1) call.data = event.tool_use_result;
      }
    }
  }
  return out;
}

/** The calls of one tool, in the order the agent made them. */
export function callsOf(stream: AgentStream, name: string): ToolCall[] {
  return stream.calls.filter((c) => c.name === name);
}

/** The id a TaskCreate result names ("Task #12 created successfully: ..."). */
export function createdId(call: ToolCall): string | undefined {
  return /^Task #(\d+) created successfully/.exec(call.text)?.[1];
}
