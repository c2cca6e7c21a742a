import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { lineSplitter } from '../core/base/line-splitter.js';
import type { BoardBackend } from './board-server.js';

/**
 * A host's board, served over stdio to a board on another machine (`tasks board -H`):
 * the local board runs `tasks board-feed` on the host through ssh and speaks JSON lines
 * with it, one request or answer a line. Nothing listens on the host; ssh is the only
 * channel. What is asked is answered by the host's own board API (board-api.ts), so a
 * read, a preview, a refusal or a write there is exactly what a board started there
 * would give.
 *
 * In:  {"id":n,"get":"api/list","query":"list=L"}      a read
 *      {"id":n,"action":{...}}                            an action, as the page posts it
 *      {"sub":n,"list":"L"|null}                          an event stream (the overview, the Now view, a list)
 *      {"unsub":n}
 *      {"ping":n}                                         are you there?
 * Out: {"hello":{"pid":n,...}}                            first, once the board is ready (with what
 *                                                         the command line asked: the list it names)
 *      {"id":n,"status":s,"body":"<JSON>"}                an answer
 *      {"sub":n,"event":"overview","data":"<JSON>"}       an event of a stream
 *      {"sub":n,"busy":true}                              no more streams are taken
 *      {"pong":n}                                         here: at once, ahead of any answer under way
 */
export interface FeedStreams {
  input: NodeJS.ReadableStream;
  write(line: string): void;
}

/** Serve until the input ends (the local board or the connection is gone); then stop the board. */
export function serveFeed(backend: BoardBackend, io: FeedStreams, signal: AbortSignal, hello: Record<string, unknown> = {}): Promise<void> {
  const subs = new Map<number, StreamToLines>();
  const send = (value: unknown): void => io.write(`${JSON.stringify(value)}\n`);
  const handle = async (message: Record<string, unknown>): Promise<void> => {
    const id = message.id;
    if (typeof id === 'number' && typeof message.get === 'string') {
      const query = new URLSearchParams(typeof message.query === 'string' ? message.query : '');
      const list = query.get('list') ?? query.get('id');
      if (list !== null && !backend.api.listOk(list)) {
        return send({ id, status: 400, body: JSON.stringify({ ok: false, error: { code: 'usage', message: 'list must be a list id' } }) });
      }
      const answer = await backend.api.get(message.get, query);
      return send({ id, status: answer.status, body: answer.body });
    }
    if (typeof id === 'number' && 'action' in message) {
      const outcome = await backend.api.action(message.action, signal);
      return send({ id, status: outcome.status, body: JSON.stringify(outcome.result) });
    }
    const sub = message.sub;
    if (typeof sub === 'number') {
      const list = typeof message.list === 'string' && backend.api.listOk(message.list) ? message.list : undefined;
      const stream = new StreamToLines((event, data) => send({ sub, event, data }));
      subs.set(sub, stream);
      const query = new URLSearchParams(list === undefined ? {} : { list });
      if (!backend.api.events(stream as unknown as ServerResponse, query)) {
        subs.delete(sub);
        send({ sub, busy: true });
      }
      return;
    }
    if (typeof message.unsub === 'number') {
      subs.get(message.unsub)?.end();
      subs.delete(message.unsub);
    }
  };
  backend.warm();
  send({ hello: { ...hello, pid: process.pid } });
  return new Promise((resolve) => {
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      for (const s of subs.values()) s.end();
      subs.clear();
      void backend.stop().then(resolve, resolve);
    };
    io.input.setEncoding('utf8');
    const lines = lineSplitter((line) => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message === null || typeof message !== 'object') return;
      // Answered as it is read, not queued behind the answers under way: it says the process and the link are alive.
      const ping = (message as Record<string, unknown>).ping;
      if (typeof ping === 'number') return send({ pong: ping });
      void handle(message as Record<string, unknown>).catch(() => undefined);
    });
    io.input.on('data', (chunk: string) => lines.push(chunk));
    io.input.on('end', finish);
    io.input.on('error', finish);
    signal.addEventListener('abort', finish, { once: true });
  });
}

/**
 * What the board's live feed (board-live.ts) writes to a tab's event stream, as lines:
 * it writes whole server-sent events (`event: name\ndata: json\n\n`), and comments to
 * keep a connection alive, which a pipe does not need.
 */
class StreamToLines extends EventEmitter {
  readonly writableLength = 0;
  private ended = false;

  constructor(private readonly onEvent: (event: string, data: string) => void) {
    super();
  }

  write(chunk: string): boolean {
    const m = /^event: ([^\n]+)\ndata: ([^\n]*)\n\n$/.exec(chunk);
    if (m && !this.ended) this.onEvent(m[1] as string, m[2] as string);
    return true;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.emit('close');
  }

  destroy(): void {
    this.end();
  }
}
