// Config folders for the session benchmarks, written from a real Claude Code 2.1.328 run's
// transcript lines (test/helpers/session-files.mjs): a heavy user's history of N sessions
// in 20 projects, spread over a year.
//
// - One session in five has a task list: most their own (`<session UUID>/`, made with
//   TaskCreate: their transcripts show Task-tool calls), one in four of them a named list
//   (CLAUDE_CODE_TASK_LIST_ID) shared by three sessions, tied to them only by the tasks
//   their transcripts show.
// - One in seven of the others kept TodoWrite todos; the rest used neither.
// - One transcript in ten is 2 MB (a long session), the others ~140-170 KB.
// - Every 30th session left a live-session file behind (a crash).
// - Session 1, the most recent, ran in project-1 and has a 20-task list of its own: the
//   list the benchmarks name, or that the project chooses. Lists' files keep the times of
//   their sessions, so tasks left in progress are stalled, as in a real year of them.
import fs from 'node:fs';
import path from 'node:path';
import { writeLiveSession, writeTranscript } from '../test/helpers/session-files.mjs';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'test', 'fixtures', 'claude-code-2.1.328');
const SHARED_LIST = path.join(FIXTURES, 'sessions', 'shared-list');
const YEAR_MS = 365 * 24 * 3_600_000;

export function uuid(i) {
  const hex = (n, w) => n.toString(16).padStart(w, '0').slice(-w);
  return `${hex(i * 2654435761, 8)}-${hex(i, 4)}-4${hex(i * 7, 3)}-8${hex(i * 13, 3)}-${hex(i * 48271, 12)}`;
}

/**
 * Writes the world under `config`; returns the project directory of session 1, its
 * 20-task list's id, and what was written. `withLists`: how many sessions have a list
 * (default one in five); `projects`: how many project folders (default 20).
 */
export function makeSessionWorld(config, { transcripts = 300, withLists, projects = 20, writeList, makeTasks }) {
  const home = path.join(config, 'home');
  const now = Date.now();
  const listEvery = withLists === undefined ? 5 : Math.max(1, Math.round(transcripts / withLists));
  const counts = { own: 0, named: 0, todowrite: 0, plain: 0, long: 0, bytes: 0 };
  const namedLists = new Map();
  let target;
  let project;
  for (let i = 1; i <= transcripts; i++) {
    const id = uuid(i);
    const cwd = path.join(home, 'work', `project-${i % projects}`);
    fs.mkdirSync(cwd, { recursive: true });
    const end = now - Math.round((i * YEAR_MS) / transcripts);
    const start = end - 20 * 60_000;
    const hasList = (i - 1) % listEvery === 0;
    // One in four of the sessions with a list works on a named list, three sessions to a list.
    const named = hasList && i !== 1 && Math.floor((i - 1) / listEvery) % 4 === 3;
    const todowrite = !hasList && i % 7 === 3;
    const file = writeTranscript(config, {
      sessionId: id,
      cwd,
      branch: i % 3 === 0 ? 'main' : `feature/${i}`,
      prompt: `session ${i}: fix the flaky tests in module ${i % 40} and update the docs`,
      start,
      end,
      padTo: i % 10 === 0 ? 2_000_000 : undefined,
      source: hasList ? 'tasks' : 'todowrite',
      todos: todowrite ? undefined : false,
    });
    counts.bytes += fs.statSync(file).size;
    if (i % 10 === 0) counts.long++;
    if (named) {
      const list = `shared-${Math.floor((i - 1) / (listEvery * 12))}`;
      const newest = namedLists.get(list);
      namedLists.set(list, Math.max(newest ?? 0, start));
      counts.named++;
    } else if (hasList) {
      // Its tasks last changed while it ran (those in progress have been for as long since).
      const dir = writeList(config, id, makeTasks(i === 1 ? 20 : 5));
      for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), end / 1000, end / 1000);
      counts.own++;
      if (i === 1) {
        target = id;
        project = cwd;
      }
    } else if (todowrite) counts.todowrite++;
    else counts.plain++;
    if (i % 30 === 0) writeLiveSession(config, { pid: 4_000_000 + i, sessionId: id, cwd, procStartTicks: '1', start });
  }
  // A named list as the real run left it (#9 by someone else, #10 and #11 by its sessions),
  // last written after its latest session began, so that each of its sessions' creates agree.
  for (const [list, latestStart] of namedLists) {
    const dir = path.join(config, 'tasks', list);
    fs.cpSync(SHARED_LIST, dir, { recursive: true });
    const at = (latestStart + 60_000) / 1000;
    for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), at, at);
  }
  return { project, list: target, counts: { ...counts, namedLists: namedLists.size } };
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
