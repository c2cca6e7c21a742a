#!/usr/bin/env node
// Stands in for a Claude Code agent that plans a step at a time, for the gate of
// `watch --until`: `node step-agent.mjs <plan.json>` (started under the name `claude`,
// a link to node, when it must pass for Claude Code in /proc). The plan:
//
//   {
//     "config": "<CLAUDE_CONFIG_DIR>", "sessionId": "<uuid>", "cwd": "<dir>",
//     "list": "<list folder>", "transcript": "<its .jsonl>",
//     "tools": ["TaskCreate", ...]          the tools it records it was given (default: the Task tools)
//     "steps": [
//       {"status": "busy"|"idle"},        write <config>/sessions/<pid>.json with that status
//                                          (as Claude Code does: docs/task-store.md section 10)
//       {"task": {...}},                   write <list>/<id>.json (and raise .highwatermark)
//       {"wait": 500},                     pause (ms)
//       {"until": "<file>"},               pause until that file exists (the test says when)
//       {"exec": {"args": [...], "out": "<file>"}}   run node with these arguments as its child (a
//                                          command from its shell) and write {code, stdout, stderr} to the file
//       {"spawn": {"args": [...], "env": {...}, "log": "<file>"}}   start node with these arguments
//                                          and go on without waiting for it (a command its shell left
//                                          running in the background); its output goes to the file, its pid to <file>.pid
//       {"crash": true}                    exit 1 leaving the live-session file behind
//     ]
//   }
//
// It begins its transcript at once, as Claude Code does: the prompt, then the tools it was
// given. After its last step it records its end there, removes its live-session file and
// exits 0, as a session that ends.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const liveFile = path.join(plan.config, 'sessions', `${process.pid}.json`);
const stat = fs.readFileSync('/proc/self/stat', 'latin1');
const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
const startedAt = Date.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function writeStatus(status) {
  fs.mkdirSync(path.dirname(liveFile), { recursive: true });
  const now = Date.now();
  const body = {
    pid: process.pid,
    sessionId: plan.sessionId,
    cwd: plan.cwd,
    startedAt,
    procStart,
    version: '2.1.328',
    kind: 'interactive',
    entrypoint: 'sdk-cli',
    name: 'proj-a1',
    status,
    updatedAt: now,
    statusUpdatedAt: now,
  };
  // As a whole: a reader never sees half a file.
  fs.writeFileSync(`${liveFile}.tmp`, JSON.stringify(body));
  fs.renameSync(`${liveFile}.tmp`, liveFile);
}

function writeTask(task) {
  fs.mkdirSync(plan.list, { recursive: true });
  fs.writeFileSync(
    path.join(plan.list, `${task.id}.json`),
    JSON.stringify({ description: '', blocks: [], blockedBy: [], status: 'pending', ...task }, null, 2),
  );
  const mark = path.join(plan.list, '.highwatermark');
  const was = fs.existsSync(mark) ? Number(fs.readFileSync(mark, 'utf8')) : 0;
  if (Number(task.id) > was) fs.writeFileSync(mark, String(task.id));
}

const entry = (line) => fs.appendFileSync(plan.transcript, `${JSON.stringify(line)}\n`);
const common = () => ({ sessionId: plan.sessionId, cwd: plan.cwd, timestamp: new Date().toISOString(), version: '2.1.328' });
fs.mkdirSync(path.dirname(plan.transcript), { recursive: true });
entry({ type: 'user', message: { role: 'user', content: 'follow the plan' }, ...common() });
const tools = plan.tools ?? ['TaskCreate', 'TaskGet', 'TaskList', 'TaskStop', 'TaskUpdate'];
entry({ type: 'attachment', attachment: { type: 'deferred_tools_delta', addedNames: tools }, ...common() });

for (const step of plan.steps ?? []) {
  if (step.status !== undefined) writeStatus(step.status);
  if (step.task !== undefined) writeTask(step.task);
  if (step.wait !== undefined) await sleep(step.wait);
  if (step.until !== undefined) while (!fs.existsSync(step.until)) await sleep(20);
  if (step.exec !== undefined) {
    const child = spawn(process.execPath, step.exec.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    fs.writeFileSync(step.exec.out, JSON.stringify({ code, stdout, stderr }));
  }
  if (step.spawn !== undefined) {
    const log = fs.openSync(step.spawn.log, 'a');
    const child = spawn(process.execPath, step.spawn.args, { stdio: ['ignore', log, log], env: { ...process.env, ...step.spawn.env } });
    fs.writeFileSync(`${step.spawn.log}.pid`, String(child.pid));
    child.unref();
  }
  if (step.crash) process.exit(1);
}
entry({ type: 'cost-state', sessionId: plan.sessionId, timestamp: new Date().toISOString() });
fs.rmSync(liveFile, { force: true });
