#!/usr/bin/env node
// Benchmark: `tasks graph` of long dependency chains, in every format (tree, mermaid, dot,
// --json), whole process: wall time and peak memory (GNU time's max RSS), medians of a few
// runs, beside `node -e 0` measured in the same run. The chain is the shape that costs a
// tree the most: task i waits for task i-1, so the tree is as deep as the list is long; a
// second list of the same size repeats each blocker three times on both sides (an agent's
// duplicate edges), which must cost no more than the plain chain.
// Usage: npm run bench:graph (node bench/graph.mjs [--sizes 5000,10000,20000] [--runs N] [--bin path]).
// The goal: a 20,000-task chain in under 3 s and 300 MB, every format. CPU time (user +
// system) is printed beside the wall time: on a loaded machine it is the steadier figure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
// --bin: another build's bin/tasks.js, to compare (a copy of an earlier checkout's bin, dist and package.json).
const BIN = path.resolve(flag('--bin') ?? path.join(ROOT, 'bin', 'tasks.js'));
const SIZES = (flag('--sizes') ?? '5000,10000,20000').split(',').map(Number);
const RUNS = Number(flag('--runs')) || 3;
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
// Each row is `tasks graph` in that format; `list --json` reads the same files and draws
// nothing: what any command that reads the whole list costs, beside which graph's own work shows.
const FORMATS = [
  ['list --json', null],
  ['tree', []],
  ['mermaid', ['--format', 'mermaid']],
  ['dot', ['--format', 'dot']],
  ['json', ['--json']],
];

const ENV = { ...process.env };
delete ENV.NODE_EXTRA_CA_CERTS;
delete ENV.FORCE_COLOR;
delete ENV.NO_COLOR;
delete ENV.CLAUDE_CODE_TASK_LIST_ID;

/** A chain of n tasks: i waits for i-1 (each blocker `repeat` times on both sides). */
function writeChain(config, listId, n, repeat) {
  const dir = path.join(config, 'tasks', listId);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.lock'), '');
  for (let i = 1; i <= n; i++) {
    const task = {
      id: String(i),
      subject: `Step ${i} of the migration`,
      description: '',
      activeForm: `Doing step ${i}`,
      status: i < n / 4 ? 'completed' : i < n / 4 + 3 ? 'in_progress' : 'pending',
      blocks: i < n ? Array(repeat).fill(String(i + 1)) : [],
      blockedBy: i > 1 ? Array(repeat).fill(String(i - 1)) : [],
    };
    fs.writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(task));
  }
}

function once(cmd, cmdArgs, env) {
  const memFile = path.join(os.tmpdir(), `bench-graph-mem-${process.pid}`);
  const argv = TIME ? [TIME, ['-f', '%M %U %S', '-o', memFile, cmd, ...cmdArgs]] : [cmd, cmdArgs];
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv[1], { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  let kb = Number.NaN;
  let cpuMs = Number.NaN;
  if (TIME) {
    try {
      const [rss, user, sys] = (fs.readFileSync(memFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number);
      kb = rss;
      cpuMs = (user + sys) * 1000;
    } catch {}
  }
  return { ms, kb, cpuMs, status: r.status, bytes: r.stdout?.length ?? 0, stderr: String(r.stderr ?? '') };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-graph-'));
const env = { ...ENV, CLAUDE_CONFIG_DIR: config, XDG_CACHE_HOME: path.join(config, 'xdg-cache') };
console.error(`bench graph: ${RUNS} runs per row; config ${config}`);
const base = [];
for (let i = 0; i < RUNS; i++) base.push(once(process.execPath, ['-e', '0'], ENV));
const rows = [
  ['', 'format', 'wall', 'CPU', 'peak', 'output', 'goal (20,000: < 3 s, < 300 MB)'],
  ['node -e 0', '', fmtMs(median(base.map((b) => b.ms))), fmtMs(median(base.map((b) => b.cpuMs))), '', '', ''],
];
for (const n of SIZES) {
  for (const [shape, repeat] of [
    ['chain', 1],
    ['chain x3', 3],
  ]) {
    const list = `${shape === 'chain' ? 'chain' : 'dup'}-${n}`;
    writeChain(config, list, n, repeat);
    for (const [format, extra] of FORMATS) {
      const runs = [];
      const words = extra === null ? ['list', '--json'] : ['graph', ...extra];
      for (let i = 0; i < RUNS; i++) runs.push(once(process.execPath, [BIN, '-l', list, ...words], env));
      const failed = runs.find((r) => r.status !== 0);
      const ms = median(runs.map((r) => r.ms));
      const cpu = median(runs.map((r) => r.cpuMs));
      const mb = Math.max(...runs.map((r) => r.kb)) / 1024;
      const goal = n === 20000 && extra !== null ? (ms < 3000 && mb < 300 ? 'met' : 'MISSED') : '';
      rows.push([
        `${shape} ${n}`,
        format,
        fmtMs(ms),
        fmtMs(cpu),
        `${mb.toFixed(0)} MB`,
        `${(runs[0].bytes / 1e6).toFixed(1)} MB out`,
        failed ? `exit ${failed.status}: ${failed.stderr.trim().split('\n').pop()}` : goal,
      ]);
    }
  }
}
fs.rmSync(config, { recursive: true, force: true });

function fmtMs(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
for (const r of rows)
  console.log(
    r
      .map((v, c) => String(v).padEnd(widths[c]))
      .join('  ')
      .trimEnd(),
  );
