/**
 * `tasks notify` under load and faults, through the built binary against loopback
 * receivers: two notify processes sharing one sent state, targets that fail or hang, and
 * an agent's session process that dies holding work.
 * Slow: each case waits out retries, timeouts or several rounds of changes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAsync, tempConfig, writeTask } from '../helpers/cli.js';
import { listWith, notifyEnv, notifyHarness, posted, taskOf, until } from '../helpers/notify.js';
import { writeLiveSession } from '../helpers/session-files.mjs';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

const h = notifyHarness();
afterEach(h.cleanup);
const { webhook, notify } = h;

describe('notify: two processes, one sent state', () => {
  it('two notify processes with the same target send each event once between them', async () => {
    const config = tempConfig();
    const dir = listWith(config, 'app', [taskOf('1', { status: 'in_progress' }), taskOf('2', { status: 'in_progress' })]);
    const hook = await webhook();
    const args = ['-l', 'app', '--to', `webhook:${hook.url}`, '--on', 'list-completed'];
    const a = notify(config, args);
    const b = notify(config, args);
    await Promise.all([a.waitForErr('notify: following'), b.waitForErr('notify: following')]);
    for (let round = 0; round < 3; round++) {
      writeTask(dir, taskOf('1', { status: 'completed' }));
      writeTask(dir, taskOf('2', { status: 'completed' }));
      await until(() => hook.got.length === round + 1, `list-completed number ${round + 1}`);
      await new Promise((r) => setTimeout(r, 1200));
      expect(hook.got).toHaveLength(round + 1);
      // Cleared again before the next round.
      writeTask(dir, taskOf('2', { status: 'in_progress' }));
      await new Promise((r) => setTimeout(r, 1200));
    }
    await Promise.all([a.stop(), b.stop()]);
    expect(hook.got).toHaveLength(3);
    // Both took part: the sends are split by who claimed first, and each says what it sent.
    const lines = (a.stdout() + b.stdout()).split('\n').filter((l) => l.includes('sent  list-completed'));
    expect(lines).toHaveLength(3);
  });
});

describe('notify: two processes started together', () => {
  it('on lists already needing a person, five processes send each event once between them', async () => {
    const config = tempConfig();
    for (const list of ['a', 'b', 'c']) listWith(config, list, [taskOf('1', { status: 'completed' })]);
    const hook = await webhook();
    const all = Array.from({ length: 5 }, () => notify(config, ['--all', '--to', `webhook:${hook.url}`, '--on', 'list-completed']));
    await Promise.all(all.map((p) => p.waitForErr('notify: following')));
    await until(() => hook.got.length >= 3, 'three list-completed');
    await new Promise((r) => setTimeout(r, 2500));
    await Promise.all(all.map((p) => p.stop()));
    expect(hook.got.map((g) => (JSON.parse(g.body) as { list: string }).list).sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('notify: targets that fail', () => {
  it('a down webhook is retried with backoff and reported on stderr; a slow one holds up no other target', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const flaky = await webhook((n) => ({ status: n <= 2 ? 503 : 200 }));
    const slow = await webhook(() => ({ status: 200, delayMs: 30_000 }));
    const out = path.join(config, 'exec-out.jsonl');
    const started = Date.now();
    const r = await runAsync(
      config,
      [
        '-l',
        'app',
        'notify',
        '--once',
        '--to',
        `webhook:${slow.url}/slow`,
        '--to',
        `webhook:${flaky.url}/flaky`,
        '--to',
        `exec:cat >> ${out}`,
      ],
      { env: notifyEnv(config, { TASKS_NOTIFY_TIMEOUT_MS: '1500' }), timeoutMs: 60_000 },
    );
    // The slow one times out on every try: notify says so and exits 1; it never crashed.
    expect(r.code, r.stderr).toBe(1);
    expect(flaky.got).toHaveLength(3);
    // Bounded backoff: 200 ms, then 400 ms, between the tries.
    const gaps = [(flaky.got[1]?.at ?? 0) - (flaky.got[0]?.at ?? 0), (flaky.got[2]?.at ?? 0) - (flaky.got[1]?.at ?? 0)];
    expect(gaps[0]).toBeGreaterThanOrEqual(190);
    expect(gaps[1]).toBeGreaterThanOrEqual(390);
    expect(r.stderr).toMatch(
      /warning: webhook:http:\/\/127\.0\.0\.1:\d+\/…: list-completed of list app not sent \(http:\/\/127\.0\.0\.1:\d+\/… answered HTTP 503\); trying again in 0\.2s \(try 2 of 5\)/,
    );
    expect(r.stderr).toMatch(/could not be sent after 5 tries: .*no answer within 1\.5s/);
    // The exec target had its message long before the slow webhook gave up (5 tries of 1.5 s and waits).
    const execAt = fs.statSync(out).mtimeMs;
    expect(execAt - started).toBeLessThan((flaky.got[2]?.at ?? 0) - started + 1);
    expect(slow.got.length).toBe(5);
    expect(r.stdout.split('\n').filter((l) => l.includes('  sent  '))).toHaveLength(2);
  });
});

describe('notify: an agent that dies holding work', () => {
  it('agent-died names the owner, the tasks, the session and release --gone, once the session process is gone', async () => {
    const config = tempConfig();
    const session = 'c1a55e00-1111-4111-8111-00000000d1ed';
    const home = path.join(config, 'home');
    const cwd = path.join(home, 'web');
    fs.mkdirSync(cwd, { recursive: true });
    const start = Date.now() - 20 * 60_000;
    writeTaskTranscript(config, {
      sessionId: session,
      cwd,
      start,
      calls: [{ create: { id: '1', subject: 'Fix the login' } }, { update: { taskId: '1', status: 'in_progress', owner: 'worker-1' } }],
      ended: false,
    });
    listWith(config, session, [taskOf('1', { subject: 'Fix the login', status: 'in_progress', owner: 'worker-1' })]);
    // The session's process: alive, then killed as a crash would end it.
    const agent = spawn('sleep', ['600'], { stdio: 'ignore' });
    h.later(() => agent.kill('SIGKILL'));
    writeLiveSession(config, { pid: agent.pid as number, sessionId: session, cwd, start });
    const hook = await webhook();
    const p = notify(config, ['-l', session, '--to', `webhook:${hook.url}`, '--on', 'agent-died'], { HOME: home });
    await p.waitForErr('notify: following');
    await new Promise((r) => setTimeout(r, 2500));
    expect(hook.got, 'nothing while the session lives').toEqual([]);
    const killedAt = Date.now();
    agent.kill('SIGKILL');
    await until(() => hook.got.length === 1, 'agent-died', 15_000);
    expect((hook.got[0]?.at ?? 0) - killedAt).toBeLessThan(10_000);
    const [doc] = posted(hook.got);
    expect(doc).toMatchObject({
      event: 'agent-died',
      list: session,
      shortId: 'c1a55e00',
      project: '~/web',
      session,
      tasks: [{ id: '1', subject: 'Fix the login', status: 'in_progress', owner: 'worker-1' }],
      action: 'tasks -l c1a55e00 release --gone',
    });
    expect(doc?.text).toBe('worker-1 holds #1 in list c1a55e00 (~/web), but session c1a55e00 crashed');
    await new Promise((r) => setTimeout(r, 2500));
    expect(hook.got).toHaveLength(1);
  });
});
