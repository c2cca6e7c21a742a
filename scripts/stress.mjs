#!/usr/bin/env node
// npm run stress [-- --duration 60 --tasks-workers 3 --agent-workers 2 --kill-rate 0.15 --seed 20 --keep]
//
// Hammers one list with `tasks` processes (create, update, edges, delete, list, check)
// and protocol-following agent writers (scripts/agent-writer.mjs), kills processes with
// SIGKILL at random points, then checks the invariants:
//   - every task file is whole and valid, named by its id (files an agent was killed
//     while writing in place are counted apart: agents' plain writeFile can tear them);
//   - no id handed out twice;
//   - no lost task: every created task exists, unless some delete targeted it;
//   - no lost update: every metadata key a process reported set is there, every claim
//     reported made still holds (nobody else takes a claimed task);
//   - every edge whose both writes were reported done is mirrored, if both tasks exist;
//   - no lock directory stays beyond the stale time: once it has passed, a create and
//     check --fix get through, and no lock directory is left;
//   - the journal replays to the files: for every task on disk, the metadata keys that
//     tasks processes set (t<worker>_<n>) are exactly those its last recorded change
//     left, so no change was made unrecorded (a kill between a write and its record) and
//     none recorded that was not made (a kill between the record and the write).
//     Agents' own keys are theirs and not in the journal.
// Prints operations done, processes killed and violations; exits 1 on any violation.
// Needs a build (npm run build).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');
const AGENT = path.join(ROOT, 'scripts', 'agent-writer.mjs');
if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
  console.error('stress: run npm run build first');
  process.exit(2);
}
const { validateTask } = await import(path.join(ROOT, 'dist', 'core', 'store', 'schema.js'));
const { readJournal, confirmedEntries } = await import(path.join(ROOT, 'dist', 'core', 'history', 'journal-read.js'));

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: process.env.STRESS_DURATION ?? '60' },
    'tasks-workers': { type: 'string', default: '3' },
    'agent-workers': { type: 'string', default: '2' },
    'kill-rate': { type: 'string', default: '0.15' },
    seed: { type: 'string', default: '20' },
    keep: { type: 'boolean', default: false },
  },
});
const DURATION_MS = Number(opts.duration) * 1000;
const KILL_RATE = Number(opts['kill-rate']);
const STALE_MS = 10_000;

const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-stress-'));
const listDir = path.join(config, 'tasks', 'stress');
fs.mkdirSync(listDir, { recursive: true });
const env = { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: config, CLAUDE_CODE_TASK_LIST_ID: 'stress' };
delete env.NODE_EXTRA_CA_CERTS;
delete env.FORCE_COLOR;

// --- what processes reported
const created = []; // ids, in order reported
const creators = new Map(); // "<id>#<n>" -> who reported creating it
const meta = []; // [id, key]
const edges = []; // [blocker, blocked]
const claims = []; // [id, agent]: successful claims
const deleteTargets = new Set(); // any delete aimed at it, finished or not
const tornCandidates = new Set(); // files an agent was killed while writing in place
const stats = { ops: {}, killed: { tasks: 0, agents: 0 }, exits: {}, agentBusy: 0, agentErrors: [] };
const count = (key) => (stats.ops[key] = (stats.ops[key] ?? 0) + 1);
let lastKill = 0;

const ids = () =>
  fs
    .readdirSync(listDir)
    .map((n) => /^([1-9][0-9]*)\.json$/.exec(n)?.[1])
    .filter(Boolean);
const pick = (arr) => arr[Math.floor(Math.random() * arr.length)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function spawnTracked(args, killAfterMs, kind) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, cwd: config, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer =
      killAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            killed = true;
            lastKill = Date.now();
            stats.killed[kind]++;
            child.kill('SIGKILL');
          }, killAfterMs);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr, killed });
    });
  });
}

async function tasksWorker(deadline, n) {
  let i = 0;
  while (Date.now() < deadline) {
    i++;
    const all = ids();
    const r = Math.random();
    let args;
    let op;
    const key = `t${n}_${i}`;
    if (r < 0.25 || all.length < 5) {
      op = 'create';
      const lower = pick(all);
      args = ['create', `tasks ${n} ${i}`, ...(lower && Math.random() < 0.5 ? ['--blocked-by', lower] : [])];
    } else if (r < 0.6) {
      op = 'update';
      args = ['update', pick(all), '--meta', `${key}=x`];
    } else if (r < 0.66) {
      op = 'claim';
      args = ['claim', pick(all), '--as', key];
    } else if (r < 0.74) {
      op = 'edge';
      const sorted = all.map(Number).sort((a, b) => a - b);
      const a = Math.floor(Math.random() * (sorted.length - 1));
      const b = a + 1 + Math.floor(Math.random() * (sorted.length - a - 1));
      args = ['update', String(sorted[b]), '--add-blocked-by', String(sorted[a])];
    } else if (r < 0.8 && all.length > 10) {
      op = 'delete';
      args = ['delete', pick(all)];
      deleteTargets.add(args[1]);
    } else if (r < 0.93) {
      op = 'list';
      args = ['list', '--json'];
    } else {
      op = 'check';
      args = ['check', '--json', '--stale-after', 'off'];
    }
    const kill = Math.random() < KILL_RATE ? Math.floor(Math.random() * 500) : undefined;
    const res = await spawnTracked([BIN, ...args], kill, 'tasks');
    const outcome = res.killed ? 'killed' : `exit ${res.code}`;
    count(`tasks ${op}: ${outcome}`);
    stats.exits[res.code] = (stats.exits[res.code] ?? 0) + 1;
    if (res.killed || res.code !== 0) continue;
    if (op === 'create') {
      created.push(res.stdout.trim());
      creators.set(`${res.stdout.trim()}#${created.length}`, `tasks worker ${n}`);
    }
    if (op === 'update') meta.push([args[1], key]);
    if (op === 'edge') edges.push([args[3], args[1], `tasks worker ${n}`]);
    if (op === 'claim') claims.push([args[1], key]);
    if (op === 'list') JSON.parse(res.stdout); // one whole document, or the run fails here
  }
}

async function agentWorker(deadline, n) {
  let life = 0;
  while (Date.now() < deadline) {
    life++;
    const runMs = 1000 + Math.floor(Math.random() * 4000);
    const kill = Math.random() < KILL_RATE * 3 ? Math.floor(Math.random() * runMs) : undefined;
    const res = await spawnTracked([AGENT, listDir, String(runMs), `a${n}x${life}`], kill, 'agents');
    const open = new Set();
    for (const line of res.stdout.split('\n')) {
      const [word, a, b] = line.split(' ');
      if (word === 'w') open.add(a);
      else if (word === 'd') open.delete(a);
      else if (word === 'created') {
        created.push(a);
        creators.set(`${a}#${created.length}`, `agent a${n}x${life}`);
        count('agent create');
      } else if (word === 'updated') {
        meta.push([a, b]);
        count('agent update');
      } else if (word === 'blocked') {
        edges.push([a, b, `agent a${n}x${life}`]);
        count('agent edge');
      } else if (word === 'deleting')
        deleteTargets.add(a); // said before the unlink: a kill may land between
      else if (word === 'deleted') {
        deleteTargets.add(a);
        count('agent delete');
      } else if (word === 'busy') stats.agentBusy++;
      else if (word === 'error') stats.agentErrors.push(line);
    }
    if (res.killed) for (const f of open) tornCandidates.add(f);
  }
}

// --- seed, run
for (let i = 1; i <= Number(opts.seed); i++) {
  const r = spawnSync(process.execPath, [BIN, 'create', `seed ${i}`], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`seed failed: ${r.stderr}`);
  created.push(r.stdout.trim());
}
const started = Date.now();
const deadline = started + DURATION_MS;
console.log(
  `stress: ${opts.duration} s on ${listDir}, ${opts['tasks-workers']} tasks workers, ${opts['agent-workers']} agent writers, kill rate ${KILL_RATE}`,
);
await Promise.all([
  ...Array.from({ length: Number(opts['tasks-workers']) }, (_, n) => tasksWorker(deadline, n)),
  ...Array.from({ length: Number(opts['agent-workers']) }, (_, n) => agentWorker(deadline, n)),
]);
const ranMs = Date.now() - started;

// --- invariants
const violations = [];
const torn = [];
const tasks = new Map();
for (const name of fs.readdirSync(listDir)) {
  if (!/^[1-9][0-9]*\.json$/.test(name)) continue;
  const text = fs.readFileSync(path.join(listDir, name), 'utf8');
  let verdict;
  try {
    verdict = validateTask(JSON.parse(text));
  } catch (err) {
    verdict = { ok: false, reason: `not JSON: ${err.message}` };
  }
  if (!verdict.ok || verdict.task.id !== name.slice(0, -5)) {
    if (tornCandidates.has(name)) torn.push(name);
    else violations.push(`${name}: ${verdict.ok ? `holds id ${verdict.task.id}` : verdict.reason}`);
    continue;
  }
  tasks.set(verdict.task.id, verdict.task);
}
const seen = new Set();
const by = (id) =>
  [...creators]
    .filter(([k]) => k.startsWith(`${id}#`))
    .map(([, v]) => v)
    .join(' and ');
for (const id of created) {
  if (seen.has(id)) violations.push(`id ${id} handed out twice (by ${by(id)})`);
  seen.add(id);
  if (!tasks.has(id) && !deleteTargets.has(id) && !torn.includes(`${id}.json`))
    violations.push(`task #${id} lost (created, never deleted)`);
}
for (const [id, key] of meta) {
  const t = tasks.get(id);
  if (t && t.metadata?.[key] !== 'x') violations.push(`lost update: ${key} on #${id}`);
}
for (const [id, agent] of claims) {
  const t = tasks.get(id);
  if (t && t.owner !== agent) violations.push(`claim of #${id} by ${agent} lost (owner ${t.owner ?? 'none'})`);
}
for (const [a, b, who] of edges) {
  const ta = tasks.get(a);
  const tb = tasks.get(b);
  if (ta && tb && (!ta.blocks.includes(b) || !tb.blockedBy.includes(a)))
    violations.push(`edge #${a} -> #${b} not mirrored (written by ${who})`);
}
// The journal replays to the files: each task's tasks-set metadata keys are those its last record left.
const tasksKeys = (metadata) =>
  Object.keys(metadata ?? {})
    .filter((k) => /^t\d+_\d+$/.test(k))
    .sort();
const journal = readJournal(listDir);
const lastMetadata = new Map();
for (const entry of confirmedEntries(journal.entries, listDir)) {
  for (const c of entry.changes) {
    if (c.op === 'create' || c.op === 'delete') lastMetadata.set(c.id, c.op === 'create' ? c.task.metadata : undefined);
    else if (c.op === 'update' && c.fields.metadata) lastMetadata.set(c.id, c.fields.metadata.new);
  }
}
let replayed = 0;
for (const [id, t] of tasks) {
  const onDisk = tasksKeys(t.metadata);
  const recorded = tasksKeys(lastMetadata.get(id));
  replayed++;
  if (JSON.stringify(onDisk) !== JSON.stringify(recorded)) {
    const extra = onDisk.filter((k) => !recorded.includes(k));
    const missing = recorded.filter((k) => !onDisk.includes(k));
    violations.push(
      `journal replay of #${id}: ${extra.length ? `on disk, not recorded: ${extra.join(' ')}` : ''}${extra.length && missing.length ? '; ' : ''}${missing.length ? `recorded, not on disk: ${missing.join(' ')}` : ''}`,
    );
  }
}
if (journal.damaged.length > 0) violations.push(`journal lines damaged: ${journal.damaged.length} (${journal.damaged[0].reason})`);

// Locks: once the stale time has passed since the last kill, writers get through at once.
const wait = Math.max(0, lastKill + STALE_MS + 500 - Date.now());
await sleep(wait);
const locksBefore = fs.readdirSync(listDir).filter((n) => n.endsWith('.lock') && n !== '.lock');
const t0 = Date.now();
const probe = spawnSync(process.execPath, [BIN, 'create', 'after the storm'], { env, encoding: 'utf8' });
if (probe.status !== 0) violations.push(`create after the stale time failed: ${probe.stderr.trim()}`);
else if (Date.now() - t0 > 5000) violations.push(`create after the stale time took ${Date.now() - t0} ms`);
const fix = spawnSync(process.execPath, [BIN, 'check', '--fix', '--json', '--stale-after', 'off'], { env, encoding: 'utf8' });
const fixed = fix.stdout ? JSON.parse(fix.stdout) : { findings: [], remaining: [] };
const locksAfter = fs.readdirSync(listDir).filter((n) => n.endsWith('.lock') && n !== '.lock');
if (locksAfter.length > 0) violations.push(`lock directories left after the stale time: ${locksAfter.join(', ')}`);

// --- report
const byCode = (findings) =>
  Object.entries(
    findings.reduce((m, f) => {
      m[f.code] = (m[f.code] ?? 0) + 1;
      return m;
    }, {}),
  )
    .map(([c, n]) => `${c} ${n}`)
    .join(', ') || 'none';
const totalOps = Object.values(stats.ops).reduce((a, b) => a + b, 0);
console.log(
  `ran ${Math.round(ranMs / 1000)} s: ${totalOps} operations, ${stats.killed.tasks} tasks processes and ${stats.killed.agents} agent writers killed`,
);
for (const [k, v] of Object.entries(stats.ops).sort()) console.log(`  ${k.padEnd(28)} ${v}`);
console.log(
  `  agent lock give-ups (ELOCKED) ${stats.agentBusy}${stats.agentErrors.length ? `, agent errors ${stats.agentErrors.length}: ${stats.agentErrors.slice(0, 3).join(' | ')}` : ''}`,
);
console.log(
  `final list: ${tasks.size} tasks; ${created.length} creates, ${meta.length} updates, ${claims.length} claims, ${edges.length} edges reported done`,
);
console.log(`files torn by agents killed mid-write (their plain writeFile; expected): ${torn.length ? torn.join(', ') : 'none'}`);
console.log(`lock directories waiting out the stale time: ${locksBefore.length ? locksBefore.join(', ') : 'none'}`);
console.log(`check --fix found: ${byCode(fixed.findings ?? [])}; left: ${byCode(fixed.remaining ?? [])}`);
console.log(`journal: ${journal.entries.length} lines read, replayed against ${replayed} tasks on disk`);
console.log(`invariant violations: ${violations.length}`);
for (const v of violations) console.log(`  ✖ ${v}`);
if (opts.keep) console.log(`kept ${config}`);
else fs.rmSync(config, { recursive: true, force: true });
process.exitCode = violations.length > 0 ? 1 : 0;
