import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserAvailable, SKIPPED, useBoardBrowser } from '../helpers/board-browser.js';
import { task } from '../helpers/board-world.js';
import { snapshotDir, tempConfig } from '../helpers/cli.js';
import { writeTranscript } from '../helpers/session-files.mjs';

/**
 * Relative times on the board move on by themselves: with nothing written anywhere, a
 * card's "20s ago" becomes "1 min ago" once a minute has gone by on the page's clock
 * (playwright moves the page's Date on; its timers run as they do). The Now view says
 * when each thing happened, and "seen" where only the board's own look dates it.
 */
describe.skipIf(!browserAvailable)(`the board's relative times${SKIPPED}`, () => {
  const b = useBoardBrowser();

  it("the Now view dates an agent gone by its session's end, and a deletion as seen", async () => {
    const config = tempConfig();
    const session = '0b2d0b0b-8d3b-4c55-a1e0-6b2f0c8d9e31';
    const cwd = path.join(config, 'home', 'work', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    writeTranscript(config, { sessionId: session, cwd, start: Date.now() - 10 * 60_000, end: Date.now() - 4 * 60_000 });
    const list = path.join(config, 'tasks', session);
    task(list, '1', 'Move to one pool', 'in_progress', { owner: 'worker-1' });
    task(list, '2', 'Drop the old pool', 'pending');
    const board = await b.board(config, [], { USER: 'carol' });
    const page = await b.page(board.url);
    const died = page.locator('#now-needs .now-item[data-type="agent-died"] .now-when');
    await died.waitFor();
    expect(await died.textContent()).toBe('4 min ago');
    fs.rmSync(path.join(list, '2.json'));
    const seen = page.locator('#now-feed .now-feed-item .now-when.seen');
    await seen.waitFor({ timeout: 5000 });
    expect(await seen.textContent()).toMatch(/^seen \ds ago$/);
  });

  it("a card's time moves from seconds to a minute ago without a change on disk", async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '1', 'Write the changelog', 'pending');
    const then = new Date(Date.now() - 20_000);
    fs.utimesSync(path.join(sprint, '1.json'), then, then);
    const board = await b.board(config, [], { USER: 'carol' });
    const page = await b.page(`${board.url}#list=sprint`);
    const when = page.locator('.card[data-task="1"] .when');
    await page.waitForSelector('.card[data-task="1"]');
    expect(await when.textContent()).toMatch(/^\d\ds ago$/);
    const files = snapshotDir(sprint);

    // The clock is the browser context's, shared by the file's tests: this test comes last.
    await page.clock.setFixedTime(Date.now() + 60_000);
    await page.waitForFunction(() => document.querySelector('.card[data-task="1"] .when')?.textContent === '1 min ago', null, {
      timeout: 8000,
    });
    expect(snapshotDir(sprint)).toEqual(files);
  });
});
