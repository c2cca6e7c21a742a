#!/usr/bin/env node
// A stand-in for `claude -p ... --output-format stream-json --verbose`, for the process
// mechanics of `tasks run`: `node fake-agent.mjs <plan.json>`. The plan:
//
//   {
//     "pids": "<file>",          every pid of the agent's own (its own, its children) appended, one a line
//     "ignoreTerm": true,        SIGTERM is ignored (SIGKILL is needed)
//     "children": 2,             children started in its group that ignore SIGTERM and sleep for good
//     "outside": 1,              `timeout 600 sleep 600` started holding its stdout: a process group of its own
//     "steps": [
//       {"out": <object or text>},   a line on stdout (an object as JSON)
//       {"err": "text"},             a line on stderr
//       {"wait": 500},               pause (ms)
//       {"until": "<file>"},          pause until that file exists (the test says when)
//       {"stdin": true},             read stdin to its end; each line becomes a line {"type":"stdin","text":...}
//       {"env": "NAME"},             a line {"type":"env","name":...,"value":...}
//       {"exit": 3},                 exit now with that status
//       {"hang": true}               never end by itself
//     ]
//   }
//
// Without an exit or hang step it exits 0 after its last step.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const note = (pid) => plan.pids && fs.appendFileSync(plan.pids, `${pid}\n`);
note(process.pid);
if (plan.ignoreTerm) process.on('SIGTERM', () => process.stderr.write('fake agent: SIGTERM ignored\n'));
for (let i = 0; i < (plan.children ?? 0); i++) {
  const child = spawn('/bin/sh', ['-c', 'trap "" TERM; while :; do sleep 1; done'], { stdio: 'ignore' });
  note(child.pid);
  // Left behind when the agent exits, as a tool's background process would be.
  child.unref();
}

for (let i = 0; i < (plan.outside ?? 0); i++) {
  // coreutils' timeout puts itself and its command in a process group of their own (not a session).
  const child = spawn('timeout', ['600', 'sleep', '600'], { stdio: ['ignore', 'inherit', 'ignore'] });
  note(child.pid);
  child.unref();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const line = (value) => process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);

for (const step of plan.steps ?? []) {
  if (step.out !== undefined) line(step.out);
  else if (step.err !== undefined) process.stderr.write(`${step.err}\n`);
  else if (step.wait !== undefined) await sleep(step.wait);
  else if (step.until !== undefined) while (!fs.existsSync(step.until)) await sleep(20);
  else if (step.stdin) {
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    for (const l of text.split('\n').filter(Boolean)) line({ type: 'stdin', text: l });
  } else if (step.env !== undefined) line({ type: 'env', name: step.env, value: process.env[step.env] ?? null });
  else if (step.exit !== undefined) process.exit(step.exit);
  else if (step.hang) setInterval(() => {}, 1 << 30);
}
