// Claude Code's session files, written as the real agent writes them, for tests and the
// benchmark: a transcript made from the real one in test/fixtures (its lines, with this
// session's id, working directory, branch, prompt and times), and live-session files.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'claude-code-2.1.328',
  'transcript-todowrite-v1.jsonl',
);
const REAL = fs.readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
const REAL_ID = '86bc41b1-7b55-4382-aa2a-0eca0db6ae41';
// A run on a list named by CLAUDE_CODE_TASK_LIST_ID: TaskCreate, TaskUpdate, TaskList, TaskGet.
const TASKS_FIXTURE = path.join(path.dirname(FIXTURE), 'sessions', 'transcript-tasks-named.jsonl');
const SOURCES = {
  todowrite: { lines: REAL, id: REAL_ID, cwd: '"/home/user/project"' },
  tasks: {
    lines: fs.readFileSync(TASKS_FIXTURE, 'utf8').trimEnd().split('\n'),
    id: 'f7f775d4-e1d7-4aa0-a93e-9debb709c646',
    cwd: '"/tmp/exp/p1/sub"',
  },
};
/** Lines to pad with: the real run's middle, without its tool calls (no task or todo says twice). */
const PADDING = REAL.slice(5, -5).filter((line) => !line.includes('TodoWrite') && !line.includes('newTodos'));

/** Claude Code's project folder name for a working directory. */
export function projectFolder(cwd) {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= 200) return name;
  // Cut at 200 and told apart by a hash of the directory, as Claude Code names a deep one.
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${name.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

/**
 * Write `<config>/projects/<cwd folder>/<sessionId>.jsonl` from the real transcript's lines.
 * opts: { sessionId, cwd, prompt, branch, lastPrompt, start (ms), end (ms), padTo (bytes),
 * todos (false: without the real run's TodoWrite calls, a session that kept no todos),
 * source ('todowrite', the default: a TodoWrite run; 'tasks': a run on a named list that
 * creates, changes, deletes, lists and gets tasks #10-#12, test/fixtures/.../sessions/) }.
 * Returns the file's path; its mtime is `end`.
 */
export function writeTranscript(config, opts) {
  const start = opts.start ?? Date.now() - 60_000;
  const end = opts.end ?? start + 30_000;
  const dir = path.join(config, 'projects', opts.projectFolder ?? projectFolder(opts.cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${opts.sessionId}.jsonl`);
  const source = SOURCES[opts.source ?? 'todowrite'];
  const step = (end - start) / source.lines.length;
  const own = (line, i, from) => {
    const text = JSON.stringify(JSON.parse(line))
      .replaceAll(from.id, opts.sessionId)
      .replaceAll(from.cwd, JSON.stringify(opts.cwd))
      .replaceAll('"gitBranch":"HEAD"', `"gitBranch":${JSON.stringify(opts.branch ?? 'main')}`);
    const fixed = JSON.parse(text);
    if (typeof fixed.timestamp === 'string') fixed.timestamp = new Date(start + i * step).toISOString();
    if (fixed.type === 'user' && typeof fixed.message?.content === 'string') fixed.message.content = opts.prompt ?? 'follow the plan';
    if (fixed.type === 'queue-operation' && typeof fixed.content === 'string') fixed.content = opts.prompt ?? 'follow the plan';
    if (fixed.type === 'last-prompt') fixed.lastPrompt = opts.lastPrompt ?? opts.prompt ?? 'follow the plan';
    // Its run's start and length, as Claude Code counts them: it ended at `end`.
    if (fixed.type === 'cost-state') Object.assign(fixed, { startTime: start, totalDuration: end - start });
    return JSON.stringify(fixed);
  };
  const real =
    opts.todos === false ? source.lines.filter((line) => !line.includes('TodoWrite') && !line.includes('newTodos')) : source.lines;
  const lines = real.map((line, i) => own(line, i, source));
  // Padding: more of the middle (assistant turns and results), as long sessions have.
  if (opts.padTo) {
    const out = [...lines.slice(0, -5)];
    let size = out.reduce((n, l) => n + l.length + 1, 0);
    const padding = PADDING.map((line, i) => own(line, Math.min(i, source.lines.length - 1), SOURCES.todowrite));
    for (let i = 0; size < opts.padTo; i++) {
      const l = padding[i % padding.length];
      out.push(l);
      size += l.length + 1;
    }
    lines.splice(0, lines.length, ...out, ...lines.slice(-5));
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  fs.utimesSync(file, end / 1000, end / 1000);
  return file;
}

/**
 * The transcript a session begun by `/clear` opens with (as 2.1.328 and 2.1.332 write it,
 * docs/task-store.md section 15): the command's caveat, its echo and its output, at `at`
 * (ms). `firstSession`: the process's first session, which its turns' entries name as
 * `session_id` once a prompt is answered (none: no turn yet). Returns the file's path.
 */
export function writeClearedTranscript(config, { sessionId, cwd, at, firstSession, folder }) {
  const dir = path.join(config, 'projects', folder ?? projectFolder(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${sessionId}.jsonl`);
  const base = { userType: 'external', entrypoint: 'cli', cwd, sessionId, version: '2.1.328', gitBranch: 'main' };
  const stamp = (ms) => new Date(ms).toISOString();
  const lines = [
    { type: 'mode', mode: 'normal', sessionId },
    {
      parentUuid: null,
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content: '<local-command-caveat>The command below was run directly in Claude Code.</local-command-caveat>' },
      isMeta: true,
      uuid: `${sessionId}-c0`,
      timestamp: stamp(at),
      ...base,
    },
    {
      parentUuid: `${sessionId}-c0`,
      isSidechain: false,
      type: 'user',
      message: {
        role: 'user',
        content:
          '<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>',
      },
      uuid: `${sessionId}-c1`,
      timestamp: stamp(at),
      ...base,
    },
    {
      parentUuid: `${sessionId}-c1`,
      isSidechain: false,
      type: 'system',
      subtype: 'local_command',
      content: '<local-command-stdout></local-command-stdout>',
      level: 'info',
      timestamp: stamp(at + 20),
      uuid: `${sessionId}-c2`,
      ...base,
    },
  ];
  if (firstSession !== undefined) {
    lines.push(
      {
        parentUuid: `${sessionId}-c2`,
        isSidechain: false,
        type: 'user',
        message: { role: 'user', content: 'go on' },
        uuid: `${sessionId}-p`,
        timestamp: stamp(at + 1000),
        ...base,
      },
      {
        parentUuid: `${sessionId}-p`,
        isSidechain: false,
        attachment: { type: 'date', date: '2026-12-02' },
        type: 'attachment',
        uuid: `${sessionId}-a`,
        timestamp: stamp(at + 1001),
        session_id: firstSession,
        ...base,
      },
    );
  }
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const last = (at + (firstSession === undefined ? 20 : 1001)) / 1000;
  fs.utimesSync(file, last, last);
  return file;
}

/** Field 22 of /proc/<pid>/stat: the process start time that Claude Code records. */
export function procStart(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** Write `<config>/sessions/<pid>.json` as a running session does. */
export function writeLiveSession(
  config,
  { pid, sessionId, cwd, status = 'busy', name = 'proj-a1', start, procStartTicks, waitingFor, statusAt },
) {
  const dir = path.join(config, 'sessions');
  fs.mkdirSync(dir, { recursive: true });
  const at = start ?? Date.now();
  const body = {
    pid,
    sessionId,
    cwd,
    startedAt: at,
    procStart: procStartTicks ?? procStart(pid),
    version: '2.1.328',
    kind: 'interactive',
    entrypoint: 'cli',
    name,
    nameSource: 'derived',
    status,
    // Claude Code 2.1.328 writes it beside "status":"waiting" (a permission prompt, a dialog).
    ...(waitingFor === undefined ? {} : { waitingFor }),
    updatedAt: statusAt ?? at,
    statusUpdatedAt: statusAt ?? at,
  };
  const file = path.join(dir, `${pid}.json`);
  fs.writeFileSync(file, JSON.stringify(body));
  return file;
}

/**
 * A transcript of a session that used the Task tools, in the shape Claude Code writes
 * (test/fixtures/claude-code-2.1.328/sessions/transcript-tasks-named.jsonl): an opening
 * prompt, then each call as an `assistant` entry's `tool_use` block and its result as
 * the next `user` entry's `toolUseResult`, stamped `at` and `at + 10` ms. `calls`:
 * [{ name, input, result, at }]. Ends with `cost-state` (the session ended) unless
 * `running`. Returns the file's path; its mtime is the last entry's time.
 */
export function writeTaskTranscript(config, { sessionId, cwd, prompt = 'follow the plan', calls, running = false }) {
  const dir = path.join(config, 'projects', projectFolder(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${sessionId}.jsonl`);
  const stamp = (ms) => new Date(ms).toISOString();
  const first = (calls[0]?.at ?? Date.now()) - 1000;
  const base = { sessionId, cwd, gitBranch: 'main', version: '2.1.328', userType: 'external' };
  const lines = [{ ...base, type: 'user', timestamp: stamp(first), message: { role: 'user', content: prompt } }];
  calls.forEach((call, i) => {
    const id = `toolu_${sessionId.slice(0, 8)}_${i}`;
    lines.push({
      ...base,
      type: 'assistant',
      timestamp: stamp(call.at),
      message: { role: 'assistant', content: [{ type: 'tool_use', id, name: call.name, input: call.input }] },
    });
    // A call still running (a long Bash command): its result is not written yet.
    if (call.pending) return;
    lines.push({
      ...base,
      type: 'user',
      timestamp: stamp(call.at + 10),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: call.content ?? 'ok' }] },
      toolUseResult: call.result,
    });
  });
  const last = (calls.at(-1)?.at ?? first) + 20;
  if (!running) lines.push({ type: 'cost-state', sessionId, timestamp: stamp(last) });
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  fs.utimesSync(file, last / 1000, last / 1000);
  return file;
}
