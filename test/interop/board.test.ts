/**
 * Interop: the board and a real Claude Code session. The agent works in its project
 * (its list is its session's own); the board, opened in chromium before the agent
 * starts, shows the new list under that project with the session live and busy, the
 * agent's tasks as it creates them and its start of one, without a reload. Between two
 * of the agent's turns the person completes that task on the board; the agent's next
 * TaskGet is told it is completed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBoard } from '../helpers/board.js';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';

const available = chromiumAvailable();

function gate() {
  let open!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const arrived = new Promise<void>((r) => (reached = r));
  return {
    open,
    arrived,
    wait: async () => {
      reached();
      await opened;
    },
  };
}

describe.skipIf(!available)(`the real Claude Code, seen on the board${available ? '' : ` (skipped: no chromium at ${CHROMIUM})`}`, () => {
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  beforeAll(async () => ({ browser, close: closeBrowser } = await launchChromium()));
  afterAll(async () => closeBrowser?.());

  it("shows the agent's list and tasks live, and the agent sees the person's done", async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'shop');
    fs.mkdirSync(project, { recursive: true });
    const board = await startBoard(config, [], { USER: 'carol' });
    const page = await browser.newPage();
    try {
      await page.goto(board.url);
      await page.waitForSelector('.conn.live');

      const afterCreates = gate();
      const afterStart = gate();
      const turns: Turn[] = [
        [
          { name: 'TaskCreate', input: { subject: 'Plan the checkout', description: 'from the agent' } },
          { name: 'TaskCreate', input: { subject: 'Build the cart', description: 'from the agent' } },
        ],
        [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', activeForm: 'Planning the checkout' } }],
        [{ name: 'TaskGet', input: { taskId: '1' } }],
      ];
      const run = runAgent({
        configDir: config,
        listId: undefined,
        cwd: project,
        prompt: 'build the checkout flow',
        turns,
        beforeTurn: (i) => (i === 1 ? afterCreates.wait() : i === 2 ? afterStart.wait() : undefined),
      });

      // The agent made its two tasks and waits: its list is on the board, under its project, live.
      await afterCreates.arrived;
      const item = await page.waitForSelector('.list-item:has-text("build the checkout flow")', { timeout: 15_000 });
      const sessionList = (await item.getAttribute('data-list')) as string;
      expect(fs.existsSync(path.join(config, 'tasks', sessionList, '2.json'))).toBe(true);
      expect(await page.locator('.project-name').allTextContents()).toContain('~/work/shop');
      await page.waitForSelector(`.list-item[data-list="${sessionList}"] .state:text("live, busy")`, { timeout: 15_000 });
      await item.click();
      await page.waitForSelector('.col-pending .card[data-task="2"]:has-text("Build the cart")');

      // Its next turn starts #1: the card moves, with its activeForm, without a reload.
      afterCreates.open();
      await afterStart.arrived;
      await page.waitForSelector('.col-in_progress .card[data-task="1"] .active-form:text("Planning the checkout")', { timeout: 15_000 });

      // The person completes #1 on the board while the agent waits between turns.
      await page.click('.card[data-task="1"] button[data-action="done"]');
      await page.waitForSelector('.col-completed .card[data-task="1"]');
      const file = JSON.parse(fs.readFileSync(path.join(config, 'tasks', sessionList, '1.json'), 'utf8')) as { status: string };
      expect(file.status).toBe('completed');
      afterStart.open();
      const done = await run;
      const told = done.received
        .filter((r) => r.turn === 2)
        .map((r) => r.text)
        .join('\n');
      expect(told).toMatch(/Status: completed/);
    } finally {
      await page.close();
      await board.stop();
    }
  });
});
