#!/usr/bin/env node
// How fast `tasks watch` reports a change, and what it costs while nothing happens.
//
//   npm run bench:watch                          100 changes, then a minute idle
//   node bench/watch.mjs --idle 10s      a shorter idle window
//   node bench/watch.mjs --changes 200 --tasks 500
//   node bench/watch.mjs --latency-only  the changes alone (bench/run.mjs prints their median)
//
// Latency: from just before a task file is written (a plain writeFile, as agents write)
// to the moment its event line arrives on the watcher's stdout (median, p95 over the
// changes). Idle CPU: the watcher's user+system CPU time (from /proc) over the idle
// window, as a share of one core: for `watch --json`, and for the live view in a
// pseudo-terminal (via script(1)) with a task in progress, so its spinner is running.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
function seconds(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(String(text));
  if (!m) throw new Error(`bad duration ${text}`);
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60 }[m[2] ?? 's'];
}
const CHANGES = Number(arg('changes', 100));
const TASKS = Number(arg('tasks', 20));
const IDLE_S = seconds(arg('idle', '60s'));
const LATENCY_ONLY = process.argv.includes('--latency-only');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-watch-'));
const dir = path.join(config, 'tasks', 'bench');
fs.mkdirSync(dir, { recursive: true });
const task = (id, extra = {}) => ({
  id,
  subject: `Task ${id}`,
  description: 'benchmark',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});
for (let i = 1; i <= TASKS; i++)
  fs.writeFileSync(
    path.join(dir, `${i}.json`),
    JSON.stringify(task(String(i), i === 1 ? { status: 'in_progress', activeForm: 'Benchmarking' } : {}), null, 2),
  );

const env = { ...process.env, CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_TASK_LIST_ID: 'bench' };
delete env.NODE_EXTRA_CA_CERTS;
delete env.FORCE_COLOR;

const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
/** user + system CPU seconds of a process, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK;
}
async function idleCpu(pid, label) {
  await sleep(1000);
  const c0 = cpuSeconds(pid);
  const t0 = performance.now();
  await sleep(IDLE_S * 1000);
  const used = cpuSeconds(pid) - c0;
  const wall = (performance.now() - t0) / 1000;
  console.log(
    `idle CPU, ${label}: ${((100 * used) / wall).toFixed(2)}% of one core (${(used * 1000).toFixed(0)} ms CPU in ${wall.toFixed(1)} s)`,
  );
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

// 1. Latency, with `watch --json`.
const watch = spawn(process.execPath, [BIN, 'watch', '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
let buffer = '';
const waiters = [];
watch.stdout.on('data', (chunk) => {
  const at = performance.now();
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const line = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    for (const w of waiters.splice(0)) if (!w(line, at)) waiters.push(w);
  }
});
const next = (match) =>
  new Promise((resolve) =>
    waiters.push((line, at) => {
      if (!match(line)) return false;
      resolve(at);
      return true;
    }),
  );

await next((e) => e.event === 'snapshot');
const delays = [];
for (let i = 0; i < CHANGES; i++) {
  const id = String((i % TASKS) + 1);
  const seen = next((e) => e.event === 'updated' && e.task?.metadata?.seq === i);
  const t0 = performance.now();
  fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(task(id, { metadata: { seq: i } }), null, 2));
  delays.push((await seen) - t0);
  await sleep(20 + Math.random() * 60);
}
delays.sort((a, b) => a - b);
console.log(
  `change -> event over ${CHANGES} changes (${TASKS} tasks): median ${percentile(delays, 50).toFixed(0)} ms, p95 ${percentile(delays, 95).toFixed(0)} ms, min ${delays[0].toFixed(0)} ms, max ${delays.at(-1).toFixed(0)} ms`,
);
console.log('  (the watcher waits 100 ms of quiet after a change before it rescans, so a burst costs one rescan)');

if (LATENCY_ONLY) {
  watch.kill('SIGTERM');
  fs.rmSync(config, { recursive: true, force: true });
  process.exit(0);
}
fs.writeFileSync(path.join(dir, '1.json'), JSON.stringify(task('1', { status: 'in_progress', activeForm: 'Benchmarking' }), null, 2));
await idleCpu(watch.pid, `watch --json, ${TASKS} tasks`);
watch.kill('SIGTERM');

// 2. The live view, in a pseudo-terminal, spinner running.
let hasScript = true;
try {
  execFileSync('script', ['--version'], { stdio: 'ignore' });
} catch {
  hasScript = false;
}
if (hasScript) {
  const live = spawn('script', ['-qfec', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} watch`, '/dev/null'], {
    env: { ...env, COLUMNS: '100', LINES: '30', TERM: 'xterm-256color' },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  await sleep(1500);
  const children = fs.readFileSync(`/proc/${live.pid}/task/${live.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  if (children[0]) await idleCpu(Number(children[0]), `live view in a terminal, ${TASKS} tasks, spinner running`);
  else console.log('live view: could not find its process; skipped');
  live.stdin.write('q');
  await sleep(500);
  if (live.exitCode === null) live.kill('SIGTERM');
} else {
  console.log('live view: script(1) is not installed; skipped');
}
fs.rmSync(config, { recursive: true, force: true });
