#!/usr/bin/env node
// What each round of `tasks notify`'s looks costs at a heavy user's scale: npm run bench:notify-looks
// (node bench/notify-looks.mjs [--lists 50] [--mb 20] [--transcripts 2000] [--rounds 20] [--build DIR]).
//
// The world (bench/notify-world.mjs): a year of sessions (`--transcripts`, their lists all
// finished) and `--lists` named lists, each with #1 in progress and no owner, left by a solo
// agent that is over (ended or crashed), whose transcript is `--mb` MB. Every round (a tick,
// 1.5 s here) notify looks again at each list with a task in progress: that is when
// agent-died asks what the list's sessions' transcripts say.
//
// `tasks notify --all --json` runs for `--rounds` rounds twice on the same folder, in one go:
// - baseline: each list's #1 completed (nothing in progress: no list is looked at again);
// - unowned: #1 in progress with no owner, as the agent left it.
// A preloaded hook (bench/look-clock.cjs) records the CPU time, resident memory and bytes
// read at the start of each round. Printed: the CPU and bytes read of the start and first
// look (which read everything once), the CPU of the next two rounds, then the median CPU and
// bytes read of a round after those, and the peak memory, with the CPU and memory as ratios
// to the baseline's. `--build DIR` runs another built checkout the same way, after this one
// (before and after a change: `git worktree add /tmp/before <commit>`, built there).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeNotifyWorld } from './notify-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flagValue = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const LISTS = Number(flagValue('--lists') ?? 50);
const MB = Number(flagValue('--mb') ?? 20);
const TRANSCRIPTS = Number(flagValue('--transcripts') ?? 2000);
const ROUNDS = Number(flagValue('--rounds') ?? 20);
const OTHER = flagValue('--build');
const TICK_MS = 1500;

const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-notify-looks-'));
const made = Date.now();
const world = makeNotifyWorld(config, { lists: LISTS, mb: MB, transcripts: TRANSCRIPTS });
console.error(`bench: world written in ${((Date.now() - made) / 1000).toFixed(0)} s`);

/** Set every solo list's #1 to `status`, keeping the file's time. */
function setStatus(status) {
  for (const { dir } of world.solo) {
    const file = path.join(dir, '1.json');
    const { mtime } = fs.statSync(file);
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), status }, null, 2));
    fs.utimesSync(file, mtime, mtime);
  }
}

/** One notify run of ROUNDS rounds; returns each round's CPU (ms) and the peak memory (MB). */
async function measure(root, name) {
  const looks = path.join(config, `looks-${name}`);
  fs.rmSync(looks, { force: true });
  // Each run starts without a persistent cache: what it reads, it reads itself.
  const cache = path.join(config, `cache-${name}`);
  fs.rmSync(cache, { recursive: true, force: true });
  const state = path.join(config, `state-${name}`);
  fs.rmSync(state, { recursive: true, force: true });
  const env = {
    ...process.env,
    CLAUDE_CONFIG_DIR: config,
    HOME: path.join(config, 'home'),
    XDG_STATE_HOME: state,
    XDG_CACHE_HOME: cache,
    NO_COLOR: '1',
    TASKS_NOTIFY_TICK_MS: String(TICK_MS),
    BENCH_LOOKS_FILE: looks,
    NODE_OPTIONS: `--require ${path.join(ROOT, 'bench', 'look-clock.cjs')}`,
  };
  delete env.CLAUDE_CODE_TASK_LIST_ID;
  const child = spawn(process.execPath, [path.join(root, 'bin', 'tasks.js'), 'notify', '--all', '--json', '--to', 'exec:cat >/dev/null'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const told = new Map();
  child.stdout.on('data', (d) => {
    for (const m of String(d).matchAll(/"event":"([a-z-]+)"/g)) told.set(m[1], (told.get(m[1]) ?? 0) + 1);
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines = () => (fs.existsSync(looks) ? fs.readFileSync(looks, 'utf8').trim().split('\n').filter(Boolean) : []);
  const exited = new Promise((r) => child.once('exit', r));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  while (lines().length < ROUNDS + 1 && !gone) await new Promise((r) => setTimeout(r, 200));
  child.kill('SIGTERM');
  await exited;
  const rows = lines().map((l) => l.split(' ').map(Number));
  if (rows.length < ROUNDS + 1) throw new Error(`notify (${name}) stopped after ${rows.length} rounds: ${stderr}`);
  const cpu = rows.slice(1).map(([at], i) => (at - rows[i][0]) / 1000);
  const read = rows.slice(1).map(([, , bytes], i) => (bytes - rows[i][2]) / 1e6);
  const events = [...told].map(([e, n]) => `${n} ${e}`).join(', ') || 'none';
  return {
    start: rows[0][0] / 1000,
    startRead: rows[0][2] / 1e6,
    first: cpu.slice(0, 2),
    steady: cpu.slice(2),
    read: read.slice(2),
    rss: Math.max(...rows.map(([, rss]) => rss)) / 1048576,
    events,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const builds = [
  { label: 'this build', root: ROOT },
  ...(OTHER ? [{ label: path.basename(path.resolve(OTHER)), root: path.resolve(OTHER) }] : []),
];
const results = [];
// Each build's baseline just before its own run, so that the ratios of one build are of one stretch of the machine's load.
for (const b of builds) {
  setStatus('completed');
  const base = await measure(b.root, `${b.label}-baseline`);
  setStatus('in_progress');
  const unowned = await measure(b.root, `${b.label}-unowned`);
  results.push({ ...b, base, unowned });
  console.error(`bench: ${b.label} done`);
}
fs.rmSync(config, { recursive: true, force: true });

const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
console.log(
  `tasks notify looks, ${new Date().toISOString()}, node ${process.version}, ${os.cpus().length} cores, load ${load}: ` +
    `${LISTS} lists with #1 in progress and no owner (agents over, ${MB} MB transcripts), ${TRANSCRIPTS} other transcripts (${(world.counts.bytes / 1e9).toFixed(1)} GB), ${ROUNDS} rounds of ${TICK_MS} ms`,
);
console.log(
  'build | run | start and first look: CPU ms, MB read | next 2 rounds, CPU ms | a round after: median CPU ms | / baseline | MB read | peak RSS MB | / baseline | told',
);
console.log('---|---|---|---|---|---|---|---|---|---');
for (const r of results) {
  const b = median(r.base.steady);
  for (const [name, m] of [
    ['baseline (nothing in progress)', r.base],
    ['#1 in progress, no owner', r.unowned],
  ]) {
    console.log(
      `${r.label} | ${name} | ${m.start.toFixed(0)}, ${m.startRead.toFixed(0)} | ${m.first.map((x) => x.toFixed(0)).join(', ')} | ${median(m.steady).toFixed(1)} | ${(median(m.steady) / b).toFixed(2)}x | ${median(m.read).toFixed(2)} | ${m.rss.toFixed(0)} | ${(m.rss / r.base.rss).toFixed(2)}x | ${m.events}`,
    );
  }
}
