#!/usr/bin/env node
// How fast `tasks watch --stream -` follows a Task-tools run, and the cost of bounded reads.
//
//   npm run bench:stream                 5,000 creates (and as many updates), 3 runs each
//   node bench/watch-stream.mjs --creates 2000 --runs 5
//
// A stream-json run is generated in the shape the real Claude Code writes (an assistant
// line per call, a user line per result, the result event last), piped at full speed into
// `watch --stream - --json`, and timed from start to exit, beside `tasks import -` of the
// same stream (which reads it once, whole) run in the same go, as the baseline: the ratio
// says what following costs above reading. Events per second = events printed / seconds.
// Then a 32 MB line and an 8 GB endless line (sparse file): how long the first takes to be
// skipped, and how long `--timeout 1s` and SIGINT take to end a watch reading the second.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'tasks.js');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const CREATES = Number(arg('creates', 5000));
const RUNS = Number(arg('runs', 3));
const SESSION = '0bench00-1111-4222-8333-944445555666';

function streamOf(creates) {
  const lines = [JSON.stringify({ type: 'system', subtype: 'init', session_id: SESSION })];
  let seq = 0;
  const call = (name, input, text, data) => {
    const id = `toolu_${++seq}`;
    lines.push(
      JSON.stringify({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
        session_id: SESSION,
      }),
    );
    lines.push(
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: text }] },
        session_id: SESSION,
        tool_use_result: data,
      }),
    );
  };
  for (let i = 1; i <= creates; i++) {
    const subject = `Task ${i}: a realistic subject of some length`;
    call('TaskCreate', { subject, description: 'generated' }, `Task #${i} created successfully: ${subject}`, {
      task: { id: String(i), subject, description: 'generated' },
    });
  }
  for (let i = 1; i <= creates; i++) {
    call('TaskUpdate', { taskId: String(i), status: 'completed' }, `Updated task #${i} status`, {
      success: true,
      taskId: String(i),
      updatedFields: ['status'],
    });
  }
  lines.push(JSON.stringify({ type: 'result', subtype: 'success', is_error: false }));
  return `${lines.join('\n')}\n`;
}

function timed(args, input, env, opts = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let lines = 0;
    let stderr = '';
    child.stdout.on('data', (d) => {
      for (const b of d) if (b === 10) lines++;
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
    if (opts.signalAfterMs !== undefined) {
      setTimeout(() => {
        opts.sentAt = performance.now();
        child.kill('SIGINT');
      }, opts.signalAfterMs);
    }
    child.on('close', (code) => resolve({ code, ms: performance.now() - started, endedAt: performance.now(), lines, stderr, opts }));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bench-stream-'));
const env = { ...process.env, CLAUDE_CONFIG_DIR: config };
delete env.NODE_EXTRA_CA_CERTS;
delete env.FORCE_COLOR;
delete env.CLAUDE_CODE_TASK_LIST_ID;

const stream = streamOf(CREATES);
console.log(`stream: ${CREATES} creates + ${CREATES} updates, ${(stream.length / 1024 / 1024).toFixed(1)} MB, Node ${process.version}`);
const watchMs = [];
const importMs = [];
let events = 0;
for (let i = 0; i < RUNS; i++) {
  const imp = await timed(['-l', `imp${i}`, 'import', '-', '--dry-run', '--json'], stream, env);
  if (imp.code !== 0) throw new Error(`import failed: ${imp.stderr}`);
  importMs.push(imp.ms);
  const w = await timed(['watch', '--stream', '-', '--json', '--until', 'all-completed'], stream, env);
  if (w.code !== 0) throw new Error(`watch failed (${w.code}): ${w.stderr}`);
  watchMs.push(w.ms);
  events = w.lines;
}
const w = median(watchMs);
const b = median(importMs);
console.log(`watch --stream -: median ${w.toFixed(0)} ms for ${events} events = ${Math.round(events / (w / 1000))} events/s`);
console.log(`import - --dry-run (baseline, same stream): median ${b.toFixed(0)} ms; ratio ${(w / b).toFixed(2)}`);

const long = `${JSON.stringify({ type: 'system', subtype: 'init', session_id: SESSION })}\n{"pad":"${'x'.repeat(32 * 1024 * 1024)}"}\n${JSON.stringify({ type: 'result', subtype: 'success' })}\n`;
const l = await timed(['watch', '--stream', '-', '--json'], long, env);
console.log(`a 32 MB line on stdin: skipped in ${l.ms.toFixed(0)} ms (exit ${l.code}; ${l.stderr.trim()})`);

const endless = path.join(config, 'endless.jsonl');
fs.writeFileSync(endless, '');
fs.truncateSync(endless, 8 * 1024 ** 3);
const t = await timed(['watch', '--stream', endless, '--json', '--until', 'all-completed', '--timeout', '1s'], undefined, env);
console.log(`--timeout 1s on an 8 GB endless line: ended after ${t.ms.toFixed(0)} ms (exit ${t.code})`);
const s = await timed(['watch', '--stream', endless, '--json', '--until', 'all-completed'], undefined, env, { signalAfterMs: 1000 });
console.log(`SIGINT 1 s into the same: ended ${(s.endedAt - s.opts.sentAt).toFixed(0)} ms after the signal (exit ${s.code})`);
fs.rmSync(config, { recursive: true, force: true });
