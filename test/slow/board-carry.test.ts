/**
 * Carry and restore on the board's page, in a real browser (Debian's chromium, driven by
 * playwright-core): a list /clear left behind offers "Carry to <session>", shows the
 * command's dry run, and carries on a yes; a live agent's list needs a second, explicit
 * yes; the gone lists of `tasks lists --all` offer Restore with its dry run. Each dialog
 * has no serious or critical axe violation in the light and the dark theme, and the
 * person's changes are taken back by `tasks undo` from the command line.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type BoardRun, startBoard } from '../helpers/board.js';
import { until } from '../helpers/board-world.js';
import { axe, CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { readJson } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { GONE_SESSION as GONE, IDS, type SessionsWorld, sessionsWorld, writeGoneSession } from '../helpers/sessions-world.js';

const SHOTS = process.env.TASKS_BOARD_SCREENSHOTS;
const available = chromiumAvailable();
const PERSON = { USER: 'carol', LOGNAME: 'carol' };

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

const listDir = (w: SessionsWorld, id: string) => path.join(w.config, 'tasks', id);
const cli = (w: SessionsWorld, args: string[]) => runInProcessSync(w.config, args, { env: PERSON, cwd: w.here });

describe.skipIf(!available)(`carry and restore on the board's page${available ? '' : ` (skipped: no chromium at ${CHROMIUM})`}`, () => {
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  let board: BoardRun | undefined;
  let world: SessionsWorld | undefined;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    ({ browser, close: closeBrowser } = await launchChromium());
  });
  afterAll(async () => closeBrowser?.());
  afterEach(async () => {
    await page?.close();
    await board?.stop('SIGKILL');
    world?.stop();
    board = undefined;
    world = undefined;
    expect(errors).toEqual([]);
    errors.length = 0;
  });

  async function open(w: SessionsWorld, hash: string, scheme: 'light' | 'dark' = 'dark'): Promise<Page> {
    world = w;
    board ??= await startBoard(w.config, [], PERSON, w.here);
    page = await browser.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && !/status of 40[49]/.test(m.text()) && errors.push(m.text()));
    await page.goto(`${board.url}${hash}`);
    return page;
  }

  it('carries a cleared list to the session /clear went on as: its dry run first, then the carry; tasks undo takes it back', async () => {
    const w = sessionsWorld();
    // The dialog in the light theme first (nothing carried: Escape), then the carry in the dark one.
    const light = await open(w, `#list=${IDS.webOld}`, 'light');
    await light.locator('#carry').click();
    await light.waitForSelector('dialog[open] .carry-dialog');

    expect(await axe(light)).toEqual([]);
    await light.keyboard.press('Escape');
    await light.close();
    const p = await open(w, `#list=${IDS.webOld}`);
    const button = p.locator('#carry');
    await button.waitFor();
    expect(await button.textContent()).toBe('Carry to 9a0b1c2d…');
    await button.click();
    await p.waitForSelector('dialog[open] .carry-dialog');
    expect(await p.locator('#carry-title').textContent()).toBe('Carry 1 unfinished task to session 9a0b1c2d?');
    // The command's dry run, line for line.
    const dry = cli(w, ['--session', IDS.webNew, 'carry', '--from', IDS.webOld, '--dry-run']);
    expect(await p.locator('.dry-run-lines').textContent()).toBe(dry.stdout.trimEnd());
    expect(await p.locator('.dry-run-note').allTextContents()).toEqual([
      expect.stringMatching(/^dry run: would carry 1 task from list 7f1c9e22 into list 9a0b1c2d/),
    ]);
    expect(fs.existsSync(listDir(w, IDS.webNew))).toBe(false);
    await shot(p, 'carry');
    expect(await axe(p)).toEqual([]);
    await p.click('dialog button[data-submit]');
    await p.waitForSelector('.toast:has-text("carried 1 task from list 7f1c9e22")');
    expect(readJson(path.join(listDir(w, IDS.webNew), '1.json'))).toMatchObject({ subject: 'Fix the cookie race', status: 'pending' });
    // Carried: nothing left to offer, and focus back where the person was.
    await p.waitForSelector('#carry', { state: 'detached' });
    const undo = cli(w, ['-l', IDS.webNew, 'undo']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(readJson(path.join(listDir(w, IDS.webOld), '2.json'))).not.toHaveProperty('metadata.carriedTo');
    // Taken back: offered again.
    await p.waitForSelector('#carry');
  });

  it('says why nothing can be carried, in the dialog, light and dark, without axe violations; nothing written', async () => {
    const w = sessionsWorld();
    const before = fs.readFileSync(path.join(listDir(w, 'release-42'), '2.json'), 'utf8');
    for (const scheme of ['dark', 'light'] as const) {
      // release-42's sessions ended hours ago, #2 still pending, and no session runs in its project: no agent to carry to.
      const p = await open(w, '#list=release-42', scheme);
      await p.locator('#carry').click();
      await p.waitForSelector('dialog[open] .carry-dialog .refusal');
      expect(await p.locator('#carry-title').textContent()).toBe('Nothing to carry from release-42');
      expect(await p.locator('dialog .refusal').textContent()).toMatch(/^no live session to carry to: /);
      expect(await p.locator('dialog button[data-submit]').count()).toBe(0);

      expect(await axe(p)).toEqual([]);
      await p.keyboard.press('Escape');
      await p.waitForSelector('dialog[open]', { state: 'detached' });
      // Focus back on the button that opened it.
      expect(await p.evaluate(() => document.activeElement?.id)).toBe('carry');
      await page.close();
    }
    expect(fs.readFileSync(path.join(listDir(w, 'release-42'), '2.json'), 'utf8')).toBe(before);
    // A live agent's list (the api session is live and busy) is not offered a carry at all.
    const p = await open(w, `#list=${IDS.api}`);
    await p.waitForSelector('.card[data-task="2"]');
    expect(await p.locator('#carry').count()).toBe(0);
  });

  it('lists the gone lists and restores one: its dry run first, then the list shown; tasks undo takes it back', async () => {
    const w = sessionsWorld();
    writeGoneSession(w.config, w.dirs.api);
    for (const scheme of ['dark', 'light'] as const) {
      const p = await open(w, '', scheme);
      await p.click('#gone-nav');
      await p.waitForSelector(`dialog[open] .gone-list[data-list="${GONE}"]`);
      if (scheme === 'light') await shot(p, 'gone-lists');
      expect(await axe(p)).toEqual([]);
      await p.click(`dialog .gone-list[data-list="${GONE}"] button`);
      await p.waitForSelector('dialog[open] .restore-dialog');
      const dry = cli(w, ['-l', GONE, 'restore', '--dry-run']);
      expect(await p.locator('.dry-run-lines').textContent()).toBe(dry.stdout.trimEnd());
      expect(await p.locator('#restore-title').textContent()).toBe('Restore 2 tasks into 6a6a6a6a?');

      expect(await axe(p)).toEqual([]);
      if (scheme === 'dark') {
        await p.keyboard.press('Escape');
        await p.waitForSelector('dialog[open]', { state: 'detached' });
        expect(fs.existsSync(listDir(w, GONE))).toBe(false);
        await page.close();
        continue;
      }
      await p.click('dialog button[data-submit]');
      await p.waitForSelector('.toast:has-text("restored 2 tasks into list")');
      // The restored list is shown.
      await p.waitForSelector('.card[data-task="2"]');
      expect(p.url()).toContain(`list=${GONE}`);
    }
    expect(readJson(path.join(listDir(w, GONE), '2.json'))).toMatchObject({ subject: 'Run it on staging', status: 'pending' });
    const undo = cli(w, ['-l', GONE, 'undo']);
    expect(undo.code, undo.stderr).toBe(0);
    await until('the restored tasks taken back', () => !fs.existsSync(path.join(listDir(w, GONE), '2.json')));
  });

  it('offers Restore on a list left empty (every task done, their files deleted), shows its dry run, and brings the tasks back', async () => {
    const w = sessionsWorld();
    writeGoneSession(w.config, w.dirs.api);
    // The session's list is there, emptied as Claude Code empties a finished list: its mark only.
    fs.mkdirSync(listDir(w, GONE), { recursive: true });
    fs.writeFileSync(path.join(listDir(w, GONE), '.highwatermark'), '2');
    const p = await open(w, `#list=${GONE}`);
    await p.locator('#restore').click();
    await p.waitForSelector('dialog[open] .restore-dialog');
    const dry = cli(w, ['-l', GONE, 'restore', '--dry-run']);
    expect(await p.locator('.dry-run-lines').textContent()).toBe(dry.stdout.trimEnd());
    expect(await p.locator('dialog .dry-run-note').textContent()).toMatch(/^dry run: would restore 2 tasks into list "6a6a6a6a"/);
    expect(await axe(p)).toEqual([]);
    await p.click('dialog button[data-submit]');
    await p.waitForSelector('.card[data-task="2"]');
    await p.waitForSelector('#restore', { state: 'detached' });
    expect(readJson(path.join(listDir(w, GONE), '1.json'))).toMatchObject({ subject: 'Write the migration', status: 'completed' });
  });
});
