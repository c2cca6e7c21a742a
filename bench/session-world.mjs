// A heavy user's config folder for the benchmark: 300 session transcripts in 15 projects
// (most of them ~150 KB, as a short real run writes, one in ten padded to 2 MB), 60 of the
// sessions with a task list, a few live-session files left by crashes, and one 20-task
// list whose session ran in the project the benchmark runs from.
import fs from 'node:fs';
import path from 'node:path';
import { writeLiveSession, writeTranscript } from '../test/helpers/session-files.mjs';

function uuid(i) {
  const hex = (n, w) => n.toString(16).padStart(w, '0').slice(-w);
  return `${hex(i * 2654435761, 8)}-${hex(i, 4)}-4${hex(i * 7, 3)}-8${hex(i * 13, 3)}-${hex(i * 48271, 12)}`;
}

/** Writes the world under `config`; returns the project directory and the 20-task list's id. */
export function makeSessionWorld(config, { transcripts = 300, withLists = 60, writeList, makeTasks }) {
  const home = path.join(config, 'home');
  const now = Date.now();
  let target;
  let project;
  for (let i = 1; i <= transcripts; i++) {
    const id = uuid(i);
    const cwd = path.join(home, 'work', `project-${i % 15}`);
    fs.mkdirSync(cwd, { recursive: true });
    const end = now - i * 3 * 60_000;
    writeTranscript(config, {
      sessionId: id,
      cwd,
      branch: i % 3 === 0 ? 'main' : `feature/${i}`,
      prompt: `session ${i}: fix the flaky tests in module ${i % 40} and update the docs`,
      start: end - 20 * 60_000,
      end,
      padTo: i % 10 === 0 ? 2_000_000 : undefined,
    });
    if (i <= withLists) {
      writeList(config, id, makeTasks(i === 1 ? 20 : 5));
      if (i === 1) {
        target = id;
        project = cwd;
      }
    }
    // Live-session files whose process is gone (crashes): every 30th session.
    if (i % 30 === 0) writeLiveSession(config, { pid: 4_000_000 + i, sessionId: id, cwd, procStartTicks: '1' });
  }
  return { project, list: target };
}

/**
 * A list written by one session and its four subagents, each transcript about 5 MB, with
 * 40 Task-tool changes spread through each (for `tasks log`). Returns the list id.
 */
export function makeHistoryWorld(config, { writeList, makeTasks, bytes = 5_000_000 }) {
  const home = path.join(config, 'home');
  const cwd = path.join(home, 'work', 'history');
  fs.mkdirSync(cwd, { recursive: true });
  const session = uuid(9001);
  const main = writeTranscript(config, { sessionId: session, cwd, prompt: 'ship it', padTo: bytes });
  writeList(config, session, makeTasks(20));
  const files = [main];
  const subagents = path.join(path.dirname(main), session, 'subagents');
  fs.mkdirSync(subagents, { recursive: true });
  for (let a = 1; a <= 4; a++) {
    const file = path.join(subagents, `agent-a${a}.jsonl`);
    fs.copyFileSync(main, file);
    files.push(file);
  }
  const start = Date.now() - 3_600_000;
  files.forEach((file, f) => {
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    const step = Math.floor(lines.length / 41);
    for (let k = 40; k >= 1; k--) {
      const id = String(1 + ((k + f) % 20));
      const at = (ms) => new Date(start + f * 600_000 + k * 10_000 + ms).toISOString();
      const use = `toolu_bench_${f}_${k}`;
      const call = {
        type: 'assistant',
        timestamp: at(0),
        sessionId: session,
        message: {
          content: [{ type: 'tool_use', id: use, name: 'TaskUpdate', input: { taskId: id, status: 'in_progress', owner: `agent-${f}` } }],
        },
      };
      const result = {
        type: 'user',
        timestamp: at(50),
        sessionId: session,
        toolUseResult: {
          success: true,
          taskId: id,
          updatedFields: ['owner', 'status'],
          statusChange: { from: 'pending', to: 'in_progress' },
        },
        message: { content: [{ type: 'tool_result', tool_use_id: use, content: `Updated task #${id} owner, status` }] },
      };
      lines.splice(k * step, 0, JSON.stringify(call), JSON.stringify(result));
    }
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
  });
  return session;
}
