import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type BoardRun, startBoard } from './board.js';
import { CHROMIUM, chromiumAvailable, launchChromium } from './browser.js';

/**
 * The set-up every browser test of the board shares: one chromium for the file (Debian's,
 * driven by playwright-core), a page per test opened as a person opens it (a size, a
 * system theme, the page's errors collected), boards started as a user starts them, and,
 * after each test, every page closed, every board killed, every world stopped, and no
 * error of the page left unexplained. Screenshots go to $TASKS_BOARD_SCREENSHOTS when it
 * is set (the guide's images come from there: TASKS_BOARD_SCREENSHOTS=docs/images).
 */
export { axe, CHROMIUM } from './browser.js';

export const SHOTS = process.env.TASKS_BOARD_SCREENSHOTS;
export const browserAvailable = chromiumAvailable();
/** The suffix of a browser suite's title where no chromium is installed. */
export const SKIPPED = browserAvailable ? '' : ` (skipped: no chromium at ${CHROMIUM}; apt-get install chromium)`;

/** A picture of the page as it is once the last action's passing word (`toast`) is gone; nothing without $TASKS_BOARD_SCREENSHOTS. */
export async function shot(page: Page, name: string, o: { toast?: string; toastMs?: number } = {}): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.waitForSelector(o.toast ?? '.toast.ok', { state: 'detached', timeout: o.toastMs ?? 5000 }).catch(() => undefined);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

export interface PageOptions {
  width?: number;
  height?: number;
  /** The system's theme (prefers-color-scheme); none: the browser's default. */
  scheme?: 'light' | 'dark';
  reducedMotion?: 'reduce' | 'no-preference';
  /**
   * Console errors that are answers the page shows, not errors of the page (a refused
   * action's 409, say); false: console errors are not collected at all (only uncaught ones).
   */
  console?: RegExp | false;
  /** Run before the page loads (page.addInitScript, stand-ins for browser APIs). */
  init?: (page: Page) => Promise<void>;
  /** How long the page may take to load (ms). */
  timeout?: number;
}

export interface BoardBrowser {
  readonly browser: BrowserContext;
  /** The errors of every page so far (checked empty after each test). */
  readonly errors: string[];
  /** `tasks board --json` as a user starts it, killed after the test. */
  board(config: string, args?: string[], env?: Record<string, string | undefined>, cwd?: string): Promise<BoardRun>;
  /** A new tab at `url` (closed after the test), its errors collected. */
  page(url: string, o?: PageOptions): Promise<Page>;
  /** Something to undo after the test (a world's stand-in processes). */
  after(cleanup: () => void | Promise<void>): void;
}

/**
 * Registers the suite's hooks (call it in the describe's body): chromium launched before
 * its first test and closed after its last; after each test, pages closed, boards
 * killed, cleanups run, then the pages' errors expected to be none.
 */
export function useBoardBrowser(defaults: PageOptions = {}): BoardBrowser {
  let browser: BrowserContext | undefined;
  let close: (() => Promise<void>) | undefined;
  const pages: Page[] = [];
  const boards: BoardRun[] = [];
  const cleanups: Array<() => void | Promise<void>> = [];
  const errors: string[] = [];

  beforeAll(async () => {
    ({ browser, close } = await launchChromium());
  });
  afterAll(async () => close?.());
  afterEach(async () => {
    for (const p of pages.splice(0)) await p.close().catch(() => undefined);
    for (const b of boards.splice(0)) await b.stop('SIGKILL');
    for (const c of cleanups.splice(0)) await c();
    const seen = errors.splice(0);
    expect(seen).toEqual([]);
  });

  return {
    get browser() {
      if (browser === undefined) throw new Error('the browser is not launched yet (use it inside a test)');
      return browser;
    },
    errors,
    async board(config, args = [], env = {}, cwd) {
      const b = await startBoard(config, args, env, cwd);
      boards.push(b);
      return b;
    },
    async page(url, opts = {}) {
      const o = { ...defaults, ...opts };
      const page = await this.browser.newPage();
      // A loaded CI machine can take longer than Playwright's 30 s default to act; a real
      // failure still fails, later.
      page.setDefaultTimeout(60_000);
      pages.push(page);
      if (o.width !== undefined || o.height !== undefined) await page.setViewportSize({ width: o.width ?? 1440, height: o.height ?? 900 });
      if (o.scheme !== undefined || o.reducedMotion !== undefined)
        await page.emulateMedia({
          ...(o.scheme === undefined ? {} : { colorScheme: o.scheme }),
          ...(o.reducedMotion === undefined ? {} : { reducedMotion: o.reducedMotion }),
        });
      page.on('pageerror', (e) => errors.push(e.message));
      const ignored = o.console;
      if (ignored !== false)
        page.on('console', (m) => m.type() === 'error' && !(ignored ?? /status of 409/).test(m.text()) && errors.push(m.text()));
      await o.init?.(page);
      await page.goto(url, o.timeout === undefined ? {} : { timeout: o.timeout });
      return page;
    },
    after(cleanup) {
      cleanups.push(cleanup);
    },
  };
}
