import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { NowPayload } from '../../src/board/board-protocol.js';
import type { BoardRun } from '../helpers/board.js';
import { browserAvailable, CHROMIUM, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { baseEnv, ROOT, tempConfig, writeTask } from '../helpers/cli.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

/**
 * The board's Now view in a real browser (Debian's chromium, driven by playwright-core):
 * every list at once, kept current by agents' writes; its browser notifications; the
 * tab's title; and a board stopped and started again under the same URL, which the page
 * follows by itself. Screenshots go to $TASKS_BOARD_SCREENSHOTS when set.
 */
const AGENT = path.join(ROOT, 'test', 'helpers', 'agent-task.mjs');
const API = '2d483082-5b0c-4a6e-9f1a-3c1b7e9d4a10';
const DB = 'b85f975f-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

function agent(dir: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, [AGENT, dir, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}

function task(dir: string, id: string, subject: string, status: string, over: Record<string, unknown> = {}): void {
  writeTask(dir, { id, subject, description: '', status, blocks: [], blockedBy: [], ...over });
}

function age(dir: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), then, then);
  fs.utimesSync(dir, then, then);
}

/**
 * An API list whose session is live and busy (this test's process) with two tasks in
 * progress and one of carol's waiting for her; a database list whose session crashed
 * holding work; a sprint finished a minute ago.
 */
function world(): { config: string; api: string; sprint: string } {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const cwd = (p: string) => {
    const dir = path.join(home, 'work', p);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  };
  const now = Date.now();
  writeTranscript(config, { sessionId: API, cwd: cwd('api'), prompt: 'add rate limiting', start: now - 40 * 60_000, end: now - 5_000 });
  writeLiveSession(config, {
    pid: process.pid,
    sessionId: API,
    cwd: path.join(home, 'work', 'api'),
    status: 'busy',
    name: 'api-rate-limit',
  });
  writeTranscript(config, {
    sessionId: DB,
    cwd: cwd('db'),
    prompt: 'refactor the pool',
    start: now - 26 * 3600_000,
    end: now - 25 * 3600_000,
  });
  writeLiveSession(config, { pid: 4_000_123, sessionId: DB, cwd: path.join(home, 'work', 'db'), procStartTicks: '1', status: 'busy' });
  const api = path.join(config, 'tasks', API);
  task(api, '1', 'Design the rate-limit policy', 'completed', { owner: 'researcher' });
  task(api, '2', 'Implement token bucket middleware', 'in_progress', {
    owner: 'coder',
    activeForm: 'Implementing token bucket middleware',
  });
  task(api, '3', 'Add Redis-backed counters', 'in_progress', { owner: 'coder-2', activeForm: 'Adding Redis-backed counters' });
  task(api, '4', 'Approve the public limits', 'pending', { owner: 'carol', blocks: ['5'] });
  task(api, '5', 'Publish the limits', 'pending', { blockedBy: ['4'] });
  const db = path.join(config, 'tasks', DB);
  task(db, '1', 'Map every pool user', 'completed', { owner: 'worker-1' });
  task(db, '2', 'Move to one shared pool', 'in_progress', { owner: 'worker-1', activeForm: 'Moving to one shared pool' });
  const sprint = path.join(config, 'tasks', 'web-sprint');
  for (const id of ['1', '2', '3']) task(sprint, id, `Step ${id}`, 'completed', { owner: 'tester' });
  age(sprint, 60_000);
  return { config, api, sprint };
}

/** The Now view as the server has it now (the page's own request: same origin, same token). */
const nowOf = (p: Page) => p.evaluate(async () => (await (await fetch('api/now')).json()) as NowPayload);

describe.skipIf(!browserAvailable)(
  `the board's Now view in a real browser${browserAvailable ? '' : ` (skipped: no chromium at ${CHROMIUM}; apt-get install chromium)`}`,
  () => {
    // While the board is down, the stream's failed requests are the browser's to log, not the page's errors.
    // A refused action's 409 is an answer the page shows, not an error of the page.
    const chromium = useBoardBrowser({ console: /ERR_CONNECTION_REFUSED|net::|status of 409/ });

    function board(config: string, args: string[] = []): Promise<BoardRun> {
      return chromium.board(config, args, { USER: 'carol' });
    }

    function open(url: string): Promise<Page> {
      return chromium.page(url, { init: notifications });
    }

    /** Notifications as the page asks for them: when permission was asked, and what was shown. */
    async function notifications(page: Page): Promise<void> {
      await page.addInitScript(() => {
        const w = window as unknown as { shown: Array<{ title: string; body: string; tag: string }>; asked: number };
        w.shown = [];
        w.asked = 0;
        let permission = localStorage.getItem('test-permission') ?? 'default';
        class FakeNotification {
          static get permission() {
            return permission;
          }
          static async requestPermission() {
            w.asked++;
            permission = 'granted';
            localStorage.setItem('test-permission', permission);
            return permission;
          }
          onclick: (() => void) | null = null;
          constructor(title: string, o: { body: string; tag: string }) {
            w.shown.push({ title, body: o.body, tag: o.tag });
          }
        }
        (window as unknown as { Notification: unknown }).Notification = FakeNotification;
      });
    }

    it('opens on what needs a person across every list, follows an agent within a second, and notifies once', async () => {
      const { config, sprint } = world();
      const b = await board(config);
      const p = await open(b.url);
      await p.waitForSelector('body.now-mode #now-needs .now-item');
      await p.waitForSelector(`#now-needs .now-item[data-type="agent-died"] .now-link[data-list="${DB}"]`);
      // carol's task waits for her (she runs the board), and #5 waits on it.
      const waiting = p.locator(`#now-needs .now-item[data-type="ready-for-person"]`);
      expect(await waiting.locator('.now-text').textContent()).toMatch(
        /#4 "Approve the public limits" in list 2d483082 \(~\/work\/api\) is carol's and ready; 1 task waits on it \(#5\)/,
      );
      expect(await waiting.locator('.now-action').textContent()).toBe('tasks -l 2d483082 get 4');
      // Work in progress by whom; the crashed session's task has no spinner.
      const working = p.locator(`#now-working .now-work[data-list="${API}"] .now-work-task`);
      expect(await working.count()).toBe(2);
      expect(await working.nth(0).locator('.now-owner').textContent()).toBe('coder');
      expect(await working.nth(0).locator('.spinner').count()).toBe(1);
      const dead = p.locator(`#now-working .now-work[data-list="${DB}"] .now-work-task[data-task="2"]`);
      expect(await dead.locator('.now-flag.gone').textContent()).toBe('owner gone');
      expect(await dead.locator('.spinner').count()).toBe(0);
      await p.waitForSelector('#now-finished .now-item .now-link[data-list="web-sprint"]');
      // The tab's title carries the count that needs a person, as the server counts it.
      const before = await nowOf(p);
      expect(before.needsPerson).toBe(await p.locator('#now-needs .now-item').count());
      expect(await p.title()).toBe(`(${before.needsPerson}) tasks board`);
      await shot(p, 'board-now');

      // Opt in: permission is asked on the click alone, and what was on the page already is not news.
      expect(await p.evaluate(() => (window as unknown as { asked: number }).asked)).toBe(0);
      await p.click('#now-notify');
      await p.waitForSelector('#now-notify[aria-pressed="true"]');
      expect(await p.evaluate(() => (window as unknown as { asked: number }).asked)).toBe(1);

      // An agent adds a task for carol to the finished sprint, after the board started: counts, Now view and title follow.
      const t0 = Date.now();
      agent(sprint, 'create', 'Sign off the release', JSON.stringify({ owner: 'carol' }));
      await p.waitForFunction(
        (n) => document.title === `(${n}) tasks board` && document.querySelector('#now-needs .now-link[data-list="web-sprint"]') !== null,
        before.needsPerson + 1,
        { timeout: 5000 },
      );
      const shownMs = Date.now() - t0;
      await p.waitForFunction(() => document.querySelector('.list-item[data-list="web-sprint"] .count')?.textContent === '3/4', null, {
        timeout: 5000,
      });
      expect(await p.locator('#now-finished .now-link[data-list="web-sprint"]').count()).toBe(0);
      // The feed: the agent's change, as tasks watch sees it, and the event it began.
      const change = p.locator('#now-feed .now-feed-item.change').first();
      expect(await change.locator('.now-link').allTextContents()).toEqual(['web-sprint', '#4']);
      expect(await change.locator('.now-text').textContent()).toBe('"Sign off the release" created (carol)');
      expect(await p.locator('#now-feed .now-feed-item.ready-for-person .now-text').first().textContent()).toBe(
        `#4 "Sign off the release" in list web-sprint is carol's and ready`,
      );
      // Not a timed assertion (the machine may be loaded); said for whoever reads the log.
      console.log(`board now: an agent's new task was in the Now view and the title ${shownMs} ms after the agent started writing it`);
      const shown = await p.evaluate(() => (window as unknown as { shown: Array<{ title: string; tag: string }> }).shown);
      expect(shown.map((n) => n.title)).toEqual(['Ready for carol: #4']);
      expect(shown[0]?.tag).toBe('ready-for-person|web-sprint|4|carol');

      // A reload shows nothing again; the entry opens its task.
      await p.reload();
      await p.waitForSelector('#now-needs .now-link[data-list="web-sprint"]');
      await p.waitForTimeout(500);
      expect(await p.evaluate(() => (window as unknown as { shown: unknown[] }).shown)).toEqual([]);
      await p.click('#now-needs .now-item[data-key="ready-for-person|web-sprint|4|carol"] .now-link[data-task="4"]');
      await p.waitForSelector('.list-item[data-list="web-sprint"].selected');
      await p.waitForSelector('.card[data-task="4"]');
      expect(new URL(p.url()).hash).toBe('#list=web-sprint&task=4');
      // Back to Now.
      await p.click('#now-nav');
      await p.waitForSelector('body.now-mode #now-needs');
    });

    it('assigns to me and starts in one step; Start on a blocked task asks first, and Cancel writes nothing', async () => {
      const { config, api } = world();
      const b = await board(config);
      const p = await open(`${b.url}#list=${API}&task=5`);
      await p.waitForSelector('.detail button[data-action="claim"]');
      const before = fs.readFileSync(path.join(api, '5.json'), 'utf8');
      await p.click('.detail button[data-action="start"]');
      await p.waitForSelector('dialog[open]');
      expect(await p.locator('dialog h2').textContent()).toBe('Start #5 while it waits?');
      expect(await p.locator('dialog p').textContent()).toContain('#5 is blocked by #4, not done yet.');
      await p.click('dialog button:text-is("Cancel")');
      await p.waitForTimeout(300);
      expect(fs.readFileSync(path.join(api, '5.json'), 'utf8')).toBe(before);
      // Assign to me on a blocked task: the agents' claim rule refuses it, nothing written.
      await p.click('.detail button[data-action="claim"]');
      await p.waitForSelector('.toast.conflict, .toast.error');
      expect(fs.readFileSync(path.join(api, '5.json'), 'utf8')).toBe(before);
      // On a ready one it claims as carol and starts.
      await p.click('.card[data-task="4"]');
      // Given back by carol (an owner removed, as an agent's TaskUpdate cannot).
      const t4 = JSON.parse(fs.readFileSync(path.join(api, '4.json'), 'utf8')) as Record<string, unknown>;
      delete t4.owner;
      fs.writeFileSync(path.join(api, '4.json'), JSON.stringify(t4));
      await p.waitForSelector('.detail button[data-action="claim"]');
      await p.click('.detail button[data-action="claim"]');
      await p.waitForSelector('.col-in_progress .card[data-task="4"]');
      expect(JSON.parse(fs.readFileSync(path.join(api, '4.json'), 'utf8'))).toMatchObject({ owner: 'carol', status: 'in_progress' });
    });

    it('keeps its URL across a restart; a stopped board is a banner, and the page comes back by itself', async () => {
      const { config, api } = world();
      const first = await board(config);
      const stateDir = path.join(baseEnv(config).XDG_STATE_HOME as string, 'tasks');
      const kept = fs.readdirSync(stateDir).filter((f) => f.startsWith('board-'));
      expect(kept).toHaveLength(1);
      expect(fs.statSync(path.join(stateDir, kept[0] as string)).mode & 0o777).toBe(0o600);
      const p = await open(`${first.url}#list=${API}`);
      await p.waitForSelector('.card[data-task="5"]');
      expect(await p.locator('#down').isHidden()).toBe(true);

      await first.stop('SIGTERM');
      await p.waitForSelector('#down', { state: 'visible', timeout: 10_000 });
      expect(await p.locator('#down').textContent()).toContain('The board is not answering');
      await shot(p, 'board-down');
      // Meanwhile an agent goes on.
      agent(api, 'create', 'Write the migration notes');

      const second = await board(config);
      expect(second.url).toBe(first.url);
      // No reload: the page finds the board again, and what changed meanwhile.
      await p.waitForSelector('#down', { state: 'hidden', timeout: 15_000 });
      await p.waitForSelector('.card[data-task="6"]', { timeout: 5000 });
      await second.stop('SIGTERM');

      // --new-token: the old URL is gone for good; the port is kept.
      const third = await board(config, ['--new-token']);
      expect(third.port).toBe(first.port);
      expect(third.token).not.toBe(first.token);
      const old = await fetch(`${first.url}api/now`);
      expect(old.status).toBe(404);
    });
  },
);
