import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted stand-in for the Anthropic Messages API, on 127.0.0.1 only, in the test's
 * own process. It makes the real Claude Code binary call its task tools: each request
 * that offers tools gets the next turn of the script as `tool_use` blocks; after the last
 * turn, a plain text reply ends the conversation (so does a turn of no calls, and a later
 * run of the agent goes on with the turn after it).
 *
 * Improvements over a one-file script: the OS picks a free port (listen on port 0, no
 * guessing and no collisions between parallel runs); a `beforeTurn` hook can hold a
 * reply, so a test can line several agents up with `tasks` processes; what the agent
 * sent back (its tool results) is kept as data; streaming and non-streaming requests get
 * the same turn. Each turn can state the usage its message reports (`{calls, usage}`),
 * and the model the messages name (`model`), for tests of what work cost; message and
 * tool-use ids are unique to each stand-in (a resumed session's ids never repeat its
 * earlier run's), as the real API's are unique. A subagent's requests (the Agent tool: its
 * first message holds `subagent.marker`) get a reply of their own.
 */

export interface ToolCallSpec {
  name: 'TaskCreate' | 'TaskUpdate' | 'TaskGet' | 'TaskList' | 'TodoWrite' | 'Agent' | 'Bash';
  input: Record<string, unknown>;
}

/** The tool calls of one assistant message; Claude Code may run them concurrently. */
export type Turn = readonly ToolCallSpec[];

/** What a message reports it used (missing counts: 0; a message with no usage given: 10 in, 10 out). */
export interface TurnUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /** Of the cache writes, those kept for an hour. */
  cache_creation_1h?: number;
}

/** A turn whose message reports its own usage. */
export interface UsageTurn {
  calls: Turn;
  usage: TurnUsage;
}

export const callsOf = (turn: Turn | UsageTurn): Turn => ('calls' in turn ? turn.calls : turn);

export interface MockModelOptions {
  turns: ReadonlyArray<Turn | UsageTurn>;
  /** The model every message names (default `claude-mock`). */
  model?: string;
  /** The usage of the closing reply (after the last turn). */
  closingUsage?: TurnUsage;
  /** A subagent's requests: those whose first message holds `marker`, answered with one reply of this usage. */
  subagent?: { marker: string; usage: TurnUsage };
  /**
   * Awaited before turn `index` (0-based) is sent: hold a reply until other processes are
   * ready, or pace an agent. Nothing is answered while it is pending.
   */
  beforeTurn?: (index: number) => Promise<void> | void;
  /**
   * For an interactive session, where a person types prompts: the turn for the prompt just
   * typed (the last message's text, context included: match whole lines), or undefined for
   * a plain reply. Used instead of `turns` when set; a request that carries tool results
   * always gets the closing reply.
   */
  byPrompt?: (prompt: string) => Turn | undefined | Promise<Turn | undefined>;
}

export interface ReceivedResult {
  /** Index of the turn whose calls these results answer. */
  turn: number;
  toolUseId: string;
  text: string;
}

export interface MockModel {
  readonly url: string;
  /** Turns sent so far. */
  turnsServed(): number;
  /** Tool results as the model received them, in arrival order. */
  readonly received: ReceivedResult[];
  /** Requests for anything but /v1/messages (Claude Code should make none here). */
  readonly strayRequests: string[];
  /** Resolves once a subagent's request was answered. */
  subagentAnswered(): Promise<void>;
  close(): Promise<void>;
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Block[];
  stop_reason: 'tool_use' | 'end_turn';
  stop_sequence: null;
  usage: Usage;
}

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number };
}

const DEFAULT_USAGE: TurnUsage = { input_tokens: 10, output_tokens: 10 };

function usageOf(u: TurnUsage = DEFAULT_USAGE): Usage {
  const writes = u.cache_creation_input_tokens ?? 0;
  const hour = u.cache_creation_1h ?? 0;
  return {
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    cache_creation_input_tokens: writes,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
    cache_creation: { ephemeral_1h_input_tokens: hour, ephemeral_5m_input_tokens: writes - hour },
  };
}

function sseEvents(message: Message): Array<[string, Record<string, unknown>]> {
  // As the API streams it: the input side in message_start, the output tokens in message_delta.
  const events: Array<[string, Record<string, unknown>]> = [
    ['message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } }],
  ];
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(['content_block_start', { index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { index, delta: { type: 'text_delta', text: block.text } }]);
    } else {
      events.push(['content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }]);
      events.push(['content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }]);
    }
    events.push(['content_block_stop', { index }]);
  });
  events.push([
    'message_delta',
    { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } },
  ]);
  events.push(['message_stop', {}]);
  return events;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c) => (c && typeof c === 'object' && 'text' in c ? String((c as { text: unknown }).text) : '')).join('');
  }
  return '';
}

/**
 * The text a person typed: the user messages since the model last spoke (Claude Code may
 * put context in a message of its own after the prompt), context included, so `byPrompt`
 * must match whole lines; undefined when the last message answers tools.
 */
function typedPrompt(messages: ReadonlyArray<{ role?: string; content?: unknown }> | undefined): string | undefined {
  if (messages === undefined) return undefined;
  const texts: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'assistant') break;
    const content = m?.content;
    if (typeof content === 'string') {
      texts.unshift(content);
      continue;
    }
    if (!Array.isArray(content)) continue;
    const blocks = content as Array<{ type?: string; text?: unknown }>;
    if (blocks.some((b) => b.type === 'tool_result')) return undefined;
    texts.unshift(...blocks.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string));
  }
  return texts.join('\n');
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::ffff:127.0.0.1' || address === '::1';
}

/** The text of a request's first message: where a subagent's prompt is. */
function firstText(messages: ReadonlyArray<{ role?: string; content?: unknown }> | undefined): string {
  const content = messages?.[0]?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ type?: string; text?: unknown }>).map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
}

export async function startMockModel(options: MockModelOptions): Promise<MockModel> {
  let served = 0;
  let seq = 0;
  // Ids unique to this stand-in: a resumed session talks to a new one, and its ids must not repeat.
  const run = randomBytes(4).toString('hex');
  const model = options.model ?? 'claude-mock';
  const received: ReceivedResult[] = [];
  const strayRequests: string[] = [];
  let answerSubagent: () => void = () => undefined;
  const subagentDone = new Promise<void>((resolve) => (answerSubagent = resolve));

  const message = (id: string, content: Block[], usage: TurnUsage | undefined): Message => ({
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: usageOf(usage),
  });
  const toolUses = (calls: Turn, index: number): Block[] =>
    calls.map((call, i) => ({ type: 'tool_use', id: `toolu_${run}_${index}_${i}`, name: call.name, input: call.input }));

  const nextMessage = async (offersTools: boolean, prompt: string | undefined, first: string): Promise<Message> => {
    seq += 1;
    const id = `msg_${run}_${seq}`;
    if (options.subagent !== undefined && first.includes(options.subagent.marker)) {
      answerSubagent();
      return message(id, [{ type: 'text', text: 'subagent done' }], options.subagent.usage);
    }
    // A reply may be held (a promise): the session stays on its turn meanwhile.
    const typed = options.byPrompt && offersTools && prompt !== undefined ? await options.byPrompt(prompt) : undefined;
    if (typed !== undefined) {
      served += 1;
      return message(id, toolUses(typed, seq), undefined);
    }
    if (!options.byPrompt && offersTools && served < options.turns.length) {
      const index = served;
      served += 1;
      await options.beforeTurn?.(index);
      const turn = options.turns[index] ?? [];
      // A turn of no calls: the closing reply, and the run ends there (a later run takes the next turn).
      if (callsOf(turn).length === 0) return message(id, [{ type: 'text', text: 'done' }], options.closingUsage);
      return message(id, toolUses(callsOf(turn), index + 1), 'calls' in turn ? turn.usage : undefined);
    }
    return message(id, [{ type: 'text', text: 'done' }], options.closingUsage);
  };

  const handle = async (req: http.IncomingMessage, body: string, res: http.ServerResponse): Promise<void> => {
    const url = req.url ?? '';
    if (req.method !== 'POST' || !url.startsWith('/v1/messages')) {
      strayRequests.push(`${req.method} ${url}`);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'mock: not served' } }));
      return;
    }
    let parsed: { tools?: unknown[]; stream?: boolean; messages?: Array<{ role?: string; content?: unknown }> } = {};
    try {
      parsed = JSON.parse(body || '{}') as typeof parsed;
    } catch {
      // An unparsable body gets the closing reply; the run's assertions will show the gap.
    }
    if (url.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    const last = parsed.messages?.at(-1)?.content;
    if (Array.isArray(last)) {
      for (const block of last as Array<{ type?: string; tool_use_id?: string; content?: unknown }>) {
        if (block.type === 'tool_result') {
          received.push({ turn: served - 1, toolUseId: String(block.tool_use_id), text: resultText(block.content) });
        }
      }
    }
    const reply = await nextMessage(
      (parsed.tools ?? []).length > 0,
      typedPrompt(parsed.messages as Array<{ role?: string; content?: unknown }> | undefined),
      firstText(parsed.messages),
    );
    if (parsed.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const [type, data] of sseEvents(reply)) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    }
  };

  const server = http.createServer((req, res) => {
    if (!isLoopback(req.socket.remoteAddress)) {
      res.writeHead(403).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      handle(req, body, res).catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    turnsServed: () => served,
    received,
    strayRequests,
    subagentAnswered: () => subagentDone,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
