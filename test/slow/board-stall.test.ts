import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserAvailable, SKIPPED, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { API, task, world } from '../helpers/board-world.js';
import { snapshotDir, tempConfig } from '../helpers/cli.js';

/**
 * A task in progress stalls with time alone: the page counts the server's stall rule on
 * (its threshold, sent with the list) from each task's last change, so a card turns
 * stalled when it is due, nothing on disk changing, and says since when and what ends it.
 * The stall time is 30 min; the page's clock is moved on (playwright moves the page's
 * Date on; its timers run as they do), the server's is not, so only the page can mark it.
 */
describe.skipIf(!browserAvailable)(`stalled work on the board, by time alone${SKIPPED}`, () => {
  const b = useBoardBrowser();

  const age = (file: string, ms: number) => {
    const then = new Date(Date.now() - ms);
    fs.utimesSync(file, then, then);
  };

  it('a card turns stalled when its time comes, with nothing written, and the mark goes when the task changes', async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '1', 'Write the changelog', 'in_progress', { activeForm: 'Writing the changelog' });
    task(sprint, '2', 'Tag the release', 'in_progress');
    task(sprint, '3', 'Announce it', 'pending');
    age(path.join(sprint, '1.json'), 20 * 60_000);
    age(path.join(sprint, '2.json'), 40 * 60_000);
    const board = await b.board(config, [], { USER: 'carol' });
    const page = await b.page(`${board.url}#list=sprint`);
    await page.waitForSelector('.card[data-task="2"] .mark.stalled');
    // #2 was stalled as the list was read; #1, unchanged for 20 min, is not yet.
    expect(await page.locator('.card[data-task="2"] .mark.stalled').textContent()).toBe('stalled 40m');
    expect(await page.locator('.card[data-task="1"] .mark.stalled').count()).toBe(0);
    expect(await page.locator('.list-head .warn', { hasText: 'stalled' }).textContent()).toBe('1 stalled');
    const files = snapshotDir(sprint);

    // 11 minutes later on the page's clock: #1 has gone 31 min without a change.
    await page.clock.setFixedTime(Date.now() + 11 * 60_000);
    await page.waitForSelector('.card[data-task="1"] .mark.stalled', { timeout: 8000 });
    expect(await page.locator('.card[data-task="1"] .mark.stalled').textContent()).toBe('stalled 31m');
    expect(await page.locator('.card[data-task="1"]').getAttribute('class')).toContain('is-stalled');
    // #2's count went on too, and the head counts both.
    expect(await page.locator('.card[data-task="2"] .mark.stalled').textContent()).toBe('stalled 51m');
    expect(await page.locator('.list-head .warn', { hasText: 'stalled' }).textContent()).toBe('2 stalled');
    // Since when, and what ends it: on the mark and in the detail.
    const title = (await page.locator('.card[data-task="1"] .mark.stalled').getAttribute('title')) as string;
    expect(title).toMatch(
      /^in progress, unchanged since .+, and no session at work: stalled since .+ \(after 30m without a change\); a change to the task, or a session at work, ends it$/,
    );
    await page.locator('.card[data-task="1"]').click();
    const stalled = page.locator('#detail dd.stalled');
    await stalled.waitFor();
    expect(await stalled.textContent()).toMatch(/^31m without a change, and no session at work: stalled since /);
    await shot(page, 'board-stalled-by-time');
    // The stalled filter finds it too.
    await page.locator('label.chip', { hasText: 'stalled' }).click();
    await page.waitForSelector('.card[data-task="3"]', { state: 'detached' });
    expect(await page.locator('.card').count()).toBe(2);
    await page.locator('label.chip', { hasText: 'stalled' }).click();
    await page.waitForSelector('.card[data-task="3"]');
    expect(snapshotDir(sprint)).toEqual(files);

    // The agent writes to #1: the list is read again, and its mark goes.
    const file = path.join(sprint, '1.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), activeForm: 'Writing the changelog, part 2' }, null, 2),
    );
    await page.waitForSelector('.card[data-task="1"] .mark.stalled', { state: 'detached', timeout: 8000 });
    expect(await page.locator('.card[data-task="2"] .mark.stalled').count()).toBe(1);
    // Its detail says when it will stall if nothing changes.
    await page.locator('#detail dd.stalls').waitFor();
    expect(await page.locator('#detail dd.stalls').textContent()).toMatch(/^at .+ if nothing changes and no session is at work$/);
  });

  it('a session at work holds the stall back, however long the page waits', async () => {
    const { config, api } = world();
    // #3 and #4 in progress, unchanged for 20 min; the list's session is live and busy.
    for (const id of ['3', '4']) age(path.join(api, `${id}.json`), 20 * 60_000);
    const board = await b.board(config, [], { USER: 'carol' });
    const page = await b.page(`${board.url}#list=${API}`);
    await page.waitForSelector('.card[data-task="3"]');
    await page.locator('.card[data-task="3"]').click();
    await page.waitForSelector('#detail dd.stalls');
    expect(await page.locator('#detail dd.stalls').textContent()).toBe('not while a session of the list is at work');
    await page.clock.setFixedTime(Date.now() + 60 * 60_000);
    // Two ticks of the page's timer, and no stall.
    await page.waitForTimeout(11_000);
    expect(await page.locator('.mark.stalled').count()).toBe(0);
  });
});
