/**
 * A session waiting for a person, as every view tells it: its live-session file as Claude
 * Code 2.1.328 writes it at a permission prompt ("status":"waiting","waitingFor":
 * "permission prompt"), its process a real one that runs (the index checks it). Its task in
 * progress, unchanged for hours, waits: `list`, `lists --stalled`, `watch
 * --fail-if-stalled` and the board never call it stalled; `watch` marks it (the live view,
 * `waiting` in its NDJSON, a `needs-you` event) and a timeout names the session. Through
 * the built binary.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BoardRun, request, startBoard } from '../helpers/board.js';
import { jsonLines, run, stderrError, tempConfig } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { listWith, taskOf } from '../helpers/notify.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';
import { startWatch } from '../helpers/watch.js';

const SESSION = '66666666-6666-4666-8666-666666666666';
const agents: ChildProcess[] = [];
/** Each world's session, set to another status (its live-session file written again, as Claude Code does). */
const restatus = new Map<string, (status: 'waiting' | 'idle') => void>();
const boards: BoardRun[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) a.kill('SIGKILL');
  for (const b of boards.splice(0)) await b.stop('SIGKILL');
});

/** The session's own list, #1 in progress unchanged for 3 h, #2 pending; the session live (a `sleep`) with `status`. */
function world(
  status: 'waiting' | 'idle',
  tasks = [taskOf('1', { status: 'in_progress', owner: 'agent-1' }), taskOf('2')],
  waitingFor = 'permission prompt',
) {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'proj');
  fs.mkdirSync(cwd, { recursive: true });
  const dir = listWith(config, SESSION, tasks);
  const old = (Date.now() - 3 * 60 * 60_000) / 1000;
  fs.utimesSync(path.join(dir, '1.json'), old, old);
  writeTaskTranscript(config, {
    sessionId: SESSION,
    cwd,
    running: true,
    calls: [{ name: 'TaskList', input: {}, result: { tasks: [] }, at: Date.now() - 2 * 60 * 60_000 }],
  });
  const agent = spawn('sleep', ['120'], { stdio: 'ignore' });
  agents.push(agent);
  const write = (now: 'waiting' | 'idle', statusAt: number) =>
    writeLiveSession(config, {
      pid: agent.pid as number,
      sessionId: SESSION,
      cwd,
      status: now,
      name: 'proj-w1',
      statusAt,
      ...(now === 'waiting' ? { waitingFor } : {}),
    });
  write(status, Date.now() - 60_000);
  restatus.set(config, (now) => write(now, Date.now()));
  return config;
}

describe('a task whose session waits for a person', () => {
  it('list: waiting, not stalled, piped and in --json; --stalled leaves it out and says why', () => {
    const config = world('waiting');
    const piped = run(config, ['-l', SESSION, 'list']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain('is stalled');
    expect(piped.stderr).toContain('task #1 is waiting, not stalled: session proj-w1 (66666666) waits for a person (permission prompt)');
    const json = run(config, ['-l', SESSION, 'list', '--json']);
    expect(contractProblems('list', json.stdout)).toEqual([]);
    const tasks = JSON.parse(json.stdout) as Array<{ id: string; waiting?: unknown }>;
    expect(tasks.map((t) => t.waiting ?? null)).toEqual([
      { for: 'permission prompt', session: SESSION, name: 'proj-w1', since: expect.any(String) },
      null,
    ]);
    const stalled = run(config, ['-l', SESSION, 'list', '--stalled', '1h']);
    expect(stalled.code).toBe(0);
    expect(stalled.stdout).toBe('');
    expect(stalled.stderr).toContain('not stalled but waiting: #1 (session proj-w1 (66666666) waits for a person (permission prompt))');
  });

  it('list: the same task with its session idle is stalled (the mark is the waiting, nothing else)', () => {
    const config = world('idle');
    const r = run(config, ['-l', SESSION, 'list', '--stalled', '1h']);
    expect(r.stdout.split('\t')[0]).toBe('1');
    expect(r.stderr).toContain('task #1 is stalled');
    expect(JSON.parse(run(config, ['-l', SESSION, 'list', '--json']).stdout)[0]).not.toHaveProperty('waiting');
  });

  it('lists --stalled: nothing stalled on stdout; the waiting task said apart on stderr, in --json and in Markdown', () => {
    const config = world('waiting');
    const text = run(config, ['lists', '--stalled', '1h']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe('');
    expect(text.stderr).toContain(
      `${SESSION}: not stalled but waiting: #1 (session proj-w1 (66666666) waits for a person (permission prompt))`,
    );
    // The "nothing stalled" line counts the waiting task, so it never reads as "nothing old in progress".
    expect(text.stderr).toContain(
      'no stalled work: 1 task waits for a person (above), and no other has been in progress, unchanged, for 1h',
    );
    const json = run(config, ['lists', '--stalled', '1h', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(contractProblems('lists-stalled', json.stdout)).toEqual([]);
    const notes = json.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(notes).toContainEqual({
      note: expect.objectContaining({ code: 'waiting_for_person', list: SESSION, ids: ['1'], waitingFor: 'permission prompt' }),
    });
    const md = run(config, ['lists', '--stalled', '1h', '--format', 'markdown']);
    expect(md.stdout).toContain('_No stalled work._');
    expect(md.stdout).toContain('#### Waiting for a person (not stalled)');
    expect(md.stdout).toMatch(
      /\| `66666666-6666-4666-8666-666666666666` \| `#1` Task 1 \| `agent-1` \| permission prompt \| `66666666` proj-w1 \|/,
    );
  });

  it('watch --fail-if-stalled: does not end as stalled while the session waits (--timeout ends it); idle, it does (exit 7)', () => {
    const args = ['-l', SESSION, 'watch', '--until', 'all-completed', '--fail-if-stalled', '1h', '--timeout', '3s', '--json'];
    const waiting = run(world('waiting'), args);
    expect(waiting.code, waiting.stderr).toBe(124);
    const idle = run(world('idle'), args);
    expect(idle.code, idle.stderr).toBe(7);
  });

  it('watch --json: the task carries `waiting`; a timeout names the session in its end event and its error (exit 124)', () => {
    const config = world('waiting');
    const r = run(config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '2s', '--json']);
    expect(r.code, r.stderr).toBe(124);
    expect(contractProblems('watch', r.stdout)).toEqual([]);
    const events = jsonLines(r.stdout);
    const waiting = { for: 'permission prompt', session: SESSION, name: 'proj-w1', since: expect.any(String) };
    const [snapshot, needsYou] = events;
    expect(((snapshot?.tasks ?? []) as Array<{ waiting?: unknown }>).map((t) => t.waiting ?? null)).toEqual([waiting, null]);
    // Already waiting as the watch begins: said at once, for a script that alerts on it.
    expect(needsYou).toEqual({ event: 'needs-you', at: expect.any(String), waiting: { ...waiting, ids: ['1'] } });
    const end = events.at(-1) as { event: string; reason: string; waiting?: unknown; tasks: Array<{ waiting?: unknown }> };
    expect(end).toMatchObject({ event: 'end', reason: 'timeout', met: false, waiting: { ...waiting, ids: ['1'] } });
    expect(end.tasks[0]?.waiting).toEqual(waiting);
    const error = stderrError(r.stderr)?.error as { message?: string } | undefined;
    expect(error).toMatchObject({ code: 'timeout', waiting: { ...waiting, ids: ['1'] } });
    expect(error?.message).toBe(
      'timed out after 2s before all-completed held, while session proj-w1 (66666666) waits for a person (permission prompt): #1 of list 66666666-6 waits on it; 2 tasks: 0 done, 1 in progress, 1 pending',
    );
  });

  it('a live-session file whose times no date can hold (1e300): every read goes on, the wait told without its start', () => {
    const config = world('waiting');
    const [file] = fs.readdirSync(path.join(config, 'sessions'));
    const live = path.join(config, 'sessions', file as string);
    const body = JSON.parse(fs.readFileSync(live, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(live, JSON.stringify({ ...body, startedAt: 1e300, updatedAt: 1e300, statusUpdatedAt: -1e300 }));
    for (const args of [
      ['list', '--json'],
      ['get', '1', '--json'],
      ['lists', '--json'],
      ['watch', '--json', '--until', 'all-completed', '--timeout', '1s'],
    ]) {
      const r = run(config, ['-l', SESSION, ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(args[0] === 'watch' ? 124 : 0);
      expect(r.stderr).not.toMatch(/Invalid time value|\n\s+at /);
    }
    const tasks = JSON.parse(run(config, ['-l', SESSION, 'list', '--json']).stdout) as Array<{ waiting?: Record<string, unknown> }>;
    expect(tasks[0]?.waiting).toMatchObject({ for: 'permission prompt', session: SESSION });
  });

  it('a live-session file whose cwd holds a NUL byte (no path can): every read goes on, the session still waiting', () => {
    const config = world('waiting');
    const [file] = fs.readdirSync(path.join(config, 'sessions'));
    const live = path.join(config, 'sessions', file as string);
    const body = JSON.parse(fs.readFileSync(live, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(live, JSON.stringify({ ...body, cwd: '/tmp/x\u0000y' }));
    // No transcript: the live-session file is all that says where the session works.
    fs.rmSync(path.join(config, 'projects'), { recursive: true });
    for (const args of [['list', '--json'], ['get', '1'], ['lists', '--json'], ['list', '--stalled', '--json'], ['log'], ['doctor']]) {
      const r = run(config, ['-l', SESSION, ...args]);
      expect(r.stderr, args.join(' ')).not.toMatch(/null bytes|unexpected|\n\s+at /);
      expect([0, 4], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
    }
    const tasks = JSON.parse(run(config, ['-l', SESSION, 'list', '--json']).stdout) as Array<{ waiting?: Record<string, unknown> }>;
    expect(tasks[0]?.waiting).toMatchObject({ for: 'permission prompt', session: SESSION });
  });

  it('watch piped, no --json: the note says who waits as it begins, the timeout says it again (a CI log says why it waited)', () => {
    const r = run(world('waiting'), ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '2s']);
    expect(r.code).toBe(124);
    expect(r.stderr).toContain('note: session proj-w1 (66666666) waits for a person (permission prompt): #1 waits on it');
    expect(r.stderr).toContain(
      'timed out after 2s before all-completed held, while session proj-w1 (66666666) waits for a person (permission prompt): #1 of list 66666666-6 waits on it',
    );
    // Idle, nothing waits: the timeout says nothing of a person.
    const idle = run(world('idle'), ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '2s', '--json']);
    expect(idle.code).toBe(124);
    expect(idle.stderr).not.toContain('waits for a person');
    expect(idle.stdout).not.toContain('"needs-you"');
    expect(jsonLines(idle.stdout).at(-1)).not.toHaveProperty('waiting');
  });

  it('watch --fail-if-stalled 3s: the wait is not stalled time; the clock starts again when it ends (answered, or refused with Esc)', async () => {
    const config = world('waiting');
    const w = startWatch(config, ['-l', SESSION, 'watch', '--json', '--fail-if-stalled', '3s', '--timeout', '20s']);
    await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    // Looked at while it waits (a task is due at once: unchanged for 3 h).
    await new Promise((r) => setTimeout(r, 2000));
    const answered = Date.now();
    restatus.get(config)?.('idle');
    const r = await w.exited;
    expect(r.code, r.stderr).toBe(7);
    expect(Date.now() - answered).toBeGreaterThanOrEqual(3000);
  });

  it('watch --json: a needs-you event when the session comes to a prompt and when it is answered', async () => {
    const config = world('idle');
    const w = startWatch(config, ['-l', SESSION, 'watch', '--json', '--timeout', '20s']);
    try {
      await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      restatus.get(config)?.('waiting');
      const began = await w.waitFor((e) => e.event === 'needs-you', 'needs-you');
      expect(began).toMatchObject({ waiting: { for: 'permission prompt', session: SESSION, ids: ['1'] } });
      restatus.get(config)?.('idle');
      await w.waitFor((e) => e.event === 'needs-you' && e.waiting === null, 'needs-you null');
    } finally {
      await w.stop();
    }
    expect(contractProblems('watch', (await w.exited).stdout)).toEqual([]);
  });

  it.skipIf(!tmuxAvailable())('the live view marks the task as list does, and names the session', async () => {
    const config = world('waiting');
    const pane = startInTmux(config, ['-l', SESSION, 'watch'], { width: 110, height: 20 });
    try {
      const screen = await pane.waitFor((s) => s.includes('waits on it'), 'the waiting line');
      expect(screen).toMatch(/▶ #1 {2}Task 1 waiting: permission prompt +@agent-1/);
      expect(screen).toContain('⚠ session proj-w1 (66666666) waits for a person (permission prompt): #1 waits on it');
      restatus.get(config)?.('idle');
      const after = await pane.waitFor((s) => !s.includes('waits on it'), 'the line gone once answered');
      expect(after).not.toContain('waiting: permission prompt');
    } finally {
      pane.kill();
    }
  });

  it('the board: the card is waiting (what for), not stalled', async () => {
    const config = world('waiting');
    const b = await startBoard(config);
    boards.push(b);
    const list = JSON.parse((await request(b.port, `/${b.token}/api/list?id=${SESSION}`)).body) as {
      facts: Record<string, { stalledMs?: number; waitingFor?: string | null }>;
    };
    expect(list.facts['1']).toMatchObject({ waitingFor: 'permission prompt' });
    expect(list.facts['1']).not.toHaveProperty('stalledMs');
    expect(list.facts['2']).not.toHaveProperty('waitingFor');
  });
});

describe('every task completed while the session waits for a person in its turn', () => {
  const done = () => [taskOf('1', { status: 'completed' })];
  it('the gate holds (answered, the turn goes on and may add tasks) and says why; notify does not tell the list done; idle, both pass', () => {
    const waiting = world('waiting', done());
    const gate = run(waiting, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '2s', '--json']);
    expect(gate.code, gate.stderr).toBe(124);
    expect(jsonLines(gate.stdout).find((e) => e.event === 'waiting')).toMatchObject({
      sessions: [{ session: SESSION, state: 'waiting' }],
    });
    expect(contractProblems('watch', gate.stdout)).toEqual([]);
    const piped = run(waiting, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '2s']);
    expect(piped.stderr).toContain('all-completed holds, but session 66666666 (pid');
    expect(piped.stderr).toContain('waits for a person in its turn on the list');
    // notify does not tell it done, but that it waits for a person.
    const out = path.join(waiting, 'sent.jsonl');
    const told = run(waiting, ['-l', SESSION, 'notify', '--once', '--on', 'list-completed,needs-you', '--to', `exec:cat >> '${out}'`], {
      env: { XDG_STATE_HOME: path.join(waiting, 'state') },
    });
    expect(told.code, told.stderr).toBe(0);
    const sent = fs.readFileSync(out, 'utf8');
    expect(sent).toContain('"event":"needs-you"');
    expect(sent).not.toContain('"event":"list-completed"');

    const idle = world('idle', done());
    expect(run(idle, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '5s']).code).toBe(0);
    const idleOut = path.join(idle, 'sent.jsonl');
    run(idle, ['-l', SESSION, 'notify', '--once', '--on', 'list-completed', '--to', `exec:cat >> '${idleOut}'`], {
      env: { XDG_STATE_HOME: path.join(idle, 'state') },
    });
    expect(fs.readFileSync(idleOut, 'utf8')).toContain('"event":"list-completed"');
  });

  it("a dialog of Claude Code's own (/config: waiting, dialog open) is shown between turns too: it holds no gate and is no needs-you", () => {
    const config = world('waiting', done(), 'dialog open');
    expect(run(config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '5s']).code).toBe(0);
    const out = path.join(config, 'sent.jsonl');
    run(config, ['-l', SESSION, 'notify', '--once', '--on', 'list-completed,needs-you', '--to', `exec:cat >> '${out}'`], {
      env: { XDG_STATE_HOME: path.join(config, 'state') },
    });
    const sent = fs.readFileSync(out, 'utf8');
    expect(sent).toContain('"event":"list-completed"');
    expect(sent).not.toContain('"event":"needs-you"');
  });
});
