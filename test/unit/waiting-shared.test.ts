/**
 * Waiting for a person on a list several sessions share (CLAUDE_CODE_TASK_LIST_ID, here by
 * the project's settings): a session at a permission prompt waits whatever the others do,
 * and the work that waits on it is the tasks it holds (its transcript's last claim), not
 * the busy agent's beside it. With it the one live session of the list, every task in
 * progress waits, as before. In process, over a temporary config folder: the waiting
 * session lives in this process, the busy one in a child `sleep`; times relative to now.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stalledInList } from '../../src/core/progress/stalled-work.js';
import { SessionIndex } from '../../src/core/sessions/session-index.js';
import type { Task } from '../../src/core/store/schema.js';
import { runInProcess } from '../helpers/in-process.js';
import { notifyEnv } from '../helpers/notify.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const WAITS = '77777777-7777-4777-8777-777777777777';
const BUSY = '88888888-8888-4888-8888-888888888888';
const LIST = 'shared-w';
const MIN = 60_000;

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill();
});

function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

const task = (id: string, status: Task['status'], extra: Partial<Task> = {}): Task => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status,
  blocks: [],
  blockedBy: [],
  ...extra,
});

const create = (id: string, at: number) => ({
  name: 'TaskCreate',
  input: { subject: `Task ${id}`, description: '' },
  result: { task: { id, subject: `Task ${id}` } },
  at,
});
const start = (id: string, at: number, owner?: string) => ({
  name: 'TaskUpdate',
  input: { taskId: id, status: 'in_progress', ...(owner === undefined ? {} : { owner }) },
  result: { success: true, taskId: id, updatedFields: owner === undefined ? ['status'] : ['status', 'owner'] },
  at,
});

/**
 * List `shared-w`, named by the project's settings. A headless-like agent (BUSY, busy on a
 * turn unless `busyLive` is false: then it ended) made #1 and took it as `h` 20 min ago; the
 * waiting session (WAITS, at a permission prompt) made #2 and started it 10 min ago; #3 is pending.
 */
function world(busyLive = true) {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-waiting-shared-'));
  const home = path.join(config, 'home');
  const cwd = path.join(home, 'proj');
  fs.mkdirSync(path.join(cwd, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(cwd, '.claude', 'settings.json'), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: LIST } }));
  const dir = path.join(config, 'tasks', LIST);
  fs.mkdirSync(dir, { recursive: true });
  const now = Date.now();
  const tasks = [task('1', 'in_progress', { owner: 'h' }), task('2', 'in_progress'), task('3', 'pending')];
  const written = { '1': now - 20 * MIN + 10, '2': now - 10 * MIN + 10, '3': now - 30 * MIN + 10 };
  for (const t of tasks) {
    const file = path.join(dir, `${t.id}.json`);
    fs.writeFileSync(file, JSON.stringify(t));
    const at = written[t.id as keyof typeof written] / 1000;
    fs.utimesSync(file, at, at);
  }
  const busyTranscript = writeTaskTranscript(config, {
    sessionId: BUSY,
    cwd,
    running: busyLive,
    calls: [create('1', now - 21 * MIN), create('3', now - 30 * MIN + 0), start('1', now - 20 * MIN, 'h')].sort((a, b) => a.at - b.at),
  });
  writeTaskTranscript(config, { sessionId: WAITS, cwd, running: true, calls: [create('2', now - 11 * MIN), start('2', now - 10 * MIN)] });
  if (busyLive)
    writeLiveSession(config, { pid: liveProcess(), sessionId: BUSY, cwd, status: 'busy', name: 'proj-h', start: now - 25 * MIN });
  writeLiveSession(config, {
    pid: process.pid,
    sessionId: WAITS,
    cwd,
    status: 'waiting',
    name: 'proj-w1',
    start: now - 15 * MIN,
    statusAt: now - 5_000,
    waitingFor: 'permission prompt',
  });
  return { config, home, cwd, dir, tasks, busyTranscript };
}

type World = ReturnType<typeof world>;

const rest = (w: World, afterMs = 5 * MIN) =>
  stalledInList(w.dir, LIST, w.tasks, {
    afterMs,
    now: Date.now(),
    sessions: new SessionIndex(w.config, { settings: { home: w.home, uid: process.getuid?.() } }),
  });

const list = (w: World, args: string[]) => runInProcess(w.config, ['-l', LIST, ...args], { cwd: w.cwd });

describe('a session at a prompt on a shared list while another agent is busy', () => {
  it("its own task waits (with what for and on whom); the busy agent's does not, and nothing is stalled", () => {
    const r = rest(world());
    expect([...r.waiting.keys()]).toEqual(['2']);
    expect(r.waiting.get('2')).toMatchObject({ session: WAITS, name: 'proj-w1', waitingFor: 'permission prompt', holds: ['2'] });
    // The busy agent's transcript was last written 20 min ago, longer than the stall time: not at work, so #1 stalls.
    expect([...r.stalled.keys()]).toEqual(['1']);
    // Its transcript written now: at work, and nothing is stalled; #2 still waits.
    const writing = world();
    fs.utimesSync(writing.busyTranscript, new Date(), new Date());
    const atWork = rest(writing);
    expect([...atWork.waiting.keys()]).toEqual(['2']);
    expect(atWork.stalled.size).toBe(0);
    // The same list with the other agent ended: the waiting session is its one live session, and every task in progress waits on it, as before.
    const alone = rest(world(false));
    expect([...alone.waiting.keys()]).toEqual(['1', '2']);
    expect(alone.waiting.get('1')).toMatchObject({ session: WAITS });
    expect(alone.waiting.get('1')?.holds).toBeUndefined();
    expect(alone.stalled.size).toBe(0);
  });

  it('list --json: `waiting` on #2 only; list piped: the note names #2 alone; get marks #2 alone; with the waiting session alone live, both wait', async () => {
    const w = world();
    const json = await list(w, ['list', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const tasks = JSON.parse(json.stdout) as Array<{ id: string; waiting?: unknown }>;
    expect(tasks.map((t) => [t.id, t.waiting ?? null])).toEqual([
      ['1', null],
      ['2', { for: 'permission prompt', session: WAITS, name: 'proj-w1', since: expect.any(String) }],
      ['3', null],
    ]);
    const piped = await list(w, ['list']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toContain('task #2 is waiting, not stalled: session proj-w1 (77777777) waits for a person (permission prompt)');
    expect(piped.stderr).not.toContain('#1 is waiting');
    // get: marked beside its status, and a `waiting` object in --json, as list's; not the busy agent's task.
    expect((await list(w, ['get', '2'])).stdout).toMatch(/^Status: +▶ in progress {2}waiting: permission prompt$/m);
    expect((await list(w, ['get', '1'])).stdout).not.toMatch(/waiting/);
    expect(JSON.parse((await list(w, ['get', '2', '--json'])).stdout).waiting).toMatchObject({ for: 'permission prompt', session: WAITS });
    expect(JSON.parse((await list(w, ['get', '1', '--json'])).stdout)).not.toHaveProperty('waiting');
    // The waiting session alone live on the list: every task in progress waits, as before.
    const alone = JSON.parse((await list(world(false), ['list', '--json'])).stdout) as Array<{ id: string; waiting?: unknown }>;
    expect(alone.filter((t) => t.waiting !== undefined).map((t) => t.id)).toEqual(['1', '2']);
  });

  it("notify's needs-you names the waiting session's task alone, not the busy agent's", async () => {
    const w = world();
    const r = await runInProcess(w.config, ['-l', LIST, 'notify', '--once', '--on', 'needs-you', '--to', 'exec:cat >/dev/null', '--json'], {
      cwd: w.cwd,
      env: notifyEnv(w.config),
    });
    expect(r.code, r.stderr).toBe(0);
    const sent = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { notification: { event: string; session: string; tasks: Array<{ id: string }> } }).notification);
    expect(sent.map((e) => [e.event, e.session, e.tasks.map((t) => t.id)])).toEqual([['needs-you', WAITS, ['2']]]);
  });

  it('watch --json: needs-you and the end name #2 alone; the snapshot marks #2 waiting, not #1', async () => {
    const r = await list(world(), ['watch', '--until', 'all-completed', '--timeout', '2s', '--json']);
    expect(r.code, r.stderr).toBe(124);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; waiting?: unknown; tasks?: Array<{ id: string; waiting?: unknown }> });
    const waiting = { for: 'permission prompt', session: WAITS, ids: ['2'] };
    expect(events.find((e) => e.event === 'needs-you')?.waiting).toMatchObject(waiting);
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'timeout', waiting });
    const snapshot = events.find((e) => e.event === 'snapshot');
    expect(snapshot?.tasks?.filter((t) => t.waiting !== undefined && t.waiting !== null).map((t) => t.id)).toEqual(['2']);
  });
});
