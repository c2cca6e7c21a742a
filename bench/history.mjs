#!/usr/bin/env node
// Benchmark: history over a long life. Usage: npm run bench:history [-- --runs N --journal-mb 200 --transcript-mb 1024]
//
// 1. `get <id>` and `log` on a list whose journal is 200 MB, each run paired with the same
//    command on the same list with no journal (fresh): the ratio of medians. get's target
//    is 1.2x (it reads the journal from its end: bisection by time, then a bounded
//    backward read); log reads at most the last 64 MB of a journal, so its ratio is printed.
// 2. `log` and `get` of a list whose session transcript is 1 GB of real entries, and how
//    long `log` takes to end after SIGINT and after SIGTERM sent while it reads (target:
//    under 1 s).
// Prints figures; asserts nothing. Needs a build (npm run build).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');
const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '11' },
    'journal-mb': { type: 'string', default: '200' },
    'transcript-mb': { type: 'string', default: '1024' },
  },
});
const RUNS = Number(opts.runs);
const JOURNAL_BYTES = Number(opts['journal-mb']) * 1024 * 1024;
const TRANSCRIPT_BYTES = Number(opts['transcript-mb']) * 1024 * 1024;
if (!fs.existsSync(path.join(ROOT, 'dist', 'tasks.cjs'))) {
  console.error('bench: build first (npm run build)');
  process.exit(2);
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-history-'));
const ENV = { ...process.env, HOME: path.join(root, 'home'), USER: 'bench' };
for (const k of ['NODE_EXTRA_CA_CERTS', 'FORCE_COLOR', 'NO_COLOR', 'CLAUDE_CODE_TASK_LIST_ID']) delete ENV[k];

const task = (id, extra = {}) => ({
  id: String(id),
  subject: `Refactor the session cache (${id})`,
  description: 'Keep the public interface stable; see the design notes.',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

function writeList(config, list, n) {
  const dir = path.join(config, 'tasks', list);
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= n; i++) fs.writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(task(i), null, 2));
  return dir;
}

/** A journal of `bytes`: one update a line, a second apart, to tasks 1..100; task 50's last change in the middle. */
function writeJournal(dir, bytes) {
  const fd = fs.openSync(path.join(dir, '.tasks-journal.jsonl'), 'w');
  const line = (i, at, id) =>
    `${JSON.stringify({
      v: 1,
      at: new Date(at).toISOString(),
      actor: { kind: i % 3 === 0 ? 'agent' : 'person', name: i % 3 === 0 ? 'worker-1' : 'alice' },
      command: 'update',
      txn: `t${i.toString(36)}`,
      changes: [{ id: String(id), op: 'update', fields: { status: { old: 'pending', new: 'in_progress' }, metadata: { new: { n: i } } } }],
    })}\n`;
  const sample = line(0, Date.now(), 1).length;
  const count = Math.ceil(bytes / sample);
  const start = Date.now() - count * 1000 - 60_000;
  let middleAt = 0;
  let chunk = '';
  for (let i = 0; i < count; i++) {
    const at = start + i * 1000;
    let id = 1 + (i % 100);
    if (id === 50 && i > count / 2) id = 51; // task 50 not changed after the middle
    if (id === 50) middleAt = at;
    chunk += line(i, at, id);
    if (chunk.length > 4 * 1024 * 1024) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  // The task file changed when its last change was made.
  fs.utimesSync(path.join(dir, '50.json'), middleAt / 1000, middleAt / 1000);
  return fs.statSync(path.join(dir, '.tasks-journal.jsonl')).size;
}

function once(args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`tasks ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Each run of `a` paired with a run of `b` just before it; medians of both. */
function paired(a, b, runs = RUNS) {
  once(...a);
  once(...b);
  const ta = [];
  const tb = [];
  for (let i = 0; i < runs; i++) {
    tb.push(once(...b));
    ta.push(once(...a));
  }
  return { a: median(ta), b: median(tb) };
}

/**
 * Grow a transcript to `bytes` with the kind of entries long sessions have (the real
 * transcript's middle, over and over), a Task-tool call and its result every 200 lines
 * (TaskUpdate of tasks 1..10), and times that go forward.
 */
function padTranscript(file, session, bytes, start) {
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  const middle = lines.slice(5, -5);
  const fd = fs.openSync(file, 'a');
  let size = fs.statSync(file).size;
  let chunk = '';
  const step = 3600_000 / (bytes / 2000);
  for (let i = 0; size < bytes; i++) {
    const at = new Date(start + 2000 + i * step).toISOString();
    let line;
    if (i % 200 === 199) {
      const id = String(1 + (((i / 200) % 10) | 0));
      const use = `toolu_b${i}`;
      line = [
        JSON.stringify({
          type: 'assistant',
          timestamp: at,
          sessionId: session,
          message: {
            content: [
              {
                type: 'tool_use',
                id: use,
                name: 'TaskUpdate',
                input: { taskId: id, status: i % 400 === 399 ? 'completed' : 'in_progress' },
              },
            ],
          },
        }),
        JSON.stringify({
          type: 'user',
          timestamp: at,
          sessionId: session,
          toolUseResult: { success: true, taskId: id, updatedFields: ['status'] },
          message: { content: [{ type: 'tool_result', tool_use_id: use, content: `Updated task #${id} status` }] },
        }),
      ].join('\n');
    } else {
      const m = JSON.parse(middle[i % middle.length]);
      if (typeof m.timestamp === 'string') m.timestamp = at;
      line = JSON.stringify(m);
    }
    chunk += `${line}\n`;
    size += Buffer.byteLength(line) + 1;
    if (chunk.length > 8 * 1024 * 1024) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
}

const rows = [];
const row = (name, value, note = '') => rows.push([name, value, note]);

// ---- 1. a 200 MB journal against a fresh list --------------------------------------------
{
  const config = path.join(root, 'journal');
  const longList = writeList(config, 'long', 100);
  writeList(config, 'fresh', 100);
  const t0 = Date.now();
  const size = writeJournal(longList, JOURNAL_BYTES);
  const env = { ...ENV, CLAUDE_CONFIG_DIR: config };
  console.error(`bench: wrote a ${(size / 1024 / 1024).toFixed(0)} MB journal in ${Date.now() - t0} ms`);
  const get = paired([['-l', 'long', 'get', '50'], env], [['-l', 'fresh', 'get', '50'], env]);
  const ratio = get.a / get.b;
  row(
    `get 50, ${(size / 1024 / 1024).toFixed(0)} MB journal vs fresh list`,
    `${get.a.toFixed(0)} ms vs ${get.b.toFixed(0)} ms: ${ratio.toFixed(2)}x`,
    ratio <= 1.2 ? 'target 1.2x: ok' : 'target 1.2x: MISSED',
  );
  const getLast = paired([['-l', 'long', 'get', '100'], env], [['-l', 'fresh', 'get', '100'], env]);
  row(
    'get 100 (changed last), same journal vs fresh',
    `${getLast.a.toFixed(0)} ms vs ${getLast.b.toFixed(0)} ms: ${(getLast.a / getLast.b).toFixed(2)}x`,
    getLast.a / getLast.b <= 1.2 ? 'target 1.2x: ok' : 'target 1.2x: MISSED',
  );
  const log = paired(
    [['-l', 'long', 'log', '--limit', '20'], env],
    [['-l', 'fresh', 'log', '--limit', '20'], env],
    Math.max(3, Math.floor(RUNS / 3)),
  );
  row(
    'log --limit 20, same journal vs fresh (reads its last 32 MB)',
    `${log.a.toFixed(0)} ms vs ${log.b.toFixed(0)} ms: ${(log.a / log.b).toFixed(2)}x`,
  );
}

// ---- 2. a 1 GB transcript ------------------------------------------------------------------
{
  const { writeTranscript } = await import(path.join(ROOT, 'test', 'helpers', 'session-files.mjs'));
  const config = path.join(root, 'transcript');
  const session = '1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7081';
  const cwd = path.join(root, 'home', 'proj');
  fs.mkdirSync(cwd, { recursive: true });
  const t0 = Date.now();
  const start = Date.now() - 3600_000;
  const file = writeTranscript(config, { sessionId: session, cwd, start, end: start + 1000 });
  padTranscript(file, session, TRANSCRIPT_BYTES, start);
  const size = fs.statSync(file).size;
  console.error(`bench: wrote a ${(size / 1024 / 1024).toFixed(0)} MB transcript in ${Date.now() - t0} ms`);
  writeList(config, session, 10);
  writeList(config, 'fresh', 10);
  const env = { ...ENV, CLAUDE_CONFIG_DIR: config };
  const mb = (size / 1024 / 1024).toFixed(0);
  const log = paired([['-l', session, 'log'], env], [['-l', 'fresh', 'log'], env], 3);
  row(`log, ${mb} MB transcript`, `${log.a.toFixed(0)} ms (fresh list: ${log.b.toFixed(0)} ms)`);
  const get = paired([['-l', session, 'get', '1'], env], [['-l', 'fresh', 'get', '1'], env]);
  row(`get 1, ${mb} MB transcript vs fresh list`, `${get.a.toFixed(0)} ms vs ${get.b.toFixed(0)} ms: ${(get.a / get.b).toFixed(2)}x`);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    const stops = [];
    for (let i = 0; i < 3; i++) {
      const child = spawn(process.execPath, [BIN, '-l', session, 'log'], { env, stdio: 'ignore' });
      let sent = 0;
      const done = new Promise((resolve) => child.once('close', (code) => resolve({ ms: Date.now() - sent, code })));
      await new Promise((r) => setTimeout(r, 300));
      sent = Date.now();
      child.kill(signal);
      const { ms, code } = await done;
      stops.push(code === 130 ? ms : Number.NaN);
    }
    const worst = Math.max(...stops);
    row(
      `log, ${mb} MB transcript: ${signal} to exit`,
      `${stops.map((s) => (Number.isNaN(s) ? 'ended first' : `${s} ms`)).join(', ')}`,
      worst < 1000 ? 'target under 1 s: ok' : 'target under 1 s: MISSED',
    );
  }
}

const width = Math.max(...rows.map((r) => r[0].length));
console.log(`tasks history benchmark, ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${os.cpus().length} cores`);
for (const [name, value, note] of rows) console.log(`${name.padEnd(width)}  ${value}${note ? `  (${note})` : ''}`);
fs.rmSync(root, { recursive: true, force: true });
