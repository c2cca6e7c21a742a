import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { BoardRun } from '../helpers/board.js';
import { axe, browserAvailable, CHROMIUM, SHOTS, shot as shotAt, useBoardBrowser } from '../helpers/board-browser.js';
import { API, agent, fileOf, task, until, WEB, world } from '../helpers/board-world.js';
import { tempConfig } from '../helpers/cli.js';

/**
 * The board for every person, in a real browser (Debian's chromium, driven by
 * playwright-core): accessible (axe-core finds nothing serious or critical) in the light
 * and the dark theme, worked by keyboard alone with focus kept where the person was,
 * usable on a phone, and a graph that is updated in place (a drag goes on through an
 * agent's change). Screenshots of each width and theme go to $TASKS_BOARD_SCREENSHOTS
 * (the guide's come from here: TASKS_BOARD_SCREENSHOTS=docs/images).
 */

/** A list of `n` tasks in layers of 12 (each waits for one of the layer before), its work in progress deep inside. */
function bigList(config: string, n: number): string {
  const dir = path.join(config, 'tasks', 'big');
  const width = 12;
  const busyLayer = Math.floor(n / width / 2);
  for (let i = 1; i <= n; i++) {
    const layer = Math.floor((i - 1) / width);
    const blockedBy = layer === 0 ? [] : [String(i - width)];
    const blocks = i + width <= n ? [String(i + width)] : [];
    const status = layer < busyLayer ? 'completed' : layer === busyLayer && i % width === 3 ? 'in_progress' : 'pending';
    task(dir, String(i), `Step ${i}: migrate table ${i % 37}`, status, {
      blockedBy,
      blocks,
      owner: status === 'in_progress' ? 'worker' : undefined,
    });
  }
  return dir;
}

/** The task whose card or node has focus, if any. */
const focusedTask = (p: Page) => p.evaluate(() => document.activeElement?.closest('[data-task]')?.getAttribute('data-task') ?? null);

/** A picture once every toast is gone (a screenshot shows the page, not the last action's word). */
const shot = (page: Page, name: string) => shotAt(page, name, { toast: '.toast', toastMs: 8000 });

describe.skipIf(!browserAvailable)(
  `the board for every person${browserAvailable ? '' : ` (skipped: no chromium at ${CHROMIUM}; apt-get install chromium)`}`,
  () => {
    const b = useBoardBrowser({ console: /status of 409/ });
    let board: BoardRun | undefined;

    async function open(
      config: string,
      hash = '',
      opts: { width?: number; height?: number; scheme?: 'light' | 'dark' } = {},
    ): Promise<Page> {
      if (board === undefined) {
        board = await b.board(config, [], { USER: 'carol' });
        b.after(() => {
          board = undefined;
        });
      }
      return b.page(`${board.url}${hash}`, {
        width: opts.width ?? 1440,
        height: opts.height ?? 900,
        scheme: opts.scheme ?? 'dark',
        reducedMotion: 'no-preference',
      });
    }

    it('has no serious or critical axe violation in the board, detail and graph views, light and dark', async () => {
      const { config } = world();
      const found: Record<string, string[]> = {};
      for (const scheme of ['light', 'dark'] as const) {
        const p = await open(config, `#list=${API}`, { scheme });
        await p.waitForSelector('.col-in_progress .card[data-task="3"]');
        await p.waitForSelector(`.list-item[data-list="${WEB}"]`);
        expect(await p.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(scheme);
        found[`board ${scheme}`] = await axe(p);
        await p.click('.card[data-task="3"]');
        await p.waitForSelector('#detail:not([hidden]) .detail-subject');
        found[`detail ${scheme}`] = await axe(p);
        await p.keyboard.press('Escape');
        await p.click('#tab-graph');
        await p.waitForSelector('svg.graph .node[data-task="5"]');
        found[`graph ${scheme}`] = await axe(p);
        await p.close();
      }
      expect(found).toEqual({
        'board light': [],
        'detail light': [],
        'graph light': [],
        'board dark': [],
        'detail dark': [],
        'graph dark': [],
      });
    });

    it("follows the system's theme until the toggle picks one, remembered across a reload; reduced motion stops the spinners", async () => {
      const { config } = world();
      const p = await open(config, `#list=${API}`, { scheme: 'light' });
      await p.waitForSelector('.card[data-task="3"] .spinner');
      const bg = () => p.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg'));
      const light = await bg();
      await p.emulateMedia({ colorScheme: 'dark' });
      const dark = await bg();
      expect(dark).not.toBe(light);
      // The toggle: system → light → dark → system; light wins over a dark system, and stays after a reload.
      await p.click('#theme-toggle');
      expect(await p.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
      expect(await bg()).toBe(light);
      await p.reload();
      await p.waitForSelector('.card[data-task="3"]');
      expect(await bg()).toBe(light);
      expect(await p.locator('#theme-toggle').textContent()).toContain('Light');
      await p.click('#theme-toggle');
      expect(await bg()).toBe(dark);
      await p.click('#theme-toggle');
      expect(await p.evaluate(() => document.documentElement.dataset.theme ?? 'system')).toBe('system');
      const spin = () => p.evaluate(() => getComputedStyle(document.querySelector('.card .spinner') as Element).animationName);
      expect(await spin()).toBe('spin');
      await p.emulateMedia({ reducedMotion: 'reduce' });
      expect(await spin()).toBe('none');
    });

    it("acts by keyboard: Enter and Space on a card's button act (the task is not opened) and focus stays on the card, through an agent's change", async () => {
      const { config, api } = world();
      const p = await open(config, `#list=${API}`);
      await p.waitForSelector('.col-pending .card[data-task="7"]');
      await p.focus('.card[data-task="7"] button[data-action="start"]');
      await p.keyboard.press('Enter');
      await until('#7 started', () => fileOf(api, '7').status === 'in_progress');
      await p.waitForSelector('.col-in_progress .card[data-task="7"]');
      expect(await p.locator('#detail').isHidden()).toBe(true);
      expect(await focusedTask(p)).toBe('7');
      // Space on Done.
      await p.focus('.card[data-task="7"] button[data-action="done"]');
      await p.keyboard.press(' ');
      await until('#7 done', () => fileOf(api, '7').status === 'completed');
      await p.waitForSelector('.col-completed .card[data-task="7"]');
      expect(await focusedTask(p)).toBe('7');
      expect(await p.locator('#detail').isHidden()).toBe(true);
      // Enter on the card opens it; focus stays on the card, and stays there when an agent changes the task.
      await p.focus('.card[data-task="8"]');
      await p.keyboard.press('Enter');
      await p.waitForSelector('#detail:not([hidden])');
      expect(await focusedTask(p)).toBe('8');
      agent(api, 'update', '8', JSON.stringify({ subject: 'Update the changelog and the release notes' }));
      await p.waitForSelector('.card[data-task="8"] .subject:text("release notes")');
      expect(await focusedTask(p)).toBe('8');
      expect(await p.evaluate(() => document.activeElement?.classList.contains('card'))).toBe(true);
      await p.keyboard.press('Escape');
      await p.waitForSelector('#detail', { state: 'hidden' });
      expect(await focusedTask(p)).toBe('8');
    });

    it('has shortcuts, listed under ?: j/k move, s starts, d marks done, a assigns to me and starts, / searches, g shows the graph', async () => {
      const { config, api } = world();
      const p = await open(config, `#list=${API}`);
      await p.waitForSelector('.card[data-task="8"]');
      await p.keyboard.press('?');
      await p.waitForSelector('dialog[open] .keys');
      const listed = await p.locator('dialog .keys dt').allTextContents();
      for (const key of ['j', 'k', 'Enter', 's', 'd', 'a', '/', 'g', 'Esc', '?']) expect(listed.join(' ')).toContain(key);
      expect(await p.locator('dialog .keys dd').allTextContents()).toContain(
        'assign the task to you and start it (Assign to me & start: as an agent claims a task, one that is pending, unowned and not blocked)',
      );
      await p.keyboard.press('Escape');
      await p.waitForSelector('dialog[open]', { state: 'detached' });
      // j from nothing focuses the first card; j again the next one, in reading order.
      await p.keyboard.press('j');
      expect(await focusedTask(p)).toBe('5');
      await p.keyboard.press('j');
      expect(await focusedTask(p)).toBe('6');
      await p.keyboard.press('k');
      expect(await focusedTask(p)).toBe('5');
      await p.keyboard.press('j');
      await p.keyboard.press('j');
      expect(await focusedTask(p)).toBe('7');
      await p.keyboard.press('s');
      await until('#7 started by s', () => fileOf(api, '7').status === 'in_progress');
      await p.waitForSelector('.col-in_progress .card[data-task="7"]');
      expect(await focusedTask(p)).toBe('7');
      await p.keyboard.press('d');
      await until('#7 done by d', () => fileOf(api, '7').status === 'completed');
      await p.waitForSelector('.col-completed .card[data-task="7"]');
      expect(await focusedTask(p)).toBe('7');
      // a: Assign to me & start, as the detail's button claims it: #8 waited for #7 only, done now, so it is ready.
      await p.focus('.col-pending .card[data-task="8"]');
      await p.keyboard.press('a');
      await until('#8 claimed by a', () => fileOf(api, '8').owner === 'carol' && fileOf(api, '8').status === 'in_progress');
      await p.waitForSelector('.col-in_progress .card[data-task="8"]');
      expect(await focusedTask(p)).toBe('8');
      // A task the claim rule refuses: said in its words, nothing written, focus kept.
      await p.focus('.card[data-task="5"]');
      await p.keyboard.press('a');
      await p.waitForSelector('.toast:has-text("cannot claim task #5: blocked by #3, #4")');
      expect(fileOf(api, '5')).not.toHaveProperty('owner');
      expect(fileOf(api, '5').status).toBe('pending');
      expect(await focusedTask(p)).toBe('5');
      await p.keyboard.press('/');
      expect(await p.evaluate(() => document.activeElement?.id)).toBe('f-search');
      // Keys typed in a field are text, not shortcuts.
      await p.keyboard.type('gs');
      expect(await p.inputValue('#f-search')).toBe('gs');
      await p.fill('#f-search', '');
      await p.focus('.card[data-task="5"]');
      await p.keyboard.press('g');
      await p.waitForSelector('svg.graph .node[data-task="5"]');
      expect(p.url()).toContain('view=graph');
    });

    it("keeps the graph's nodes (their places and elements) across an agent's change, and a drag goes on through it", async () => {
      const { config, api } = world();
      const p = await open(config, `#list=${API}&view=graph`);
      await p.waitForSelector('svg.graph .node[data-task="7"]');
      const node7 = await p.$('svg.graph .node[data-task="7"]');
      const node3 = await p.$('svg.graph .node[data-task="3"]');
      const at3 = await node3!.getAttribute('transform');
      const box = (await node7!.boundingBox())!;
      const from = { x: box.x + 40, y: box.y + 20 };
      const before = await node7!.getAttribute('transform');
      await p.mouse.move(from.x, from.y);
      await p.mouse.down();
      await p.mouse.move(from.x + 60, from.y + 30, { steps: 5 });
      // Mid-drag, an agent starts #3 and creates a task (the graph's shape changes).
      agent(api, 'update', '3', JSON.stringify({ subject: 'Implement the token bucket' }));
      agent(api, 'create', 'Add a 429 page to the docs', JSON.stringify({ blockedBy: ['7'] }));
      await p.waitForSelector('svg.graph .node[data-task="10"]', { timeout: 5000 });
      await p.waitForSelector('svg.graph .node[data-task="3"] text:text("token bucket")');
      await p.mouse.move(from.x + 120, from.y + 60, { steps: 5 });
      await p.mouse.up();
      // The same elements, the untouched node where it was, the dragged one where the pointer left it.
      expect(await node7!.evaluate((n) => n.isConnected)).toBe(true);
      expect(await node3!.evaluate((n) => n.isConnected)).toBe(true);
      expect(await node3!.getAttribute('transform')).toBe(at3);
      const after = (await node7!.boundingBox())!;
      expect(Math.abs(after.x - (box.x + 120))).toBeLessThan(4);
      expect(Math.abs(after.y - (box.y + 60))).toBeLessThan(4);
      expect(await node7!.getAttribute('transform')).not.toBe(before);
      // The drag did not open the task; the edge to the new task follows the moved node.
      expect(p.url()).not.toContain('task=');
      const edge = await p.getAttribute('path.edge[data-from="7"][data-to="10"]', 'd');
      expect(edge).toMatch(/^M/);
      // Another change: the moved node stays where it was put.
      const moved = await node7!.getAttribute('transform');
      agent(api, 'update', '7', JSON.stringify({ owner: 'writer' }));
      await p.waitForSelector('svg.graph .node[data-task="7"] text:text("@writer")');
      expect(await node7!.getAttribute('transform')).toBe(moved);
      // A click without moving opens the task.
      await p.click('svg.graph .node[data-task="5"]');
      await p.waitForSelector('#detail:not([hidden])');
      expect(p.url()).toContain('task=5');
    });

    it('opens a big graph on its work in progress, at a readable zoom', async () => {
      const config = tempConfig();
      bigList(config, 500);
      const p = await open(config, '#list=big&view=graph');
      await p.waitForFunction(() => document.querySelectorAll('svg.graph .node').length === 500, null, { timeout: 30_000 });
      const zoom = Number(await p.getAttribute('.graph-wrap', 'data-zoom'));
      expect(zoom).toBeGreaterThanOrEqual(80);
      const svg = (await p.locator('svg.graph').boundingBox())!;
      const busy = (await p.locator('svg.graph .node.in_progress').first().boundingBox())!;
      expect(busy.x).toBeGreaterThanOrEqual(svg.x);
      expect(busy.x + busy.width).toBeLessThanOrEqual(svg.x + svg.width);
      expect(busy.y).toBeGreaterThanOrEqual(svg.y);
      expect(busy.y + busy.height).toBeLessThanOrEqual(svg.y + svg.height);
    });

    it('is usable at 390 px: the lists behind a toggle, one column at a time, the first card above the fold, taps work', async () => {
      const { config, api } = world();
      const p = await open(config, `#list=${API}`, { width: 390, height: 844 });
      await p.waitForSelector('.col-in_progress .card[data-task="3"]');
      expect(await p.locator('#sidebar').isHidden()).toBe(true);
      // One column: the one with the work in progress.
      expect(await p.locator('.col-in_progress').isVisible()).toBe(true);
      expect(await p.locator('.col-pending').isHidden()).toBe(true);
      const first = (await p.locator('.col-in_progress .card').first().boundingBox())!;
      expect(first.y + first.height).toBeLessThanOrEqual(844);
      expect(first.width).toBeGreaterThan(300);
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await shot(p, 'board-390-dark');
      // The switcher shows another column; a tap on its card's Start acts.
      await p.click('.col-switch button[data-column="pending"]');
      expect(await p.locator('.col-pending').isVisible()).toBe(true);
      expect(await p.locator('.col-in_progress').isHidden()).toBe(true);
      await p.click('.card[data-task="7"] button[data-action="start"]', { timeout: 3000 });
      await until('#7 started by a tap', () => fileOf(api, '7').status === 'in_progress');
      // The lists: a drawer, closed by choosing one, or by Esc.
      await p.click('#sidebar-toggle');
      expect(await p.locator('#sidebar').isVisible()).toBe(true);
      expect(await p.getAttribute('#sidebar-toggle', 'aria-expanded')).toBe('true');
      await p.click(`.list-item[data-list="${WEB}"]`);
      expect(await p.locator('#sidebar').isHidden()).toBe(true);
      await p.waitForSelector('.card[data-task="2"]');
    });

    it('fits or scrolls the three columns on purpose at 900 px, and each column scrolls on its own', async () => {
      const config = tempConfig();
      const dir = path.join(config, 'tasks', 'long');
      for (let i = 1; i <= 40; i++) task(dir, String(i), `Task number ${i}`, i <= 30 ? 'pending' : 'completed');
      const p = await open(config, '#list=long', { width: 900, height: 700 });
      await p.waitForSelector('.card[data-task="40"]');
      const columns = await p.locator('.column').evaluateAll((cs) =>
        cs.map((c) => {
          const r = c.getBoundingClientRect();
          return { right: r.right, visible: r.width > 0 };
        }),
      );
      expect(columns.every((c) => c.visible)).toBe(true);
      // All three inside the window: none cut off.
      expect(Math.max(...columns.map((c) => c.right))).toBeLessThanOrEqual(900);
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(900);
      // The pending column scrolls; the page and the other columns do not move.
      const body = p.locator('.col-pending .column-body');
      expect(await body.evaluate((b) => b.scrollHeight > b.clientHeight)).toBe(true);
      await body.evaluate((b) => {
        b.scrollTop = 400;
      });
      expect(await p.locator('.col-completed .column-body').evaluate((b) => b.scrollTop)).toBe(0);
      expect(await p.locator('#view').evaluate((v) => v.scrollTop)).toBe(0);
      const head = (await p.locator('.col-pending .column-head').boundingBox())!;
      expect(head.y).toBeGreaterThan(0);
    });

    it("draws a card's marks as pills as wide as their words, and the filters' hints whole", async () => {
      const config = tempConfig();
      const dir = path.join(config, 'tasks', 'marks');
      // Metadata: the card says "2 meta", a mark like "ready" beside it.
      task(dir, '1', 'Tag me', 'pending', { metadata: { area: 'api', size: 's' } });
      const p = await open(config, '#list=marks');
      await p.waitForSelector('.card[data-task="1"] .mark.meta-count');
      const spare = await p.locator('.card .mark').evaluateAll((marks) =>
        marks.map((m) => {
          const words = document.createRange();
          words.selectNodeContents(m);
          return { text: m.textContent, spare: m.getBoundingClientRect().width - words.getBoundingClientRect().width };
        }),
      );
      expect(spare.map((m) => m.text)).toContain('2 meta');
      // Its padding and border (7 px a side and 1 px), no more.
      for (const m of spare) expect(m.spare, m.text ?? '').toBeLessThan(20);
      for (const input of ['#f-search', '#f-meta']) {
        const cut = await p.locator(input).evaluate((el) => {
          const i = el as HTMLInputElement;
          const probe = document.createElement('span');
          const style = getComputedStyle(i);
          probe.style.font = style.font;
          probe.style.position = 'absolute';
          probe.textContent = i.placeholder;
          document.body.append(probe);
          const need = probe.getBoundingClientRect().width;
          probe.remove();
          return need - (i.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight));
        });
        expect(cut, input).toBeLessThanOrEqual(0);
      }
    });

    it.skipIf(!SHOTS)('takes the screenshots: 1440x900, 1024x768 and 390x844, light and dark', async () => {
      const { config } = world();
      for (const scheme of ['light', 'dark'] as const) {
        for (const [width, height] of [
          [1440, 900],
          [1024, 768],
          [390, 844],
        ] as const) {
          const p = await open(config, `#list=${API}`, { width, height, scheme });
          await p.waitForSelector('.card[data-task="3"]');
          await p.waitForSelector(`.list-item[data-list="${WEB}"]`, { state: 'attached' });
          await shot(p, `board-${width}-${scheme}`);
          if (width !== 390) {
            await p.click('.card[data-task="3"]');
            await p.waitForSelector('#detail:not([hidden]) .detail-subject');
            await shot(p, `detail-${width}-${scheme}`);
            await p.keyboard.press('Escape');
            await p.click('#tab-graph');
            await p.waitForSelector('svg.graph .node[data-task="5"]');
            await shot(p, `graph-${width}-${scheme}`);
          }
          await p.close();
        }
      }
    });
  },
);
