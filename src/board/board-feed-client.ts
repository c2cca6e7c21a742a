import { LOCK_WAIT_BOUND_MS } from '../core/locks/lock-acquire.js';
import type { ApiAnswer } from './board-api.js';
import type { HostStateView } from './board-protocol.js';

/**
 * The local side of a host's feed (board-feed.ts): one connection to the host, kept up
 * for as long as the board runs. Requests are answered by id; event streams (subs) are
 * asked again whenever the connection is made again. A connection that cannot be made, or
 * that drops, leaves the host down with its cause, and is tried again after 1, 2, 4 ... at
 * most 30 seconds. Whoever makes the client says how a connection is made (over ssh:
 * cli/board-hosts) and how long a host has to answer; this knows only lines.
 *
 * A connection can also stay up and carry nothing back (the host's process stuck, a link
 * stalled without closing): every request is answered by its deadline whatever the host
 * does, and the host is asked whether it is there (a ping, answered as it is read) every
 * few seconds and with each request. A ping it leaves unanswered past the deadline makes
 * it down and `silent`: what waits for it is answered, its channel is closed (over ssh:
 * its ssh ended, so nothing stuck is kept) and it is dialled again as a dropped one is.
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
/** How long a host has to answer, unless whoever makes the client says (over ssh: the connect timeout and 5 s). */
const DEFAULT_DEADLINE_MS = 15_000;
/** How often a live host is asked whether it is there, when nothing else asks it. */
const PING_EVERY_MS = 5000;
/** Requests a host may leave unanswered at once: more are refused at once, so that none pile up behind a slow host. */
export const MAX_IN_FLIGHT = 32;

interface Pending {
  resolve: (answer: ApiAnswer) => void;
  timer: NodeJS.Timeout;
}

interface Sub {
  list: string | undefined;
  onEvent: (event: string, data: string) => void;
}

export class FeedClient {
  private channel: FeedChannel | undefined;
  private view: HostStateView;
  private readonly pending = new Map<number, Pending>();
  private readonly subs = new Map<number, Sub>();
  private nextId = 1;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** The next ping, or the deadline of the one under way. */
  private beat: NodeJS.Timeout | undefined;
  /** A ping sent and not yet answered. */
  private pinging = false;
  /** When the host last sent anything. */
  private answeredAt: number | undefined;
  private readonly listeners: Array<(view: HostStateView) => void> = [];
  /** What the host said when the connection was last made (board-feed.ts): its pid, the list the command line named. */
  hello: Record<string, unknown> | undefined;

  constructor(
    readonly label: string,
    private readonly connect: Connect,
    private readonly deadlineMs: number = DEFAULT_DEADLINE_MS,
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

  private setState(state: HostStateView['state'], message: string | null, silent = false): void {
    if (this.view.state === state && this.view.message === message && (this.view.silent ?? false) === silent) return;
    // Down since it went down, whatever each try since has said.
    this.view = {
      label: this.label,
      state,
      message,
      since: this.view.state === state ? this.view.since : this.now(),
      ...(silent ? { silent: true as const } : {}),
      ...(state === 'down' && this.answeredAt !== undefined ? { answeredAt: this.answeredAt } : {}),
    };
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
    // A line of a channel given up (silent, then closed) is not this host's news.
    channel.onLine((line) => {
      if (this.channel === channel) this.received(line);
    });
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
    this.answeredAt = this.now();
    if (m.hello !== undefined) {
      this.hello = typeof m.hello === 'object' && m.hello !== null ? (m.hello as Record<string, unknown>) : {};
      this.retryMs = FIRST_RETRY_MS;
      this.setState('live', null);
      for (const [sub, s] of this.subs) this.channel?.send(`${JSON.stringify({ sub, list: s.list ?? null })}\n`);
      this.pinging = false;
      this.nextPing(PING_EVERY_MS);
      return;
    }
    if (m.pong !== undefined) {
      this.pinging = false;
      this.nextPing(PING_EVERY_MS);
      return;
    }
    if (typeof m.id === 'number') {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (p) clearTimeout(p.timer);
      p?.resolve({ status: typeof m.status === 'number' ? m.status : 502, body: typeof m.body === 'string' ? m.body : '{}' });
      return;
    }
    if (typeof m.sub === 'number' && typeof m.event === 'string' && typeof m.data === 'string')
      this.subs.get(m.sub)?.onEvent(m.event, m.data);
  }

  /** Whatever waits for the host's answer is answered now: after this, nothing from the host will come for it. */
  private answerPending(answer: ApiAnswer): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.resolve(answer);
    }
    this.pending.clear();
  }

  /** Ask the host whether it is there after `ms` (0: now), unless a ping is under way. */
  private nextPing(ms: number): void {
    if (this.pinging) return;
    clearTimeout(this.beat);
    if (ms > 0) {
      this.beat = setTimeout(() => this.nextPing(0), ms);
      return;
    }
    const channel = this.channel;
    if (channel === undefined || this.view.state !== 'live') return;
    this.pinging = true;
    channel.send(`${JSON.stringify({ ping: this.nextId++ })}\n`);
    this.beat = setTimeout(() => this.silent(channel), this.deadlineMs);
  }

  /** Connected, and nothing back within the deadline: down, and the channel closed, not kept (its ssh would stay stuck). */
  private silent(channel: FeedChannel): void {
    if (this.channel !== channel) return;
    this.channel = undefined;
    const s = seconds(this.deadlineMs);
    this.answerPending(error(504, 'unreachable', `host ${this.label} is not answering: nothing came back within ${s}s; ${WHOLE}`));
    channel.close();
    this.down(`host ${this.label}: not answering (nothing came back within ${s}s)`, true);
  }

  private down(cause: string, silent = false): void {
    clearTimeout(this.beat);
    this.pinging = false;
    this.answerPending(lost(this.label, cause));
    this.setState('down', cause, silent);
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.open();
    }, this.retryMs);
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs * 2);
  }

  /**
   * A read or an action on the host; answered 503 at once while the host is not reached,
   * or has MAX_IN_FLIGHT requests unanswered, and 504 when it does not answer in time.
   */
  request(message: { get: string; query: string } | { action: unknown }): Promise<ApiAnswer> {
    const channel = this.channel;
    if (channel === undefined || this.view.state !== 'live') return Promise.resolve(notReached(this.label, this.view.message));
    if (this.pending.size >= MAX_IN_FLIGHT)
      return Promise.resolve(
        error(
          503,
          'unreachable',
          `host ${this.label} has ${MAX_IN_FLIGHT} requests unanswered: nothing more is sent to it until it answers`,
        ),
      );
    // Is it there? Asked with the request (before its deadline is set, so that the ping's comes first):
    // a silent host is known by then, and said so.
    this.nextPing(0);
    const id = this.nextId++;
    // An action may first wait there for a list's lock, as long as a lock is ever waited for.
    const ms = 'action' in message ? this.deadlineMs + LOCK_WAIT_BOUND_MS : this.deadlineMs;
    return new Promise((resolve) => {
      // The host still answers pings, and not this in time (a read that takes that long there): this alone is answered.
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        resolve(error(504, 'unreachable', `host ${this.label} did not answer within ${seconds(ms)}s; ${WHOLE}`));
      }, ms);
      this.pending.set(id, { resolve, timer });
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
    clearTimeout(this.beat);
    this.answerPending(stopped(this.label));
    this.channel?.close();
    this.channel = undefined;
  }
}

/** Said of an action cut off: the host's change is atomic, so the list there says whether it was made. */
const WHOLE = 'a change there is made whole or not at all: the list shows which once the host is back';

const seconds = (ms: number): number => Math.round(ms / 1000);

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
    `host ${label}: the connection was lost before it answered (${cause.replace(/^host \S+: /, '')}); ${WHOLE}`,
  );
}
