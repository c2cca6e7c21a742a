/**
 * `tasks notify` and the things around an event that decide whether it is told: a list
 * finished while a session of it is still at work (the busy gate that `watch --until
 * all-completed` has), a sent state that cannot be kept, and a closed terminal (SIGHUP).
 * Through the built binary: a live session is a real process, and an exit status and a
 * signal are the process's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, run, tempConfig, writeTask } from '../helpers/cli.js';
import { listWith, notifyEnv, notifyHarness, taskOf, until } from '../helpers/notify.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const h = notifyHarness();
const agents: ChildProcess[] = [];
afterEach(async () => {
  await h.cleanup();
  for (const a of agents.splice(0)) a.kill('SIGKILL');
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What an exec: target wrote, one JSON document a line. */
function sentTo(file: string): Array<{ event: string; text: string }> {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { event: string; text: string });
}

describe('notify: a list whose every task is completed while a session of it is at work', () => {
  const SESSION = '77777777-7777-4777-8777-777777777777';

  /**
   * A session on its own list, #1 completed: a real process (the index checks it runs)
   * with a live-session file saying `status`, as Claude Code 2.1.328 writes it.
   */
  function session(status: string) {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    const dir = listWith(config, SESSION, [taskOf('1', { status: 'completed' })]);
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      running: true,
      calls: [{ name: 'TaskCreate', input: { subject: 'Task 1', description: '' }, result: { task: { id: '1' } }, at: Date.now() - 5000 }],
    });
    const agent = spawn('sleep', ['120']);
    agents.push(agent);
    const live = (s: string, statusAt?: number) =>
      writeLiveSession(config, { pid: agent.pid as number, sessionId: SESSION, cwd, status: s, statusAt });
    live(status);
    const out = path.join(config, 'sent.jsonl');
    return { config, dir, live, out, to: `exec:cat >> '${out}'; echo >> '${out}'` };
  }

  it('--once: nothing while the session is busy on a turn; told once it is idle', async () => {
    const s = session('busy');
    const once = () =>
      run(s.config, ['-l', SESSION, 'notify', '--once', '--on', 'list-completed', '--to', s.to], { env: notifyEnv(s.config) });
    const busy = once();
    expect(busy.code, busy.stderr).toBe(0);
    expect(busy.stdout).toBe('');
    expect(sentTo(s.out)).toEqual([]);
    s.live('idle');
    const idle = once();
    expect(idle.code, idle.stderr).toBe(0);
    expect(sentTo(s.out).map((e) => e.event)).toEqual(['list-completed']);
    // A cron job: a look during a later turn that changed no task, then one after it. The
    // list told finished is the same list: not told again. (Later than the claim: a look at
    // files read before a claim never clears it.)
    await sleep(1000);
    s.live('busy');
    expect(once().code).toBe(0);
    s.live('idle');
    expect(once().code).toBe(0);
    expect(sentTo(s.out)).toHaveLength(1);
  });

  it('--once: at its prompt while a command it ran in the background goes on ("shell"), whose end wakes the agent: held, for 10 minutes at most', () => {
    const s = session('shell');
    const once = () =>
      run(s.config, ['-l', SESSION, 'notify', '--once', '--on', 'list-completed', '--to', s.to], { env: notifyEnv(s.config) });
    // Claude Code 2.1.328 says "shell" while idle with a background command running, and
    // starts a turn by itself when it ends (the tests it ran may fail: more tasks).
    const held = once();
    expect(held.code, held.stderr).toBe(0);
    expect(sentTo(s.out)).toEqual([]);
    // A command that runs that long is a server left running, not work the agent waits for.
    s.live('shell', Date.now() - 11 * 60_000);
    const later = once();
    expect(later.code, later.stderr).toBe(0);
    expect(sentTo(s.out).map((e) => e.event)).toEqual(['list-completed']);
  });

  it('following: held while busy, told when the turn ends, and not again after a turn that changed no task', async () => {
    const s = session('busy');
    const p = h.notify(s.config, ['-l', SESSION, '--on', 'list-completed', '--to', s.to], { TASKS_NOTIFY_TICK_MS: '300' });
    await p.waitForErr('notify: following');
    await sleep(1500);
    expect(sentTo(s.out)).toEqual([]);
    // The agent plans its next step while busy: a new task, then done; still busy: nothing.
    writeTask(s.dir, taskOf('2', { status: 'completed' }));
    await sleep(1500);
    expect(sentTo(s.out)).toEqual([]);
    // Its turn ends: told, with both tasks, though no task file changed.
    s.live('idle');
    await until(() => sentTo(s.out).length === 1, 'list-completed once the session is idle', 15_000);
    expect(sentTo(s.out)[0]?.text).toMatch(/is completed \(2\)$/);
    // Another turn that changes no task's status (a description edited), then idle again:
    // the same finished list, not told again.
    s.live('busy');
    await sleep(500);
    writeTask(s.dir, taskOf('2', { status: 'completed', description: 'with notes' }));
    await sleep(1000);
    s.live('idle');
    await sleep(1500);
    expect(sentTo(s.out)).toHaveLength(1);
    expect((await p.stop()).code).toBe(0);
  });

  it('following: a finished list its session clears while its turn goes on is told once the turn ends', async () => {
    const s = session('busy');
    const p = h.notify(s.config, ['-l', SESSION, '--on', 'list-completed', '--to', s.to], { TASKS_NOTIFY_TICK_MS: '300' });
    await p.waitForErr('notify: following');
    await sleep(1000);
    // Claude Code's reset of a finished list, about 5 s after its last completion, the turn still going on.
    fs.writeFileSync(path.join(s.dir, '.highwatermark'), '1');
    fs.rmSync(path.join(s.dir, '1.json'));
    await sleep(1000);
    expect(sentTo(s.out)).toEqual([]);
    s.live('idle');
    await until(() => sentTo(s.out).length === 1, 'list-completed once the session is idle', 15_000);
    expect(sentTo(s.out)[0]?.text).toMatch(/is completed \(1\)$/);
    expect((await p.stop()).code).toBe(0);
  });

  it('following: a list emptied with work open in it is not told finished', async () => {
    const s = session('busy');
    writeTask(s.dir, taskOf('2'));
    const p = h.notify(s.config, ['-l', SESSION, '--on', 'list-completed', '--to', s.to], { TASKS_NOTIFY_TICK_MS: '300' });
    await p.waitForErr('notify: following');
    await sleep(500);
    fs.writeFileSync(path.join(s.dir, '.highwatermark'), '2');
    for (const f of ['1.json', '2.json']) fs.rmSync(path.join(s.dir, f));
    await sleep(800);
    s.live('idle');
    await sleep(2000);
    expect(sentTo(s.out)).toEqual([]);
    expect((await p.stop()).code).toBe(0);
  });

  it('following: a list emptied with work open, its open task seen to go first, is not told finished', async () => {
    const s = session('busy');
    writeTask(s.dir, taskOf('2'));
    const p = h.notify(s.config, ['-l', SESSION, '--on', 'list-completed', '--to', s.to], { TASKS_NOTIFY_TICK_MS: '300' });
    await p.waitForErr('notify: following');
    await sleep(500);
    fs.writeFileSync(path.join(s.dir, '.highwatermark'), '2');
    // The files go one by one: the open one is seen gone before the completed one.
    fs.rmSync(path.join(s.dir, '2.json'));
    await sleep(1000);
    fs.rmSync(path.join(s.dir, '1.json'));
    await sleep(1000);
    s.live('idle');
    await sleep(2000);
    expect(sentTo(s.out)).toEqual([]);
    expect((await p.stop()).code).toBe(0);
  });
});

describe('notify: a sent state that cannot be kept', () => {
  const line = /^error: notify cannot keep what it sent in \S+ \(.+\): set XDG_STATE_HOME to a folder you can write$/;

  function completed() {
    const config = tempConfig();
    const dir = listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const out = path.join(config, 'sent.jsonl');
    return { config, dir, out, to: `exec:cat >> '${out}'; echo >> '${out}'` };
  }

  it('--once and following: exit 1 (io) at the start, one line saying where and how to choose, nothing sent', async () => {
    const c = completed();
    for (const once of [true, false]) {
      for (const env of [{ XDG_STATE_HOME: '/proc/nope' }, { XDG_STATE_HOME: path.join(c.dir, '1.json') }]) {
        const r = run(c.config, ['-l', 'app', 'notify', ...(once ? ['--once'] : []), '--to', c.to], { env, timeoutMs: 20_000 });
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr.trim().split('\n'), r.stderr).toEqual([expect.stringMatching(line)]);
        expect(r.stdout).toBe('');
      }
      const json = run(c.config, ['-l', 'app', 'notify', ...(once ? ['--once'] : []), '--json', '--to', c.to], {
        env: { XDG_STATE_HOME: '/proc/nope' },
      });
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'io', message: expect.stringContaining('/proc/nope/tasks') } });
    }
    expect(sentTo(c.out)).toEqual([]);
  });

  it('no state folder at all (no XDG_STATE_HOME, no HOME): exit 1, nothing sent', () => {
    const c = completed();
    const r = run(c.config, ['-l', 'app', 'notify', '--once', '--to', c.to], { env: { XDG_STATE_HOME: undefined, HOME: undefined } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'error: notify has no folder to keep what it sent (neither XDG_STATE_HOME nor HOME is set): set XDG_STATE_HOME to a folder you can write',
    );
    expect(sentTo(c.out)).toEqual([]);
  });

  it('lost while following: notify ends with the error instead of telling nobody; nothing is sent unclaimed', async () => {
    const c = completed();
    // Nothing in progress: nothing to look at again until a change (no tick races the swap below).
    writeTask(c.dir, taskOf('2'));
    const state = path.join(c.config, 'state');
    const p = h.notify(c.config, ['-l', 'app', '--on', 'list-completed', '--to', c.to], { TASKS_NOTIFY_TICK_MS: '300' });
    await p.waitForErr('notify: following');
    await sleep(500);
    // The state folder goes, and a file stands where it was: no folder can be made there.
    fs.rmSync(path.join(state, 'tasks'), { recursive: true });
    fs.writeFileSync(path.join(state, 'tasks'), '');
    writeTask(c.dir, taskOf('2', { status: 'completed' }));
    await until(() => p.child.exitCode !== null, `notify to end; stderr: ${p.stderr()}`, 15_000);
    expect(p.child.exitCode).toBe(1);
    const lines = p.stderr().trim().split('\n');
    expect(lines.at(-1)).toMatch(line);
    expect(lines.filter((l) => l.startsWith('warning'))).toEqual([]);
    expect(sentTo(c.out)).toEqual([]);
  });
});

describe('notify: SIGHUP (the terminal closed)', () => {
  it('ends cleanly as SIGTERM does: exit 0, what was sent kept, no lock left; a restart repeats nothing', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const out = path.join(config, 'sent.jsonl');
    const to = `exec:cat >> '${out}'; echo >> '${out}'`;
    const p = h.notify(config, ['-l', 'app', '--to', to]);
    await until(() => p.stdout().includes('sent  list-completed'), 'the first send');
    p.child.kill('SIGHUP');
    await until(() => p.child.exitCode !== null || p.child.signalCode !== null, 'notify to end');
    expect(p.child.signalCode, p.stderr()).toBeNull();
    expect(p.child.exitCode, p.stderr()).toBe(0);
    const stateDir = path.join(config, 'state', 'tasks');
    expect(fs.readdirSync(stateDir).filter((f) => f.endsWith('.lock'))).toEqual([]);
    const again = run(config, ['-l', 'app', 'notify', '--once', '--to', to], { env: notifyEnv(config) });
    expect(again.code, again.stderr).toBe(0);
    expect(sentTo(out).map((e) => e.event)).toEqual(['list-completed']);
  });
});

describe("notify: stdout's reader goes away (tasks notify ... | head -1)", () => {
  it('ends quietly (exit 0) as SIGTERM ends it: what it had claimed is sent, so a restart does not leave it untold', async () => {
    const config = tempConfig();
    for (const list of ['a', 'b', 'c', 'd']) listWith(config, list, [taskOf('1', { status: 'completed' })]);
    const out = path.join(config, 'sent.jsonl');
    // A slow target: the four events are claimed at once and wait in its queue when the reader goes.
    const to = `exec:sleep 0.3; cat >> '${out}'; echo >> '${out}'`;
    const pipeline = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" notify --all --to "$TO"; echo "notify $?" >&2`], {
      env: { ...baseEnv(config, notifyEnv(config)), TO: to },
      cwd: config,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agents.push(pipeline);
    let stderr = '';
    pipeline.stderr?.on('data', (d) => (stderr += d));
    // The reader takes the first line and goes, as head -1 does.
    await new Promise<void>((resolve) => pipeline.stdout?.once('data', () => resolve()));
    pipeline.stdout?.destroy();
    await until(() => /notify \d+/.test(stderr), 'notify to end', 30_000);
    expect(stderr, stderr).toContain('notify 0');
    const again = run(config, ['notify', '--all', '--once', '--to', to], { env: notifyEnv(config) });
    expect(again.code, again.stderr).toBe(0);
    expect(
      sentTo(out)
        .map((e) => e.text)
        .sort(),
    ).toEqual(['a', 'b', 'c', 'd'].map((l) => `every task of list ${l} is completed (1)`));
  });
});
