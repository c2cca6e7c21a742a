/**
 * `watch --until all-completed` (and `empty`) as a CI gate while an agent still works on
 * the list: an agent that plans a step at a time has every task so far completed between
 * its steps, and one that has just started has made none. The gate must not pass then; it
 * passes once the agent is idle or has ended with the work done, and fails (exit 6) when
 * it ends with work left. The agent is a real process (test/helpers/step-agent.mjs) that
 * writes its live-session file and its tasks as Claude Code does, a step at a time, each
 * step let go by the test.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, run, tempConfig, writeTask } from '../helpers/cli.js';
import type { StreamEvent } from '../helpers/replay.js';
import { stepAgents, waitForFile, waitForProcess } from '../helpers/step-agents.js';
import { startWatch, type WatchProcess } from '../helpers/watch.js';

const task = (id: string, status: string) => ({ id, subject: `step ${id}`, description: '', status, blocks: [], blockedBy: [] });

const agents = stepAgents();
afterEach(agents.killAll);
const startAgent = agents.start;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The watch has not ended, and has said nothing of an end, after `ms`. */
async function stillWaiting(w: WatchProcess, ms: number): Promise<void> {
  const ended = await Promise.race([w.exited.then(() => true), sleep(ms).then(() => false)]);
  expect(ended, `the watch ended early: ${w.stderr()}`).toBe(false);
  expect(w.events().some((e) => e.event === 'end')).toBe(false);
}

function seedCi(config: string): string {
  const dir = path.join(config, 'tasks', 'ci');
  writeTask(dir, task('1', 'completed'));
  fs.writeFileSync(path.join(dir, '.highwatermark'), '1');
  return dir;
}

const isWaiting = (e: StreamEvent) => e.event === 'waiting';

describe('watch --until all-completed waits while an agent of the list is at work', () => {
  it('a step at a time on a named list: 1/1 done while it is busy is no pass; it passes once the agent is idle', async () => {
    const config = tempConfig();
    const dir = seedCi(config);
    const agent = startAgent(
      config,
      [
        { status: 'busy' },
        { until: 'plan' },
        { task: task('2', 'pending') },
        { until: 'do' },
        { task: task('2', 'completed') },
        { until: 'idle' },
        { status: 'idle' },
        { until: 'end' },
      ],
      { asClaude: true },
    );
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    const w = startWatch(config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--json']);
    const waiting = await w.waitFor(isWaiting, 'the waiting event');
    expect(waiting).toMatchObject({
      until: 'all-completed',
      sessions: [{ session: agent.sessionId, pid: agent.child.pid, state: 'busy' }],
    });
    // The note is on stderr, whose pipe can lag stdout's.
    await expect
      .poll(() => w.stderr(), { timeout: 5_000 })
      .toContain(`all-completed holds, but session ${agent.sessionId.slice(0, 8)} (pid ${agent.child.pid}) is busy on the list`);
    await stillWaiting(w, 1500);

    agent.go('plan');
    await w.waitFor((e) => e.event === 'created' && e.task?.id === '2', 'task #2 planned');
    agent.go('do');
    await w.waitFor((e) => e.event === 'updated' && e.task?.id === '2', 'task #2 completed');
    // Every task is completed again, and the agent still busy: no pass.
    await stillWaiting(w, 2500);

    agent.go('idle');
    const r = await w.exited;
    expect(r.code, r.stderr).toBe(0);
    expect(w.events().at(-1)).toMatchObject({ event: 'end', reason: 'condition-met', met: true, counts: { total: 2, completed: 2 } });
    expect(fs.existsSync(path.join(dir, '2.json'))).toBe(true);
    agent.go('end');
    await agent.exited;
  });

  it("on its own session's list, an agent that ends with the work done: the gate passes then, with the agent's last task", async () => {
    const config = tempConfig();
    const sessionId = randomUUID();
    const dir = path.join(config, 'tasks', sessionId);
    writeTask(dir, task('1', 'completed'));
    const agent = startAgent(config, [{ status: 'busy' }, { until: 'last' }, { task: task('2', 'completed') }], { sessionId });
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    const w = startWatch(config, ['-l', sessionId, 'watch', '--until', 'all-completed', '--json']);
    await w.waitFor(isWaiting, 'the waiting event');
    await stillWaiting(w, 1500);
    agent.go('last');
    const r = await w.exited;
    expect(r.code, r.stderr).toBe(0);
    // Its last write came just before it ended: the pass is judged on the list as it left it.
    expect(w.events().at(-1)).toMatchObject({ reason: 'condition-met', met: true, counts: { total: 2, completed: 2 } });
  });

  it('an agent started but not yet on its first turn (no live-session file): waited for as starting', async () => {
    const config = tempConfig();
    seedCi(config);
    const agent = startAgent(config, [{ until: 'start' }, { status: 'busy' }, { task: task('2', 'completed') }, { wait: 300 }], {
      asClaude: true,
    });
    await waitForProcess(agent.child.pid as number);
    const w = startWatch(config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--json']);
    const waiting = await w.waitFor(isWaiting, 'the waiting event');
    expect(waiting).toMatchObject({ sessions: [{ session: null, pid: agent.child.pid, state: 'starting' }] });
    await stillWaiting(w, 1500);
    agent.go('start');
    const r = await w.exited;
    expect(r.code, r.stderr).toBe(0);
    expect(w.events().at(-1)).toMatchObject({ reason: 'condition-met', counts: { total: 2, completed: 2 } });
  });

  it('an agent that ends holding work: exit 6, never a pass', async () => {
    const config = tempConfig();
    seedCi(config);
    const agent = startAgent(config, [{ status: 'busy' }, { until: 'quit' }, { task: task('2', 'in_progress') }], { asClaude: true });
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    const w = startWatch(config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--json']);
    await w.waitFor(isWaiting, 'the waiting event');
    agent.go('quit');
    const r = await w.exited;
    expect(r.code, r.stderr).toBe(6);
    expect(w.events().at(-1)).toMatchObject({ event: 'end', met: false, counts: { total: 2, inProgress: 1 } });
  });

  it('--until empty on a list an agent has not written to yet: no pass while it is busy', async () => {
    const config = tempConfig();
    const agent = startAgent(config, [{ status: 'busy' }, { until: 'first' }, { task: task('1', 'pending') }], { asClaude: true });
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    const w = startWatch(config, ['-l', 'ci', 'watch', '--until', 'empty', '--json']);
    await w.waitFor(isWaiting, 'the waiting event');
    await stillWaiting(w, 1500);
    agent.go('first');
    const r = await w.exited;
    expect(r.code, r.stderr).toBe(6);
    expect(w.events().at(-1)).toMatchObject({ reason: 'session-ended', met: false, counts: { total: 1, pending: 1 } });
  });

  it('ready and task:<id> speak of what is there now: met at once, busy agent or not', async () => {
    const config = tempConfig();
    seedCi(config);
    writeTask(path.join(config, 'tasks', 'ci'), task('2', 'pending'));
    const agent = startAgent(config, [{ status: 'busy' }, { until: 'end' }], { asClaude: true });
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    for (const until of ['ready', 'task:1:completed']) {
      const w = startWatch(config, ['-l', 'ci', 'watch', '--until', until, '--json']);
      const r = await w.exited;
      expect(r.code, r.stderr).toBe(0);
      expect(w.events().some(isWaiting)).toBe(false);
    }
    agent.go('end');
  });

  it("a watch run from the busy agent's own shell does not wait for that agent", async () => {
    const config = tempConfig();
    seedCi(config);
    const out = path.join(config, 'own-watch.json');
    const agent = startAgent(
      config,
      [{ status: 'busy' }, { exec: { args: [BIN, '-l', 'ci', 'watch', '--until', 'all-completed', '--json', '--timeout', '20s'], out } }],
      { asClaude: true },
    );
    await agent.exited;
    const r = JSON.parse(fs.readFileSync(out, 'utf8')) as { code: number; stdout: string; stderr: string };
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('"waiting"');
    expect(r.stdout).toContain('"reason":"condition-met"');
  });

  it("left running in the background from the agent's shell, waits for that agent at its later turns; passes once it is idle", async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'ci');
    writeTask(dir, task('1', 'pending'));
    fs.writeFileSync(path.join(dir, '.highwatermark'), '1');
    const log = path.join(config, 'watch.log');
    const agent = startAgent(
      config,
      [
        { status: 'busy' },
        // The agent's turn starts the gate in the background (a shell command left running), and ends.
        { spawn: { args: [BIN, '-l', 'ci', 'watch', '--until', 'all-completed', '--json', '--timeout', '60s'], env: {}, log } },
        { until: 'started' },
        // At its prompt with a command in the background (the watch itself), as Claude Code says it.
        { status: 'shell' },
        // Its next turn works a step at a time.
        { until: 'work' },
        { status: 'busy' },
        { task: task('1', 'completed') },
        { until: 'next' },
        { task: task('2', 'pending') },
        { task: task('2', 'completed') },
        { status: 'shell' },
        { until: 'end' },
      ],
      { asClaude: true },
    );
    const watchPid = () => Number(fs.readFileSync(`${log}.pid`, 'utf8'));
    const running = () => {
      try {
        process.kill(watchPid(), 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await waitForFile(`${log}.pid`);
      await waitForFile(log);
      agent.go('started');
      await sleep(2000);
      agent.go('work');
      const first = path.join(dir, '1.json');
      while (JSON.parse(fs.readFileSync(first, 'utf8')).status !== 'completed') await sleep(50);
      // Every task so far completed between the agent's steps, the agent busy: the gate holds.
      await sleep(2500);
      expect(running(), fs.readFileSync(log, 'utf8')).toBe(true);
      agent.go('next');
      const until = Date.now() + 15_000;
      while (running() && Date.now() < until) await sleep(100);
      expect(running()).toBe(false);
      const out = fs.readFileSync(log, 'utf8');
      expect(out).toContain('"reason":"condition-met"');
      const end = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { event: string; tasks?: Array<{ id: string; status: string }> })
        .find((e) => e.event === 'end');
      expect(
        end?.tasks?.map((t) => `${t.id}:${t.status}`),
        out,
      ).toEqual(['1:completed', '2:completed']);
    } finally {
      if (running()) process.kill(watchPid(), 'SIGKILL');
      agent.go('end');
    }
  });

  it('no live session on the list: passes at once, as before', () => {
    const config = tempConfig();
    seedCi(config);
    const r = run(config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('"waiting"');
    expect(r.stdout).toContain('"reason":"condition-met"');
  });
});

describe('watch --session <id> of a fresh session', () => {
  it('with the Task tools and no list yet: its list is followed (waited for), not its transcript; a pending task there is no pass', async () => {
    const config = tempConfig();
    const sessionId = randomUUID();
    const agent = startAgent(config, [{ status: 'busy' }, { until: 'step' }, { task: task('2', 'completed') }], { sessionId });
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    const w = startWatch(config, ['--session', sessionId, 'watch', '--until', 'all-completed', '--json']);
    await w.waitFor((e) => e.event === 'snapshot', 'the first state');
    expect(w.events()[0]).toMatchObject({ list: sessionId, exists: false, tasks: [] });
    expect(w.stderr()).not.toContain('following the transcript');
    const made = run(config, ['--session', sessionId, 'create', 'ours']);
    expect(made.code, made.stderr).toBe(0);
    await w.waitFor((e) => e.event === 'created' && e.task?.id === '1', 'our task');
    agent.go('step');
    const r = await w.exited;
    expect(r.code, r.stderr).toBe(6);
    expect(w.events().at(-1)).toMatchObject({ reason: 'session-ended', met: false, counts: { total: 2, completed: 1, pending: 1 } });
  });

  it('with TodoWrite: its transcript is followed, as before', async () => {
    const config = tempConfig();
    const sessionId = randomUUID();
    const agent = startAgent(config, [{ status: 'busy' }, { until: 'end' }], { sessionId, tools: ['TaskStop', 'TodoWrite', 'WebFetch'] });
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    const w = startWatch(config, ['--session', sessionId, 'watch', '--until', 'all-completed', '--json']);
    await w.waitFor((e) => e.event === 'snapshot', 'the first state');
    expect(w.stderr()).toContain('following the transcript');
    agent.go('end');
    const r = await w.exited;
    expect(r.code).toBe(6);
  });
});
