// `tasks -H <host> -l L list` against what it cannot do without: `ssh <host> true` over
// the same shared connection, plus the same `tasks -l L list` run here on the same 20
// tasks. Paired runs, each pair back to back, in alternating order; the ratio of each pair
// is printed with its median and 90th percentile (the goal: at most 1.5x). The host is
// yours: TASKS_BENCH_HOST (an ssh alias or ssh://...; TASKS_SSH_COMMAND applies as it
// does to tasks). The bench makes a list of its own there (bench-remote-<pid>) through
// tasks itself, and removes it after.
//
// `--before <bin/tasks.js of another build>` measures that build's `-H` list too, in the
// same pairs (a change's before and after, under the same load).
//
// CPU time too, on Linux, of every process a command costs, on both ends: this bench's
// children (tasks here, ssh), the kept connection's broker, ssh's shared connection, and,
// when the host is this machine (loopback), every process of the host's user
// (TASKS_BENCH_HOST_USER: sshd's session, the shells, tasks there), as the sum of their
// user and system time (with their reaped children's) before and after each command.
//
// Usage: TASKS_BENCH_HOST=devbox npm run bench:remote (node bench/remote.mjs [--runs N] [--before <bin>])
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTasks, writeList } from './task-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 21;
const beforeAt = args.indexOf('--before');
const BEFORE = beforeAt >= 0 ? path.resolve(args[beforeAt + 1]) : undefined;
const HOST = process.env.TASKS_BENCH_HOST;
if (!HOST) {
  console.log('bench:remote: set TASKS_BENCH_HOST to a host ssh reaches without a question (an alias or ssh://...); nothing measured');
  process.exit(0);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-remote-'));
const config = path.join(work, 'config');
const list = `bench-remote-${process.pid}`;
const tasks = makeTasks(20);
writeList(config, list, tasks);
const env = { ...process.env, CLAUDE_CONFIG_DIR: config };
delete env.NODE_EXTRA_CA_CERTS;
delete env.TASKS_HOST;

const tasksRun = (argv, input, bin = BIN) => {
  const r = spawnSync(process.execPath, [bin, ...argv], { env, input, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`tasks ${argv.join(' ')}: ${r.status} ${r.stderr}`);
  return r;
};

// The same 20 tasks on the host, made there by tasks (the first run copies it over).
tasksRun(['-H', HOST, '-l', list, 'import', '-'], JSON.stringify(tasks));

// `ssh <host> true` as tasks runs ssh: the same command line, options and shared connection.
const { sshCall } = await import(path.join(ROOT, 'dist', 'cli', 'remote', 'ssh-command.js'));
const { parseHost } = await import(path.join(ROOT, 'dist', 'cli', 'remote', 'host-address.js'));
const ssh = sshCall(parseHost(HOST), 'true', { tty: false, env });

const HOST_USER = process.env.TASKS_BENCH_HOST_USER;
const HOST_UID = HOST_USER ? Number(execFileSync('id', ['-u', HOST_USER], { encoding: 'utf8' }).trim()) : undefined;
const TICK_MS = 1000 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);
/** utime + stime + cutime + cstime of a process (ticks), from /proc/<pid>/stat; 0 when it is gone. */
const procTicks = (pid, own = false) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Our own time is not the command's: only our reaped children's.
    return (own ? 0 : Number(f[11]) + Number(f[12])) + Number(f[13]) + Number(f[14]);
  } catch {
    return 0;
  }
};
/** Every process a command on the host costs CPU in, besides this bench's children. */
const costing = (pid) => {
  try {
    if (HOST_UID !== undefined && fs.statSync(`/proc/${pid}`).uid === HOST_UID) return true;
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmd.includes('__host-broker') || (cmd.startsWith('ssh: ') && cmd.includes('[mux]'));
  } catch {
    return false;
  }
};
const cpuTicks = () => {
  let ticks = procTicks('self', true);
  if (process.platform !== 'linux') return ticks;
  for (const name of fs.readdirSync('/proc'))
    if (/^\d+$/.test(name) && Number(name) !== process.pid && costing(name)) ticks += procTicks(name);
  return ticks;
};
const cpu = { remote: [], baseline: [], before: [] };
let lastCpu = 0;
const timed = (fn, kind) => {
  const c = cpuTicks();
  const t = process.hrtime.bigint();
  fn();
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  lastCpu = (cpuTicks() - c) * TICK_MS;
  if (kind) cpu[kind].push(lastCpu);
  return wall;
};
let measuring = false;
const remoteList = () => timed(() => tasksRun(['-H', HOST, '-l', list, 'list']), measuring && 'remote');
const remoteListBefore = () => timed(() => tasksRun(['-H', HOST, '-l', list, 'list'], undefined, BEFORE), measuring && 'before');
const sshThenLocal = () =>
  timed(() => {
    const r = spawnSync(ssh.file, ssh.args, { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ssh true: ${r.status} ${r.stderr}`);
    tasksRun(['-l', list, 'list']);
  }, measuring && 'baseline');

for (let i = 0; i < 3; i++) {
  remoteList();
  sshThenLocal();
  if (BEFORE) remoteListBefore();
}
measuring = true;
const ratios = [];
const remote = [];
const baseline = [];
const before = [];
const beforeRatios = [];
for (let i = 0; i < RUNS; i++) {
  const [a, b] = i % 2 === 0 ? [remoteList(), sshThenLocal()] : [undefined, sshThenLocal()];
  const r = a ?? remoteList();
  remote.push(r);
  baseline.push(b);
  ratios.push(r / b);
  if (BEFORE) {
    const x = remoteListBefore();
    before.push(x);
    beforeRatios.push(x / b);
  }
}
const q = (xs, p) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const ms = (x) => `${x.toFixed(1)} ms`;
console.log(`tasks -H ${HOST} -l L list (20 tasks) vs ssh ${HOST} true + tasks -l L list here, ${RUNS} pairs, Node ${process.version}`);
console.log(`  -H list          median ${ms(q(remote, 0.5))}  p90 ${ms(q(remote, 0.9))}`);
console.log(`  ssh true + local median ${ms(q(baseline, 0.5))}  p90 ${ms(q(baseline, 0.9))}`);
console.log(`  ratio (paired)   median ${q(ratios, 0.5).toFixed(2)}x  p90 ${q(ratios, 0.9).toFixed(2)}x  (goal: at most 1.5x)`);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const cpuLine = (label, xs) => `  CPU ${label} mean ${ms(mean(xs))} (${(mean(xs) / mean(cpu.baseline)).toFixed(2)}x ssh true + local)`;
console.log(`  CPU, both ends${HOST_USER ? ` (host user ${HOST_USER})` : ' (this side only: set TASKS_BENCH_HOST_USER on loopback)'}:`);
console.log(cpuLine('-H list         ', cpu.remote));
console.log(cpuLine('ssh true + local', cpu.baseline));
if (BEFORE) console.log(cpuLine('-H list before  ', cpu.before));
if (BEFORE) {
  console.log(`  before: ${BEFORE}`);
  console.log(`  -H list before   median ${ms(q(before, 0.5))}  p90 ${ms(q(before, 0.9))}`);
  console.log(`  ratio before     median ${q(beforeRatios, 0.5).toFixed(2)}x  p90 ${q(beforeRatios, 0.9).toFixed(2)}x`);
}

// The bench's list on the host goes again.
spawnSync(ssh.file, [...ssh.args.slice(0, -1), `rm -rf "\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/tasks/${list}"`], { env });
fs.rmSync(work, { recursive: true, force: true });
