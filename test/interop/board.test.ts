/**
 * Interop: the board and a real Claude Code session. The agent works in its project
 * (its list is its session's own); the board, opened in chromium before the agent
 * starts, shows the new list under that project with the session live and busy, the
 * agent's tasks as it creates them and its start of one, without a reload. Between the
 * agent's turns the person acts on the board (start, reassign, block, done, undo, redo):
 * the files agree, and the agent's next TaskList and TaskGet are told exactly what they
 * hold. A change the agent makes while the person has a dialog open is a conflict on the
 * page, and the agent's write stands.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/store/schema.js';
import { request, startBoard } from '../helpers/board.js';
import { browserAvailable, SKIPPED, useBoardBrowser } from '../helpers/board-browser.js';
import { readJson, runAsync, tempConfig } from '../helpers/cli.js';
import { claudeVersion, runAgent } from './agent.js';
import { taskGetText, taskGetViewFor, taskListText } from './agent-views.js';
import type { Turn } from './mock-model.js';

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

describe.skipIf(!browserAvailable)(`the real Claude Code, seen on the board${SKIPPED}`, () => {
  // Each test closes its page and stops its board itself (its agent's run decides when).
  const chromium = useBoardBrowser();

  it("shows the agent's list and tasks live, and the agent sees the person's done", async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'shop');
    fs.mkdirSync(project, { recursive: true });
    const board = await startBoard(config, [], { USER: 'carol' });
    const page = await chromium.browser.newPage();
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

  it("acts on the agent's tasks between its turns, the agent reads what the board wrote, and its change meanwhile is a conflict", async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'shop');
    fs.mkdirSync(project, { recursive: true });
    const board = await startBoard(config, [], { USER: 'carol' });
    const page = await chromium.browser.newPage();
    const until = async (what: string, check: () => boolean) => {
      for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
      if (!check()) throw new Error(`timed out waiting for ${what}`);
    };
    try {
      await page.goto(board.url);
      await page.waitForSelector('.conn.live');
      const afterCreates = gate();
      const afterActs = gate();
      const afterTaking = gate();
      const turns: Turn[] = [
        [
          { name: 'TaskCreate', input: { subject: 'Plan the checkout', description: 'from the agent' } },
          { name: 'TaskCreate', input: { subject: 'Build the cart', description: 'from the agent' } },
          { name: 'TaskCreate', input: { subject: 'Write the checkout tests', description: 'from the agent' } },
        ],
        [
          { name: 'TaskList', input: {} },
          { name: 'TaskGet', input: { taskId: '3' } },
        ],
        // The agent takes #2 while the person is giving it to someone else.
        [{ name: 'TaskUpdate', input: { taskId: '2', status: 'in_progress', owner: 'cart-agent' } }],
        [{ name: 'TaskGet', input: { taskId: '2' } }],
      ];
      const run = runAgent({
        configDir: config,
        listId: undefined,
        cwd: project,
        prompt: 'ship the checkout',
        turns,
        beforeTurn: (i) => (i === 1 ? afterCreates.wait() : i === 2 ? afterActs.wait() : i === 3 ? afterTaking.wait() : undefined),
      });

      await afterCreates.arrived;
      const item = await page.waitForSelector('.list-item:has-text("ship the checkout")', { timeout: 15_000 });
      const listId = (await item.getAttribute('data-list')) as string;
      const dir = path.join(config, 'tasks', listId);
      const file = (id: string) => readJson(path.join(dir, `${id}.json`)) as Task;
      await item.click();
      await page.waitForSelector('.col-pending .card[data-task="3"]');

      // The person: start #1, give #2 to worker-2, make #3 wait for #2, complete #1, undo that, redo it.
      await page.click('.card[data-task="1"] button[data-action="start"]');
      await until('#1 started', () => file('1').status === 'in_progress');
      await page.click('.card[data-task="2"]');
      await page.click('.detail button[data-action="reassign"]');
      await page.fill('dialog input[name="owner"]', 'worker-2');
      await page.click('dialog button[data-submit]');
      await until('#2 given to worker-2', () => file('2').owner === 'worker-2');
      await page.click('.card[data-task="3"]');
      await page.click('.detail button[data-action="block"]');
      await page.fill('dialog input[name="by"]', '2');
      await page.click('dialog button[data-submit]');
      await until('#3 waits for #2', () => file('3').blockedBy.includes('2') && file('2').blocks.includes('3'));
      await page.waitForSelector('.col-in_progress .card[data-task="1"] button[data-action="done"]');
      await page.click('.col-in_progress .card[data-task="1"] button[data-action="done"]');
      await until('#1 done', () => file('1').status === 'completed');
      await page.waitForSelector('#undo:has-text("Undo done by carol")');
      await page.click('#undo');
      await until('the done undone', () => file('1').status === 'in_progress');
      await page.waitForSelector('#redo:has-text("Redo done by carol")');
      await page.click('#redo');
      await until('the done redone', () => file('1').status === 'completed');
      await page.waitForSelector('.col-completed .card[data-task="1"]');
      expect(file('2')).toMatchObject({ status: 'pending', owner: 'worker-2', blocks: ['3'] });
      expect(file('3')).toMatchObject({ status: 'pending', blockedBy: ['2'] });
      const afterPerson = ['1', '2', '3'].map(file);
      afterCreates.open();

      // The person opens "Reassign" on #2; the agent takes #2 meanwhile; the person's change is a conflict.
      await afterActs.arrived;
      await page.click('.card[data-task="2"]');
      await page.click('.detail button[data-action="reassign"]');
      await page.fill('dialog input[name="owner"]', 'alice');
      afterActs.open();
      await afterTaking.arrived;
      await until("the agent's take of #2", () => file('2').owner === 'cart-agent');
      const agentsVersion = fs.readFileSync(path.join(dir, '2.json'), 'utf8');
      await page.waitForSelector('.col-in_progress .card[data-task="2"]');
      await page.click('dialog button[data-submit]');
      const toast = await page.waitForSelector('.toast.conflict');
      expect(await toast.textContent()).toBe(
        'Conflict on #2: changed meanwhile, it is now in_progress; the card showed pending. Nothing was written; the board shows it as it is now.',
      );
      expect(fs.readFileSync(path.join(dir, '2.json'), 'utf8')).toBe(agentsVersion);
      afterTaking.open();

      const done = await run;
      // What the agent was told is what the files held: TaskList and TaskGet #3 after the person's acts, TaskGet #2 after its own.
      const list = done.stream.calls.find((c) => c.name === 'TaskList');
      const gets = done.stream.calls.filter((c) => c.name === 'TaskGet');
      expect(list?.text).toBe(taskListText(afterPerson));
      expect(gets[0]?.text).toBe(taskGetText(afterPerson[2] as Task, taskGetViewFor(claudeVersion(), afterPerson)));
      const now = ['1', '2', '3'].map(file);
      expect(gets[1]?.text).toBe(taskGetText(now[1] as Task, taskGetViewFor(claudeVersion(), now)));
      expect(list?.text).toContain('#2 [pending] Build the cart (worker-2)');
      expect(list?.text).toContain('#3 [pending] Write the checkout tests [blocked by #2]');
    } finally {
      await page.close();
      await board.stop();
    }
  });

  it('shows a named list with the session working on it, as tasks lists ties them, live and then ended', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'release');
    fs.mkdirSync(project, { recursive: true });
    const board = await startBoard(config, [], { USER: 'carol' });
    const page = await chromium.browser.newPage();
    try {
      await page.goto(board.url);
      await page.waitForSelector('.conn.live');
      const created = gate();
      const run = runAgent({
        configDir: config,
        listId: 'release-7',
        cwd: project,
        prompt: 'cut release 7',
        turns: [
          [{ name: 'TaskCreate', input: { subject: 'Tag release 7', description: '' } }],
          [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', activeForm: 'Tagging release 7' } }],
        ],
        beforeTurn: (i) => (i === 1 ? created.wait() : undefined),
      });
      await created.arrived;
      // The named list, under the agent's project, with its session live: the agent waits on its model (busy).
      const item = page.locator('.list-item[data-list="release-7"]');
      await item.locator('.state:text-is("live, busy")').waitFor({ timeout: 15_000 });
      const lists = JSON.parse((await runAsync(config, ['lists', '--json'], { cwd: project })).stdout) as Array<{
        id: string;
        sessionId: string | null;
        state: string;
        activity: string | null;
        cwd: string | null;
      }>;
      const row = lists.find((l) => l.id === 'release-7');
      expect(row).toMatchObject({ state: 'live', activity: 'busy', cwd: project });
      await item.click();
      await page.waitForSelector('.list-head .tag.project:text-is("~/work/release")');
      expect(await page.locator('.list-head .tag.id').getAttribute('title')).toBe('release-7');
      created.open();
      await run;
      // The agent's process ended: so does its session on the board.
      await item.locator('.state:text-is("ended")').waitFor({ timeout: 15_000 });
      await page.waitForSelector('.col-in_progress .card[data-task="1"] .active-form:text("Tagging release 7")');
      expect(row?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await page.locator('.list-head .tag.state').textContent()).toBe('ended');
    } finally {
      await page.close();
      await board.stop();
    }
  });

  it("shows an agent's hostile subject as text, and refuses requests without the token, from another origin or by another host name", async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'shop');
    fs.mkdirSync(project, { recursive: true });
    const board = await startBoard(config, [], { USER: 'carol' });
    const page = await chromium.browser.newPage();
    try {
      await page.goto(board.url);
      await page.waitForSelector('.conn.live');
      const subject = '<img src=x onerror="window.__pwned=1">\u001b[31mred\u202eevil';
      const created = gate();
      const run = runAgent({
        configDir: config,
        listId: undefined,
        cwd: project,
        prompt: 'hostile subjects',
        turns: [
          [{ name: 'TaskCreate', input: { subject, description: '<script>window.__pwned=2</script>' } }],
          [{ name: 'TaskGet', input: { taskId: '1' } }],
        ],
        beforeTurn: (i) => (i === 1 ? created.wait() : undefined),
      });
      await created.arrived;
      const item = await page.waitForSelector('.list-item:has-text("hostile subjects")', { timeout: 15_000 });
      const listId = (await item.getAttribute('data-list')) as string;
      await item.click();
      await page.click('.card[data-task="1"]');
      await page.waitForSelector('.detail .description');
      expect(await page.locator('.card[data-task="1"] .subject').textContent()).toBe(
        '<img src=x onerror="window.__pwned=1">␛[31mred\ufffdevil',
      );
      expect(await page.locator('.detail .description').textContent()).toBe('<script>window.__pwned=2</script>');
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('main img, main script, .detail script').count()).toBe(0);

      const file = path.join(config, 'tasks', listId, '1.json');
      const before = fs.readFileSync(file, 'utf8');
      const done = JSON.stringify({ action: 'done', list: listId, id: '1', expect: { status: 'pending', owner: null } });
      const json = { 'Content-Type': 'application/json' };
      const own = `http://127.0.0.1:${board.port}`;
      const refusals = [
        await request(board.port, `/api/action`, { method: 'POST', headers: { ...json, Origin: own }, body: done }),
        await request(board.port, `/not-the-token/api/action`, { method: 'POST', headers: { ...json, Origin: own }, body: done }),
        await request(board.port, `/${board.token}/api/action`, {
          method: 'POST',
          headers: { ...json, Origin: 'http://evil.example' },
          body: done,
        }),
        await request(board.port, `/${board.token}/api/action`, {
          method: 'POST',
          headers: { ...json, Origin: own, 'Sec-Fetch-Site': 'cross-site' },
          body: done,
        }),
        await request(board.port, `/${board.token}/api/action`, {
          method: 'POST',
          headers: { ...json, Host: `evil.example:${board.port}`, Origin: `http://evil.example:${board.port}` },
          body: done,
        }),
        await request(board.port, `/${board.token}/api/list?id=${listId}`, { headers: { Host: `rebind.example:${board.port}` } }),
      ];
      expect(refusals.map((r) => r.status)).toEqual([404, 404, 403, 403, 403, 403]);
      expect(refusals.every((r) => !r.body.includes('onerror'))).toBe(true);
      expect(fs.readFileSync(file, 'utf8')).toBe(before);
      created.open();
      const ran = await run;
      // The agent reads its subject back whole: nothing on the way changed it.
      expect(ran.stream.calls.filter((c) => c.name === 'TaskGet')[0]?.text).toContain(`Task #1: ${subject}\n`);
    } finally {
      await page.close();
      await board.stop();
    }
  });
});
