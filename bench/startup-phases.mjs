// Where a read command's start-up goes, per Node: paired runs (each just after a run of
// `node -e 0` on the same Node, as bench/startup.mjs pairs them) of what bin/tasks.js does
// for `tasks -l <list> list` of 20 tasks, stopped after each stage (bench/startup-stage.cjs):
// reading the plain bundle and its code cache; V8 taking the cache; running the bundle as
// far as choosing the list (`get` in a list that is not there: its top level, main, the
// run's set-up, the plain read's command); the whole list. A stage's cost is its ratio less the one before it.
// CPU time (user and system, from a preloaded hook at exit) beside wall time: on a loaded
// machine CPU moves less. On each Node bench/startup.mjs uses.
//
// Usage: npm run bench:startup-phases (node bench/startup-phases.mjs [--runs N])
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuHookIn, cpuOf, paired } from './paired.mjs';
import { makeTasks, writeList } from './task-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');
const STAGE = path.join(ROOT, 'bench', 'startup-stage.cjs');
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 21;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-phases-'));
const config = path.join(work, 'config');
const cpuHook = cpuHookIn(work);
writeList(config, 'bench-20', makeTasks(20));
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

function once(node, argv) {
  const start = process.hrtime.bigint();
  const r = spawnSync(node, ['-r', cpuHook, ...argv], { env, cwd: work, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${node} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: cpuOf(r.stderr) };
}

function nodes() {
  const found = [process.execPath];
  for (const major of ['22', '24']) {
    if (process.versions.node.split('.')[0] === major) continue;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'node-version.mjs'), major], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status === 0) found.push(path.join(r.stdout.trim(), 'node'));
    else console.error(`bench: no Node ${major} (scripts/node-version.mjs ${major}); left out`);
  }
  return found;
}

const STAGES = [
  ['read the bundle and its code cache', [STAGE, 'read']],
  ['+ V8 takes the code cache', [STAGE, 'compile']],
  ['+ top level, main, set-up, choosing the list (`get` in a list not there)', [STAGE, 'setup']],
  ['+ the list itself: `tasks -l bench-20 list`', [BIN, '-l', 'bench-20', 'list']],
];

console.log(
  `tasks start-up by stage, ${RUNS} paired runs each, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)} at the start`,
);
console.log('');
console.log('| Node | stage | ratio (wall) | ratio (CPU) | stage alone (CPU) |');
console.log('|---|---|---|---|---|');
for (const node of nodes()) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  // On a Node the build's code cache is not for, the first run trains that Node's own.
  once(node, [BIN, '-l', 'bench-20', 'list']);
  let before = 1;
  for (const [name, argv] of STAGES) {
    const r = paired(
      () => once(node, argv),
      () => once(node, ['-e', '0']),
      { runs: RUNS, warmup: 3 },
    );
    console.log(
      `| ${version} | ${name} | ${r.ratio.toFixed(2)}x | ${r.cpuRatio.toFixed(2)}x | ${(r.cpuRatio - before >= 0 ? '+' : '') + (r.cpuRatio - before).toFixed(2)} |`,
    );
    before = r.cpuRatio;
  }
}
console.log('');
console.log(`load ${os.loadavg()[0].toFixed(1)} at the end`);
fs.rmSync(work, { recursive: true, force: true });
