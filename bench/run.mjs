#!/usr/bin/env node
// Benchmark: whole-process timings of `tasks` against `node -e 0`, measured in the same run.
// Usage: npm run bench (node bench/run.mjs [--quick] [--runs N]); --quick is the form .ci/run prints.
// Prints one table: each scenario's median, spread (p10-p90), ratio to what it is paired with
// (node -e 0, the bare script of bench/floor.cjs, or the same command in another world), peak
// memory. The session worlds (bench/session-world.mjs) are of 300 and 3,000 sessions (300
// only with --quick).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTasks, writeList } from './task-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const RUNS = Number(args[args.indexOf('--runs') + 1]) || (QUICK ? 7 : 25);
const WARMUP = QUICK ? 1 : 3;
const SIZES = QUICK ? [100, 1000] : [100, 1000, 10000];

// Every timed command, baseline included, runs without NODE_EXTRA_CA_CERTS (it adds ~70 ms to each Node start).
const ENV = { ...process.env };
delete ENV.NODE_EXTRA_CA_CERTS;
delete ENV.FORCE_COLOR;
delete ENV.NO_COLOR;
delete ENV.CLAUDE_CODE_TASK_LIST_ID;

if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'main.js')) && !fs.existsSync(path.join(ROOT, 'dist', 'tasks.js'))) {
  console.error('bench: build first (npm run build)');
  process.exit(2);
}

const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

// ---- data: bench/task-world.mjs ----------------------------------------------------------

// ---- timing -----------------------------------------------------------------------------

function once(cmd, cmdArgs, env, cwd) {
  const memFile = path.join(os.tmpdir(), `bench-mem-${process.pid}`);
  const argv = TIME ? [TIME, ['-f', '%M', '-o', memFile, cmd, ...cmdArgs]] : [cmd, cmdArgs];
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv[1], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  let kb = NaN;
  if (TIME) {
    try {
      kb = Number(fs.readFileSync(memFile, 'utf8').trim().split('\n').pop());
    } catch {}
  }
  return { ms, kb, status: r.status, stderr: String(r.stderr ?? '') };
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}

/** Every baseline sample of the run, for its row. */
const baselineTimes = [];
let baselinePeakKb = 0;
const BASELINE = [process.execPath, ['-e', '0']];

/**
 * Time a command, each run paired with a run of `node -e 0` just before it: the ratio
 * compares medians taken over the same stretch of time, so that a shared machine that
 * slows down or speeds up mid-run moves both sides alike.
 */
function measure(cmd, cmdArgs, env = ENV, runs = RUNS) {
  for (let i = 0; i < WARMUP; i++) once(cmd, cmdArgs, env);
  const times = [];
  const base = [];
  let peak = 0;
  let failures = 0;
  let lastErr = '';
  for (let i = 0; i < runs; i++) {
    const b = once(BASELINE[0], BASELINE[1], ENV);
    base.push(b.ms);
    if (b.kb > baselinePeakKb) baselinePeakKb = b.kb;
    const r = once(cmd, cmdArgs, env);
    times.push(r.ms);
    if (r.kb > peak) peak = r.kb;
    if (r.status !== 0) {
      failures++;
      lastErr = r.stderr.trim().split('\n').pop() ?? '';
    }
  }
  times.sort((a, b) => a - b);
  base.sort((a, b) => a - b);
  baselineTimes.push(...base);
  return {
    median: quantile(times, 0.5),
    p10: quantile(times, 0.1),
    p90: quantile(times, 0.9),
    peakMb: peak / 1024,
    failures,
    lastErr,
    base: quantile(base, 0.5),
  };
}

// ---- scenarios --------------------------------------------------------------------------

const rows = [];
const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-'));
// The persistent cache (core/cache) in a folder of the benchmark's, never the user's.
const envFor = (extra = {}) => ({ ...ENV, CLAUDE_CONFIG_DIR: config, XDG_CACHE_HOME: path.join(config, 'xdg-cache'), ...extra });
const tasksCmd = (list, ...rest) => [process.execPath, [BIN, '-l', list, ...rest]];

console.error(`bench: ${RUNS} runs per scenario after ${WARMUP} warm-up, each paired with a run of node -e 0; config ${config}`);
const baselineRow = { name: 'node -e 0 (baseline, all runs)', peakMb: NaN, failures: 0 };
rows.push(baselineRow);

const lists = {};
for (const n of SIZES) lists[n] = writeList(config, `bench-${n}`, makeTasks(n));
writeList(config, 'bench-20', makeTasks(20));

function add(name, cmd, cmdArgs, env, target) {
  const m = measure(cmd, cmdArgs, env);
  rows.push({ name, ...m, target });
}

for (const n of SIZES) {
  add(`list --json, ${n}`, ...tasksCmd(`bench-${n}`, 'list', '--json'), envFor(), n === 1000 ? 1.6 : n === 10000 ? 5 : undefined);
  add(`list (plain), ${n}`, ...tasksCmd(`bench-${n}`, 'list'), envFor());
  add(
    `list (colour table), ${n}`,
    ...tasksCmd(`bench-${n}`, 'list'),
    envFor({ FORCE_COLOR: '1', COLUMNS: '120' }),
    n === 1000 ? 1.8 : undefined,
  );
}
add('list, 20 tasks (piped)', ...tasksCmd('bench-20', 'list'), envFor(), 1.2);
// Against the floor: the bare script that reads, parses and prints the same files, each run paired with one of it.
for (const [name, words, target] of [
  ['list --json, 1000, vs the bare script', ['list', '--json'], 1.1],
  ['list (piped), 1000, vs the bare script', ['list'], 1.15],
]) {
  const m = measurePair(
    { cmd: process.execPath, args: [BIN, '-l', 'bench-1000', ...words], env: envFor() },
    { cmd: process.execPath, args: [path.join(ROOT, 'bench', 'floor.cjs'), lists[1000]], env: ENV },
  );
  rows.push({ name, ...m.a, base: m.b.median, target, note: `vs ${fmtMs(m.b.median)} for the script` });
}
const big = SIZES.at(-1);
add(`get 1 task, ${big}`, ...tasksCmd(`bench-${big}`, 'get', String(Math.floor(big / 2))), envFor(), big === 10000 ? 1.2 : undefined);
add(`get 1 task --json, ${big}`, ...tasksCmd(`bench-${big}`, 'get', String(Math.floor(big / 2)), '--json'), envFor());
add(
  `create, ${big}`,
  ...tasksCmd(`bench-${big}`, 'create', 'Benchmark task', '-d', 'made by the benchmark'),
  envFor(),
  big === 10000 ? 1.5 : undefined,
);

// Completion of ids, when the program has it.
const hasComplete = spawnSync(process.execPath, [BIN, '__complete', ''], { env: envFor(), encoding: 'utf8' }).status === 0;
if (hasComplete) add('__complete ids, 1000', process.execPath, [BIN, '__complete', '--list', 'bench-1000', 'update', ''], envFor(), 1.3);

// watch: start to first snapshot line, when the program has it.
const hasWatch = /^\s+watch\b/m.test(spawnSync(process.execPath, [BIN, '--help'], { env: envFor(), encoding: 'utf8' }).stdout);
if (hasWatch) {
  const times = [];
  for (let i = 0; i < Math.max(3, Math.floor(RUNS / 3)); i++) times.push(await firstLine(['-l', `bench-${big}`, 'watch', '--json']));
  times.sort((a, b) => a - b);
  rows.push({
    name: `watch to first snapshot, ${big}`,
    median: quantile(times, 0.5),
    p10: quantile(times, 0.1),
    p90: quantile(times, 0.9),
    peakMb: NaN,
    failures: 0,
  });
}

function firstLine(cmdArgs) {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, ...cmdArgs], { env: envFor(), stdio: ['ignore', 'pipe', 'ignore'] });
    let done = false;
    child.stdout.on('data', (d) => {
      if (!done && String(d).includes('\n')) {
        done = true;
        resolve(Number(process.hrtime.bigint() - start) / 1e6);
        child.kill('SIGTERM');
      }
    });
    child.on('close', () => !done && resolve(NaN));
  });
}

// 8 processes x 25 locked updates on one task (x 5 in --quick): wall time, failures, lost updates.
{
  const PER = QUICK ? 5 : 25;
  const dir = writeList(config, 'contended', makeTasks(1));
  const start = process.hrtime.bigint();
  const results = await Promise.all(
    Array.from(
      { length: 8 },
      (_, w) =>
        new Promise((resolve) => {
          const script = `for i in $(seq ${PER}); do node ${JSON.stringify(BIN)} -l contended update 1 --meta w${w}i$i=1 >/dev/null 2>>${JSON.stringify(path.join(config, `err${w}`))} || echo fail; done`;
          const child = spawn('bash', ['-c', script], { env: envFor(), stdio: ['ignore', 'pipe', 'ignore'] });
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.on('close', () => resolve((out.match(/fail/g) ?? []).length));
        }),
    ),
  );
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const meta = JSON.parse(fs.readFileSync(path.join(dir, '1.json'), 'utf8')).metadata ?? {};
  const lost = 8 * PER - Object.keys(meta).filter((k) => /^w\di\d+$/.test(k)).length;
  rows.push({
    name: `8 x ${PER} contended updates (wall)`,
    median: wall,
    p10: NaN,
    p90: NaN,
    peakMb: NaN,
    failures: results.reduce((a, b) => a + b, 0),
    note: `${lost} lost`,
  });
}

// Sessions: a heavy user's config folder (bench/session-world.mjs) of 300 and of 3,000
// sessions, with the persistent cache in a folder of the benchmark's. A named list against
// the same list with no projects/ folder; the list a project chooses against naming it;
// `tasks lists` against the stat-only floor, and once with no cache yet (its first run).
const { makeSessionWorld } = await import('./session-world.mjs');
const { SETTLE_MS } = await import(new URL('../dist/core/cache/file-stamp.js', import.meta.url));
for (const n of QUICK ? [300] : [300, 3000]) {
  const root = path.join(config, `sessions-${n}`);
  const heavy = path.join(root, 'heavy');
  const bare = path.join(root, 'bare');
  const { project, list, counts } = makeSessionWorld(heavy, { transcripts: n, writeList, makeTasks });
  fs.cpSync(path.join(heavy, 'tasks'), path.join(bare, 'tasks'), { recursive: true, preserveTimestamps: true });
  const mb = (counts.bytes / 1e6).toFixed(0);
  console.error(
    `bench: ${n} sessions (${mb} MB; ${counts.own} own lists, ${counts.named} on ${counts.namedLists} named lists, ${counts.todowrite} TodoWrite, ${counts.long} of 2 MB)`,
  );
  const home = path.join(heavy, 'home');
  const cache = path.join(root, 'cache');
  const heavyEnv = { ...ENV, CLAUDE_CONFIG_DIR: heavy, HOME: home, XDG_CACHE_HOME: cache };
  const bareEnv = { ...ENV, CLAUDE_CONFIG_DIR: bare, HOME: home, XDG_CACHE_HOME: cache };
  // A year's files have long settled: what a run works out from files written in the last
  // few seconds is not kept (core/cache/file-stamp.ts), and the world was written just now.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 200));
  const first = once(process.execPath, [BIN, 'lists'], heavyEnv);
  rows.push({
    name: `lists, ${n} sessions: first run, no cache yet`,
    median: first.ms,
    p10: NaN,
    p90: NaN,
    peakMb: first.kb / 1024,
    failures: first.status === 0 ? 0 : 1,
  });
  const named = { cmd: process.execPath, args: [BIN, '-l', list, 'list'], env: heavyEnv, cwd: project };
  const pair = (name, a, b, target, against) => {
    const m = measurePair(a, b);
    rows.push({ name, ...m.a, base: m.b.median, target, note: `vs ${fmtMs(m.b.median)} ${against}` });
  };
  pair(
    `-l <uuid> list, 20 tasks; ${n} sessions`,
    named,
    { cmd: process.execPath, args: [BIN, '-l', list, 'list'], env: bareEnv, cwd: project },
    1.1,
    'with no projects/',
  );
  pair(
    `list chosen by the project; ${n} sessions`,
    { cmd: process.execPath, args: [BIN, 'list'], env: heavyEnv, cwd: project },
    named,
    1.2,
    'for the list named',
  );
  // tasks cost of the list, once the cache is warm (the first cost of a list reads its
  // sessions' transcripts and keeps what it read), against listing the same list; and of a
  // named list (its sessions by the evidence kept) against listing it.
  once(process.execPath, [BIN, '-l', list, 'cost'], heavyEnv, project);
  pair(
    `-l <uuid> cost, 20 tasks; ${n} sessions`,
    { cmd: process.execPath, args: [BIN, '-l', list, 'cost'], env: heavyEnv, cwd: project },
    named,
    2,
    'for -l <uuid> list',
  );
  const shared = fs.existsSync(path.join(heavy, 'tasks', 'shared-0')) ? 'shared-0' : undefined;
  if (shared !== undefined) {
    once(process.execPath, [BIN, '-l', shared, 'cost'], heavyEnv, project);
    pair(
      `-l shared-0 cost (a named list); ${n} sessions`,
      { cmd: process.execPath, args: [BIN, '-l', shared, 'cost'], env: heavyEnv, cwd: project },
      { cmd: process.execPath, args: [BIN, '-l', shared, 'list'], env: heavyEnv, cwd: project },
      2,
      'for -l shared-0 list',
    );
  }
  // `tasks lists` against the stat-only floor (bench/lists-floor.cjs: stat the transcripts,
  // the list folders and their task files, read none), each run paired with one of it; and
  // the floor itself against node -e 0, so that both ratios are on the table.
  const floor = { cmd: process.execPath, args: [path.join(ROOT, 'bench', 'lists-floor.cjs'), heavy], env: ENV };
  const overview = measurePair({ cmd: process.execPath, args: [BIN, 'lists'], env: heavyEnv }, floor);
  rows.push({
    name: `lists, ${n} sessions, ${counts.own + counts.namedLists} lists, vs the stat-only floor`,
    ...overview.a,
    base: overview.b.median,
    target: 1.5,
    note: `vs ${fmtMs(overview.b.median)} for the floor; peak ${overview.a.peakMb.toFixed(0)} MB: ${overview.a.peakMb < 80 ? 'under 80 MB' : 'over 80 MB: MISSED'}`,
  });
  add(
    `stat-only floor of lists, ${n} sessions (stats ${fs.readdirSync(path.join(heavy, 'tasks')).length} list folders, their task files, every transcript)`,
    floor.cmd,
    floor.args,
    ENV,
  );
}

// History: tasks log of a list written by a session and its 4 subagents, 5 MB transcripts
// each (target: under 300 ms); and what the journal append adds to one change, in-process.
{
  const { makeHistoryWorld } = await import('./session-world.mjs');
  const hist = path.join(config, 'history');
  const list = makeHistoryWorld(hist, { writeList, makeTasks, bytes: QUICK ? 2_000_000 : 5_000_000 });
  const histEnv = { ...ENV, CLAUDE_CONFIG_DIR: hist, HOME: path.join(hist, 'home'), XDG_CACHE_HOME: path.join(hist, 'cache') };
  const log = measure(process.execPath, [BIN, '-l', list, 'log', '--json'], histEnv);
  const mb = QUICK ? 2 : 5;
  rows.push({
    name: `log --json, 1 session + 4 subagents, ${mb} MB transcripts each (target: under 300 ms)`,
    ...log,
    note: log.median < 300 ? 'under 300 ms: ok' : 'over 300 ms: MISSED',
  });
  const { appendLines, entryLine } = await import(new URL('../dist/core/history/journal.js', import.meta.url));
  const appendJournal = (dir, entry) => appendLines(dir, [entryLine(entry).line]);
  const dir = writeList(config, 'journal-bench', makeTasks(1));
  const entry = (i) => ({
    v: 1,
    at: new Date().toISOString(),
    actor: { kind: 'person', name: 'bench' },
    command: 'update',
    txn: `t${i}`,
    changes: [{ id: '1', op: 'update', fields: { owner: { old: 'a', new: `b${i}` }, status: { old: 'pending', new: 'in_progress' } } }],
  });
  for (let i = 0; i < 50; i++) appendJournal(dir, entry(i));
  const times = [];
  for (let i = 0; i < 500; i++) {
    const t = process.hrtime.bigint();
    appendJournal(dir, entry(i));
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((x, y) => x - y);
  rows.push({
    name: 'journal append, one change (in-process; target: under 1 ms)',
    median: quantile(times, 0.5),
    p10: quantile(times, 0.1),
    p90: quantile(times, 0.9),
    base: NaN,
    peakMb: NaN,
    failures: 0,
    note: `${(quantile(times, 0.5) * 1000).toFixed(0)} µs median, p90 ${(quantile(times, 0.9) * 1000).toFixed(0)} µs: ${quantile(times, 0.5) < 1 ? 'under 1 ms: ok' : 'MISSED'}`,
  });
}

/** Two commands, each run of one paired with a run of the other: medians of both. */
function measurePair(a, b, runs = RUNS) {
  for (let i = 0; i < WARMUP; i++) {
    once(a.cmd, a.args, a.env, a.cwd);
    once(b.cmd, b.args, b.env, b.cwd);
  }
  const ta = [];
  const tb = [];
  let peak = 0;
  let failures = 0;
  for (let i = 0; i < runs; i++) {
    const rb = once(b.cmd, b.args, b.env, b.cwd);
    const ra = once(a.cmd, a.args, a.env, a.cwd);
    tb.push(rb.ms);
    ta.push(ra.ms);
    if (ra.kb > peak) peak = ra.kb;
    if (ra.status !== 0 || rb.status !== 0) failures++;
  }
  // The median of the ratios of the pairs: each pair ran at the same moment of a shared machine.
  const ratios = ta.map((x, i) => x / tb[i]).sort((x, y) => x - y);
  ta.sort((x, y) => x - y);
  tb.sort((x, y) => x - y);
  return {
    a: {
      median: quantile(ta, 0.5),
      p10: quantile(ta, 0.1),
      p90: quantile(ta, 0.9),
      peakMb: peak / 1024,
      failures,
      paired: quantile(ratios, 0.5),
    },
    b: { median: quantile(tb, 0.5) },
  };
}

function fmtMs(x) {
  return `${x.toFixed(0)} ms`;
}

// watch: from a task file written to its event on stdout (bench/watch.mjs; held at 150 ms).
{
  const out = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'watch.mjs'), '--latency-only', '--changes', QUICK ? '20' : '60'], {
    env: ENV,
    encoding: 'utf8',
  }).stdout;
  const m = /median (\d+) ms, p95 (\d+) ms/.exec(out);
  const median = m ? Number(m[1]) : NaN;
  rows.push({
    name: 'watch --json: a change to its event (target: median at most 150 ms)',
    median,
    p10: NaN,
    p90: m ? Number(m[2]) : NaN,
    base: NaN,
    peakMb: NaN,
    failures: m ? 0 : 1,
    note: median <= 150 ? 'p90 column: p95; at most 150 ms: ok' : 'MISSED',
  });
}

// References: jq over the same files, and Taskwarrior on the same 1,000 tasks.
const refN = 1000;
// The floor for a listing in Node: a bare script that reads, parses and prints the same files
// as `list --json` (no checks, no options, no locks), which no CLI on Node can beat by much.
for (const n of SIZES.filter((size) => size >= refN)) {
  add(`bare Node script: read, parse, print ${n} files (floor)`, process.execPath, [path.join(ROOT, 'bench', 'floor.cjs'), lists[n]], ENV);
}
add(`jq -s over ${refN} files (reference)`, 'bash', ['-c', `jq -s . ${lists[refN]}/*.json`], ENV);
const task = ensureTaskwarrior();
if (task) {
  const twData = path.join(config, 'taskwarrior');
  fs.mkdirSync(twData, { recursive: true });
  const rc = path.join(config, 'taskrc');
  fs.writeFileSync(rc, `data.location=${twData}\nconfirmation=off\nverbose=nothing\nhooks=off\nnews.version=2.6.2\n`);
  const twEnv = { ...ENV, TASKRC: rc, TASKDATA: twData };
  const importFile = path.join(config, 'tw-import.json');
  fs.writeFileSync(
    importFile,
    JSON.stringify(
      makeTasks(refN).map((t) => ({
        description: t.subject,
        status: 'pending',
        project: 'bench',
        ...(t.owner ? { tags: [t.owner] } : {}),
      })),
    ),
  );
  spawnSync(task, ['import', importFile], { env: twEnv, stdio: 'ignore' });
  add(`taskwarrior list, ${refN} (reference)`, task, ['list'], twEnv);
}

function ensureTaskwarrior() {
  const found = spawnSync('bash', ['-c', 'command -v task'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  if (QUICK || process.getuid?.() !== 0) return undefined; // the quick form installs nothing
  console.error('bench: installing taskwarrior from Debian packages for the reference row...');
  spawnSync(
    'bash',
    [
      '-c',
      'apt-get install -y taskwarrior >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y taskwarrior >/dev/null 2>&1)',
    ],
    { stdio: 'ignore' },
  );
  return spawnSync('bash', ['-c', 'command -v task'], { encoding: 'utf8' }).stdout.trim() || undefined;
}

// ---- report -----------------------------------------------------------------------------

baselineTimes.sort((a, b) => a - b);
Object.assign(baselineRow, {
  peakMb: baselinePeakKb / 1024,
  median: quantile(baselineTimes, 0.5),
  p10: quantile(baselineTimes, 0.1),
  p90: quantile(baselineTimes, 0.9),
  base: quantile(baselineTimes, 0.5),
});
const base = baselineRow.median;
const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const header = ['scenario', 'median ms', 'p10-p90 ms', 'x paired baseline', 'target', 'peak MB', 'failures'];
const table = rows.map((r) => {
  // Against the baseline runs paired with this scenario's (the watch and contention rows have none):
  // the median of the pairs' ratios where the row has them.
  const ratio = r.paired ?? r.median / (r.base ?? base);
  const met = r.target === undefined ? '' : ratio <= r.target ? `<= ${r.target}x ok` : `<= ${r.target}x MISSED`;
  return [
    r.name,
    fmt(r.median),
    `${fmt(r.p10)}-${fmt(r.p90)}`,
    fmt(ratio, 2),
    met,
    fmt(r.peakMb, 1),
    `${r.failures ?? 0}${r.note ? ` (${r.note})` : ''}`,
  ];
});
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => String(row[i]).length)));
const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
console.log(
  `tasks benchmark, ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${os.cpus().length} cores, node -e 0 = ${fmt(base, 1)} ms`,
);
console.log(line(header));
for (const row of table) console.log(line(row));
fs.rmSync(config, { recursive: true, force: true });
