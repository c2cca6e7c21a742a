import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserAvailable, SKIPPED, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { task } from '../helpers/board-world.js';
import { run, snapshotDir, tempConfig } from '../helpers/cli.js';
import { writeTaskTranscript } from '../helpers/session-files.mjs';
import { GONE_SESSION as GONE, writeGoneSession } from '../helpers/sessions-world.js';

/** A session whose list is named by its id, its transcript dated ahead. */
const SESSION = '5b5b5b5b-2222-4c4c-8d8d-000000000007';

/**
 * A list whose task file is dated 2 h 59 min ahead of the clock (clock skew, a file copied
 * from a machine ahead): its sidebar row says what its card and the Now view say, when the
 * board first saw it ("seen 3s ago"), never "3 h in the future"; the skew reads "3 h", not
 * "2 h"; and a board that only saw it as it started says its age is the board's. A gone
 * list whose transcript is dated ahead says the same in the Gone lists dialog, and a list's
 * session whose transcript is dated ahead in the list's head (and its change to undo,
 * recorded ahead), on the card of the task its
 * agent held and in that task's history, and the work it left in the Now view.
 */
describe.skipIf(!browserAvailable)(`a list dated ahead in the sidebar${SKIPPED}`, () => {
  const b = useBoardBrowser();

  it('the sidebar row, the card and the Now view say "seen N ago (since the board started)", the skew on hover', async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '3', 'Write the changelog', 'in_progress', { activeForm: 'Writing the changelog' });
    const ahead = new Date(Date.now() + 2 * 3_600_000 + 59 * 60_000);
    fs.utimesSync(path.join(sprint, '3.json'), ahead, ahead);
    const files = snapshotDir(sprint);
    const cwd = path.join(config, 'work', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    // A gone list's transcript, dated ahead too (its tasks #1 and #2: its session is not taken for sprint's).
    const transcript = writeGoneSession(config, cwd);
    const goneAhead = new Date(Date.now() + 3_600_000 + 59 * 60_000);
    fs.utimesSync(transcript, goneAhead, goneAhead);
    // A list whose session's transcript is dated 59 min ahead.
    task(path.join(config, 'tasks', SESSION), '7', 'Plan the release', 'pending');
    const sessionAhead = Date.now() + 59 * 60_000;
    // In a project of its own, its task's id none of the gone list's: the gone list's session is not taken for its.
    const web = path.join(config, 'work', 'web');
    fs.mkdirSync(web, { recursive: true });
    // It ended holding #8, which it made and started: its agent is gone, #7 is work it left.
    task(path.join(config, 'tasks', SESSION), '8', 'Tag the release', 'in_progress');
    const made = {
      name: 'TaskCreate',
      input: { subject: 'Tag the release', description: '' },
      result: { task: { id: '8', subject: 'Tag the release' } },
    };
    const started = {
      name: 'TaskUpdate',
      input: { taskId: '8', status: 'in_progress' },
      result: { success: true, taskId: '8', updatedFields: ['status'] },
    };
    const ofSession = writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd: web,
      calls: [
        { ...made, at: sessionAhead - 60_000 },
        { ...started, at: sessionAhead - 1000 },
      ],
    });
    fs.utimesSync(ofSession, sessionAhead / 1000, sessionAhead / 1000);
    // A person started #7 with tasks, its journal (the change the undo button takes back) copied from a machine 59 min ahead.
    expect(run(config, ['-l', SESSION, 'start', '7'], { env: { USER: 'carol' } }).code).toBe(0);
    const journal = path.join(config, 'tasks', SESSION, '.tasks-journal.jsonl');
    fs.writeFileSync(journal, fs.readFileSync(journal, 'utf8').replace(/"at":"[^"]+"/g, `"at":"${new Date(sessionAhead).toISOString()}"`));
    const board = await b.board(config, [], { USER: 'carol' });
    const page = await b.page(`${board.url}#list=sprint`);

    const row = page.locator('.list-item[data-list="sprint"] .list-meta .when');
    await row.waitFor();
    expect(await row.textContent()).toMatch(/^seen \d+s ago \(since the board started\)$/);
    expect(await row.getAttribute('title')).toBe(
      "its last change is dated 3 h in the future (ahead of its machine's clock: clock skew, a file copied from another machine, a VM resumed); counted from when the board first saw it",
    );

    // The Gone lists dialog says the same of a gone list dated ahead: first read as the board started, so said as such.
    await page.click('#gone-nav');
    const gone = page.locator(`dialog .gone-list[data-list="${GONE}"] .when`);
    await gone.waitFor();
    expect(await gone.textContent()).toMatch(/^seen \d+s ago \(since the board started\)$/);
    expect(await gone.getAttribute('title')).toBe(
      "its last change is dated 2 h in the future (ahead of its machine's clock: clock skew, a file copied from another machine, a VM resumed); counted from when the board first saw it",
    );
    expect(await page.locator(`dialog .gone-list[data-list="${GONE}"] .gone-list-meta`).textContent()).not.toContain('in the future');
    await shot(page, 'board-gone-list-dated-ahead');
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog[open]', { state: 'detached' });

    const card = page.locator('.card[data-task="3"] .when');
    await card.waitFor();
    expect(await card.textContent()).toMatch(/^seen \d+s ago \(since the board started\)$/);
    expect(await card.getAttribute('title')).toMatch(/^its file is dated 3 h in the future /);
    await page.locator('.card[data-task="3"]').click();
    await page.locator('#detail dd.ahead').waitFor();
    expect(await page.locator('#detail dd.ahead').textContent()).toMatch(
      /^its file is dated 3 h in the future \(.+\); counted from when the board first saw it, \d+s ago \(since the board started\)$/,
    );
    await shot(page, 'board-list-dated-ahead');

    await page.click('#now-nav');
    const now = page.locator('.now-work[data-list="sprint"] .now-work-task[data-task="3"] .now-when');
    await now.waitFor();
    expect(await now.textContent()).toMatch(/^seen \d+s ago \(since the board started\)$/);
    expect(await now.getAttribute('title')).toMatch(/^its file is dated 3 h in the future /);
    // The work its session left, that session's end dated ahead: when the board saw it, not "59 min in the future".
    const left = page.locator(`.now-item[data-type="work-left"][data-clock="${SESSION}"] .now-when`);
    await left.waitFor();
    expect(await left.textContent()).toMatch(/^seen \d+s ago \(since the board started\)$/);
    expect(await left.getAttribute('title')).toMatch(/^its record is dated 59 min in the future \(ahead of its machine's clock/);
    expect(await page.locator('#view').textContent()).not.toContain('in the future');
    await shot(page, 'board-list-dated-ahead-now');

    // The head of the list whose session's last activity is dated ahead: its pill says when the board saw it.
    await page.click(`.list-item[data-list="${SESSION}"]`);
    const active = page.locator('#list-head .head-meta .tag.when');
    await active.waitFor();
    expect(await active.textContent()).toMatch(/^seen \d+s ago \(since the board started\)$/);
    expect(await active.getAttribute('title')).toBe(
      "its last activity is dated 59 min in the future (ahead of its machine's clock: clock skew, a file copied from another machine, a VM resumed); counted from when the board first saw it",
    );
    const undo = page.locator('#list-head #undo');
    await undo.waitFor();
    expect(await undo.textContent()).toMatch(/^↶ Undo start by carol · seen \d+s ago \(since the board started\)$/);
    expect(await undo.getAttribute('title')).toMatch(/\nthis change is dated 59 min in the future \(ahead of its machine's clock/);
    expect(await page.locator('#list-head').textContent()).not.toContain('in the future');
    // The task its agent held: gone since the board saw that session's last activity.
    const goneMark = page.locator('.card[data-task="8"] .mark.agent-gone');
    await goneMark.waitFor();
    expect(await goneMark.textContent()).toMatch(/^agent gone: .+, seen \d+s ago \(since the board started\)$/);
    expect(await goneMark.locator('.gone-ago.ahead').getAttribute('title')).toMatch(
      /^its session's last activity is dated 59 min in the future \(ahead of its machine's clock/,
    );
    await page.locator('.card[data-task="8"]').click();
    const agentFact = page.locator('#detail dd.gone');
    await agentFact.waitFor();
    expect(await agentFact.textContent()).toMatch(/ holding it, last at work: seen \d+s ago \(since the board started\)$/);
    // Its history, the session's changes recorded ahead: when the board first read them.
    const createdLine = page.locator('#detail .history li[data-source="transcript"][data-op="create"] .when');
    await createdLine.waitFor();
    // The column is narrow: why, and "since the board started", on hover; the line itself at most two lines high.
    expect(await createdLine.textContent()).toMatch(/^seen \d+s ago$/);
    expect(await createdLine.getAttribute('title')).toMatch(
      /^its record \(.+\) is dated 5[89] min in the future \(ahead of its machine's clock.*\(since the board started\)$/,
    );
    const lineHeight = Number.parseFloat(await createdLine.evaluate((el) => getComputedStyle(el).lineHeight));
    expect((await createdLine.boundingBox())?.height ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(2 * lineHeight + 1);
    expect(await page.locator('#detail').textContent()).not.toContain('in the future');
    expect(await page.locator('#view').textContent()).not.toContain('in the future');
    await shot(page, 'board-session-dated-ahead');
    expect(snapshotDir(sprint)).toEqual(files);
  });
});
