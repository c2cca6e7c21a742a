import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserAvailable, SKIPPED, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { task } from '../helpers/board-world.js';
import { snapshotDir, tempConfig } from '../helpers/cli.js';

/**
 * A task in progress whose file is dated ahead of the clock of the machine serving the
 * board (clock skew, a copied file, a VM resumed) stalls on the board as in `tasks watch`:
 * the stall time after the board first saw it unchanged, not hours on when the clock gets
 * there; its card says "seen 2 min ago", not "3 h in the future", and why, on hover and
 * in the detail. The page's clock is moved on (playwright), the server's is not.
 */
describe.skipIf(!browserAvailable)(`a task file dated ahead on the board${SKIPPED}`, () => {
  const b = useBoardBrowser();

  it('stalls the stall time after the board first saw it, and says its file is dated ahead', async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '1', 'Write the changelog', 'in_progress', { activeForm: 'Writing the changelog' });
    task(sprint, '2', 'Tag the release', 'pending');
    const ahead = new Date(Date.now() + 3 * 3_600_000 + 60_000);
    fs.utimesSync(path.join(sprint, '1.json'), ahead, ahead);
    const files = snapshotDir(sprint);
    const board = await b.board(config, [], { USER: 'carol' });
    const page = await b.page(`${board.url}#list=sprint`);
    const when = page.locator('.card[data-task="1"] .when');
    await when.waitFor();
    expect(await when.textContent()).toMatch(/^seen \ds ago \(since the board started\)$/);
    expect(await when.getAttribute('title')).toBe(
      "its file is dated 3 h in the future (ahead of its machine's clock: clock skew, a file copied from another machine, a VM resumed); counted from when the board first saw it",
    );
    expect(await page.locator('.card[data-task="1"] .mark.stalled').count()).toBe(0);

    // 31 minutes on, on the page's clock: seen unchanged past the stall time.
    await page.clock.setFixedTime(Date.now() + 31 * 60_000);
    await page.waitForSelector('.card[data-task="1"] .mark.stalled', { timeout: 8000 });
    expect(await page.locator('.card[data-task="1"] .mark.stalled').textContent()).toBe('stalled 31m');
    expect(await page.locator('.list-head .warn', { hasText: 'stalled' }).textContent()).toBe('1 stalled');
    // (A clock event from the server since puts the page's clock back: then it reads seconds.)
    expect(await when.textContent()).toMatch(/^seen (31 min|\d+s) ago \(since the board started\)$/);
    await page.locator('.card[data-task="1"]').click();
    await page.locator('#detail dd.ahead').waitFor();
    expect(await page.locator('#detail dd.ahead').textContent()).toMatch(
      /^its file is dated 3 h in the future \(ahead of its machine's clock: .+\); counted from when the board first saw it, (31 min|\d+s) ago \(since the board started\)$/,
    );
    expect(await page.locator('#detail dd.stalled').textContent()).toMatch(
      /^(31m|\d+s) without a change, and no session at work: stalled since /,
    );
    await shot(page, 'board-stalled-dated-ahead');
    // The Now view says the same of it.
    await page.click('#now-nav');
    const now = page.locator('.now-work[data-list="sprint"] .now-work-task[data-task="1"] .now-when');
    await now.waitFor();
    expect(await now.textContent()).toMatch(/^seen (\d+s|\d+ min) ago \(since the board started\)$/);
    expect(await now.getAttribute('title')).toMatch(/^its file is dated 3 h in the future /);
    expect(snapshotDir(sprint)).toEqual(files);
  });
});
