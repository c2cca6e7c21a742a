/**
 * A board of hosts (`tasks board -H a -H b`) sends each host's clock with that host's
 * data, as a `host-clock` event ({"host":"h0","at":ms}): the page counts a host's times
 * ("1 min ago") on that host's clock, not on the machine serving the page, whose clock
 * may be hours off from it (the page's side: test/slow/board-hosts-clock.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewPayload } from '../../src/board/board-protocol.js';
import { type BoardRun, openEvents, request, startBoard } from '../helpers/board.js';
import { writeTask } from '../helpers/cli.js';
import { fakeSsh, HOST_CLOCK_AHEAD_MS } from '../helpers/fake-ssh.js';

describe('tasks board -H: each host its own clock', () => {
  let board: BoardRun;
  const ssh = fakeSsh();

  beforeAll(async () => {
    for (const host of ['alpha-ahead', 'beta'])
      writeTask(ssh.hostList(host, 'web'), { id: '1', subject: 'Deploy', description: '', status: 'pending', blocks: [], blockedBy: [] });
    board = await startBoard(ssh.root, ['-H', 'alpha-ahead', '-H', 'beta'], { TASKS_SSH_COMMAND: ssh.ssh, USER: 'carol' }, ssh.root);
  }, 60_000);
  afterAll(async () => {
    await board?.stop();
  });

  it("an event stream carries each host's clock, named by the host's place, besides the serving machine's", async () => {
    const events = await openEvents(board);
    try {
      const clockOf = async (host: string) =>
        (await events.next((e) => e.event === 'host-clock' && (e.data as { host: string }).host === host, { ms: 30_000 })).data as {
          host: string;
          at: number;
        };
      const alpha = await clockOf('h0');
      const beta = await clockOf('h1');
      expect(Math.abs(alpha.at - (Date.now() + HOST_CLOCK_AHEAD_MS))).toBeLessThan(60_000);
      expect(Math.abs(beta.at - Date.now())).toBeLessThan(60_000);
      // The serving machine's own clock first, as ever.
      expect(events.events[0]?.event).toBe('clock');
      expect(Math.abs((events.events[0]?.data as number) - Date.now())).toBeLessThan(60_000);
    } finally {
      events.close();
    }
  }, 60_000);

  it("the overview says when each host's board started, on that host's clock: a file it first saw then was there before it", async () => {
    const overview = JSON.parse((await request(board.port, `/${board.token}/api/overview`)).body) as OverviewPayload;
    const [alpha, beta] = overview.hosts ?? [];
    expect(alpha?.label).toBe('alpha-ahead');
    expect(Math.abs((alpha?.startedAt as number) - (Date.now() + HOST_CLOCK_AHEAD_MS))).toBeLessThan(60_000);
    expect(Math.abs((beta?.startedAt as number) - Date.now())).toBeLessThan(60_000);
    // The machine serving the page shows no list of its own: no start of its own to count from.
    expect(overview.startedAt).toBeUndefined();
  });
});
