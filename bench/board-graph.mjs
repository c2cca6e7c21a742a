#!/usr/bin/env node
// The board's graph under an agent's changes, in a real browser (Debian's chromium, driven
// by playwright-core): a 500-task list of 42 dependency layers open in the Graph view, and
// task files written as an agent writes them; from each write to the change shown in the
// graph (by the page's own clock: a MutationObserver), beside the same change shown in the
// Board view of the same list, measured in the same run (the baseline).
//
//   npm run bench:board-graph                   500 tasks, 20 changes of each kind
//   node bench/board-graph.mjs --tasks 500 --changes 20 [--bin path]
//
// Kinds of change: a subject edited (the drawing keeps its shape) and a task created that
// waits for another (the shape changes: the layout is computed again). The goal: the
// graph within 300 ms median of the write. --bin: another build's bin/tasks.js, to compare.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const BIN = path.resolve(flag('bin') ?? path.join(ROOT, 'bin', 'tasks.js'));
const TASKS = Number(flag('tasks')) || 500;
const CHANGES = Number(flag('changes')) || 20;
const CHROMIUM = process.env.TASKS_CHROMIUM ?? '/usr/bin/chromium';
if (!fs.existsSync(CHROMIUM)) {
  console.error(`bench/board-graph.mjs needs chromium at ${CHROMIUM} (apt-get install chromium)`);
  process.exit(2);
}
const { chromium } = await import('playwright-core');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${Math.round(x)} ms`;

/** n tasks in layers of 12, each waiting for the one above it in the layer before; work in progress half way. */
function writeLayers(dir, n) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.lock'), '');
  const width = 12;
  const busy = Math.floor(n / width / 2);
  for (let i = 1; i <= n; i++) {
    const layer = Math.floor((i - 1) / width);
    const status = layer < busy ? 'completed' : layer === busy && i % width === 3 ? 'in_progress' : 'pending';
    const t = {
      id: String(i),
      subject: `Step ${i}: migrate table ${i % 37}`,
      description: '',
      status,
      blocks: i + width <= n ? [String(i + width)] : [],
      blockedBy: layer === 0 ? [] : [String(i - width)],
      ...(status === 'in_progress' ? { owner: 'worker', activeForm: `Migrating table ${i % 37}` } : {}),
    };
    fs.writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(t, null, 2));
  }
}

function startBoard(config) {
  const child = spawn(process.execPath, [BIN, 'board', '--json'], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: path.join(config, 'home'), XDG_CACHE_HOME: path.join(config, 'cache') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      try {
        resolve({ ...JSON.parse(out), child });
      } catch {}
    });
    child.on('exit', (code) => reject(new Error(`board exited ${code}`)));
  });
}

/** When the page shows `text` in an element matching `selector`: epoch ms, by the page's clock. */
async function watchFor(page, selector, text) {
  await page.evaluate(
    ([selector, text]) => {
      window.__seenAt = undefined;
      const check = () => {
        if (window.__seenAt !== undefined) return;
        for (const el of document.querySelectorAll(selector))
          if (el.textContent?.includes(text)) {
            window.__seenAt = performance.timeOrigin + performance.now();
            observer.disconnect();
            return;
          }
      };
      const observer = new MutationObserver(check);
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    },
    [selector, text],
  );
  return async () => {
    for (let i = 0; i < 400; i++) {
      const at = await page.evaluate(() => window.__seenAt);
      if (at !== undefined) return at;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`the page never showed ${text}`);
  };
}

const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-graph-'));
const dir = path.join(config, 'tasks', 'big');
writeLayers(dir, TASKS);
const board = await startBoard(config);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1440, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});

let next = TASKS + 1;
/** `CHANGES` edits of one kind, each timed from the write to `selector` showing the new text. */
async function measure(page, kind, itemSelector) {
  const times = [];
  const work = [];
  for (let k = 0; k < CHANGES; k++) {
    const tag = `Z${k}x${Date.now() % 100_000}`;
    let write;
    let selector;
    if (kind === 'edit') {
      const id = String(1 + ((k * 37) % TASKS));
      const file = path.join(dir, `${id}.json`);
      const t = JSON.parse(fs.readFileSync(file, 'utf8'));
      selector = `${itemSelector}[data-task="${id}"]`;
      write = () => fs.writeFileSync(file, JSON.stringify({ ...t, subject: tag }, null, 2));
    } else {
      const id = String(next++);
      const blocker = String(TASKS - 20 + k);
      selector = `${itemSelector}[data-task="${id}"]`;
      write = () => {
        // As TaskCreate then TaskUpdate(addBlockedBy) leave it: both sides of the edge.
        const bf = path.join(dir, `${blocker}.json`);
        const b = JSON.parse(fs.readFileSync(bf, 'utf8'));
        fs.writeFileSync(
          path.join(dir, `${id}.json`),
          JSON.stringify({ id, subject: tag, description: '', status: 'pending', blocks: [], blockedBy: [blocker] }, null, 2),
        );
        fs.writeFileSync(bf, JSON.stringify({ ...b, blocks: [...b.blocks, id] }, null, 2));
      };
    }
    const seen = await watchFor(page, selector, tag);
    const t0 = Date.now();
    write();
    times.push((await seen()) - t0);
    // The page's own time to draw the change (its data-render-ms): the part load shifts least.
    work.push(Number(await page.evaluate(() => document.body.dataset.renderMs)));
    await new Promise((r) => setTimeout(r, 150));
  }
  times.work = work;
  return times;
}

const rows = [];
try {
  const graph = await browser.newPage();
  await graph.goto(`${board.url}#list=big&view=graph`);
  await graph.waitForFunction((n) => document.querySelectorAll('svg.graph .node').length === n, TASKS, { timeout: 60_000 });
  const zoom = await graph.getAttribute('.graph-wrap', 'data-zoom');
  const graphEdit = await measure(graph, 'edit', 'svg.graph .node');
  const graphCreate = await measure(graph, 'create', 'svg.graph .node');
  await graph.close();
  const cards = await browser.newPage();
  await cards.goto(`${board.url}#list=big`);
  await cards.waitForFunction(() => document.querySelectorAll('.card').length > 0, null, { timeout: 60_000 });
  const boardEdit = await measure(cards, 'edit', '.card');
  const boardCreate = await measure(cards, 'create', '.card');
  await cards.close();
  const row = (what, xs, base) =>
    rows.push([
      what,
      `${ms(median(xs))} (max ${ms(Math.max(...xs))}; drawing ${ms(median(xs.work))})`,
      base ? `${(median(xs) / median(base)).toFixed(2)}x` : '',
    ]);
  row(`board view, a subject edited (median of ${CHANGES})`, boardEdit);
  row(`graph view, a subject edited`, graphEdit, boardEdit);
  row(`board view, a task created that waits for another`, boardCreate);
  row(`graph view, a task created (the layout computed again)`, graphCreate, boardCreate);
  rows.push([`graph opened at zoom`, `${zoom}%`, '']);
} finally {
  await browser.close().catch(() => undefined);
  board.child.kill('SIGTERM');
  fs.rmSync(profile, { recursive: true, force: true });
  fs.rmSync(config, { recursive: true, force: true });
}
console.log(`${TASKS}-task list of ${Math.ceil(TASKS / 12)} layers: from a task file written to the page showing it`);
const w = Math.max(...rows.map((r) => r[0].length));
for (const [what, value, ratio] of rows) console.log(`  ${what.padEnd(w)}  ${value.padEnd(38)}  ${ratio}`);
