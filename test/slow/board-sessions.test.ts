/**
 * The board's lists and sessions in a real browser (Debian's chromium, driven by
 * playwright-core), against what `tasks lists` says of the same config folder: every
 * kind of list (a session's own, a named list's sessions, a live session's list before its
 * first task, TodoWrite todos, lists whose sessions cannot be told apart), every state core
 * gives a session (live and busy or idle, ended, cleared by /clear, crashed), the folder's
 * binding, and the order: grouped by project, newest first, as `tasks lists` orders them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, CHROMIUM, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { run } from '../helpers/cli.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { IDS, type SessionsWorld, sessionsWorld } from '../helpers/sessions-world.js';

interface ListsRow {
  id: string;
  kind: string;
  cwd: string | null;
}

/** `tasks lists --json` in the board's folder. */
function lists(w: SessionsWorld): ListsRow[] {
  const r = run(w.config, ['lists', '--json'], { cwd: w.here });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ListsRow[];
}

/** `tasks lists`'s rows grouped by project (`~/…`), the groups in order of their newest row, those with no session last. */
function expectedSidebar(w: SessionsWorld, rows: readonly ListsRow[]): Array<[string, string[]]> {
  const home = fs.realpathSync(w.home);
  const groups = new Map<string, string[]>();
  for (const r of rows) {
    const project = r.cwd === null ? '' : r.cwd.startsWith(`${home}/`) ? `~${r.cwd.slice(home.length)}` : r.cwd;
    groups.set(project, [...(groups.get(project) ?? []), r.id]);
  }
  const none = groups.get('');
  groups.delete('');
  return none === undefined ? [...groups] : [...groups, ['', none]];
}

/** The sidebar as drawn: each project section with its lists' ids, top to bottom. */
function sidebar(p: Page): Promise<Array<[string, string[]]>> {
  return p.$$eval('#lists section.project', (sections) =>
    sections.map((s) => [
      s.getAttribute('data-project') ?? '',
      [...s.querySelectorAll('.list-item')].map((i) => i.getAttribute('data-list') ?? ''),
    ]),
  ) as Promise<Array<[string, string[]]>>;
}

async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!browserAvailable)(
  `the board's lists and sessions, as tasks lists has them${browserAvailable ? '' : ` (skipped: no chromium at ${CHROMIUM})`}`,
  () => {
    // Console errors are not the point here: only what the page throws.
    const b = useBoardBrowser({ console: false });

    async function open(w: SessionsWorld, hash = ''): Promise<Page> {
      b.after(() => w.stop());
      const board = await b.board(w.config, [], { USER: 'carol' }, w.here);
      const page = await b.page(`${board.url}${hash}`);
      await page.waitForSelector('.list-item');
      return page;
    }

    const item = (p: Page, id: string) => p.locator(`.list-item[data-list="${id}"]`);

    it('shows every list tasks lists has, with the state core gives each session, grouped by project in its order', async () => {
      const w = sessionsWorld();
      const p = await open(w);
      const rows = lists(w);
      expect(rows.map((r) => r.kind).sort()).toEqual(['new', 'tasks', 'tasks', 'tasks', 'tasks', 'tasks', 'todowrite']);
      expect(await sidebar(p)).toEqual(expectedSidebar(w, rows));
      for (const r of rows) expect(await item(p, r.id).getAttribute('data-kind')).toBe(r.kind);
      expect(await item(p, IDS.api).locator('.state').textContent()).toBe('live, busy');
      expect(await item(p, IDS.webNew).locator('.state').textContent()).toBe('live, idle');
      expect(await item(p, IDS.webNew).locator('.count').first().textContent()).toBe('no tasks yet');
      expect(await item(p, IDS.webOld).locator('.state').textContent()).toBe('cleared → 9a0b1c2d');
      expect(await item(p, IDS.docs).locator('.state').textContent()).toBe('ended');
      expect(await item(p, IDS.docs).locator('.kind').textContent()).toBe('TodoWrite');
      expect(await item(p, 'release-42').locator('.sessions').textContent()).toBe('2 sessions');
      expect(await item(p, 'build-201').locator('.unsure').textContent()).toBe('2 unsure');
      expect(await item(p, 'build-201').locator('.state').textContent()).toBe('no session');
      // The board's folder is bound to a list with no task yet: it is offered first (the page opens on the Now view).
      expect(await p.locator('#lists > .list-item.bound').getAttribute('data-list')).toBe('bound-list');
      await p.waitForSelector('body.now-mode #now-needs');
      await p.click('#lists > .list-item.bound');
      await p.waitForSelector('.list-item.bound.selected');
      expect(await p.locator('.new-list').textContent()).toMatch(
        /^Claude Code sessions started in the board's folder use this list \(bound by ~\/work\/shop\/\.claude\/settings\.local\.json\)/,
      );

      // An agent of the oldest project writes: its list, and its project, come first, as tasks lists now orders them.
      const release = path.join(w.config, 'tasks', 'release-42');
      const task = JSON.parse(fs.readFileSync(path.join(release, '2.json'), 'utf8')) as object;
      fs.writeFileSync(path.join(release, '2.json'), JSON.stringify({ ...task, status: 'in_progress' }));
      await until('release-42 first', async () => (await sidebar(p))[0]?.[1][0] === 'release-42');
      expect(await sidebar(p)).toEqual(expectedSidebar(w, lists(w)));
      // Another list opened (a new event stream): its first overview has the change too.
      await item(p, IDS.webOld).click();
      await p.waitForSelector('.gone-count');
      await p.waitForTimeout(300);
      expect(await sidebar(p)).toEqual(expectedSidebar(w, lists(w)));
      await shot(p, 'sessions');
    });

    it("shows a named list's sessions, lists no transcript can tell apart as tasks lists says it, and TodoWrite todos read-only", async () => {
      const w = sessionsWorld();
      const p = await open(w, '#list=release-42');
      await p.waitForSelector('.head-sessions');
      expect(await p.locator('.head-sessions .sessions-other').textContent()).toBe('also sessions 11111111 ended');
      await item(p, 'build-201').click();
      const note = run(w.config, ['lists'], { cwd: w.here }).stderr.trim();
      expect(await p.locator('.head-sessions .sessions-unsure').textContent()).toBe(note);
      await item(p, IDS.docs).click();
      await p.waitForSelector('.card.todo');
      expect(await p.locator('.card.todo .subject').allTextContents()).toEqual(['Run tests', 'Refactor auth', 'Analyse code']);
      expect(await p.locator('.list-head .tag.kind').textContent()).toBe('TodoWrite todos · read-only');
      expect(await p.locator('button[data-action], #new-task, #undo').count()).toBe(0);
    });

    it('titles every list by its own name, with the name Claude Code gave its session below', async () => {
      const w = sessionsWorld();
      const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
      try {
        // A session of release-42 runs again: Claude Code names it after its folder (ci-eb).
        writeLiveSession(w.config, {
          pid: sleeper.pid as number,
          sessionId: IDS.release2,
          cwd: path.join(w.home, 'ci'),
          status: 'idle',
          name: 'ci-eb',
        });
        const p = await open(w);
        expect(await item(p, 'release-42').locator('.list-title').textContent()).toBe('release-42');
        expect(await item(p, 'release-42').locator('.list-session-name').textContent()).toBe('ci-eb');
        // A session's own list by its own (short) id too, which a rename of the session does not move; the session's name below it.
        expect(await item(p, IDS.api).locator('.list-title').textContent()).toBe(IDS.api.slice(0, 8));
        expect(await item(p, IDS.api).locator('.list-session-name').textContent()).toBe('api-rate-limit');
      } finally {
        sleeper.kill('SIGKILL');
      }
    });

    it("makes a live session's list, before its first task, where its agent will read it", async () => {
      const w = sessionsWorld();
      const p = await open(w, `#list=${IDS.webNew}`);
      await p.waitForSelector('.new-list');
      expect(await p.locator('.new-list').textContent()).toBe(
        'session 9a0b1c2d (live, idle) writes its tasks here: it has made none yet. A task made here makes the list, where its agent reads it.',
      );
      await p.click('#new-task');
      await p.fill('dialog input[name="subject"]', 'Update the changelog');
      await p.click('dialog button[data-submit]');
      await p.waitForSelector('.card[data-task="1"]');
      const file = path.join(w.config, 'tasks', IDS.webNew, '1.json');
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ id: '1', subject: 'Update the changelog', status: 'pending' });
      await until('a list of its own', async () => (await item(p, IDS.webNew).getAttribute('data-kind')) === 'tasks');
    });

    it('follows signs of life: a session turning busy, and one whose process is gone without a word (crashed)', async () => {
      const w = sessionsWorld();
      const p = await open(w);
      // Claude Code rewrites its live-session file when a turn starts.
      const liveFile = fs
        .readdirSync(path.join(w.config, 'sessions'))
        .map((f) => path.join(w.config, 'sessions', f))
        .find((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { sessionId: string }).sessionId === IDS.webNew) as string;
      const live = JSON.parse(fs.readFileSync(liveFile, 'utf8')) as { pid: number; cwd: string; startedAt: number };
      writeLiveSession(w.config, {
        pid: live.pid,
        sessionId: IDS.webNew,
        cwd: live.cwd,
        status: 'busy',
        name: 'web-login',
        start: live.startedAt,
      });
      await p.waitForSelector(`.list-item[data-list="${IDS.webNew}"] .state:text-is("live, busy")`, { timeout: 8000 });
      // The api session's process dies: no file changes; the board looks at processes every few seconds.
      w.stop();
      await p.waitForSelector(`.list-item[data-list="${IDS.api}"] .state:text-is("crashed")`, { timeout: 12_000 });
      const rows = JSON.parse(run(w.config, ['lists', '--json'], { cwd: w.here }).stdout) as Array<{ id: string; state: string }>;
      expect(rows.find((r) => r.id === IDS.api)?.state).toBe('crashed');
    });

    it('keeps TodoWrite sessions past the most recent behind a button, as tasks lists keeps them behind --all', async () => {
      const w = sessionsWorld();
      const now = Date.now();
      for (let i = 0; i < 22; i++) {
        const id = `dddddddd-0000-4000-8000-${String(i).padStart(12, '0')}`;
        writeTranscript(w.config, {
          sessionId: id,
          cwd: w.dirs.docs,
          prompt: `old todo session ${i}`,
          start: now - (30 + i) * 3600_000,
          end: now - (29 + i) * 3600_000,
        });
      }
      const p = await open(w);
      const said = run(w.config, ['lists'], { cwd: w.here }).stderr;
      expect(said).toContain('3 older TodoWrite sessions not shown (23 in all): tasks lists --all shows them');
      expect(await p.locator('.list-item[data-kind="todowrite"]').count()).toBe(20);
      await p.click('.more-todowrite:text-is("3 older TodoWrite sessions not shown: show them")');
      await until('every TodoWrite session', async () => (await p.locator('.list-item[data-kind="todowrite"]').count()) === 23);
      expect(await sidebar(p)).toEqual(expectedSidebar(w, lists(w)));
    });
  },
);
