import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FeedChannel, FeedClient, MAX_IN_FLIGHT } from '../../src/board/board-feed-client.js';

/** A channel to a host, held by the test: what was sent, and the host's side (lines, a drop). */
function fakeChannel() {
  const sent: string[] = [];
  let onLine: (line: string) => void = () => undefined;
  let onClose: (cause: string) => void = () => undefined;
  const state = { closed: 0 };
  const channel: FeedChannel = {
    send: (line) => sent.push(line),
    onLine: (cb) => (onLine = cb),
    onClose: (cb) => (onClose = cb),
    close: () => void state.closed++,
  };
  return {
    channel,
    sent,
    state,
    say: (v: unknown) => onLine(JSON.stringify(v)),
    drop: (cause: string) => onClose(cause),
    /** What was sent, parsed; pings apart. */
    asked: () => sent.map((l) => JSON.parse(l) as Record<string, unknown>).filter((m) => m.ping === undefined),
    pings: () => sent.map((l) => JSON.parse(l) as Record<string, unknown>).filter((m) => m.ping !== undefined),
  };
}

/** A client of a host that is live, on fake timers: the host said hello. */
async function liveFeed(deadlineMs = 6000) {
  vi.useFakeTimers();
  const c = fakeChannel();
  const feed = new FeedClient('devbox', async () => c.channel, deadlineMs);
  const started = feed.start();
  await vi.advanceTimersByTimeAsync(0);
  c.say({ hello: { pid: 1 } });
  expect((await started).state).toBe('live');
  return { c, feed };
}

describe("a host's board feed, as the local board keeps it", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers an action cut off by a dropped connection as the host's: not known to be done, never half", async () => {
    const c = fakeChannel();
    const feed = new FeedClient('devbox', async () => c.channel);
    const started = feed.start();
    // The connection is made (a promise), then the host says hello.
    await new Promise((resolve) => setImmediate(resolve));
    c.say({ hello: { pid: 1 } });
    expect((await started).state).toBe('live');
    const answer = feed.request({ action: { action: 'start', list: 'web', id: '1' } });
    expect(c.asked()).toEqual([{ id: expect.any(Number), action: { action: 'start', list: 'web', id: '1' } }]);
    c.drop('host devbox: the connection was lost');
    const a = await answer;
    expect(a.status).toBe(502);
    expect(JSON.parse(a.body).error.message).toBe(
      'host devbox: the connection was lost before it answered (the connection was lost); a change there is made whole or not at all: the list shows which once the host is back',
    );
    expect(feed.state).toMatchObject({ state: 'down', message: 'host devbox: the connection was lost' });
    // Down: refused at once, nothing sent.
    const refused = await feed.request({ get: 'api/list', query: 'list=web' });
    expect(refused.status).toBe(503);
    expect(c.asked()).toHaveLength(1);
    feed.close();
  });

  it('answers what still waits for the host when the board stops: its server waits for every request under way', async () => {
    const c = fakeChannel();
    const feed = new FeedClient('devbox', async () => c.channel);
    const started = feed.start();
    await new Promise((resolve) => setImmediate(resolve));
    c.say({ hello: { pid: 1 } });
    await started;
    let answered: { status: number; body: string } | undefined;
    void feed.request({ get: 'api/cost', query: 'list=web' }).then((a) => (answered = a));
    expect(c.asked()).toHaveLength(1);
    // The host has not answered, and never will: its channel goes with the board.
    feed.close();
    await Promise.resolve();
    expect(answered?.status).toBe(503);
    expect(JSON.parse(answered?.body ?? '{}').error.message).toMatch(/^host devbox: the board stopped before the host answered/);
    // After it, nothing is sent: refused at once.
    expect((await feed.request({ get: 'api/list', query: 'list=web' })).status).toBe(503);
    expect(c.asked()).toHaveLength(1);
  });

  it('tries a host that is down again after 1, 2, 4 ... at most 30 s, and follows its streams again once it is back', async () => {
    vi.useFakeTimers();
    const tries: number[] = [];
    const c = fakeChannel();
    let reachable = false;
    const feed = new FeedClient('devbox', async () => {
      tries.push(Date.now());
      if (!reachable) throw new Error('host devbox: connection refused');
      return c.channel;
    });
    const first = await feed.start();
    expect(first).toMatchObject({ state: 'down', message: 'host devbox: connection refused' });
    const events: string[] = [];
    feed.subscribe('web', (event) => events.push(event));
    const start = tries[0] as number;
    for (let i = 0; i < 7; i++) await vi.advanceTimersToNextTimerAsync();
    expect(tries.map((t) => t - start)).toEqual([0, 1000, 3000, 7000, 15_000, 31_000, 61_000, 91_000]);
    reachable = true;
    await vi.advanceTimersToNextTimerAsync();
    c.say({ hello: { pid: 2 } });
    expect(feed.state.state).toBe('live');
    // The stream asked for while down is asked of the host now.
    expect(c.sent.map((l) => JSON.parse(l))).toEqual([{ sub: expect.any(Number), list: 'web' }]);
    const sub = JSON.parse(c.sent[0] as string).sub;
    c.say({ sub, event: 'overview', data: '{}' });
    expect(events).toEqual(['overview']);
    feed.close();
  });

  it('asks a live host whether it is there every 5 s: one that answers stays live, its channel kept', async () => {
    const { c, feed } = await liveFeed();
    for (let i = 1; i <= 4; i++) {
      await vi.advanceTimersByTimeAsync(5000);
      expect(c.pings()).toHaveLength(i);
      c.say({ pong: c.pings().at(-1)?.ping });
    }
    expect(feed.state.state).toBe('live');
    expect(c.state.closed).toBe(0);
    feed.close();
  });

  it('answers what waits for a silent host by the deadline (504), says it is not answering and when it last answered, ends its channel and dials it again', async () => {
    const { c, feed } = await liveFeed();
    await vi.advanceTimersByTimeAsync(2000);
    c.say({ sub: 99, event: 'overview', data: '{}' });
    const lastWord = Date.now();
    await vi.advanceTimersByTimeAsync(1000);
    let answer: { status: number; body: string } | undefined;
    void feed.request({ get: 'api/list', query: 'list=web' }).then((a) => (answer = a));
    // Asked whether it is there with the request.
    expect(c.pings()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5999);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answer?.status).toBe(504);
    expect(JSON.parse(answer?.body ?? '{}').error.message).toBe(
      'host devbox is not answering: nothing came back within 6s; a change there is made whole or not at all: the list shows which once the host is back',
    );
    expect(feed.state).toMatchObject({
      state: 'down',
      silent: true,
      answeredAt: lastWord,
      message: 'host devbox: not answering (nothing came back within 6s)',
    });
    expect(c.state.closed).toBe(1);
    // Nothing more is sent to it: refused at once.
    const refused = await feed.request({ get: 'api/list', query: 'list=web' });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.message).toBe(
      'host devbox is not reached (not answering (nothing came back within 6s)): nothing was sent to it',
    );
    expect(c.asked()).toHaveLength(1);
    // A word from the channel given up changes nothing.
    c.say({ hello: { pid: 1 } });
    expect(feed.state.state).toBe('down');
    feed.close();
  });

  it('is back by itself when the host dialled again answers', async () => {
    vi.useFakeTimers();
    const first = fakeChannel();
    const second = fakeChannel();
    const channels = [first, second];
    const feed = new FeedClient('devbox', async () => (channels.shift() as typeof first).channel, 6000);
    const started = feed.start();
    await vi.advanceTimersByTimeAsync(0);
    first.say({ hello: { pid: 1 } });
    await started;
    const views: string[] = [];
    feed.onState((v) => views.push(`${v.state}${v.silent ? ' silent' : ''}`));
    feed.subscribe(undefined, () => undefined);
    await vi.advanceTimersByTimeAsync(5000 + 6000);
    expect(feed.state.silent).toBe(true);
    expect(first.state.closed).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    second.say({ hello: { pid: 2 } });
    expect(feed.state).toEqual({ label: 'devbox', state: 'live', message: null, since: Date.now() });
    expect(views).toEqual(['down silent', 'live']);
    // Its streams are asked again, and it is asked whether it is there again.
    expect(second.asked()).toEqual([{ sub: expect.any(Number), list: null }]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(second.pings()).toHaveLength(1);
    const answer = feed.request({ get: 'api/list', query: 'list=web' });
    const id = second.asked().at(-1)?.id;
    second.say({ id, status: 200, body: '{"ok":true}' });
    expect((await answer).status).toBe(200);
    feed.close();
  });

  it('answers a slow request alone at its deadline while the host still answers whether it is there', async () => {
    const { c, feed } = await liveFeed();
    let answer: { status: number; body: string } | undefined;
    void feed.request({ get: 'api/cost', query: 'list=web' }).then((a) => (answer = a));
    c.say({ pong: c.pings().at(-1)?.ping });
    await vi.advanceTimersByTimeAsync(5000);
    c.say({ pong: c.pings().at(-1)?.ping });
    await vi.advanceTimersByTimeAsync(1000);
    expect(answer?.status).toBe(504);
    expect(JSON.parse(answer?.body ?? '{}').error.message).toMatch(/^host devbox did not answer within 6s; /);
    expect(feed.state.state).toBe('live');
    expect(c.state.closed).toBe(0);
    // An action gets longer: it may wait there for a list's lock (at most 11.5 s) before it starts.
    let acted: { status: number; body: string } | undefined;
    void feed.request({ action: { action: 'start', list: 'web', id: '1' } }).then((a) => (acted = a));
    for (let t = 0; t < 17_000; t += 1000) {
      await vi.advanceTimersByTimeAsync(1000);
      const ping = c.pings().at(-1)?.ping;
      if (ping !== undefined) c.say({ pong: ping });
    }
    expect(acted).toBeUndefined();
    await vi.advanceTimersByTimeAsync(500);
    expect(acted?.status).toBe(504);
    expect(JSON.parse(acted?.body ?? '{}').error.message).toMatch(/^host devbox did not answer within 18s; /);
    // Its answer, when it comes, is for nobody.
    c.say({ id: c.asked()[0]?.id, status: 200, body: '{}' });
    expect(feed.state.state).toBe('live');
    feed.close();
  });

  it(`keeps at most ${MAX_IN_FLIGHT} requests unanswered by a host: one more is refused at once, nothing sent`, async () => {
    const { c, feed } = await liveFeed();
    const waiting = Array.from({ length: MAX_IN_FLIGHT }, () => feed.request({ get: 'api/overview', query: '' }));
    const more = await feed.request({ get: 'api/overview', query: '' });
    expect(more.status).toBe(503);
    expect(JSON.parse(more.body).error.message).toBe(
      `host devbox has ${MAX_IN_FLIGHT} requests unanswered: nothing more is sent to it until it answers`,
    );
    expect(c.asked()).toHaveLength(MAX_IN_FLIGHT);
    // One answered: room for one.
    c.say({ id: c.asked()[0]?.id, status: 200, body: '{}' });
    expect((await waiting[0])?.status).toBe(200);
    void feed.request({ get: 'api/overview', query: '' });
    expect(c.asked()).toHaveLength(MAX_IN_FLIGHT + 1);
    feed.close();
    expect(new Set((await Promise.all(waiting.slice(1))).map((a) => a.status))).toEqual(new Set([503]));
  });
});
