/**
 * The board gives its own clock with the data: an event stream opens with a `clock` event
 * (the server's time, ms), before the overview, so that the page counts every age on the
 * server's clock, not on a browser's that may differ (page-clock.ts; the page's side is in
 * test/unit/board-page-clock.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BoardRun, openEvents, startBoard } from '../helpers/board.js';
import { run, tempConfig } from '../helpers/cli.js';

const boards: BoardRun[] = [];
afterEach(async () => {
  for (const b of boards.splice(0)) await b.stop('SIGKILL');
});

describe("the board's clock", () => {
  it('an event stream opens with the server clock, before the overview', async () => {
    const config = tempConfig();
    expect(run(config, ['-l', 'L', 'create', 'a']).code).toBe(0);
    const b = await startBoard(config, []);
    boards.push(b);
    const before = Date.now();
    const events = await openEvents(b);
    try {
      await events.next((e) => e.event === 'overview', { ms: 10_000 });
      expect(events.events[0]?.event).toBe('clock');
      const at = events.events[0]?.data as unknown as number;
      expect(typeof at).toBe('number');
      expect(at).toBeGreaterThanOrEqual(before - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    } finally {
      events.close();
    }
  });
});
