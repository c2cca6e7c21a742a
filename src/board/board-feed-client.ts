import type { ApiAnswer } from './board-api.js';
import type { HostStateView } from './board-protocol.js';

/**
 * The local side of a host's feed (board-feed.ts): one connection to the host, kept up
 * for as long as the board runs. Requests are answered by id; event streams (subs) are
 * asked again whenever the connection is made again. A connection that cannot be made, or
 * that drops, leaves the host down with its cause, and is tried again after 1, 2, 4 ... at
 * most 30 seconds. Whoever makes the client says how a connection is made (over ssh:
 * cli/board-hosts); this knows only lines.
 */
export interface FeedChannel {
  send(line: string): void;
  /** Each line from the host, in order. */
  onLine(cb: (line: string) => void): void;
  /** The connection ended, and why (one line). */
  onClose(cb: (cause: string) => void): void;
  close(): void;
}

/** Makes a connection; rejects with an Error whose message is the cause, in one line naming the host. */
export type Connect = () => Promise<FeedChannel>;

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

interface Sub {
  list: string | undefined;
  onEvent: (event: string, data: string) => void;
}

export class FeedClient {
  private channel: FeedChannel | undefined;
  private view: HostStateView;
  private readonly pending = new Map<number, (answer: ApiAnswer) => void>();
  private readonly subs = new Map<number, Sub>();
  private nextId = 1;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners: Array<(view: HostStateView) => void> = [];
  /** What the host said when the connection was last made (board-feed.ts): its pid, the list the command line named. */
  hello: Record<string, unknown> | undefined;

  constructor(
    readonly label: string,
    private readonly connect: Connect,
    private readonly now: () => number = Date.now,
  ) {
    this.view = { label, state: 'connecting', message: null, since: now() };
  }

  get state(): HostStateView {
    return this.view;
  }

  onState(cb: (view: HostStateView) => void): void {
    this.listeners.push(cb);
  }

  /** Connect; resolves when it is live or down (the first outcome), so that a start can say which. */
  start(): Promise<HostStateView> {
    return new Promise((resolve) => {
      const first = (view: HostStateView): void => {
        if (view.state === 'connecting') return;
        const i = this.listeners.indexOf(first);
        if (i >= 0) this.listeners.splice(i, 1);
        resolve(view);
      };
      this.listeners.push(first);
      void this.open();
    });
  }

  private setState(state: HostStateView['state'], message: string | null): void {
    if (this.view.state === state && this.view.message === message) return;
    // Down since it went down, whatever each try since has said.
    this.view = { label: this.label, state, message, since: this.view.state === state ? this.view.since : this.now() };
    for (const cb of [...this.listeners]) cb(this.view);
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    // Tried again while down: still down (and why) until it is back; a banner does not flicker at each try.
    let channel: FeedChannel;
    try {
      channel = await this.connect();
    } catch (err) {
      this.down((err as Error).message);
      return;
    }
    if (this.closed) return channel.close();
    this.channel = channel;
    channel.onLine((line) => this.received(line));
    channel.onClose((cause) => {
      if (this.channel !== channel) return;
      this.channel = undefined;
      this.down(cause);
    });
  }

  private received(line: string): void {
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (m.hello !== undefined) {
      this.hello = typeof m.hello === 'object' && m.hello !== null ? (m.hello as Record<string, unknown>) : {};
      this.retryMs = FIRST_RETRY_MS;
      this.setState('live', null);
      for (const [sub, s] of this.subs) this.channel?.send(`${JSON.stringify({ sub, list: s.list ?? null })}\n`);
      return;
    }
    if (typeof m.id === 'number') {
      const resolve = this.pending.get(m.id);
      this.pending.delete(m.id);
      resolve?.({ status: typeof m.status === 'number' ? m.status : 502, body: typeof m.body === 'string' ? m.body : '{}' });
      return;
    }
    if (typeof m.sub === 'number' && typeof m.event === 'string' && typeof m.data === 'string')
      this.subs.get(m.sub)?.onEvent(m.event, m.data);
  }

  /** Whatever waits for the host's answer is answered now: after this, nothing from the host will come for it. */
  private answerPending(answer: ApiAnswer): void {
    for (const resolve of this.pending.values()) resolve(answer);
    this.pending.clear();
  }

  private down(cause: string): void {
    this.answerPending(lost(this.label, cause));
    this.setState('down', cause);
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.open();
    }, this.retryMs);
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs * 2);
  }

  /** A read or an action on the host; answered 503 at once while the host is not reached. */
  request(message: { get: string; query: string } | { action: unknown }): Promise<ApiAnswer> {
    const channel = this.channel;
    if (channel === undefined || this.view.state !== 'live') return Promise.resolve(notReached(this.label, this.view.message));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      channel.send(`${JSON.stringify({ id, ...message })}\n`);
    });
  }

  /** Follow the host's overview and Now view (and a list): now if live, and again at each reconnection. */
  subscribe(list: string | undefined, onEvent: (event: string, data: string) => void): () => void {
    const sub = this.nextId++;
    this.subs.set(sub, { list, onEvent });
    if (this.view.state === 'live') this.channel?.send(`${JSON.stringify({ sub, list: list ?? null })}\n`);
    return () => {
      this.subs.delete(sub);
      if (this.view.state === 'live') this.channel?.send(`${JSON.stringify({ unsub: sub })}\n`);
    };
  }

  /**
   * Stop following the host. A read or an action it has not answered yet is answered here
   * at once: its channel is going, so no answer would ever come, and the board's server
   * waits for every request under way before it stops.
   */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.answerPending(stopped(this.label));
    this.channel?.close();
    this.channel = undefined;
  }
}

const error = (status: number, code: string, message: string): ApiAnswer => ({
  status,
  body: JSON.stringify({ ok: false, error: { code, message } }),
});

function notReached(label: string, cause: string | null): ApiAnswer {
  return error(
    503,
    'unreachable',
    `host ${label} is not reached${cause ? ` (${cause.replace(/^host \S+: /, '')})` : ''}: nothing was sent to it`,
  );
}

function stopped(label: string): ApiAnswer {
  return error(
    503,
    'unreachable',
    `host ${label}: the board stopped before the host answered; a change there is made whole or not at all: the list shows which at the next start`,
  );
}

function lost(label: string, cause: string): ApiAnswer {
  return error(
    502,
    'unreachable',
    `host ${label}: the connection was lost before it answered (${cause.replace(/^host \S+: /, '')}); a change there is made whole or not at all: the list shows which once the host is back`,
  );
}
