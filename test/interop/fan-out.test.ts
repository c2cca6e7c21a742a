/**
 * Interop: a fan-out with the real Claude Code. Three agents share a list through
 * CLAUDE_CODE_TASK_LIST_ID, each starts its own task and then thinks for a minute; one is
 * killed with SIGKILL while it holds its task. `tasks watch --until all-completed` must
 * end within 5 s with exit 6, naming that session and its task, while the other two still
 * run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempConfig, writeTask } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { agentEnv, claudeBin, claudeVersion } from './agent.js';
import { type MockModel, startMockModel } from './mock-model.js';
import { deferred } from './sync.js';

const TOOLS = 'TaskCreate TaskUpdate TaskList TaskGet TodoWrite';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Worker {
  child: ChildProcess;
  model: MockModel;
  /** Resolves once the agent has started its task and asks for its next turn (held a minute). */
  holding: Promise<void>;
  stdout: () => string;
}

/**
 * One agent on list "shared": it starts task `id` as worker-<id>, then its next turn takes
 * 60 s, then it completes it; `endsOpen`: it ends its run right after starting the task.
 */
async function worker(config: string, id: string, opts: { endsOpen?: boolean } = {}): Promise<Worker> {
  const holding = deferred();
  const release = deferred();
  const timer = setTimeout(release.resolve, 60_000);
  const model = await startMockModel({
    turns: [
      [{ name: 'TaskUpdate', input: { taskId: id, status: 'in_progress', owner: `worker-${id}` } }],
      ...(opts.endsOpen ? [] : [[{ name: 'TaskUpdate' as const, input: { taskId: id, status: 'completed' } }]]),
    ],
    beforeTurn: async (i) => {
      if (i !== 1) return;
      holding.resolve();
      await release.promise;
    },
  });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-fanout-home-'));
  const child = spawn(claudeBin(), ['-p', `Work on task ${id}.`, '--output-format', 'stream-json', '--verbose', '--allowedTools', TOOLS], {
    cwd: home,
    env: agentEnv(config, home, 'shared', model.url),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  if (opts.endsOpen) child.on('exit', () => holding.resolve());
  child.stderr?.resume();
  cleanups.push(async () => {
    clearTimeout(timer);
    release.resolve();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await model.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  return { child, model, holding: holding.promise, stdout: () => stdout };
}

/** List "shared" with tasks #1-#3 pending, and `tasks watch --until all-completed` on it. */
function sharedListWatched() {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'shared');
  for (const id of ['1', '2', '3'])
    writeTask(dir, { id, subject: `Part ${id}`, description: `part ${id}`, status: 'pending', blocks: [], blockedBy: [] });
  fs.writeFileSync(path.join(dir, '.highwatermark'), '3');
  const watch = spawn(process.execPath, [BIN, '-l', 'shared', 'watch', '--until', 'all-completed', '--timeout', '150s', '--json'], {
    env: baseEnv(config),
    cwd: config,
  });
  let out = '';
  let err = '';
  watch.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  watch.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<{ code: number; at: number }>((resolve) =>
    watch.on('close', (c) => resolve({ code: c ?? -1, at: Date.now() })),
  );
  cleanups.push(() => {
    if (watch.exitCode === null) watch.kill('SIGKILL');
  });
  return { config, out: () => out, err: () => err, closed, pid: watch.pid as number };
}

/**
 * The watch ended with exit 6 within 5 s of the quitter's exit, naming it, ended, with #3,
 * while the other workers run. On a failure, what the watch said and ended with tells a
 * death missed from one judged late.
 */
function expectQuitterDied(
  watch: { out: () => string; err: () => string },
  ended: { code: number; at: number },
  exited: number,
  session: string | undefined,
  workers: readonly Worker[],
) {
  expect(ended.code, watch.err()).toBe(6);
  expect(ended.at - exited, `${watch.err()}\n${JSON.stringify(parseNdjson(watch.out()).at(-1))}`).toBeLessThan(5_000);
  expect(workers.every((w) => w.child.exitCode === null)).toBe(true);
  expect(parseNdjson(watch.out()).at(-1)).toMatchObject({
    reason: 'session-died',
    died: [{ sessionId: session, state: 'ended', tasks: ['3'] }],
  });
}

describe(`a fan-out of three real Claude Code ${claudeVersion()} agents`, () => {
  it('one SIGKILLed while it holds its task: watch --until all-completed exits 6 within 5 s, the others still running', async () => {
    const { config, out, err, closed } = sharedListWatched();

    const workers = await Promise.all(['1', '2', '3'].map((id) => worker(config, id)));
    await Promise.all(workers.map((w) => w.holding));
    // Every task in progress, as the watch shows it; then a moment for it to look at the sessions (every second).
    for (let i = 0; i < 200 && parseNdjson(out()).filter((e) => e.event === 'updated').length < 3; i++) await sleep(50);
    await sleep(2000);
    expect(parseNdjson(out()).some((e) => e.event === 'end')).toBe(false);

    const victim = workers[1] as Worker;
    const session = (parseNdjson(victim.stdout())[0] as { session_id?: string }).session_id;
    const killed = Date.now();
    victim.child.kill('SIGKILL');
    const { code, at } = await closed;
    const took = at - killed;
    console.log(`fan-out: the watch ended ${took} ms after the SIGKILL`);
    expect(code, err()).toBe(6);
    expect(took).toBeLessThan(5_000);
    expect(workers[0]?.child.exitCode).toBe(null);
    expect(workers[2]?.child.exitCode).toBe(null);
    expect(parseNdjson(out()).at(-1)).toMatchObject({
      event: 'end',
      reason: 'session-died',
      met: false,
      died: [{ sessionId: session, state: 'crashed', pid: victim.child.pid, tasks: ['2'] }],
      counts: { total: 3, inProgress: 3 },
    });
  });

  // A short headless run: it may start and end between two of the watch's looks at the
  // sessions, so the watch finds it by its transcript, already over.
  it('one ends its run with its task still in progress: the watch exits 6 within 5 s of its exit, state ended', async () => {
    const { config, out, err, closed } = sharedListWatched();
    const workers = await Promise.all([worker(config, '1'), worker(config, '2')]);
    await Promise.all(workers.map((w) => w.holding));
    await sleep(2000);
    const quitter = await worker(config, '3', { endsOpen: true });
    await quitter.holding;
    const exited = Date.now();
    const session = (parseNdjson(quitter.stdout())[0] as { session_id?: string }).session_id;
    const { code, at } = await closed;
    console.log(`fan-out: the watch ended ${at - exited} ms after the agent exited with its task in progress`);
    expectQuitterDied({ out, err }, { code, at }, exited, session, workers);
  });
  it('one starts and ends its run while the watch is not looking (stopped): still exit 6 within 5 s of its exit, state ended', async () => {
    const { config, out, err, closed, pid } = sharedListWatched();
    const workers = await Promise.all([worker(config, '1'), worker(config, '2')]);
    await Promise.all(workers.map((w) => w.holding));
    await sleep(2000);
    // A busy machine can leave the watch without a look for the whole of a short run:
    // stopped, it cannot see the agent alive; it must find it by its transcript, over.
    process.kill(pid, 'SIGSTOP');
    let exited = 0;
    let session: string | undefined;
    try {
      const quitter = await worker(config, '3', { endsOpen: true });
      await quitter.holding;
      exited = Date.now();
      session = (parseNdjson(quitter.stdout())[0] as { session_id?: string }).session_id;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const { code, at } = await closed;
    console.log(`fan-out: the watch (stopped meanwhile) ended ${at - exited} ms after the agent exited with its task in progress`);
    expectQuitterDied({ out, err }, { code, at }, exited, session, workers);
  });
});
