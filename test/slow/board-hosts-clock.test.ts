import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserAvailable, SKIPPED, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { writeTask } from '../helpers/cli.js';
import { fakeSsh, HOST_CLOCK_AHEAD_MS } from '../helpers/fake-ssh.js';

/**
 * A board of hosts counts each host's times on that host's clock: a host whose clock is
 * 3 h ahead of the machine serving the page stamps a change made a minute ago 3 h on, and
 * the page says "1 min ago" of it, not "2 h in the future"; a host on the serving
 * machine's time is counted on it, in the same page; a file dated ahead even of its host's
 * clock, first seen as that host's board started, says so. ssh is stood in for
 * (test/helpers/fake-ssh.ts); the real sshds are in board-hosts.test.ts.
 */
describe.skipIf(!browserAvailable)(`tasks board -H: each host's times on its own clock${SKIPPED}`, () => {
  const b = useBoardBrowser();

  it('a change made a minute ago on a host 3 h ahead reads "1 min ago" in the list, on its card and in the Now view', async () => {
    const ssh = fakeSsh();
    const stamp = (host: string, at: number) => {
      const dir = ssh.hostList(host, 'web');
      writeTask(dir, {
        id: '1',
        subject: 'Deploy the API',
        description: '',
        status: 'in_progress',
        blocks: [],
        blockedBy: [],
        owner: 'agent',
      });
      fs.utimesSync(path.join(dir, '1.json'), new Date(at), new Date(at));
    };
    // Each host's change a minute ago, on its own clock.
    stamp('alpha-ahead', Date.now() + HOST_CLOCK_AHEAD_MS - 60_000);
    stamp('beta', Date.now() - 60_000);
    // A list on the host ahead whose file is dated 2 h 59 min ahead even of that host's clock (copied from further ahead).
    const docs = ssh.hostList('alpha-ahead', 'docs');
    writeTask(docs, { id: '1', subject: 'Write the notes', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const docsAt = new Date(Date.now() + HOST_CLOCK_AHEAD_MS + 2 * 3_600_000 + 59 * 60_000);
    fs.utimesSync(path.join(docs, '1.json'), docsAt, docsAt);
    const board = await b.board(ssh.root, ['-H', 'alpha-ahead', '-H', 'beta'], { TASKS_SSH_COMMAND: ssh.ssh, USER: 'carol' }, ssh.root);
    const page = await b.page(board.url, { timeout: 60_000 });
    const work = (list: string) => page.locator(`.now-work[data-list="${list}"] .now-when`);
    await work('h0-web').waitFor({ timeout: 30_000 });
    await work('h1-web').waitFor({ timeout: 30_000 });
    expect(await work('h0-web').textContent()).toBe('1 min ago');
    expect(await work('h1-web').textContent()).toBe('1 min ago');
    const row = (list: string) => page.locator(`.list-item[data-list="${list}"] .when`);
    expect(await row('h0-web').textContent()).toBe('1 min ago');
    expect(await row('h1-web').textContent()).toBe('1 min ago');
    // First seen as that host's board started, on its clock: said as a board of this machine says it.
    expect(await row('h0-docs').textContent()).toMatch(/^seen \d+s ago \(since the board started\)$/);
    expect(await row('h0-docs').getAttribute('title')).toMatch(/^its last change is dated 3 h in the future /);
    await shot(page, 'board-hosts-clock-now');

    await row('h0-web').click();
    const card = page.locator('.card[data-task="1"] .when');
    await card.waitFor();
    expect(await card.textContent()).toBe('1 min ago');
    await page.locator('.card[data-task="1"]').click();
    await page.locator('#detail dt', { hasText: 'Changed' }).waitFor();
    expect(await page.locator('#detail dt:text("Changed") + dd').textContent()).toBe('1 min ago');
    // A stall counts on the host's clock too: due in 29 min there, not 2 h 29 min.
    expect(await page.locator('#detail dd.stalls').textContent()).toMatch(/^at .+ if nothing changes and no session is at work$/);
    await shot(page, 'board-hosts-clock-list');
    // The page's timer writes every age again (page-ago.ts): on the host's clock too.
    await page.evaluate(() => {
      for (const el of document.querySelectorAll('.card[data-task="1"] .when, #detail dd .when')) el.textContent = '?';
    });
    await page.waitForFunction(
      () => [...document.querySelectorAll('.card[data-task="1"] .when, #detail dd .when')].every((el) => el.textContent === '1 min ago'),
      null,
      { timeout: 8000 },
    );
  });
});
