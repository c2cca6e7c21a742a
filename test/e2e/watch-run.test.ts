/**
 * `tasks watch --stream <file|->` and `watch --session <id>`: following an agent's run
 * from the real Claude Code's stream-json output (and a session's transcript), fed line
 * by line with delays as a running agent writes them. Through the built binary: a watch
 * lasts while the run does, and its exit status is the verdict.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, run, runAsync, snapshotDir, stderrError, stderrLines, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runFed } from '../helpers/feed.js';
import { parseNdjson, replay } from '../helpers/replay.js';
import { projectFolder, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { startWatch } from '../helpers/watch.js';

const lines = (file: string) =>
  fs
    .readFileSync(path.join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const TODO_RUN = lines('follow/stream-json-todowrite-run.jsonl');
const TASK_RUN = lines('follow/stream-json-tasks-run.jsonl');
const TASKS_V2 = lines('stream-json-tasks-v2.jsonl');
const sessionOf = (stream: string[]) => (JSON.parse(stream[0] as string) as { session_id: string }).session_id;
const watchStdin = (config: string, stream: readonly string[], args: string[] = [], opts = {}) =>
  runFed(config, ['watch', '--stream', '-', '--json', ...args], stream, opts);

function freshConfig(): string {
  const config = tempConfig();
  fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
  return config;
}

describe('watch --stream: a run read from stdin as it arrives', () => {
  it("a TodoWrite run: the events follow each snapshot, --until all-completed exits 0 at the run's end", async () => {
    const config = freshConfig();
    const r = await watchStdin(config, TODO_RUN, ['--until', 'all-completed']);
    expect(r.code).toBe(0);
    // Three todos closed, none a verification step: Claude Code's nudge, once.
    expect(JSON.parse(r.stderr)).toEqual({
      note: {
        code: 'verification_missing',
        message:
          'all 3 tasks are completed and none is a verification step: verify the work (run the tests, check the result) before reporting done',
      },
    });
    const events = parseNdjson(r.stdout);
    expect(events[0]).toMatchObject({ event: 'snapshot', list: sessionOf(TODO_RUN), exists: true, tasks: [] });
    expect(events.slice(1, 4).map((e) => [e.event, e.task?.id, e.task?.subject, e.task?.status])).toEqual([
      ['created', '1', 'Read the failing test', 'in_progress'],
      ['created', '2', 'Fix the race', 'pending'],
      ['created', '3', 'Run the suite', 'pending'],
    ]);
    expect(events.filter((e) => e.event === 'updated').map((e) => `${e.task?.id}:${String(e.changes?.status?.new)}`)).toEqual([
      '1:completed',
      '2:in_progress',
      '2:completed',
      '3:in_progress',
      '3:completed',
    ]);
    const end = events.at(-1)!;
    expect(end).toMatchObject({
      event: 'end',
      reason: 'run-ended',
      until: 'all-completed',
      met: true,
      run: { result: 'success', isError: false },
      nudge: { code: 'verification_missing' },
    });
    expect([...replay(events).values()].every((t) => t.status === 'completed')).toBe(true);
  });

  it('a Task-tools run whose list folder does not exist here: the calls are replayed, ids from their results', async () => {
    const config = freshConfig();
    const r = await watchStdin(config, TASKS_V2);
    // The run's list folder is nowhere here: said once, at its first task; the stream alone is followed.
    expect(stderrLines(r.stderr)).toEqual([{ warning: expect.objectContaining({ code: 'list_not_visible', taskId: '1' }) }]);
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events.filter((e) => e.event === 'created').map((e) => e.task?.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(events.find((e) => e.event === 'deleted')?.task?.id).toBe('3');
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', run: { result: 'success', isError: false } });
    // The same list `tasks import` makes of the finished stream.
    const imported = tempConfig();
    expect(run(imported, ['import', path.join(FIXTURES, 'stream-json-tasks-v2.jsonl'), '-l', 'x']).code).toBe(0);
    const list = JSON.parse(run(imported, ['list', '-l', 'x', '--json']).stdout) as Array<Record<string, unknown> & { id: string }>;
    const strip = (ts: Iterable<Record<string, unknown> & { id: string }>) =>
      [...ts].map((t) => ({ subject: t.subject, status: t.status, owner: t.owner, blockedBy: t.blockedBy }));
    expect(strip(replay(events).values())).toEqual(strip(list));
  });

  it('a run that stops early: without --until exit 0, reason input-ended; with --until never held, exit 6', async () => {
    const config = freshConfig();
    const cut = TODO_RUN.slice(0, 5); // two snapshots, then the agent is killed
    const plain = await watchStdin(config, cut);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe('');
    expect(parseNdjson(plain.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'input-ended', run: { result: null, isError: null } });

    const waited = await watchStdin(config, cut, ['--until', 'all-completed', '--timeout', '5m']);
    expect(waited.code).toBe(6);
    // With --json the error is JSON on stderr too.
    expect(JSON.parse(waited.stderr)).toMatchObject({
      error: {
        code: 'run_ended',
        message:
          "the run's input ended without a result event: the run did not finish, so all-completed is not met; 3 tasks: 1 done, 1 in progress, 1 pending",
        reason: 'input-ended',
        result: null,
      },
    });
    const piped = await runFed(config, ['watch', '--stream', '-', '--until', 'all-completed'], cut);
    expect(piped.code).toBe(6);
    expect(piped.stderr).toBe(
      "error: the run's input ended without a result event: the run did not finish, so all-completed is not met; 3 tasks: 1 done, 1 in progress, 1 pending\n",
    );
    expect(parseNdjson(waited.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'input-ended', until: 'all-completed', met: false });
  });

  it('a run that ends (its result event) before --until holds: exit 6, and the end event names the result', async () => {
    const config = freshConfig();
    const r = await watchStdin(config, TASK_RUN, ['--until', 'task:9:completed']);
    expect(r.code).toBe(6);
    expect(stderrError(r.stderr)).toMatchObject({
      error: {
        code: 'run_ended',
        message: 'the run ended and task:9:completed did not hold then; 3 tasks: 3 done, 0 in progress, 0 pending',
        reason: 'run-ended',
        result: 'success',
      },
    });
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({
      event: 'end',
      reason: 'run-ended',
      met: false,
      run: { result: 'success', isError: false },
    });
    // A verification step was among them: no nudge.
    expect(parseNdjson(r.stdout).at(-1)).not.toHaveProperty('nudge');
  });

  it('malformed lines: one warning each on stderr, and the watch goes on', async () => {
    const config = freshConfig();
    const broken = [...TODO_RUN.slice(0, 2), '{"type": "assist', '[1, 2]', '', ...TODO_RUN.slice(2)];
    const r = await watchStdin(config, broken);
    expect(r.code).toBe(0);
    const warnings = stderrText(r.stderr)
      .split('\n')
      .filter((l) => l.startsWith('warning:'));
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: line 3 is not JSON \(.+\): skipped$/),
      'warning: line 4 is not a JSON object: skipped',
    ]);
    const events = parseNdjson(r.stdout);
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended' });
    expect([...replay(events).values()].map((t) => t.status)).toEqual(['completed', 'completed', 'completed']);
  });
});

describe('watch --stream: an input that is not stream-json', () => {
  it("says what output the watch needs when not one line was JSON (claude -p's plain text), and exits 6", async () => {
    const config = freshConfig();
    // What `claude -p "..."` prints without --output-format stream-json --verbose.
    const r = await runFed(config, ['watch', '--stream', '-', '--until', 'all-completed'], ['I fixed the flaky test.', 'All done.']);
    expect(r.code).toBe(6);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
      expect.stringMatching(/^warning: line 1 is not JSON \(.+\): skipped$/),
      expect.stringMatching(/^warning: line 2 is not JSON \(.+\): skipped$/),
      'warning: no line of the input was JSON: the watch reads stream-json (claude -p --output-format stream-json --verbose)',
    ]);
  });

  it('says nothing more when some lines were JSON', async () => {
    const config = freshConfig();
    const r = await watchStdin(config, [...TODO_RUN.slice(0, 2), 'not json']);
    expect(stderrText(r.stderr)).not.toContain('no line of the input');
  });
});

describe("watch --stream: where the run's list folder exists, its files are watched", () => {
  it('shows changes made by others, and the stream ends the watch', async () => {
    const config = freshConfig();
    const session = sessionOf(TASKS_V2);
    const dir = path.join(config, 'tasks', session);
    writeTask(dir, { id: '1', subject: 'Made by hand', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const before = snapshotDir(dir);
    // The run's init event, then nothing until the test says so.
    const file = path.join(config, 'run.jsonl');
    fs.writeFileSync(file, `${TASKS_V2[0]}\n`);
    const follow = startWatch(config, ['watch', '--stream', file, '--json']);
    const snap = await follow.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    expect(snap).toMatchObject({ list: session, exists: true, tasks: [{ id: '1', subject: 'Made by hand' }] });
    // Someone else changes the list: the files say so, the stream could not.
    expect((await runAsync(config, ['-l', session, 'update', '1', '--status', 'in_progress'])).code).toBe(0);
    await follow.waitFor((e) => e.event === 'updated' && e.task?.id === '1', 'the update from the files');
    // The run goes on and ends: its result event ends the watch.
    fs.appendFileSync(file, `${TASKS_V2.slice(1).join('\n')}\n`);
    const r = await follow.exited;
    // The stream's creates beyond #1 are in no folder here: said once.
    expect(stderrLines(r.stderr).map((l) => l.warning?.code)).toEqual(['list_not_visible']);
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    // The stream's calls did not write these files: at its end the files are what the list is.
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', tasks: [{ id: '1', status: 'in_progress' }] });
    expect([...replay(events).values()].map((t) => [t.id, t.subject, t.status])).toEqual([['1', 'Made by hand', 'in_progress']]);
    expect(snapshotDir(dir)['1.json']).not.toBe(before['1.json']);
  });
});

describe('watch --stream <file>: a file still being written, followed like tail -f', () => {
  it('reads what is there, then each line as it is appended, until the result event, where --until is judged', async () => {
    const config = freshConfig();
    const file = path.join(config, 'run.jsonl');
    fs.writeFileSync(file, `${TODO_RUN.slice(0, 3).join('\n')}\n`);
    const watch = startWatch(config, ['watch', '--stream', file, '--json', '--until', 'task:3:completed']);
    const snap = await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    // What the file held at the start is the first state, not news.
    expect(snap.tasks?.map((t) => t.status)).toEqual(['in_progress', 'pending', 'pending']);
    for (const line of TODO_RUN.slice(3)) {
      fs.appendFileSync(file, `${line}\n`);
      await new Promise((r) => setTimeout(r, 40));
    }
    const r = await watch.exited;
    expect(r.code).toBe(0);
    expect(stderrText(r.stderr)).toMatch(/^all 3 tasks are completed/);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: true });
  });

  it('a file that does not exist yet is waited for, as a list is; the deadline still ends the watch', async () => {
    const config = freshConfig();
    const file = path.join(config, 'later.jsonl');
    const watch = startWatch(config, ['watch', '--stream', 'later.jsonl', '--json', '--until', 'all-completed', '--timeout', '20s']);
    // Until the watch has said it waits (a started process, however loaded the machine), at most 30 s.
    for (const until = Date.now() + 30_000; !watch.stderr().endsWith('\n') && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 25));
    expect(JSON.parse(watch.stderr())).toEqual({ note: { code: 'waiting_for_stream', message: 'waiting for later.jsonl to appear' } });
    fs.writeFileSync(file, `${TODO_RUN.join('\n')}\n`);
    const r = await watch.exited;
    expect(r.code).toBe(0);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: true });

    const never = await runAsync(config, ['watch', '--stream', 'never.jsonl', '--json', '--until', 'all-completed', '--timeout', '500ms']);
    expect(never.code).toBe(124);
    expect(parseNdjson(never.stdout).map((e) => [e.event, e.list, e.reason])).toEqual([
      ['snapshot', null, undefined],
      ['end', null, 'timeout'],
    ]);
  });
});

describe('watch --session <id>: a TodoWrite session followed by its transcript', () => {
  const SESSION = '5b1f6a2e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

  it('an ended session: its todos, then the end (session-ended); stderr says the transcript is followed', async () => {
    const config = freshConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTranscript(config, { sessionId: SESSION, cwd, prompt: 'refactor auth' });
    const r = await runAsync(config, ['watch', '--session', SESSION.slice(0, 8), '--json']);
    expect(r.code).toBe(0);
    expect(stderrText(r.stderr)).toBe(
      `following the transcript of session 5b1f6a2e (it has no task list; its todos are in ${path.join(config, 'projects', projectFolder(cwd), `${SESSION}.jsonl`)})\n`,
    );
    const events = parseNdjson(r.stdout);
    expect(events.map((e) => e.event)).toEqual(['snapshot', 'end']);
    expect(events[0]?.tasks?.map((t) => [t.subject, t.status])).toEqual([
      ['Analyse code', 'completed'],
      ['Refactor auth', 'in_progress'],
      ['Run tests', 'pending'],
    ]);
    expect(events[1]).toMatchObject({ reason: 'session-ended' });
  });

  it('a live session: a TodoWrite appended to its transcript is an event; the watch ends when the session does', async () => {
    const config = freshConfig();
    const cwd = path.join(config, 'home', 'proj');
    const transcript = writeTranscript(config, { sessionId: SESSION, cwd });
    const live = writeLiveSession(config, { pid: process.pid, sessionId: SESSION, cwd, status: 'busy' });
    const watch = startWatch(config, ['watch', '--session', SESSION, '--json', '--until', 'all-completed']);
    await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    const entry = TODO_RUN.find((l) => l.includes('"tool_use_result"')) as string;
    const done = JSON.parse(entry) as Record<string, unknown>;
    const todos = [
      { content: 'Analyse code', status: 'completed', activeForm: 'Analysing code' },
      { content: 'Refactor auth', status: 'completed', activeForm: 'Refactoring auth' },
      { content: 'Run tests', status: 'in_progress', activeForm: 'Running tests' },
    ];
    // A result whose call is not in the transcript still carries the whole list (newTodos).
    const line = {
      ...done,
      tool_use_result: undefined,
      toolUseResult: { oldTodos: [], newTodos: todos },
      sessionId: SESSION,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_new', content: 'ok' }] },
    };
    fs.appendFileSync(transcript, `${JSON.stringify(line)}\n`);
    const update = await watch.waitFor((e) => e.event === 'updated' && e.task?.subject === 'Refactor auth', 'the update');
    expect(update.changes).toEqual({ status: { old: 'in_progress', new: 'completed' } });
    fs.rmSync(live);
    const r = await watch.exited;
    expect(r.code).toBe(6);
    expect(r.stderr.split('\n')[1]).toContain(
      '"message":"the session stopped running before all-completed held; 3 tasks: 2 done, 1 in progress, 0 pending"',
    );
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'session-ended', met: false });
  });

  it('a session with a list on disk: --session watches that list, as for every command', async () => {
    const config = freshConfig();
    writeTranscript(config, { sessionId: SESSION, cwd: path.join(config, 'home', 'proj') });
    writeTask(path.join(config, 'tasks', SESSION), {
      id: '1',
      subject: 'On disk',
      description: '',
      status: 'completed',
      blocks: [],
      blockedBy: [],
    });
    const r = await runAsync(config, ['watch', '--session', SESSION, '--json', '--until', 'all-completed']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('transcript');
    expect(parseNdjson(r.stdout)[0]).toMatchObject({ event: 'snapshot', list: SESSION, tasks: [{ subject: 'On disk' }] });
  });
});

describe('watch --stream: bad input', () => {
  const config = freshConfig();
  const cases: Array<[string, string[], number, RegExp]> = [
    ['a folder', ['watch', '--stream', '.'], 2, /^error: \. is a folder, not a stream-json file\n$/],
    [
      '--stream with --session',
      ['watch', '--stream', '-', '--session', 'abc'],
      2,
      /^error: --stream and --session cannot be used together/,
    ],
    ['a bad --fail-if-stalled', ['watch', '--fail-if-stalled', 'soon'], 2, /^error: invalid --fail-if-stalled "soon"/],
    ['--fail-if-stalled 0', ['watch', '--fail-if-stalled', '0'], 2, /^error: --fail-if-stalled must be longer than 0/],
    ['an unknown session', ['watch', '--session', 'ffffffff'], 3, /^error: no session "ffffffff"/],
  ];
  it.each(cases)('%s: a one-line error, its exit code, nothing written', async (_what, args, code, stderr) => {
    const before = snapshotDir(config);
    const r = await runAsync(config, args);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(stderr);
    expect(r.stderr.trim().split('\n')[0]).not.toMatch(/at .*\.js:\d+/);
    expect(snapshotDir(config)).toEqual(before);
  });
});
