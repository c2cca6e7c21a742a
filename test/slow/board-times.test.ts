import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserAvailable, SKIPPED, useBoardBrowser } from '../helpers/board-browser.js';
import { task } from '../helpers/board-world.js';
import { snapshotDir, tempConfig } from '../helpers/cli.js';

/**
 * Relative times on the board move on by themselves: with nothing written anywhere, a
 * card's "20s ago" becomes "1 min ago" once a minute has gone by on the page's clock
 * (playwright moves the page's Date on; its timers run as they do).
 */
describe.skipIf(!browserAvailable)(`the board's relative times${SKIPPED}`, () => {
  const b = useBoardBrowser();

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

    await page.clock.setFixedTime(Date.now() + 60_000);
    await page.waitForFunction(() => document.querySelector('.card[data-task="1"] .when')?.textContent === '1 min ago', null, {
      timeout: 8000,
    });
    expect(snapshotDir(sprint)).toEqual(files);
  });
});
