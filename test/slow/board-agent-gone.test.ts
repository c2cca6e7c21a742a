import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserAvailable, SKIPPED, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { snapshotDir } from '../helpers/cli.js';
import { goneFixture } from '../helpers/gone-fixtures.js';

/**
 * The board marks a task in progress whose agent is gone as `tasks list` does: the real
 * Claude Code 2.1.328's files (test/fixtures/claude-code-2.1.328/gone/crashed-unowned) of
 * a solo agent killed while #1, set in progress with no owner, was its work. The recording
 * is moved to have ended 45 minutes ago, past the 30-minute stall: the card says the
 * agent is gone, in red, with the session and when, in place of the stall mark. Moved to
 * have ended 2 minutes ago, younger than any stall: the Stalled filter keeps it all the
 * same, as `tasks list --stalled` does (a dead agent's task waits on nobody).
 */
describe.skipIf(!browserAvailable)(`a task whose agent is gone, on the board${SKIPPED}`, () => {
  const b = useBoardBrowser();

  it('the card says "agent gone: session 4aa21e64 crashed 45 min ago" in red, not stalled; the head and the detail say it too', async () => {
    // The live-session file names a pid that has exited: the session crashed.
    const deadPid = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
    const w = goneFixture('crashed-unowned', { pid: deadPid, endedAgoMs: 45 * 60_000 });
    const files = snapshotDir(w.dir);
    const board = await b.board(w.config, [], { USER: 'carol' });
    const page = await b.page(`${board.url}#list=${w.list}`);
    const mark = page.locator('.card[data-task="1"] .mark.agent-gone');
    await mark.waitFor();
    expect(await mark.textContent()).toBe('agent gone: session 4aa21e64 crashed 45 min ago');
    expect(await mark.getAttribute('title')).toContain('tasks release --gone');
    // In place of the stall, which the task's 45 unchanged minutes would give it otherwise.
    expect(await page.locator('.card[data-task="1"] .mark.stalled').count()).toBe(0);
    const card = (await page.locator('.card[data-task="1"]').getAttribute('class')) as string;
    expect(card).toContain('is-agent-gone');
    expect(card).not.toContain('is-stalled');
    // Red, as an owner gone is (the page's --gone colour).
    const colours = await mark.evaluate((el) => {
      const probe = document.createElement('span');
      probe.className = 'owner gone';
      document.body.append(probe);
      const gone = getComputedStyle(probe).color;
      probe.remove();
      return { mark: getComputedStyle(el).color, gone };
    });
    expect(colours.mark).toBe(colours.gone);
    expect(await page.locator('.list-head .agent-gone-count').textContent()).toBe('1 in progress with no agent left (its session is over)');
    expect(await page.locator('.list-head .warn', { hasText: 'stalled' }).count()).toBe(0);
    expect(await page.locator('#release-gone').count()).toBe(1);
    await shot(page, 'board-agent-gone');
    await page.locator('.card[data-task="1"]').click();
    const fact = page.locator('#detail dd.gone');
    await fact.waitFor();
    expect(await fact.textContent()).toBe('gone: session 4aa21e64 crashed holding it, last at work 45 min ago');
    expect(await page.locator('#detail dd.stalled').count()).toBe(0);
    // The page's clock moves on 10 minutes: the time moves with it, and no stall comes by time.
    await page.clock.setFixedTime(Date.now() + 10 * 60_000);
    await page.waitForFunction(
      () => document.querySelector('.card[data-task="1"] .mark.agent-gone')?.textContent?.endsWith('55 min ago'),
      null,
      {
        timeout: 12_000,
      },
    );
    expect(await page.locator('.card[data-task="1"] .mark.stalled').count()).toBe(0);
    expect(snapshotDir(w.dir)).toEqual(files);
  });

  it('the Now view says "agent gone" for it, not "owner gone" (it has no owner), with no spinner', async () => {
    const deadPid = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
    const w = goneFixture('crashed-unowned', { pid: deadPid, endedAgoMs: 45 * 60_000 });
    const board = await b.board(w.config, [], { USER: 'carol' });
    const page = await b.page(board.url);
    const row = page.locator(`#now-working .now-work[data-list="${w.list}"] .now-work-task[data-task="1"]`);
    await row.locator('.now-flag.gone').waitFor();
    expect(await row.locator('.now-flag.gone').textContent()).toBe('agent gone');
    expect(await row.locator('.now-owner').textContent()).toBe('no owner');
    expect(await row.locator('.spinner').count()).toBe(0);
    expect(await row.locator('.now-mark').getAttribute('title')).toBe('its agent is gone');
  });

  it('the stalled filter keeps it, as `tasks list --stalled` does, though it changed 2 minutes ago', async () => {
    const deadPid = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
    const w = goneFixture('crashed-unowned', { pid: deadPid, endedAgoMs: 2 * 60_000 });
    fs.writeFileSync(
      path.join(w.dir, '2.json'),
      JSON.stringify({ id: '2', subject: 'Waits', description: 'b', status: 'pending', blocks: [], blockedBy: [] }, null, 2),
    );
    const board = await b.board(w.config, [], { USER: 'carol' });
    const page = await b.page(`${board.url}#list=${w.list}`);
    await page.locator('.card[data-task="1"] .mark.agent-gone').waitFor();
    await page.locator('.card[data-task="2"]').waitFor();
    await page.locator('label.chip', { has: page.locator('#f-stalled') }).click();
    // The filter is applied (#2 is not stalled: it goes), and #1, whose agent is gone, stays.
    await page.locator('.card[data-task="2"]').waitFor({ state: 'detached' });
    expect(await page.locator('.card[data-task="1"] .mark.agent-gone').count()).toBe(1);
  });
});
