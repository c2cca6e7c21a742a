// `list --json` of 1,000 tasks counted in instructions rather than timed: on a shared,
// loaded machine a wall-time ratio wanders by 0.1-0.3, an instruction count by about 2%.
// Each run is `valgrind --tool=callgrind` (user-space instructions of every thread; the
// kernel's share of the file reads is not in it), less V8's search for primes when it
// picks its random hash seed (`detail::sprp`: 6-18 million a start, by the seed alone).
// Against three baselines, on the machine's Node and Node 22 and 24: `node -e 0`, the bare
// read-parse-print script (bench/floor.cjs, the start-up goal's) and the same script
// printing the same document `tasks` prints (bench/floor-same.cjs: a stat a file for
// `updatedAt`). With --build DIR, another built checkout is counted beside this one.
//
// Usage: npm run bench:instructions (node bench/instructions.mjs [--runs N] [--build DIR])
// Needs valgrind (Debian: apt-get install valgrind); without it, says so and exits 0.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './paired.mjs';
import { makeTasks, writeList } from './task-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const buildAt = args.indexOf('--build');
const BEFORE = buildAt >= 0 ? path.resolve(args[buildAt + 1] ?? '') : undefined;

if (spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.log('bench: valgrind is not installed; no instruction counts (apt-get install valgrind)');
  process.exit(0);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-instr-'));
const config = path.join(work, 'config');
writeList(config, 'bench-1000', makeTasks(1000));
const listDir = path.join(config, 'tasks', 'bench-1000');
const baseEnv = { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: path.join(work, 'home'), NO_COLOR: '1' };
delete baseEnv.NODE_EXTRA_CA_CERTS;
delete baseEnv.CLAUDE_CODE_TASK_LIST_ID;

/** Instructions of one run, less the hash seed's prime search; each build keeps its own code cache folder. */
function count(node, argv, cacheName) {
  const out = path.join(work, 'callgrind.out');
  const env = { ...baseEnv, XDG_CACHE_HOME: path.join(work, `cache-${cacheName}`) };
  spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, node, ...argv], { env, stdio: 'ignore' });
  const report = spawnSync('callgrind_annotate', ['--threshold=100', out], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout;
  const number = (line) => Number(line.trim().split(/\s+/)[0].replaceAll(',', ''));
  const total = report.split('\n').find((l) => l.includes('PROGRAM TOTALS'));
  const primes = report.split('\n').filter((l) => l.includes('detail::sprp'));
  return number(total ?? '0') - primes.reduce((sum, l) => sum + number(l), 0);
}

function nodes() {
  const found = [{ label: `machine's`, node: process.execPath }];
  for (const major of ['22', '24']) {
    if (process.versions.node.split('.')[0] === major) continue;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'node-version.mjs'), major], { encoding: 'utf8' });
    if (r.status === 0) found.push({ label: `Node ${major}`, node: path.join(r.stdout.trim(), 'node') });
    else console.error(`bench: no Node ${major}; left out`);
  }
  return found;
}

const millions = (n) => `${(n / 1e6).toFixed(1)} M`;
const listJson = (root) => [path.join(root, 'bin', 'tasks.js'), '-l', 'bench-1000', 'list', '--json'];
const builds = [{ name: 'this build', root: ROOT }, ...(BEFORE ? [{ name: path.basename(BEFORE), root: BEFORE }] : [])];

console.log(`tasks list --json of 1,000 tasks in instructions (callgrind, median of ${RUNS}, less V8's hash-seed prime search)\n`);
console.log('| Node | node -e 0 | bare script | same document | build | list --json | / bare script | / same document |');
console.log('|---|---|---|---|---|---|---|---|');
for (const { label, node } of nodes()) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const med = (argv, cache) => {
    count(node, argv, cache); // a first run writes the code cache under valgrind (V8 rejects one made on other CPU features)
    return median(Array.from({ length: RUNS }, () => count(node, argv, cache)));
  };
  const bare = med(['-e', '0'], 'none');
  const floor = med([path.join(ROOT, 'bench', 'floor.cjs'), listDir], 'none');
  const same = med([path.join(ROOT, 'bench', 'floor-same.cjs'), listDir], 'none');
  for (const build of builds) {
    const ours = med(listJson(build.root), `${label}-${build.name}`);
    const row = [`${version} (${label})`, millions(bare), millions(floor), millions(same), build.name, millions(ours)];
    console.log(`| ${row.join(' | ')} | ${(ours / floor).toFixed(2)}x | ${(ours / same).toFixed(2)}x |`);
  }
}
fs.rmSync(work, { recursive: true, force: true });
