// A heavy user's config folder for `tasks notify`'s looks (bench/notify-looks.mjs): a year
// of sessions (bench/session-world.mjs: thousands of transcripts in 20 projects, their own
// lists all finished), and `lists` named lists (CLAUDE_CODE_TASK_LIST_ID), each left by a
// solo agent that made #1 and set it in progress with no owner (as the real 2.1.328 does:
// test/fixtures/claude-code-2.1.328/gone), and is over: every other one ended, the others
// crashed (a live-session file whose process is gone). Each such agent's transcript is
// `mb` MB: a long session's turns before its Task-tool calls.
import fs from 'node:fs';
import path from 'node:path';
import { writeLiveSession, writeTaskTranscript } from '../test/helpers/session-files.mjs';
import { makeSessionWorld, uuid } from './session-world.mjs';

const task = (id, fields) => ({
  id,
  subject: `Step ${id}`,
  description: `step ${id}`,
  status: 'completed',
  blocks: [],
  blockedBy: [],
  ...fields,
});

function writeList(config, listId, tasks) {
  const dir = path.join(config, 'tasks', listId);
  fs.mkdirSync(dir, { recursive: true });
  for (const t of tasks) fs.writeFileSync(path.join(dir, `${t.id}.json`), JSON.stringify(t, null, 2));
  return dir;
}

/** A turn of a long session that touches no task: an answer of about 2 KB. */
function paddingLine(sessionId, cwd, at, n) {
  return JSON.stringify({
    type: 'assistant',
    sessionId,
    cwd,
    version: '2.1.328',
    timestamp: new Date(at).toISOString(),
    uuid: `pad-${n}`,
    message: { role: 'assistant', content: [{ type: 'text', text: `Looking at the module again (${n}). `.repeat(60) }] },
  });
}

/** Put `bytes` of turns between a transcript's first line and its Task-tool calls. */
function padTranscript(file, bytes, sessionId, cwd, at) {
  const [first, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
  const stat = fs.statSync(file);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, `${first}\n`);
    const chunk = [];
    let size = 0;
    for (let n = 0; size < bytes; n++) {
      const line = `${paddingLine(sessionId, cwd, at, n)}\n`;
      chunk.push(line);
      size += line.length;
      if (chunk.length === 500) fs.writeSync(fd, chunk.splice(0).join(''));
    }
    fs.writeSync(fd, chunk.join(''));
    fs.writeSync(fd, rest.join('\n'));
  } finally {
    fs.closeSync(fd);
  }
  fs.utimesSync(file, stat.atime, stat.mtime);
}

/** Writes the world; returns the named lists' ids and folders, and what was written. */
export function makeNotifyWorld(config, { lists = 50, mb = 20, transcripts = 2000 }) {
  const world = makeSessionWorld(config, {
    transcripts,
    writeList,
    makeTasks: (n) => Array.from({ length: n }, (_, i) => task(String(i + 1))),
  });
  // The year's named lists finished too (their tasks' times kept): nothing else is in progress.
  for (const name of fs.readdirSync(path.join(config, 'tasks'))) {
    if (!name.startsWith('shared-')) continue;
    const dir = path.join(config, 'tasks', name);
    for (const f of fs.readdirSync(dir)) {
      const file = path.join(dir, f);
      if (!f.endsWith('.json')) continue;
      const { mtime } = fs.statSync(file);
      const t = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (t.status === 'in_progress') fs.writeFileSync(file, JSON.stringify({ ...t, status: 'completed' }, null, 2));
      fs.utimesSync(file, mtime, mtime);
    }
  }
  const home = path.join(config, 'home');
  const now = Date.now();
  const solo = [];
  for (let i = 0; i < lists; i++) {
    const sessionId = uuid(50_000 + i);
    const listId = `solo-${i}`;
    const cwd = path.join(home, 'work', `agent-${i}`);
    fs.mkdirSync(cwd, { recursive: true });
    // Over an hour or more ago: stalled is not what is measured.
    const at = now - 3_600_000 - i * 60_000;
    const subject = `Fix the parser, part ${i}`;
    const crashed = i % 2 === 1;
    const file = writeTaskTranscript(config, {
      sessionId,
      cwd,
      running: crashed,
      calls: [
        {
          name: 'TaskCreate',
          input: { subject, description: 'a' },
          result: { task: { id: '1', subject } },
          content: `Task #1 created successfully: ${subject}`,
          at,
        },
        {
          name: 'TaskUpdate',
          input: { taskId: '1', status: 'in_progress' },
          result: { success: true, taskId: '1', updatedFields: ['status'], statusChange: { from: 'pending', to: 'in_progress' } },
          content: 'Updated task #1 status',
          at: at + 1000,
        },
      ],
    });
    padTranscript(file, mb * 1_000_000, sessionId, cwd, at - 500);
    if (crashed) writeLiveSession(config, { pid: 4_100_000 + i, sessionId, cwd, procStartTicks: '1', start: at - 2000 });
    const dir = writeList(config, listId, [task('1', { subject, description: 'a', status: 'in_progress' })]);
    const written = (at + 1010) / 1000;
    fs.utimesSync(path.join(dir, '1.json'), written, written);
    solo.push({ listId, dir, sessionId, crashed });
  }
  return { solo, counts: world.counts };
}
