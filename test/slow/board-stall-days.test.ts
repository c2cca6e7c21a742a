import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserAvailable, SKIPPED, useBoardBrowser } from '../helpers/board-browser.js';
import { task } from '../helpers/board-world.js';
import { tempConfig } from '../helpers/cli.js';

/**
 * A task stalled since an earlier day says which day: "stalled since 12/4/2026, 9:10 PM",
 * not a time of day that reads as today's. A file dated 1970 (its time not kept) is not
 * called stalled at all: when it last changed is not known.
 */
describe.skipIf(!browserAvailable)(`a stall of an earlier day on the board${SKIPPED}`, () => {
  const b = useBoardBrowser();

  it('names the day it stalled on, where it is not today', async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '1', 'Write the changelog', 'in_progress');
    task(sprint, '2', 'Tag the release', 'in_progress');
    const old = new Date(Date.now() - 2 * 86_400_000);
    fs.utimesSync(path.join(sprint, '1.json'), old, old);
    fs.utimesSync(path.join(sprint, '2.json'), new Date(0), new Date(0));
    const board = await b.board(config, [], { USER: 'carol' });
    const page = await b.page(`${board.url}#list=sprint`);
    const mark = (id: string) => page.locator(`.card[data-task="${id}"] .mark.stalled`);
    await mark('1').waitFor();
    // The day as the page's browser writes it (its locale, its time zone).
    const day = (ms: number) => page.evaluate((at) => new Date(at).toLocaleDateString(), ms);
    const stalledOn = await day(old.getTime() + 30 * 60_000);
    expect(await mark('1').getAttribute('title')).toContain(`stalled since ${stalledOn}, `);
    expect(await mark('2').count()).toBe(0);
    await page.locator('.card[data-task="1"]').click();
    await page.locator('#detail dd.stalled').waitFor();
    expect(await page.locator('#detail dd.stalled').textContent()).toContain(`stalled since ${stalledOn}, `);
  });
});
