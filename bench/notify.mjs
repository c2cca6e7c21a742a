#!/usr/bin/env node
// Benchmark of `tasks notify` over a long run with an agent writing: npm run bench:notify
// (node bench/notify.mjs [--minutes 60] [--lists 50] [--every-ms 500]).
//
// `tasks notify --all` follows every list of a config folder holding `--lists` quiet lists
// (with open work, last changed two days ago) and one busy one, where a stand-in agent works a step at a time (every `--every-ms`):
// it creates a task, starts it (owner set), completes it, and after ten tasks starts over
// on a fresh list, so that the busy list completes (an event) again and again. Each
// minute the notify process's resident memory (VmRSS) and CPU time (from /proc) are
// sampled; the table shows memory over the run (flat is the goal: no growth with the
// changes it has seen) and its CPU as a share of one core, beside the agent's own share
// (the baseline: what writing the files costs).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flagValue = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const MINUTES = Number(flagValue('--minutes') ?? 60);
const LISTS = Number(flagValue('--lists') ?? 50);
const EVERY_MS = Number(flagValue('--every-ms') ?? 500);
const SAMPLE_MS = Number(flagValue('--sample-ms') ?? 60_000);
// --on EVENTS: only those (default: every event, as notify's default).
const ON = flagValue('--on');
if (process.platform !== 'linux') {
  console.error('bench: reads /proc; Linux only');
  process.exit(2);
}

const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-notify-'));
const tasksDir = path.join(config, 'tasks');
const task = (id, fields) => ({
  id,
  subject: `Step ${id}`,
  description: `step ${id}`,
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...fields,
});
const write = (dir, t) => fs.writeFileSync(path.join(dir, `${t.id}.json`), JSON.stringify(t, null, 2));
for (let i = 0; i < LISTS; i++) {
  const dir = path.join(tasksDir, `quiet-${i}`);
  fs.mkdirSync(dir, { recursive: true });
  for (let id = 1; id <= 5; id++) write(dir, task(String(id), { status: id <= 3 ? 'completed' : 'pending' }));
  // Quiet: last changed two days ago, as most lists of a long-lived config folder.
  const old = Date.now() / 1000 - 2 * 86_400;
  for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), old, old);
}

const env = { ...process.env, CLAUDE_CONFIG_DIR: config, XDG_STATE_HOME: path.join(config, 'state'), NO_COLOR: '1' };
delete env.CLAUDE_CODE_TASK_LIST_ID;
const notify = spawn(
  process.execPath,
  [path.join(ROOT, 'bin', 'tasks.js'), 'notify', '--all', '--to', 'exec:cat >/dev/null', '--json', ...(ON ? ['--on', ON] : [])],
  {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let sent = 0;
notify.stdout.on('data', (d) => {
  sent += String(d)
    .split('\n')
    .filter((l) => l.includes('"outcome":"sent"')).length;
});
notify.stderr.on('data', () => {});

// The stand-in agent, in this process: its CPU is this process's.
let cycle = 0;
let step = 0;
let dir = '';
function agentStep() {
  const n = Math.floor(step / 3) + 1;
  if (step === 0) {
    dir = path.join(tasksDir, `busy-${cycle}`);
    fs.mkdirSync(dir, { recursive: true });
  }
  const phase = step % 3;
  const id = String(n);
  if (phase === 0) write(dir, task(id));
  else if (phase === 1) write(dir, task(id, { status: 'in_progress', owner: 'agent-1' }));
  else write(dir, task(id, { status: 'completed', owner: 'agent-1' }));
  step++;
  if (step === 30) {
    // Start over on a fresh list; the old one goes, as a finished session's may.
    fs.rmSync(path.join(tasksDir, `busy-${cycle - 1}`), { recursive: true, force: true });
    cycle++;
    step = 0;
  }
}
const agent = setInterval(agentStep, EVERY_MS);

const ticks = 100; // USER_HZ on Linux
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / ticks;
}
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0) / 1024;

const started = Date.now();
const samples = [];
let last = { at: started, notifyCpu: 0, agentCpu: process.cpuUsage() };
await new Promise((r) => setTimeout(r, 3000));
const sample = () => {
  const now = Date.now();
  const notifyCpu = cpuSeconds(notify.pid);
  const agentCpu = process.cpuUsage();
  const wall = (now - last.at) / 1000;
  const agentSecs = (agentCpu.user + agentCpu.system - last.agentCpu.user - last.agentCpu.system) / 1e6;
  samples.push({
    minute: (now - started) / 60_000,
    rss: rssMb(notify.pid),
    notifyShare: (notifyCpu - last.notifyCpu) / wall,
    agentShare: agentSecs / wall,
    changes: cycle * 30 + step,
    sent,
  });
  last = { at: now, notifyCpu, agentCpu };
  const s = samples.at(-1);
  console.error(
    `bench: ${s.minute.toFixed(1)} min, notify ${s.rss.toFixed(1)} MB, ${(s.notifyShare * 100).toFixed(1)}% of a core, ${s.sent} sent`,
  );
};
const sampler = setInterval(sample, SAMPLE_MS);
await new Promise((r) => setTimeout(r, MINUTES * 60_000));
clearInterval(sampler);
clearInterval(agent);
sample();
notify.kill('SIGTERM');
await new Promise((r) => notify.once('exit', r));
fs.rmSync(config, { recursive: true, force: true });

const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
console.log(
  `tasks notify benchmark, ${new Date().toISOString()}, node ${process.version}, ${os.cpus().length} cores, load ${load}: ` +
    `${MINUTES} min, ${LISTS} quiet lists + 1 busy, a change every ${EVERY_MS} ms`,
);
console.log('minute  rss MB  notify cpu  agent cpu  changes  sent');
for (const s of samples) {
  console.log(
    `${s.minute.toFixed(1).padStart(6)}  ${s.rss.toFixed(1).padStart(6)}  ${`${(s.notifyShare * 100).toFixed(1)}%`.padStart(10)}  ${`${(s.agentShare * 100).toFixed(1)}%`.padStart(9)}  ${String(s.changes).padStart(7)}  ${String(s.sent).padStart(4)}`,
  );
}
const first = samples.find((s) => s.minute >= 2) ?? samples[0];
const end = samples.at(-1);
if (first && end) {
  console.log(
    `memory from minute ${first.minute.toFixed(0)} to the end: ${first.rss.toFixed(1)} -> ${end.rss.toFixed(1)} MB (${(((end.rss - first.rss) / first.rss) * 100).toFixed(1)}%); ` +
      `${end.sent} events sent for ${end.changes} changes`,
  );
}
