/**
 * Work nobody is at, one answer for every view (progress/stalled-work.ts): a task in
 * progress whose list's live session waits for a person (its live-session file says
 * "status":"waiting", as Claude Code 2.1.328 writes it at a permission prompt) waits, and
 * is never stalled, however long unchanged; idle, it is stalled; busy, neither. In process,
 * over a temporary config folder whose live session is this very process (alive, with its
 * real start time). Then `tasks list` as a person meets it, in process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockerAnswers, indexTasks } from '../../src/core/graph/blockers.js';
import { stalledInList, stalledTodos } from '../../src/core/progress/stalled-work.js';
import { SessionIndex } from '../../src/core/sessions/session-index.js';
import type { Task } from '../../src/core/store/schema.js';
import { PLAIN } from '../../src/render/style.js';
import { renderTaskTable } from '../../src/render/task-table.js';
import { runInProcess } from '../helpers/in-process.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const SESSION = '77777777-7777-4777-8777-777777777777';
const HOUR = 60 * 60_000;

const task = (id: string, status: Task['status'], extra: Partial<Task> = {}): Task => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status,
  blocks: [],
  blockedBy: [],
  ...extra,
});

/** The session's own list: #1 in progress unchanged for 3 h, #2 pending; the session live (this process) with `status`. */
function world(status: 'waiting' | 'idle' | 'busy', waitingFor: string | null = 'permission prompt') {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-waiting-'));
  const cwd = path.join(config, 'home', 'proj');
  fs.mkdirSync(cwd, { recursive: true });
  const dir = path.join(config, 'tasks', SESSION);
  fs.mkdirSync(dir, { recursive: true });
  const tasks = [task('1', 'in_progress', { owner: 'agent-1' }), task('2', 'pending')];
  for (const t of tasks) fs.writeFileSync(path.join(dir, `${t.id}.json`), JSON.stringify(t));
  const old = (Date.now() - 3 * HOUR) / 1000;
  fs.utimesSync(path.join(dir, '1.json'), old, old);
  // Its transcript was last written 2 h ago: a busy session silent that long is not at work either.
  const transcript = writeTaskTranscript(config, {
    sessionId: SESSION,
    cwd,
    running: true,
    calls: [{ name: 'TaskList', input: {}, result: { tasks: [] }, at: Date.now() - 2 * HOUR }],
  });
  writeLiveSession(config, {
    pid: process.pid,
    sessionId: SESSION,
    cwd,
    status,
    name: 'proj-w1',
    statusAt: Date.now() - 60_000,
    ...(status === 'waiting' && waitingFor !== null ? { waitingFor } : {}),
  });
  return { config, dir, tasks, transcript };
}

const rest = (w: ReturnType<typeof world>) =>
  stalledInList(w.dir, SESSION, w.tasks, { afterMs: HOUR, now: Date.now(), sessions: new SessionIndex(w.config) });

describe('work nobody is at: stalled, or waiting for a person', () => {
  it('a live session waiting for a person: its task in progress waits (with what for), and is not stalled', () => {
    const r = rest(world('waiting'));
    expect([...r.stalled.keys()]).toEqual([]);
    expect([...r.waiting]).toEqual([
      ['1', { session: SESSION, name: 'proj-w1', waitingFor: 'permission prompt', since: expect.any(Number) }],
    ]);
  });

  it('waiting whatever the age: a task that changed a minute ago waits too (the stall time does not apply)', () => {
    const w = world('waiting', null);
    const recent = (Date.now() - 60_000) / 1000;
    fs.utimesSync(path.join(w.dir, '1.json'), recent, recent);
    const r = rest(w);
    expect(r.waiting.get('1')).toMatchObject({ session: SESSION, waitingFor: undefined });
    expect(r.stalled.size).toBe(0);
  });

  it('idle: stalled, not waiting; busy on a turn: neither (at work)', () => {
    const idle = rest(world('idle'));
    expect([...idle.stalled.keys()]).toEqual(['1']);
    expect(idle.waiting.size).toBe(0);
    // Busy but silent for as long as the stall time (a request that hangs): stalled, as watch and notify judge it.
    expect([...rest(world('busy')).stalled.keys()]).toEqual(['1']);
    // Busy and writing its transcript: at work.
    const writing = world('busy');
    fs.utimesSync(writing.transcript, new Date(), new Date());
    const busy = rest(writing);
    expect(busy.stalled.size + busy.waiting.size).toBe(0);
  });

  it("a TodoWrite session waiting for a person: its items in progress wait, whatever their calls' times", () => {
    const w = world('waiting');
    const session = new SessionIndex(w.config).session(SESSION);
    expect(session?.activity).toBe('waiting');
    const r = stalledTodos(new SessionIndex(w.config), session as NonNullable<typeof session>, w.tasks, { afterMs: HOUR, now: Date.now() });
    expect([...r.waiting.keys()]).toEqual(['1']);
    expect(r.stalled.size).toBe(0);
    expect(r.untimed).toEqual([]);
  });
});

describe('the table', () => {
  it('marks a task whose session waits "waiting: <what for>" (or "waiting for you"), never "stalled"', () => {
    const tasks = [task('1', 'in_progress'), task('2', 'in_progress')];
    const on = { session: SESSION, name: 'proj-w1', since: undefined };
    const table = renderTaskTable(tasks, blockerAnswers(tasks, indexTasks(tasks)), {
      style: PLAIN,
      width: 100,
      stalledFor: () => 3 * HOUR,
      waitingFor: (t) => (t.id === '1' ? { ...on, waitingFor: 'permission prompt' } : { ...on, waitingFor: undefined }),
    });
    const [, one, two] = table.split('\n');
    expect(one).toContain('Task 1 waiting: permission prompt');
    expect(two).toContain('Task 2 waiting for you');
    expect(table).not.toContain('stalled');
  });
});

describe('tasks list, in process', () => {
  const list = (w: ReturnType<typeof world>, args: string[]) => runInProcess(w.config, ['-l', SESSION, 'list', ...args]);

  it('piped: no stalled warning; a note says the task waits, for what and on whom', async () => {
    const r = await list(world('waiting'), []);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/is stalled/);
    expect(r.stderr).toContain('task #1 is waiting, not stalled: session proj-w1 (77777777) waits for a person (permission prompt)');
  });

  it('--json: the task in progress has a "waiting" object; the others none', async () => {
    const r = await list(world('waiting'), ['--json']);
    const tasks = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(tasks[0]?.waiting).toEqual({ for: 'permission prompt', session: SESSION, name: 'proj-w1', since: expect.any(String) });
    expect(tasks[1]).not.toHaveProperty('waiting');
    const idle = JSON.parse((await list(world('idle'), ['--json'])).stdout) as Array<Record<string, unknown>>;
    expect(idle[0]).not.toHaveProperty('waiting');
  });

  it("--stalled: leaves it out, and says so apart on stderr; an idle session's task is listed", async () => {
    const r = await list(world('waiting'), ['--stalled', '1h']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('not stalled but waiting: #1 (session proj-w1 (77777777) waits for a person (permission prompt))');
    const json = await list(world('waiting'), ['--stalled', '1h', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(
      json.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toContainEqual({
      note: expect.objectContaining({ code: 'waiting_for_person', ids: ['1'], session: SESSION, waitingFor: 'permission prompt' }),
    });
    const idle = await list(world('idle'), ['--stalled', '1h']);
    expect(idle.stdout.split('\t')[0]).toBe('1');
    expect(idle.stderr).toContain('task #1 is stalled');
  });
});

describe('a very long waitingFor (a damaged or hostile live-session file)', () => {
  const long = `${'why '.repeat(1249)}end`; // 4,999 characters
  const longest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));

  it('is cut, with an ellipsis, where a person reads it: list note, get; --json keeps it whole', async () => {
    const w = world('waiting', long);
    const listed = await runInProcess(w.config, ['-l', SESSION, 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toMatch(/task #1 is waiting, not stalled: session proj-w1 \(77777777\) waits for a person \(why why .*…\)/);
    expect(longest(listed.stderr)).toBeLessThan(250);
    const got = await runInProcess(w.config, ['-l', SESSION, 'get', '1']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/waiting: why why .*…/);
    expect(got.stdout).not.toContain('end');
    expect(longest(got.stdout)).toBeLessThan(250);
    const lists = await runInProcess(w.config, ['lists']);
    expect(lists.code, lists.stderr).toBe(0);
    expect(longest(lists.stdout)).toBeLessThan(400);
    const json = JSON.parse((await runInProcess(w.config, ['-l', SESSION, 'list', '--json'])).stdout) as Array<{
      waiting?: { for: string };
    }>;
    expect(json[0]?.waiting?.for).toBe(long);
  });
});
