import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FeedChannel, FeedClient } from '../../src/board/board-feed-client.js';

/** A channel to a host, held by the test: what was sent, and the host's side (lines, a drop). */
function fakeChannel() {
  const sent: string[] = [];
  let onLine: (line: string) => void = () => undefined;
  let onClose: (cause: string) => void = () => undefined;
  const channel: FeedChannel = {
    send: (line) => sent.push(line),
    onLine: (cb) => (onLine = cb),
    onClose: (cb) => (onClose = cb),
    close: () => undefined,
  };
  return { channel, sent, say: (v: unknown) => onLine(JSON.stringify(v)), drop: (cause: string) => onClose(cause) };
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
    expect(JSON.parse(c.sent[0] as string)).toEqual({ id: 1, action: { action: 'start', list: 'web', id: '1' } });
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
    expect(c.sent).toHaveLength(1);
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
    expect(c.sent).toHaveLength(1);
    // The host has not answered, and never will: its channel goes with the board.
    feed.close();
    await Promise.resolve();
    expect(answered?.status).toBe(503);
    expect(JSON.parse(answered?.body ?? '{}').error.message).toMatch(/^host devbox: the board stopped before the host answered/);
    // After it, nothing is sent: refused at once.
    expect((await feed.request({ get: 'api/list', query: 'list=web' })).status).toBe(503);
    expect(c.sent).toHaveLength(1);
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
});
