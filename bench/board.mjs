#!/usr/bin/env node
// The board's figures, in a real browser (Debian's chromium, driven by playwright-core):
//
//   npm run bench:board                       600 lists / 3,000 sessions, a 1,000-task list, 10 tabs
//   node bench/board.mjs --lists 60 --sessions 300 --tabs 3 --runs 2   a quicker look
//
// 1. start-up: from spawning `tasks board --json` to its URL on stdout;
// 2. first page: from navigating to the URL to every list shown in the sidebar (the
//    overview of a config folder with --sessions transcripts, --lists of them with a
//    list; bench/session-world.mjs builds it, with bench/task-world.mjs's tasks, as
//    npm run bench does), and the server's time for the overview;
// 3. a --tasks list: from navigating to its board to every card drawn, and from the
//    Graph tab to every node of the layered graph drawn (plus the page's own render time);
// 4. live: from a task file written (as an agent writes it) to the change on the page,
//    with one tab, and with --tabs tabs on one server (to the last of them);
// 5. the server's memory (RSS now, and its peak) with those tabs open;
// 6. the Now view (the landing page): from navigating to the URL to the view first shown
//    (the board has looked at a list; the others fill in as they are looked at), and from
//    a task file set in progress to the Now view showing it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { makeSessionWorld } from './session-world.mjs';
import { makeTasks, writeList } from './task-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');
const CHROMIUM = process.env.TASKS_CHROMIUM ?? '/usr/bin/chromium';
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const LISTS = arg('lists', 600);
const SESSIONS = arg('sessions', 3000);
const TASKS = arg('tasks', 1000);
const TABS = arg('tabs', 10);
const RUNS = arg('runs', 3);
const CHANGES = arg('changes', 20);

if (!fs.existsSync(CHROMIUM)) {
  console.error(`bench/board.mjs needs chromium at ${CHROMIUM} (apt-get install chromium)`);
  process.exit(2);
}
const { chromium } = await import('playwright-core');

// ---- helpers ------------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${Math.round(x)} ms`;

/** Boards still running: stopped whatever happens, so that a failed run leaves none behind. */
const running = new Set();

function startBoard(config) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'board', '--json'], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: path.join(config, 'home'), ...boardEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.stdout.on('data', (d) => {
      out += d;
      try {
        const doc = JSON.parse(out);
        running.add(child);
        resolve({ ...doc, child, startMs: performance.now() - t0 });
      } catch {}
    });
    child.on('exit', (code) => reject(new Error(`board exited ${code}`)));
  });
}

function stop(board) {
  return new Promise((resolve) => {
    board.child.removeAllListeners('exit');
    board.child.on('exit', () => {
      running.delete(board.child);
      resolve();
    });
    board.child.kill('SIGTERM');
  });
}

function memory(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * When each page shows `subject` on card `id`, by the page's own clock (a MutationObserver,
 * so that measuring costs the page nothing while it waits): epoch ms, comparable to Date.now().
 */
async function watchFor(pages, id, subject) {
  await Promise.all(
    pages.map((p) =>
      p.evaluate(
        ([id, subject]) => {
          window.__seenAt = undefined;
          const check = () => {
            if (window.__seenAt === undefined && document.querySelector(`.card[data-task="${id}"] .subject`)?.textContent === subject) {
              window.__seenAt = performance.timeOrigin + performance.now();
              observer.disconnect();
            }
          };
          const observer = new MutationObserver(check);
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        },
        [id, subject],
      ),
    ),
  );
  return async () => {
    for (let i = 0; i < 400; i++) {
      const seen = await Promise.all(pages.map((p) => p.evaluate(() => window.__seenAt)));
      if (seen.every((t) => t !== undefined)) return seen;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('a tab never showed the change');
  };
}

function get(url) {
  const t0 = performance.now();
  return new Promise((resolve, reject) =>
    http
      .get(url, (res) => {
        let n = 0;
        res.on('data', (d) => (n += d.length));
        res.on('end', () => resolve({ ms: performance.now() - t0, bytes: n }));
      })
      .on('error', reject),
  );
}

// ---- run ----------------------------------------------------------------------------------

// --config <dir>: a world written by an earlier run with --keep (writing one takes minutes).
const reuse = process.argv.includes('--config') ? process.argv[process.argv.indexOf('--config') + 1] : undefined;
const config = reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-board-'));
if (!reuse) {
  console.error(`writing ${SESSIONS} transcripts and ${LISTS} lists into ${config} ...`);
  makeSessionWorld(config, { transcripts: SESSIONS, withLists: LISTS, writeList, makeTasks });
}
const bigDir = writeList(config, 'big', makeTasks(TASKS));
const small = 'small';
const smallDir = writeList(config, small, makeTasks(20));
const cacheDir = path.join(config, 'bench-cache');
const boardEnv = { XDG_CACHE_HOME: cacheDir };
/** The rows of `tasks lists` (list folders, live sessions' new lists, TodoWrite sessions), and how many the sidebar shows. */
function listsRows() {
  const r = spawnSync(process.execPath, [BIN, 'lists', '--json'], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: path.join(config, 'home'), ...boardEnv },
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const rows = JSON.parse(r.stdout);
  const todowrite = rows.filter((l) => l.kind === 'todowrite').length;
  // The most recent TodoWrite sessions only, as `tasks lists` without --all (the rest behind a button).
  return { rows: rows.length, todowrite, shown: rows.length - todowrite + Math.min(20, todowrite) };
}
const world = listsRows();
const listCount = world.shown;

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1440, height: 900 },
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const rows = [];
try {
  const starts = [];
  const firstPages = [];
  const nowPages = [];
  const overviews = [];
  const rereads = [];
  let cold;
  // The first run without the persistent cache (what transcripts say, kept between runs): as after an upgrade.
  fs.rmSync(cacheDir, { recursive: true, force: true });
  for (let r = 0; r <= RUNS; r++) {
    const board = await startBoard(config);
    starts.push(board.startMs);
    const page = await browser.newPage();
    // The landing page is the Now view, drawn again as each list is looked at: when it first
    // shows (by the page's own clock, from navigation: polling from here would miss an element
    // drawn again meanwhile), and the sidebar complete.
    await page.addInitScript(() => {
      const observer = new MutationObserver(() => {
        if (window.__nowAt === undefined && document.getElementById('now-needs')) window.__nowAt = performance.now();
      });
      document.addEventListener('DOMContentLoaded', () => observer.observe(document.body, { subtree: true, childList: true }));
    });
    const t0 = performance.now();
    await page.goto(board.url);
    await page.waitForFunction((n) => document.querySelectorAll('.list-item').length === n, listCount, { polling: 10, timeout: 60_000 });
    const firstPage = performance.now() - t0;
    await page.waitForFunction(() => window.__nowAt !== undefined, undefined, { polling: 10, timeout: 120_000 });
    const nowPage = await page.evaluate(() => window.__nowAt);
    const o = await get(`${board.url}api/overview`);
    await page.close();
    // No tab open and the overview older than 5 s: the next ask reads everything again (sessions too).
    await new Promise((r) => setTimeout(r, 5200));
    const again = await get(`${board.url}api/overview`);
    await stop(board);
    if (r === 0) {
      cold = firstPage;
      continue;
    }
    starts.push(board.startMs);
    firstPages.push(firstPage);
    nowPages.push(nowPage);
    overviews.push(o.ms);
    rereads.push(again.ms);
  }
  rows.push(['start-up: `tasks board` to its URL', ms(median(starts)), '< 1 s']);
  rows.push([
    `first page: ${world.rows} rows of tasks lists (${SESSIONS} sessions; ${world.todowrite} TodoWrite, ${Math.min(20, world.todowrite)} shown), every one shown`,
    ms(median(firstPages)),
    '< 1 s',
  ]);
  rows.push(['  the same without the persistent cache (first run after an upgrade)', ms(cold), '']);
  rows.push(["first page: the Now view first shown, from navigation (the page's clock)", ms(median(nowPages)), '< 1 s']);
  rows.push(["  the server's overview, once read (as sent to a new tab)", ms(median(overviews)), '']);
  rows.push(['  the overview read again: every list and session (each refresh)', ms(median(rereads)), '']);

  const board = await startBoard(config);
  const boards = [];
  const graphs = [];
  const renderBoard = [];
  const renderGraph = [];
  for (let r = 0; r < RUNS; r++) {
    const page = await browser.newPage();
    const t0 = performance.now();
    await page.goto(`${board.url}#list=big`);
    await page.waitForFunction((n) => document.querySelectorAll('.card').length === n, TASKS, { polling: 10, timeout: 60_000 });
    boards.push(performance.now() - t0);
    renderBoard.push(Number(await page.evaluate(() => document.body.dataset.renderMs)));
    const t1 = performance.now();
    await page.click('#tab-graph');
    await page.waitForFunction((n) => document.querySelectorAll('svg.graph .node').length === n, TASKS, { polling: 10, timeout: 60_000 });
    graphs.push(performance.now() - t1);
    renderGraph.push(Number(await page.evaluate(() => document.body.dataset.renderMs)));
    await page.close();
  }
  rows.push([`${TASKS}-task list: board, from navigation to every card`, ms(median(boards)), '< 1 s']);
  rows.push(['  of which drawing the columns in the page', ms(median(renderBoard)), '']);
  rows.push([`${TASKS}-task list: graph tab to every node drawn (layout included)`, ms(median(graphs)), '< 1 s']);
  rows.push(['  of which layout and SVG in the page', ms(median(renderGraph)), '']);

  // Live, one tab: a file written as an agent writes it, to the page showing it.
  const one = await browser.newPage();
  await one.goto(`${board.url}#list=${small}`);
  await one.waitForSelector('.card[data-task="1"]');
  const oneTab = [];
  for (let k = 0; k < CHANGES; k++) {
    const file = path.join(smallDir, '1.json');
    const task = JSON.parse(fs.readFileSync(file, 'utf8'));
    const subject = `Changed ${k} ${Date.now()}`;
    const seen = await watchFor([one], '1', subject);
    const t0 = Date.now();
    fs.writeFileSync(file, JSON.stringify({ ...task, subject }, null, 2));
    oneTab.push(Math.max(...(await seen())) - t0);
    await new Promise((r) => setTimeout(r, 150));
  }
  await one.close();
  rows.push([
    `live: file written to the page showing it, 1 tab (median of ${CHANGES}; max)`,
    `${ms(median(oneTab))}; ${ms(Math.max(...oneTab))}`,
    '< 300 ms',
  ]);

  // Live, the Now view: a task set in progress (as an agent starts it), to the view's "In progress" showing it.
  const nowTab = await browser.newPage();
  await nowTab.goto(board.url);
  await nowTab.waitForSelector('#now-needs', { timeout: 120_000 });
  const nowLive = [];
  for (let k = 0; k < CHANGES; k++) {
    const file = path.join(smallDir, '2.json');
    const task = JSON.parse(fs.readFileSync(file, 'utf8'));
    const activeForm = `Working ${k} ${Date.now()}`;
    await nowTab.evaluate((text) => {
      window.__seenAt = undefined;
      const observer = new MutationObserver(() => {
        const shown = [...document.querySelectorAll('#view .now-work-task .now-subject')].some((e) => e.textContent === text);
        if (window.__seenAt === undefined && shown) {
          window.__seenAt = performance.timeOrigin + performance.now();
          observer.disconnect();
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    }, activeForm);
    const t0 = Date.now();
    fs.writeFileSync(file, JSON.stringify({ ...task, status: 'in_progress', owner: 'bench-agent', activeForm }, null, 2));
    let seenAt;
    for (let i = 0; i < 400 && seenAt === undefined; i++) {
      seenAt = await nowTab.evaluate(() => window.__seenAt);
      if (seenAt === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    if (seenAt === undefined) throw new Error('the Now view never showed the change');
    nowLive.push(seenAt - t0);
    await new Promise((r) => setTimeout(r, 150));
  }
  await nowTab.close();
  rows.push([
    `live: a task set in progress, to the Now view showing it (median of ${CHANGES}; max)`,
    `${ms(median(nowLive))}; ${ms(Math.max(...nowLive))}`,
    '< 300 ms',
  ]);

  // Ten tabs on one server, following the 1,000-task list.
  const before = memory(board.child.pid);
  const tabs = [];
  for (let i = 0; i < TABS; i++) {
    const p = await browser.newPage();
    await p.goto(`${board.url}#list=big`);
    await p.waitForFunction((n) => document.querySelectorAll('.card').length === n, TASKS, { polling: 20, timeout: 60_000 });
    tabs.push(p);
  }
  const allTabs = [];
  const firstTab = [];
  for (let k = 0; k < Math.min(10, CHANGES); k++) {
    const file = path.join(bigDir, '7.json');
    const task = JSON.parse(fs.readFileSync(file, 'utf8'));
    const subject = `Tabs ${k} ${Date.now()}`;
    const seen = await watchFor(tabs, '7', subject);
    const t0 = Date.now();
    fs.writeFileSync(file, JSON.stringify({ ...task, subject }, null, 2));
    const times = await seen();
    allTabs.push(Math.max(...times) - t0);
    firstTab.push(Math.min(...times) - t0);
    await new Promise((r) => setTimeout(r, 200));
  }
  const after = memory(board.child.pid);
  rows.push([
    `live: ${TABS} tabs on the ${TASKS}-task list, file written to the first / last tab showing it`,
    `${ms(median(firstTab))} / ${ms(median(allTabs))}`,
    '',
  ]);
  rows.push([
    `server memory: RSS before the tabs / with ${TABS} tabs / peak`,
    `${before.rss.toFixed(0)} / ${after.rss.toFixed(0)} / ${after.peak.toFixed(0)} MB`,
    'bounded',
  ]);
  for (const p of tabs) await p.close();
  await stop(board);
} finally {
  for (const child of running) child.kill('SIGTERM');
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
  if (!process.argv.includes('--keep') && !reuse) fs.rmSync(config, { recursive: true, force: true });
  else console.error(`the world stays in ${config} (--config ${config} runs again on it)`);
}

const width = Math.max(...rows.map((r) => r[0].length));
console.log(
  `tasks board, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores, chromium ${CHROMIUM}`,
);
for (const [name, value, target] of rows) console.log(`${name.padEnd(width)}  ${value.padEnd(22)}  ${target}`);
