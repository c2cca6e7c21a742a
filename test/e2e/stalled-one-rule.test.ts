/**
 * One rule for stalled work, through the binary: `list --stalled`, `lists --stalled`,
 * `watch --fail-if-stalled` and `notify --on stalled` give the same answer for the same
 * world. A session busy on a turn is at work only while its transcript grows or a tool
 * call is in flight; a session at a permission prompt makes its work waiting, never stalled.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, runAsync, tempConfig, writeTask } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { notifyEnv } from '../helpers/notify.js';
import { parseNdjson } from '../helpers/replay.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const SESSION = '5a5a5a5a-1111-4222-8333-944445555777';
const HOUR = 60 * 60_000;
const agents: ChildProcess[] = [];
afterEach(() => {
  for (const a of agents.splice(0)) a.kill('SIGKILL');
});

function age(file: string, ms: number): void {
  const at = (Date.now() - ms) / 1000;
  fs.utimesSync(file, at, at);
}

/**
 * The session's own list: #1 in progress, unchanged for 2 h. The session is live (a real
 * process), with `status`; its transcript was last written 2 h ago, ending in a finished
 * call (`last: 'result'`) or in a tool call still awaiting its result.
 */
function world(status: 'busy' | 'waiting', last: 'result' | 'tool call in flight' = 'result'): string {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'proj');
  fs.mkdirSync(cwd, { recursive: true });
  const dir = path.join(config, 'tasks', SESSION);
  writeTask(dir, { id: '1', subject: 'Run the suite', description: '', status: 'in_progress', blocks: [], blockedBy: [] });
  age(path.join(dir, '1.json'), 2 * HOUR);
  const at = Date.now() - 2 * HOUR;
  const transcript = writeTaskTranscript(config, {
    sessionId: SESSION,
    cwd,
    running: true,
    calls: [
      { name: 'TaskList', input: {}, result: { tasks: [] }, at },
      ...(last === 'result' ? [] : [{ name: 'Bash', input: { command: 'npm test' }, at, pending: true }]),
    ],
  });
  age(transcript, 2 * HOUR);
  // Why a process: the session is live only while its live-session file's process runs.
  const agent = spawn('sleep', ['60']);
  agents.push(agent);
  writeLiveSession(config, {
    pid: agent.pid as number,
    sessionId: SESSION,
    cwd,
    status,
    ...(status === 'waiting' ? { waitingFor: 'permission prompt', statusAt: Date.now() - 60_000 } : {}),
  });
  return config;
}

/** What each command says of #1 with a stall time of 1 h: stalled, waiting, or neither. */
async function verdicts(config: string) {
  const list = run(config, ['-l', SESSION, 'list', '--stalled', '1h', '--json']);
  expect(list.code, list.stderr).toBe(0);
  const lists = run(config, ['lists', '--stalled', '1h', '--json']);
  expect(lists.code, lists.stderr).toBe(0);
  const watch = await runAsync(config, [
    '-l',
    SESSION,
    'watch',
    '--until',
    'all-completed',
    '--timeout',
    '2500ms',
    '--fail-if-stalled',
    '1h',
    '--json',
  ]);
  const notify = run(
    config,
    ['-l', SESSION, 'notify', '--once', '--stalled', '1h', '--on', 'stalled', '--to', 'exec:cat >/dev/null', '--json'],
    {
      env: notifyEnv(config),
    },
  );
  expect(notify.code, notify.stderr).toBe(0);
  const events = parseNdjson(watch.stdout);
  return {
    list: (JSON.parse(list.stdout) as Array<{ id: string }>).map((t) => t.id),
    listWaiting: /waiting/.test(list.stderr),
    lists: (JSON.parse(lists.stdout) as Array<{ list: string; stalled: Array<{ task: { id: string } }> }>)
      .filter((l) => l.list === SESSION)
      .flatMap((l) => l.stalled.map((s) => s.task.id)),
    listsWaiting: /waiting/.test(lists.stderr),
    watch: watch.code,
    watchEnd: events.at(-1),
    watchWaiting: events.some((e) => e.event === 'needs-you'),
    notify: notify.stdout.trim() === '' ? 0 : notify.stdout.trim().split('\n').length,
  };
}

describe('stalled: one rule for list, lists, watch and notify', () => {
  it('a session busy on a turn, its transcript silent for longer than the stall time and no tool call in flight: every command calls #1 stalled', async () => {
    const v = await verdicts(world('busy'));
    expect(v.list).toEqual(['1']);
    expect(v.lists).toEqual(['1']);
    expect(v.watch).toBe(7);
    expect(v.watchEnd).toMatchObject({ event: 'end', reason: 'stalled', stalled: [{ id: '1' }] });
    expect(v.notify).toBe(1);
  });

  it('a session busy inside a long tool call (its transcript as silent): at work, no command calls #1 stalled', async () => {
    const v = await verdicts(world('busy', 'tool call in flight'));
    expect(v.list).toEqual([]);
    expect(v.lists).toEqual([]);
    expect(v.watch).toBe(124);
    expect(v.watchEnd).toMatchObject({ event: 'end', reason: 'timeout' });
    expect(v.notify).toBe(0);
  });

  it('a session at a permission prompt: #1 waits, every command says so, none calls it stalled', async () => {
    const v = await verdicts(world('waiting'));
    expect(v.list).toEqual([]);
    expect(v.listWaiting).toBe(true);
    expect(v.lists).toEqual([]);
    expect(v.listsWaiting).toBe(true);
    expect(v.watch).toBe(124);
    expect(v.watchWaiting).toBe(true);
    expect(v.watchEnd).toMatchObject({ event: 'end', reason: 'timeout', waiting: { session: SESSION } });
    expect(v.notify).toBe(0);
  });
});

const WAITS = '77777777-7777-4777-8777-777777777778';
const BUSY = '88888888-8888-4888-8888-888888888889';
const LIST = 'shared-one-rule';
const MIN = 60_000;

/**
 * List `shared-one-rule`, named by the project's settings and shared by two live sessions:
 * BUSY (busy on a turn, its transcript silent for 20 min, no call in flight) took #1 20 min
 * ago; WAITS (at a permission prompt) took #2 10 min ago. With a stall time of 5 min: #1
 * stalled, #2 waiting.
 */
function shared(busyStatus: 'busy' | 'waiting' = 'busy'): { config: string; cwd: string } {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'proj');
  fs.mkdirSync(path.join(cwd, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(cwd, '.claude', 'settings.json'), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: LIST } }));
  const dir = path.join(config, 'tasks', LIST);
  const now = Date.now();
  for (const [id, owner, ago] of [
    ['1', 'h', 20 * MIN],
    ['2', undefined, 10 * MIN],
  ] as const) {
    writeTask(dir, {
      id,
      subject: `Task ${id}`,
      description: '',
      status: 'in_progress',
      blocks: [],
      blockedBy: [],
      ...(owner ? { owner } : {}),
    });
    age(path.join(dir, `${id}.json`), ago);
  }
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
  const busy = writeTaskTranscript(config, {
    sessionId: BUSY,
    cwd,
    running: true,
    calls: [create('1', now - 21 * MIN), start('1', now - 20 * MIN, 'h')],
  });
  age(busy, 20 * MIN);
  writeTaskTranscript(config, { sessionId: WAITS, cwd, running: true, calls: [create('2', now - 11 * MIN), start('2', now - 10 * MIN)] });
  for (const [sessionId, status] of [
    [BUSY, busyStatus],
    [WAITS, 'waiting'],
  ] as const) {
    const agent = spawn('sleep', ['60']);
    agents.push(agent);
    writeLiveSession(config, {
      pid: agent.pid as number,
      sessionId,
      cwd,
      status,
      start: now - 25 * MIN,
      ...(status === 'waiting' ? { waitingFor: 'permission prompt', statusAt: now - 5_000, name: 'proj-w1' } : {}),
    });
  }
  return { config, cwd };
}

describe('stalled on a shared list: a session at a prompt beside a busy one that fell silent', () => {
  it("list --stalled, lists --stalled and watch --fail-if-stalled: the silent agent's #1 stalled; #2, held by the session at the prompt, waiting", async () => {
    const { config, cwd } = shared();
    const list = run(config, ['-l', LIST, 'list', '--stalled', '5m', '--json'], { cwd });
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((t) => t.id)).toEqual(['1']);
    expect(list.stderr).toMatch(/#2 .*waiting|waiting.*#2|"ids":\["2"\]/);
    const lists = run(config, ['lists', '--stalled', '5m', '--json'], { cwd });
    expect(lists.code, lists.stderr).toBe(0);
    const row = (JSON.parse(lists.stdout) as Array<{ list: string; stalled: Array<{ task: { id: string } }> }>).find(
      (l) => l.list === LIST,
    );
    expect(row?.stalled.map((s) => s.task.id)).toEqual(['1']);
    const watch = await runAsync(
      config,
      ['-l', LIST, 'watch', '--until', 'all-completed', '--timeout', '5s', '--fail-if-stalled', '5m', '--json'],
      {
        cwd,
      },
    );
    expect(watch.code, watch.stderr).toBe(7);
    expect(parseNdjson(watch.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'stalled', stalled: [{ id: '1' }] });
    expect(parseNdjson(watch.stdout).at(-1)?.stalled).toHaveLength(1);
  });
});

describe('watch: two sessions of a shared list at a prompt', () => {
  it('the note and needs-you name the one whose work is shown waiting, and say one more session waits; --fail-if-stalled sees no stall', async () => {
    const { config, cwd } = shared('waiting');
    const watch = await runAsync(
      config,
      ['-l', LIST, 'watch', '--until', 'all-completed', '--timeout', '2s', '--fail-if-stalled', '5m', '--json'],
      { cwd },
    );
    expect(watch.code, watch.stderr).toBe(124);
    const needsYou = parseNdjson(watch.stdout).find((e) => e.event === 'needs-you');
    expect(needsYou?.waiting).toMatchObject({ others: 1 });
    expect(contractProblems('watch', watch.stdout)).toEqual([]);
    expect(watch.stderr).toMatch(/waits for a person \(permission prompt\): #\d+ waits on it; 1 more session waiting too/);
  });
});
