// What `tasks cost` and the cost wherever a task is shown take, at a heavy user's year of
// history (bench/session-world.mjs: 3,000 sessions in 20 projects, ~1 GB of transcripts
// that carry each message's usage; the list's own session a long one, 2 MB), with the
// persistent cache warm: each scenario a median of paired runs (bench/paired.mjs), wall
// and CPU time. The goal: `cost -l <list>` at most 2x `-l <list> list`, for a session's
// own list and for a named list shared by several sessions. Also printed: the first `cost`
// of a list (nothing of its sessions kept yet) against a warm one, `list --cost` against
// `list`, and `get` (with its Work line) against `get --json` (which reads no cost).
//
// Usage: npm run bench:cost (node bench/cost.mjs [--runs N] [--quick] [--keep]; --quick: 300
// sessions; --keep: the world is left in its temporary folder, to look into)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectFolder } from '../test/helpers/session-files.mjs';
import { cpuHookIn, cpuOf, paired } from './paired.mjs';
import { makeSessionWorld, uuid } from './session-world.mjs';
import { makeTasks, writeList } from './task-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : QUICK ? 7 : 15;
const WARMUP = 2;
const SESSIONS = QUICK ? 300 : 3000;

if (!fs.existsSync(path.join(ROOT, 'dist', 'tasks.js')) && !fs.existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
  console.error('bench: build first (npm run build)');
  process.exit(2);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-cost-'));
const config = path.join(work, 'config');
const cpuHook = cpuHookIn(work);

const started = Date.now();
const { project, list, counts } = makeSessionWorld(config, { transcripts: SESSIONS, writeList, makeTasks });
console.error(
  `bench: ${SESSIONS} sessions written in ${((Date.now() - started) / 1000).toFixed(0)} s (${(counts.bytes / 1e6).toFixed(0)} MB; ${counts.own} own lists, ${counts.named} sessions on ${counts.namedLists} named lists, ${counts.long} of 2 MB)`,
);
// Session 1, the list's own, made a long session (2 MB): its model messages, each with its
// usage, repeated under ids of their own through it, as a long session has them.
{
  const file = path.join(config, 'projects', projectFolder(project), `${uuid(1)}.jsonl`);
  const { mtime } = fs.statSync(file);
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  const models = lines.filter((l) => l.includes('"type":"assistant"') && l.includes('"usage"'));
  const copies = [];
  for (let k = 0, size = 0; size < 2_000_000; k++) {
    const m = JSON.parse(models[k % models.length]);
    m.message.id = `msg_bench_${k}`;
    m.uuid = `bench-${k}`;
    const line = JSON.stringify(m);
    copies.push(line);
    size += line.length + 1;
  }
  lines.splice(lines.length - 5, 0, ...copies);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  fs.utimesSync(file, mtime, mtime);
}
const shared = fs.existsSync(path.join(config, 'tasks', 'shared-0')) ? 'shared-0' : undefined;

const env = {
  ...process.env,
  CLAUDE_CONFIG_DIR: config,
  HOME: path.join(config, 'home'),
  XDG_CACHE_HOME: path.join(work, 'cache'),
  XDG_CONFIG_HOME: path.join(work, 'xdg-config'),
  NO_COLOR: '1',
};
delete env.NODE_EXTRA_CA_CERTS;
delete env.CLAUDE_CODE_TASK_LIST_ID;
delete env.FORCE_COLOR;

/** One run: wall ms, and CPU ms from the hook. */
function once(argv, o = {}) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', cpuHook, BIN, ...argv], {
    env: o.env ?? env,
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`tasks ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: cpuOf(r.stderr), stdout: r.stdout };
}

// A year's files have long settled: what a run works out from files written in the last
// few seconds is not kept (core/cache/file-stamp.ts), and the world was written just now.
const { SETTLE_MS } = await import(new URL('../dist/core/cache/file-stamp.js', import.meta.url));
await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 200));

// The first runs: `lists` keeps what every transcript says; the first cost of the list then
// reads its sessions' transcripts and keeps what it read (once, not paired: it happens once).
once(['lists']);
const first = once(['-l', list, 'cost']);
const warm = once(['-l', list, 'cost']);
// The figures are of work, not of an empty list: the list's sessions' messages were counted.
const report = JSON.parse(once(['-l', list, 'cost', '--json']).stdout);
const messages = report.total.messages;
if (!(messages > 0)) throw new Error(`bench: the list's cost counted no message (${JSON.stringify(report.total)})`);
if (shared !== undefined) once(['-l', shared, 'cost']);

const scenarios = [
  { name: `cost -l <own list>, 20 tasks`, argv: ['-l', list, 'cost'], base: ['-l', list, 'list'], against: '-l <own list> list', goal: 2 },
  ...(shared === undefined
    ? []
    : [
        {
          name: `cost -l ${shared} (a named list of several sessions)`,
          argv: ['-l', shared, 'cost'],
          base: ['-l', shared, 'list'],
          against: `-l ${shared} list`,
          goal: 2,
        },
      ]),
  { name: 'list --cost, 20 tasks', argv: ['-l', list, 'list', '--cost'], base: ['-l', list, 'list'], against: 'list' },
  { name: 'get 3 (with its Work line)', argv: ['-l', list, 'get', '3'], base: ['-l', list, 'get', '3', '--json'], against: 'get 3 --json' },
];

console.error(
  `bench: ${RUNS} paired runs per scenario after ${WARMUP} warm-ups, on ${os.cpus().length} cores (load ${os.loadavg()[0].toFixed(1)})`,
);
const fmt = (x, d = 2) => x.toFixed(d);
const lines = [];
for (const s of scenarios) {
  const r = paired(
    () => once(s.argv),
    () => once(s.base),
    { runs: RUNS, warmup: WARMUP },
  );
  const verdict = s.goal === undefined ? '-' : r.ratio <= s.goal ? `<= ${s.goal}x: met` : `<= ${s.goal}x: MISSED`;
  lines.push(
    `| ${s.name} | ${fmt(r.ms, 1)} ms | ${fmt(r.ratio)}x ${s.against} (${fmt(r.baseMs, 1)} ms) | ${fmt(r.cpuRatio)}x | ${verdict} |`,
  );
}

console.log(
  `tasks cost, ${new Date().toISOString().slice(0, 10)}, ${SESSIONS} sessions (${(counts.bytes / 1e6).toFixed(0)} MB), ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)} at the end; the list's sessions: ${messages} messages counted`,
);
console.log('');
console.log(`First cost of the list (its sessions' transcripts read and kept): ${fmt(first.wall, 1)} ms, CPU ${fmt(first.cpu, 1)} ms;`);
console.log(`the next one: ${fmt(warm.wall, 1)} ms, CPU ${fmt(warm.cpu, 1)} ms (${fmt(first.cpu / warm.cpu, 1)}x less CPU).`);
console.log('');
console.log('| scenario | median | ratio (wall, paired) | ratio (CPU) | goal |');
console.log('|---|---|---|---|---|');
for (const l of lines) console.log(l);
if (args.includes('--keep')) console.error(`bench: the world is kept in ${work} (CLAUDE_CONFIG_DIR=${config}, run in ${project})`);
else fs.rmSync(work, { recursive: true, force: true });
