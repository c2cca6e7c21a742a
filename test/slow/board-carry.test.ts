/**
 * Carry and restore on the board's page, in a real browser (Debian's chromium, driven by
 * playwright-core): a list /clear left behind offers "Carry to <session>", and the Now
 * view's "agent gone" entries offer Carry too; each shows the command's dry run, and
 * carries on a yes, the files as `tasks carry` leaves them; a live agent's list needs a
 * second, explicit yes (Carry anyway: --force); the gone lists of `tasks lists --all`
 * offer Restore with its dry run, from the transcripts found or the sessions the person
 * names (--from). Each dialog has no serious or critical axe violation in the light and
 * the dark theme, and the person's changes are taken back by `tasks undo`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { BoardRun } from '../helpers/board.js';
import { axe, browserAvailable, SKIPPED, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { until } from '../helpers/board-world.js';
import { readJson } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { GONE_SESSION as GONE, IDS, type SessionsWorld, sessionsWorld, writeGoneSession } from '../helpers/sessions-world.js';

const PERSON = { USER: 'carol', LOGNAME: 'carol' };

const listDir = (w: SessionsWorld, id: string) => path.join(w.config, 'tasks', id);
const cli = (w: SessionsWorld, args: string[]) => runInProcessSync(w.config, args, { env: PERSON, cwd: w.here });

/** Every task file of a list, as it holds it. */
function files(w: SessionsWorld, id: string): Record<string, unknown> {
  const dir = listDir(w, id);
  if (!fs.existsSync(dir)) return {};
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [f, readJson(path.join(dir, f))]),
  );
}

/**
 * A Claude Code process (by its name, as /proc shows it) that shares `list` through
 * CLAUDE_CODE_TASK_LIST_ID: a sign of life of the list that no session file names.
 */
function agentOnList(w: SessionsWorld, list: string): ChildProcess {
  const bin = path.join(w.config, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const claude = path.join(bin, 'claude');
  if (!fs.existsSync(claude)) fs.symlinkSync(fs.realpathSync('/bin/sleep'), claude);
  return spawn(claude, ['300'], {
    cwd: w.dirs.web,
    env: { ...process.env, CLAUDE_CONFIG_DIR: w.config, CLAUDE_CODE_TASK_LIST_ID: list },
    stdio: 'ignore',
  });
}

describe.skipIf(!browserAvailable)(`carry and restore on the board's page${SKIPPED}`, () => {
  // A 404 or 409 is an answer the page shows (nothing recorded; refused), not an error of the page.
  const b = useBoardBrowser({ width: 1440, height: 900, scheme: 'dark', console: /status of 40[49]/ });
  let board: BoardRun | undefined;
  let page: Page;

  async function open(w: SessionsWorld, hash: string, scheme: 'light' | 'dark' = 'dark'): Promise<Page> {
    if (board === undefined || board.child.exitCode !== null || board.child.signalCode !== null) {
      board = await b.board(w.config, [], PERSON, w.here);
      b.after(() => {
        w.stop();
        board = undefined;
      });
    }
    page = await b.page(`${board.url}${hash}`, { scheme });
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
      expect.stringMatching(/^dry run: would carry 1 task from the list of session 7f1c9e22 into the list of session 9a0b1c2d/),
    ]);
    expect(fs.existsSync(listDir(w, IDS.webNew))).toBe(false);
    await shot(p, 'carry');
    expect(await axe(p)).toEqual([]);
    await p.click('dialog button[data-submit]');
    await p.waitForSelector('.toast:has-text("carried 1 task from the list of session 7f1c9e22")');
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
      // There is work to carry (#2 pending), but nowhere to carry it: the title says no more than that.
      expect(await p.locator('#carry-title').textContent()).toBe('Cannot carry from release-42');
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

  it('offers no Carry where a carry would take nothing: a gone agent holding only its own bookkeeping (internal tasks)', async () => {
    const w = sessionsWorld();
    // The list /clear left holds #1 (completed) and #2, in progress, its gone agent's; make #2 internal (agents' bookkeeping).
    const two = path.join(listDir(w, IDS.webOld), '2.json');
    fs.writeFileSync(two, JSON.stringify({ ...(readJson(two) as object), metadata: { _internal: true } }, null, 2));
    const p = await open(w, '');
    // The agent is gone holding #2: the entry is there, with nothing to carry.
    const entry = p.locator(`#now-needs .now-item[data-type="agent-died"]:has-text("${IDS.webOld.slice(0, 8)}")`);
    await entry.waitFor();
    expect(await p.locator(`#now-carry-${IDS.webOld}`).count()).toBe(0);
    const dry = cli(w, ['--session', IDS.webNew, 'carry', '--from', IDS.webOld, '--dry-run']);
    expect(dry.stdout).toBe('');
    // Nor from the list's head.
    await p.close();
    const head = await open(w, `#list=${IDS.webOld}`);
    // Once the list is read (its gone owner counted), the head offers no Carry either.
    await head.waitForSelector('.gone-count');
    expect(await head.locator('#carry').count()).toBe(0);
    await head.close();
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
      await p.waitForSelector('.toast:has-text("restored 2 tasks into the list of session")');
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
    expect(await p.locator('dialog .dry-run-note').textContent()).toMatch(
      /^dry run: would restore 2 tasks into the list of session 6a6a6a6a/,
    );
    expect(await axe(p)).toEqual([]);
    await p.click('dialog button[data-submit]');
    await p.waitForSelector('.card[data-task="2"]');
    await p.waitForSelector('#restore', { state: 'detached' });
    expect(readJson(path.join(listDir(w, GONE), '1.json'))).toMatchObject({ subject: 'Write the migration', status: 'completed' });
  });

  it("carries from the Now view's agent-gone entry, by keyboard: its dry run first, then the files as tasks carry leaves them", async () => {
    const w = sessionsWorld();
    // The same world carried from the command line: what the page's carry must leave, file for file.
    const twin = sessionsWorld();
    try {
      const byCli = cli(twin, ['--session', IDS.webNew, 'carry', '--from', IDS.webOld]);
      expect(byCli.code, byCli.stderr).toBe(0);
      for (const scheme of ['light', 'dark'] as const) {
        const p = await open(w, '', scheme);
        const carry = p.locator(`#now-needs .now-item[data-type="agent-died"] #now-carry-${IDS.webOld}`);
        await carry.waitFor();
        expect(await carry.getAttribute('aria-label')).toBe('Carry the unfinished work of 7f1c9e22…');
        // By keyboard: focus on the entry's button, Enter opens the dialog with its main button focused.
        await carry.focus();
        await p.keyboard.press('Enter');
        await p.waitForSelector('dialog[open] .carry-dialog');
        expect(await p.locator('#carry-title').textContent()).toBe('Carry 1 unfinished task to session 9a0b1c2d?');
        const dry = cli(w, ['--session', IDS.webNew, 'carry', '--from', IDS.webOld, '--dry-run']);
        expect(await p.locator('.dry-run-lines').textContent()).toBe(dry.stdout.trimEnd());
        expect(await p.evaluate(() => document.activeElement?.getAttribute('data-submit'))).toBe('true');
        expect(await axe(p)).toEqual([]);
        if (scheme === 'light') {
          await shot(p, 'now-carry');
          // Escape: nothing carried, focus back on the entry's button.
          await p.keyboard.press('Escape');
          await p.waitForSelector('dialog[open]', { state: 'detached' });
          expect(await p.evaluate(() => document.activeElement?.id)).toBe(`now-carry-${IDS.webOld}`);
          expect(fs.existsSync(listDir(w, IDS.webNew))).toBe(false);
          await p.close();
          continue;
        }
        await p.keyboard.press('Enter');
        await p.waitForSelector('.toast:has-text("carried 1 task from the list of session 7f1c9e22")');
        // The work is carried: the entry goes, and focus stays in its section.
        await p.waitForSelector(`#now-carry-${IDS.webOld}`, { state: 'detached' });
        expect(await p.evaluate(() => document.activeElement?.closest('section')?.id)).toBe('now-needs');
      }
      expect(files(w, IDS.webNew)).toEqual(files(twin, IDS.webNew));
      expect(files(w, IDS.webOld)).toEqual(files(twin, IDS.webOld));
      expect(readJson(path.join(listDir(w, IDS.webNew), '1.json'))).toMatchObject({ subject: 'Fix the cookie race', status: 'pending' });
    } finally {
      twin.stop();
    }
  });

  it('refuses a carry from a list a live agent shares, as the command does, and carries on Carry anyway (--force)', async () => {
    const w = sessionsWorld();
    // A Claude Code process shares the cleared list through its environment: the gone owner's work is still offered from Now.
    const agent = agentOnList(w, IDS.webOld);
    b.after(() => void agent.kill('SIGKILL'));
    const before = files(w, IDS.webOld);
    const refused = cli(w, ['--session', IDS.webNew, 'carry', '--from', IDS.webOld]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/in use by a live agent \(Claude Code process \d+ uses it \(CLAUDE_CODE_TASK_LIST_ID\)\)/);
    expect(files(w, IDS.webOld)).toEqual(before);
    for (const scheme of ['light', 'dark'] as const) {
      const p = await open(w, '', scheme);
      await p.locator(`#now-carry-${IDS.webOld}`).click();
      await p.waitForSelector('dialog[open] .carry-dialog .refusal');
      // The refusal a real run meets, and its override: a danger button, focused, named for what it does.
      expect(await p.locator('dialog .refusal').textContent()).toBe(
        `But a live agent works on this list (Claude Code process ${agent.pid} uses it (CLAUDE_CODE_TASK_LIST_ID)): carrying would take its work. The command refuses without --force.`,
      );
      const anyway = p.locator('dialog button[data-submit]');
      expect(await anyway.textContent()).toBe('Carry anyway');
      expect(await anyway.getAttribute('class')).toBe('danger');
      expect(await p.evaluate(() => document.activeElement?.textContent)).toBe('Carry anyway');
      expect(await axe(p)).toEqual([]);
      if (scheme === 'light') {
        await shot(p, 'carry-anyway');
        await p.locator('dialog button:text-is("Cancel")').click();
        await p.waitForSelector('dialog[open]', { state: 'detached' });
        expect(files(w, IDS.webOld)).toEqual(before);
        await p.close();
        continue;
      }
      await anyway.click();
      await p.waitForSelector('.toast:has-text("carried 1 task from the list of session 7f1c9e22")');
    }
    // Carried as the command carries it with --force (the live agent's claim kept: its work goes on there).
    expect(readJson(path.join(listDir(w, IDS.webNew), '1.json'))).toMatchObject({
      subject: 'Fix the cookie race',
      metadata: { carriedFrom: { list: IDS.webOld, id: '2' } },
    });
    expect(readJson(path.join(listDir(w, IDS.webOld), '2.json'))).toMatchObject({ metadata: { carriedTo: { list: IDS.webNew, id: '1' } } });
    const undo = cli(w, ['-l', IDS.webNew, 'undo']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(files(w, IDS.webOld)).toEqual(before);
  });

  it('restores from the sessions the person names (--from): each choice its dry run and refusals, as the command says them', async () => {
    const w = sessionsWorld();
    writeGoneSession(w.config, w.dirs.api);
    for (const scheme of ['light', 'dark'] as const) {
      const p = await open(w, '', scheme);
      await p.click('#gone-nav');
      await p.click(`dialog .gone-list[data-list="${GONE}"] button`);
      await p.waitForSelector('dialog[open] .restore-dialog');
      // The transcripts read: the list's own session, checked.
      const own = p.locator(`dialog input[data-session="${GONE}"]`);
      expect(await own.isChecked()).toBe(true);
      expect(await p.locator('.restore-source').textContent()).toMatch(
        /^session 6a6a6a6a \(ended\) · ~\/work\/api · 3 changes, its own session$/,
      );
      // Another session by its prefix, by keyboard (Enter in the field adds it): --from 6a6a6a6a --from 2d483082.
      await p.fill('#restore-from', '2d483082');
      await p.press('#restore-from', 'Enter');
      await p.waitForSelector('dialog input[data-session="2d483082-5b0c-4a6e-9f1a-3c1b7e9d4a10"]:checked');
      const both = cli(w, ['-l', GONE, 'restore', '--from', GONE.slice(0, 8), '--from', '2d483082', '--dry-run']);
      expect(await p.locator('.dry-run-lines').textContent()).toBe(both.stdout.trimEnd());
      // The list's own session unchecked (Space): --from 2d483082 alone records nothing of it; focus stays on the box.
      await p.locator(`dialog input[data-session="${GONE}"]`).focus();
      await p.keyboard.press('Space');
      await p.waitForSelector('dialog[open] .restore-dialog .refusal');
      expect(await p.evaluate(() => document.activeElement?.getAttribute('data-session'))).toBe(GONE);
      const none = cli(w, ['-l', GONE, 'restore', '--from', '2d483082', '--dry-run']);
      expect(none.code).toBe(3);
      expect(await p.locator('dialog .refusal').textContent()).toBe(none.stderr.split('\n')[0]?.replace(/^error: /, ''));
      expect(await p.locator('#restore-title').textContent()).toBe('Nothing to restore into 6a6a6a6a');
      expect(await p.locator('dialog button[data-submit]').count()).toBe(0);
      // A session no transcript has: the command's refusal, in its words.
      await p.fill('#restore-from', 'ffff');
      await p.click('#restore-from-add');
      await p.waitForSelector('dialog .refusal:has-text("--from: no transcript of")');
      const unknown = cli(w, ['-l', GONE, 'restore', '--from', 'ffff', '--dry-run']);
      expect(unknown.code).toBe(3);
      expect(await p.locator('dialog .refusal').textContent()).toBe(unknown.stderr.split('\n')[0]?.replace(/^error: /, ''));
      // The session refused stays offered, checked: unchecking it goes back to --from 2d483082.
      expect(await p.locator('dialog input[data-session="ffff"]').isChecked()).toBe(true);
      expect(await axe(p)).toEqual([]);
      if (scheme === 'light') await shot(p, 'restore-from');
      // A click, then the answer it brings: uncheck() would also re-read the box at once,
      // which a redraw on a loaded machine can race.
      await p.locator('dialog input[data-session="ffff"]').click();
      await p.waitForSelector('dialog .refusal:has-text("no Task-tool change")');
      // Back to the list's own session alone: --from 6a6a6a6a, its dry run as the command prints it.
      await p.evaluate(() => {
        for (const box of document.querySelectorAll<HTMLInputElement>('dialog input[type=checkbox]')) box.checked = false;
      });
      await p.fill('#restore-from', GONE.slice(0, 8));
      await p.press('#restore-from', 'Enter');
      await p.waitForSelector('#restore-title:text-is("Restore 2 tasks into 6a6a6a6a?")');
      const dry = cli(w, ['-l', GONE, 'restore', '--from', GONE.slice(0, 8), '--dry-run']);
      expect(await p.locator('.dry-run-lines').textContent()).toBe(dry.stdout.trimEnd());
      expect(await p.locator('dialog .restore-from-help').textContent()).toBe('As tasks restore --from 6a6a6a6a reads them.');
      expect(await axe(p)).toEqual([]);
      if (scheme === 'light') {
        await p.keyboard.press('Escape');
        await p.waitForSelector('dialog[open]', { state: 'detached' });
        expect(fs.existsSync(listDir(w, GONE))).toBe(false);
        await p.close();
        continue;
      }
      await p.click('dialog button[data-submit]');
      await p.waitForSelector('.toast:has-text("restored 2 tasks into the list of session")');
      await p.waitForSelector('.card[data-task="2"]');
    }
    expect(readJson(path.join(listDir(w, GONE), '2.json'))).toMatchObject({ subject: 'Run it on staging', status: 'pending' });
  });
});
