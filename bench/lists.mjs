#!/usr/bin/env node
// Benchmark of `tasks lists` and the list choice in a heavy user's config folder
// (bench/session-world.mjs): npm run bench:lists (node bench/lists.mjs [--sizes 300,3000]
// [--runs N] [--build DIR]...).
//
// Each run of a round is paired with its baselines in the same round, so that a shared
// machine speeding up or slowing down moves both sides alike:
// - `tasks lists` against the stat-only floor (bench/lists-floor.cjs: what looking at the
//   transcripts, list folders and task files costs, reading none of them) and `node -e 0`;
// - `tasks list` chosen by the project against the same list named (`-l <uuid>`).
// - `tasks lists` while a session runs (a process with its live-session file, its own
//   list and a transcript that grows before each run), in a copy of the world made of
//   links to its project and list folders, against the same floor.
// Wall time, CPU time (user + system, in microseconds, from a hook each Node run preloads:
// bench/paired.mjs; GNU time's is in hundredths of a second, a tenth of a 60 ms run) and
// peak memory (GNU time). The load of the machine is printed as the rounds start and end.
// `--build DIR`
// (repeatable) times another build of tasks (a folder with bin/ and dist/) in the same
// rounds, each with its own cache folder: before and after a change, measured together.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeLiveSession, writeTaskTranscript } from '../test/helpers/session-files.mjs';
import { cpuHookIn, cpuOf } from './paired.mjs';
import { makeSessionWorld } from './session-world.mjs';
import { makeTasks, writeList } from './task-world.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flagValue = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const RUNS = Number(flagValue('--runs')) || 15;
const SIZES = (flagValue('--sizes') ?? '300,3000').split(',').map(Number);
const builds = [{ name: 'this build', root: ROOT }];
args.forEach((a, i) => {
  if (a === '--build') builds.push({ name: path.basename(args[i + 1]), root: path.resolve(args[i + 1]) });
});
const TIME = '/usr/bin/time';
if (!fs.existsSync(TIME)) {
  console.error('bench: GNU time (/usr/bin/time) is needed for CPU time and peak memory');
  process.exit(2);
}

const ENV = { ...process.env };
for (const name of ['NODE_EXTRA_CA_CERTS', 'FORCE_COLOR', 'NO_COLOR', 'CLAUDE_CODE_TASK_LIST_ID']) delete ENV[name];

const hookDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-hook-'));
const CPU_HOOK = cpuHookIn(hookDir);

function once(cmd, cmdArgs, env, cwd) {
  const out = path.join(os.tmpdir(), `bench-lists-${process.pid}`);
  // Node runs preload the CPU hook: every side of a pair alike.
  const args = cmd === process.execPath ? ['-r', CPU_HOOK, ...cmdArgs] : cmdArgs;
  const start = process.hrtime.bigint();
  const r = spawnSync(TIME, ['-f', '%M %U %S', '-o', out, cmd, ...args], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const [kb, user, sys] = fs.readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed: ${String(r.stderr).trim().split('\n').pop()}`);
  const hooked = cpuOf(String(r.stderr));
  return { ms, cpu: Number.isFinite(hooked) ? hooked : (user + sys) * 1000, mb: kb / 1024 };
}

const loadNow = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const loadAtStart = loadNow();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

// --world DIR: keep the worlds in DIR and use them again on the next run (they take minutes to write).
const kept = flagValue('--world');
const config = kept ? path.resolve(kept) : fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-lists-'));
fs.mkdirSync(config, { recursive: true });
/**
 * The world `heavy` with a session running: a folder beside it whose project and list
 * folders are links to the world's, plus the running session's own project folder,
 * transcript and list, and its live-session file (a `sleep` stands for its process).
 * Returns the config folder, and what grows its transcript by one turn.
 */
function liveWorld(heavy, home, child) {
  const config = `${heavy}-live`;
  fs.rmSync(config, { recursive: true, force: true });
  // The project folders as links (a gigabyte of transcripts); the list folders copied (a few megabytes), as folders are.
  fs.mkdirSync(path.join(config, 'projects'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(heavy, 'projects')))
    fs.symlinkSync(path.join(heavy, 'projects', entry), path.join(config, 'projects', entry));
  fs.cpSync(path.join(heavy, 'tasks'), path.join(config, 'tasks'), { recursive: true, preserveTimestamps: true });
  fs.cpSync(path.join(heavy, 'sessions'), path.join(config, 'sessions'), { recursive: true });
  if (fs.existsSync(path.join(heavy, 'teams'))) fs.symlinkSync(path.join(heavy, 'teams'), path.join(config, 'teams'));
  const sessionId = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
  const cwd = path.join(home, 'work', 'live-project');
  fs.mkdirSync(cwd, { recursive: true });
  const start = Date.now() - 600_000;
  const subjects = Array.from({ length: 8 }, (_, i) => `Live step ${i + 1} of the running session`);
  const transcript = writeTaskTranscript(config, {
    sessionId,
    cwd,
    running: true,
    calls: subjects.map((subject, i) => ({
      name: 'TaskCreate',
      input: { subject, description: '' },
      result: { task: { id: String(i + 1), subject } },
      at: start + i * 1000,
    })),
  });
  const list = writeList(
    config,
    sessionId,
    subjects.map((subject, i) => ({
      id: String(i + 1),
      subject,
      description: '',
      status: i < 3 ? 'completed' : 'pending',
      blocks: [],
      blockedBy: [],
    })),
  );
  // Each task file last written by the call that made it, as the agent writes it.
  for (let i = 0; i < subjects.length; i++) {
    const at = (start + i * 1000 + 5) / 1000;
    fs.utimesSync(path.join(list, `${i + 1}.json`), at, at);
  }
  writeLiveSession(config, { pid: child.pid, sessionId, cwd, start });
  let turn = 0;
  const grow = () => {
    const at = new Date().toISOString();
    const entry = { type: 'user', sessionId, cwd, timestamp: at, message: { role: 'user', content: `turn ${++turn}` } };
    fs.appendFileSync(transcript, `${JSON.stringify(entry)}\n`);
  };
  return { config, grow };
}

const sleeper = spawn('sleep', ['86400'], { stdio: 'ignore' });
const rows = [];
const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
for (const n of SIZES) {
  const heavy = path.join(config, `sessions-${n}`);
  const made = path.join(heavy, 'world.json');
  if (!fs.existsSync(made)) {
    fs.rmSync(heavy, { recursive: true, force: true });
    fs.mkdirSync(heavy, { recursive: true });
    const world = makeSessionWorld(heavy, { transcripts: n, writeList, makeTasks });
    fs.writeFileSync(made, JSON.stringify(world));
  }
  const { project, list, counts } = JSON.parse(fs.readFileSync(made, 'utf8'));
  console.error(`bench: ${n} sessions (${(counts.bytes / 1e6).toFixed(0)} MB, ${counts.own + counts.namedLists} lists)`);
  const home = path.join(heavy, 'home');
  const envOf = (b) => ({
    ...ENV,
    CLAUDE_CONFIG_DIR: heavy,
    HOME: home,
    XDG_CACHE_HOME: path.join(config, `cache-${n}-${builds.indexOf(b)}`),
  });
  const live = liveWorld(heavy, home, sleeper);
  const liveEnvOf = (b) => ({
    ...envOf(b),
    CLAUDE_CONFIG_DIR: live.config,
    XDG_CACHE_HOME: path.join(config, `cache-${n}-${builds.indexOf(b)}-live`),
  });
  // Each run starts with no cache: its first run is measured as such.
  for (const b of builds) for (const e of [envOf(b), liveEnvOf(b)]) fs.rmSync(e.XDG_CACHE_HOME, { recursive: true, force: true });
  const binOf = (b) => path.join(b.root, 'bin', 'tasks.js');
  // What a run works out from files written in the last seconds is not kept: let the world settle, then fill each cache.
  await new Promise((resolve) => setTimeout(resolve, 3200));
  const scenarios = [
    { name: 'floor: stat only', run: () => once(process.execPath, [path.join(ROOT, 'bench', 'lists-floor.cjs'), heavy], ENV) },
    { name: 'node -e 0', run: () => once(process.execPath, ['-e', '0'], ENV) },
  ];
  for (const b of builds) {
    const first = once(process.execPath, [binOf(b), 'lists'], envOf(b));
    rows.push({ size: n, name: `${b.name}: lists, first run (no cache)`, ms: first.ms, cpu: first.cpu, mb: first.mb });
    once(process.execPath, [binOf(b), 'lists'], liveEnvOf(b));
    scenarios.push(
      { name: `${b.name}: lists`, build: b, run: () => once(process.execPath, [binOf(b), 'lists'], envOf(b)) },
      {
        name: `${b.name}: lists, a session running`,
        build: b,
        // Its transcript grows by a turn before each run, as a working session's does.
        before: live.grow,
        run: () => once(process.execPath, [binOf(b), 'lists'], liveEnvOf(b)),
      },
      { name: `${b.name}: -l <uuid> list`, build: b, run: () => once(process.execPath, [binOf(b), '-l', list, 'list'], envOf(b), project) },
      { name: `${b.name}: list (project's choice)`, build: b, run: () => once(process.execPath, [binOf(b), 'list'], envOf(b), project) },
    );
  }
  // Past the settling time of what the live world's making wrote, then a warm-up.
  await new Promise((resolve) => setTimeout(resolve, 3200));
  for (const s of scenarios) s.run();
  const samples = new Map(scenarios.map((s) => [s.name, []]));
  for (let i = 0; i < RUNS; i++)
    for (const s of scenarios) {
      s.before?.();
      samples.get(s.name).push(s.run());
    }
  const med = (name, key) => median(samples.get(name).map((x) => x[key]));
  const peak = (name) => Math.max(...samples.get(name).map((x) => x.mb));
  /** The median of the ratios of paired runs (one round each). */
  const paired = (a, b, key) => median(samples.get(a).map((x, i) => x[key] / samples.get(b)[i][key]));
  for (const s of scenarios) {
    const row = { size: n, name: s.name, ms: med(s.name, 'ms'), cpu: med(s.name, 'cpu'), mb: peak(s.name) };
    if (s.name.endsWith(': lists') || s.name.endsWith(': lists, a session running')) {
      Object.assign(row, {
        floor: paired(s.name, 'floor: stat only', 'ms'),
        floorCpu: paired(s.name, 'floor: stat only', 'cpu'),
        node: paired(s.name, 'node -e 0', 'ms'),
        goal: 'floor <= 1.5x, < 80 MB',
      });
    } else if (s.name.endsWith("(project's choice)")) {
      const named = `${s.build.name}: -l <uuid> list`;
      Object.assign(row, { named: paired(s.name, named, 'ms'), namedCpu: paired(s.name, named, 'cpu'), goal: 'named <= 1.2x' });
    } else if (s.name === 'floor: stat only') {
      row.node = paired(s.name, 'node -e 0', 'ms');
    }
    rows.push(row);
  }
}

console.log(
  `tasks lists benchmark, ${new Date().toISOString()}, node ${process.version}, ${os.cpus().length} cores, load ${loadAtStart} at the start, ${loadNow()} at the end, ${RUNS} rounds`,
);
const header = ['sessions', 'scenario', 'wall ms', 'cpu ms', 'peak MB', 'x floor (wall/cpu)', 'x named (wall/cpu)', 'x node -e 0', 'goal'];
const table = rows.map((r) => [
  r.size,
  r.name,
  fmt(r.ms),
  fmt(r.cpu),
  fmt(r.mb),
  r.floor === undefined ? '' : `${fmt(r.floor, 2)} / ${fmt(r.floorCpu, 2)}`,
  r.named === undefined ? '' : `${fmt(r.named, 2)} / ${fmt(r.namedCpu, 2)}`,
  r.node === undefined ? '' : fmt(r.node, 2),
  r.goal ?? '',
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => String(row[i]).length)));
const line = (cells) => cells.map((c, i) => (i === 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
console.log(line(header));
for (const row of table) console.log(line(row));
sleeper.kill();
if (!kept) fs.rmSync(config, { recursive: true, force: true });
fs.rmSync(hookDir, { recursive: true, force: true });
