/**
 * A fan-out notices a death in seconds: three sessions share a list through
 * CLAUDE_CODE_TASK_LIST_ID, each holding a task in progress; when one's process dies,
 * `watch --until` ends within seconds with exit 6, naming the session and its tasks,
 * while the other two still run. A session that dies holding nothing is only noted;
 * --allow-deaths waits on as before. (The real agents: test/interop/fan-out.test.ts.) The slow tier: each case waits
 * for the watch to see the sessions, then for a death.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, stderrLines, tempConfig, writeTask } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const SESSIONS = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333'];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/**
 * The fan-out: three agents (processes named claude, the list in their environment, each
 * with its live-session file) on list "shared"; agent i made task i+1 and started it
 * (`held`: which agents still hold theirs; the others completed it).
 */
function fanOut(config: string, held: readonly boolean[] = [true, true, true]) {
  const dir = path.join(config, 'tasks', 'shared');
  const bin = path.join(config, 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync(fs.realpathSync('/bin/sleep'), path.join(bin, 'claude'));
  const cwd = path.join(config, 'home', 'proj');
  fs.mkdirSync(cwd, { recursive: true });
  const t0 = Date.now() - 60_000;
  const agents = SESSIONS.map((sessionId, i) => {
    const id = String(i + 1);
    const at = t0 + i * 1000;
    const status = held[i] ? 'in_progress' : 'completed';
    writeTask(dir, { id, subject: `Part ${id}`, description: '', status, owner: `worker-${id}`, blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(dir, `${id}.json`), (at + 5005) / 1000, (at + 5005) / 1000);
    writeTaskTranscript(config, {
      sessionId,
      cwd,
      running: true,
      calls: [
        { name: 'TaskCreate', input: { subject: `Part ${id}`, description: '' }, result: { task: { id, subject: `Part ${id}` } }, at },
        {
          name: 'TaskUpdate',
          input: { taskId: id, status, owner: `worker-${id}` },
          result: { success: true, taskId: id, updatedFields: ['status', 'owner'] },
          at: at + 5000,
        },
      ],
    });
    const agent = spawn(path.join(bin, 'claude'), ['120'], {
      env: { ...process.env, CLAUDE_CODE_TASK_LIST_ID: 'shared', CLAUDE_CONFIG_DIR: config },
    });
    children.push(agent);
    writeLiveSession(config, { pid: agent.pid as number, sessionId, cwd, status: 'busy', name: `proj-${i}` });
    return agent;
  });
  fs.writeFileSync(path.join(dir, '.highwatermark'), '3');
  return { agents, dir };
}

function watch(config: string, args: string[]) {
  const child = spawn(process.execPath, [BIN, '-l', 'shared', 'watch', ...args], { env: baseEnv(config), cwd: config });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise<{ code: number; at: number }>((resolve) =>
    child.on('close', (c) => resolve({ code: c ?? -1, at: Date.now() })),
  );
  return { child, closed, out: () => stdout, err: () => stderr };
}

async function waitFor(pred: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !pred(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a session that dies holding work ends watch --until within seconds', () => {
  it('one of three agents killed while it holds #2: exit 6, naming it and #2, the other two still running', async () => {
    const config = tempConfig();
    const { agents } = fanOut(config);
    const w = watch(config, ['--until', 'all-completed', '--timeout', '60s', '--json']);
    await waitFor(() => w.out().includes('"snapshot"'), 15_000);
    // The watch has seen the sessions alive (it looks every second).
    await new Promise((r) => setTimeout(r, 1500));
    const killed = Date.now();
    agents[1]?.kill('SIGKILL');
    const { code, at } = await w.closed;
    expect(code, w.err()).toBe(6);
    console.log(`death noticed ${at - killed} ms after the SIGKILL`);
    expect(at - killed).toBeLessThan(5_000);
    expect(agents[0]?.exitCode).toBe(null);
    expect(agents[2]?.exitCode).toBe(null);
    const end = parseNdjson(w.out()).at(-1);
    expect(end).toMatchObject({
      event: 'end',
      reason: 'session-died',
      met: false,
      died: [{ sessionId: SESSIONS[1], state: 'crashed', pid: agents[1]?.pid, tasks: ['2'] }],
      counts: { total: 3, inProgress: 3 },
    });
    expect(stderrLines(w.err()).find((l) => l.error)).toMatchObject({
      error: {
        code: 'run_ended',
        reason: 'session-died',
        message: expect.stringMatching(/^session 22222222 \(pid \d+\) crashed holding #2 "Part 2" in progress: its work will not finish/),
        died: [{ sessionId: SESSIONS[1], tasks: ['2'] }],
        // Pasted, it acts on the list watched, not on whatever the folder picks.
        hint: 'tasks -l shared release 2 gives its tasks back; --allow-deaths waits on',
      },
    });
  }, 60_000);

  it('an agent that ends (its live-session file removed, its process gone) holding #3: state ended, exit 6', async () => {
    const config = tempConfig();
    const { agents } = fanOut(config);
    const w = watch(config, ['--until', 'all-completed', '--timeout', '60s', '--json']);
    await waitFor(() => w.out().includes('"snapshot"'), 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    fs.rmSync(path.join(config, 'sessions', `${agents[2]?.pid}.json`));
    agents[2]?.kill('SIGTERM');
    const { code } = await w.closed;
    expect(code, w.err()).toBe(6);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({
      reason: 'session-died',
      died: [{ sessionId: SESSIONS[2], state: 'ended', tasks: ['3'] }],
    });
  }, 60_000);

  /**
   * A fourth agent on the list that the watch never sees alive: it starts #4 and its run
   * is over before the watch's next look (a short headless run), leaving its transcript
   * (`ended`: with the end Claude Code records) and, if it crashed, its live-session file.
   */
  function quickAgent(config: string, dir: string, opts: { ended: boolean; pid?: number }) {
    const sessionId = '44444444-4444-4444-8444-444444444444';
    const at = Date.now() - 200;
    writeTaskTranscript(config, {
      sessionId,
      cwd: path.join(config, 'home', 'proj'),
      running: !opts.ended,
      calls: [
        {
          name: 'TaskUpdate',
          input: { taskId: '4', status: 'in_progress', owner: 'worker-4' },
          result: { success: true, taskId: '4', updatedFields: ['status', 'owner'] },
          at,
        },
      ],
    });
    writeTask(dir, { id: '4', subject: 'Part 4', description: '', status: 'in_progress', owner: 'worker-4', blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(dir, '4.json'), (at + 5) / 1000, (at + 5) / 1000);
    if (opts.pid !== undefined)
      writeLiveSession(config, { pid: opts.pid, sessionId, cwd: path.join(config, 'home', 'proj'), procStartTicks: '1' });
    return sessionId;
  }

  function withFourth(config: string) {
    const { agents, dir } = fanOut(config);
    writeTask(dir, { id: '4', subject: 'Part 4', description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.writeFileSync(path.join(dir, '.highwatermark'), '4');
    return { agents, dir };
  }

  it('an agent never seen alive, whose run ended holding #4 between two looks: state ended, exit 6 within 5 s', async () => {
    const config = tempConfig();
    const { agents, dir } = withFourth(config);
    const w = watch(config, ['--until', 'all-completed', '--timeout', '60s', '--json']);
    await waitFor(() => w.out().includes('"snapshot"'), 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    const ended = Date.now();
    const sessionId = quickAgent(config, dir, { ended: true });
    const { code, at } = await w.closed;
    expect(code, w.err()).toBe(6);
    console.log(`death noticed ${at - ended} ms after the run ended`);
    expect(at - ended).toBeLessThan(5_000);
    expect(agents.every((a) => a.exitCode === null)).toBe(true);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({
      reason: 'session-died',
      died: [{ sessionId, state: 'ended', tasks: ['4'] }],
    });
  }, 60_000);

  it('an agent never seen alive, killed holding #4 between two looks (its live-session file left): state crashed, exit 6', async () => {
    const config = tempConfig();
    const { dir } = withFourth(config);
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    const w = watch(config, ['--until', 'all-completed', '--timeout', '60s', '--json']);
    await waitFor(() => w.out().includes('"snapshot"'), 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    const killed = Date.now();
    const sessionId = quickAgent(config, dir, { ended: false, pid: gone.pid as number });
    const { code, at } = await w.closed;
    expect(code, w.err()).toBe(6);
    expect(at - killed).toBeLessThan(5_000);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({ died: [{ sessionId, state: 'crashed', tasks: ['4'] }] });
  }, 60_000);

  it('an agent first seen by its transcript alone, still at work (no end recorded): not a death', async () => {
    const config = tempConfig();
    const { dir } = withFourth(config);
    const w = watch(config, ['--until', 'all-completed', '--timeout', '8s', '--json']);
    await waitFor(() => w.out().includes('"snapshot"'), 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    quickAgent(config, dir, { ended: false });
    const { code } = await w.closed;
    expect(code, w.err()).toBe(124);
  }, 60_000);

  it('a run that ended holding #4 before the watch began is not news: the watch waits on', async () => {
    const config = tempConfig();
    const { dir } = withFourth(config);
    quickAgent(config, dir, { ended: true });
    await new Promise((r) => setTimeout(r, 1200));
    const w = watch(config, ['--until', 'all-completed', '--timeout', '6s', '--json']);
    const { code } = await w.closed;
    expect(code, w.err()).toBe(124);
  }, 60_000);

  it('an agent that dies holding nothing (its task completed) is only noted; the watch goes on', async () => {
    const config = tempConfig();
    const { agents } = fanOut(config, [true, false, true]);
    // Long enough for the death to be looked at again for a few seconds before it is noted as holding nothing.
    const w = watch(config, ['--until', 'all-completed', '--timeout', '10s', '--json']);
    await waitFor(() => w.out().includes('"snapshot"'), 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    agents[1]?.kill('SIGKILL');
    const { code } = await w.closed;
    expect(code).toBe(124);
    expect(stderrLines(w.err())).toContainEqual({
      note: expect.objectContaining({
        code: 'session_died',
        sessionId: SESSIONS[1],
        message: expect.stringMatching(/held no task in progress/),
      }),
    });
  }, 60_000);

  it('with no condition: a death holding work is noted and the watch goes on; one holding nothing is no news', async () => {
    const config = tempConfig();
    const { agents } = fanOut(config, [true, false, true]);
    const w = watch(config, ['--json', '--timeout', '10s']);
    await waitFor(() => w.out().includes('"snapshot"'), 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    agents[1]?.kill('SIGKILL');
    agents[2]?.kill('SIGKILL');
    const { code } = await w.closed;
    // Its deadline is a normal end.
    expect(code, w.err()).toBe(0);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({ event: 'end', reason: 'timeout' });
    expect(stderrLines(w.err()).filter((l) => l.note?.code === 'session_died')).toMatchObject([
      { note: { sessionId: SESSIONS[2], state: 'crashed', pid: agents[2]?.pid, tasks: ['3'] } },
    ]);
  }, 60_000);

  it('--allow-deaths: the old behaviour, waiting while other sessions live', async () => {
    const config = tempConfig();
    const { agents } = fanOut(config);
    const w = watch(config, ['--until', 'all-completed', '--timeout', '6s', '--allow-deaths', '--json']);
    await waitFor(() => w.out().includes('"snapshot"'), 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    agents[1]?.kill('SIGKILL');
    const { code } = await w.closed;
    expect(code).toBe(124);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({ reason: 'timeout' });
    // The death is still said, once, in the note a death holding nothing gets.
    expect(stderrLines(w.err()).filter((l) => l.note?.code === 'session_died')).toMatchObject([
      { note: { sessionId: SESSIONS[1], state: 'crashed', tasks: ['2'] } },
    ]);
  }, 60_000);
});
