/**
 * Interop: `tasks run` owning the real Claude Code. Each scenario is a way a real run
 * goes: it succeeds (the record holds its `result` line), it stalls mid-run (a task in
 * progress, then a turn that takes 60 s), it runs past --timeout, it is stopped with
 * Ctrl-C, it ends with work open, it is killed by someone else. The status says which,
 * within the bounds promised, and no process of the agent's group is left running.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, tempConfig } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { claudeVersion, runAgent } from './agent.js';
import type { Turn } from './mock-model.js';
import { deferred } from './sync.js';
import { runningInGroup, startTasksRun, type TasksRunHandle } from './tasks-run.js';

const create = (subject: string): Turn[number] => ({ name: 'TaskCreate', input: { subject, description: `${subject}, carefully` } });
const set = (taskId: string, status: string): Turn[number] => ({ name: 'TaskUpdate', input: { taskId, status } });

const open: TasksRunHandle[] = [];
const holds: Array<() => void> = [];
afterEach(async () => {
  for (const release of holds.splice(0)) release();
  for (const run of open.splice(0)) await run.close();
});

/** A turn that takes `ms` (the model "thinking"), released early when the test ends. */
function hold(ms: number): { started: Promise<number>; wait: () => Promise<void> } {
  const begun = deferred<number>();
  const released = deferred();
  const timer = setTimeout(released.resolve, ms);
  holds.push(() => {
    clearTimeout(timer);
    released.resolve();
  });
  return {
    started: begun.promise,
    wait: () => {
      begun.resolve(Date.now());
      return released.promise;
    },
  };
}

async function start(opts: Parameters<typeof startTasksRun>[0]): Promise<TasksRunHandle> {
  const run = await startTasksRun(opts);
  open.push(run);
  return run;
}

const events = (stdout: string) => parseNdjson(stdout);
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe(`tasks run with the real Claude Code ${claudeVersion()}`, () => {
  it('success: exit 0 once the agent exits; the record holds the stream and its result line; nothing left', async () => {
    const config = tempConfig();
    const run = await start({
      config,
      args: ['--until', 'all-completed', '--record', 'run.jsonl', '--fail-if-stalled', '60s'],
      turns: [[create('Reproduce'), create('Fix')], [set('1', 'in_progress')], [set('1', 'completed')], [set('2', 'completed')]],
      beforeTurn: (i) => (i > 0 ? sleep(300) : undefined),
    });
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    const all = events(r.stdout);
    expect(all.at(-2)).toMatchObject({ event: 'end', reason: 'run-ended', met: true, run: { result: 'success' }, counts: { total: 2 } });
    expect(all.at(-1)).toMatchObject({
      event: 'run',
      verdict: 'passed',
      exit: 0,
      agent: { command: 'claude', exitCode: 0, endedBy: 'itself' },
    });
    const record = fs.readFileSync(path.join(run.work, 'run.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(record[0] as string)).toMatchObject({ type: 'system', subtype: 'init' });
    expect(JSON.parse(record.at(-1) as string)).toMatchObject({ type: 'result', subtype: 'success' });
    expect(all.at(-1)?.session).toBe(JSON.parse(record[0] as string).session_id);
    expect(runningInGroup(run.agentPid() as number)).toEqual([]);
  });

  it('a stall: a task in progress, then a turn that takes 60 s; exit 7 within the stall + 5 s, nothing left', async () => {
    const config = tempConfig();
    const slow = hold(60_000);
    const run = await start({
      config,
      args: ['--until', 'all-completed', '--fail-if-stalled', '8s'],
      turns: [[create('Reproduce')], [set('1', 'in_progress')], [set('1', 'completed')]],
      beforeTurn: (i) => (i === 2 ? slow.wait() : undefined),
    });
    const r = await run.done;
    const silentFrom = await slow.started;
    expect(r.code, r.stderr).toBe(7);
    const took = r.endedAt - silentFrom;
    console.log(`stall 8s: tasks run exited ${took} ms after the agent fell silent`);
    expect(took).toBeLessThan(8_000 + 5_000);
    expect(events(r.stdout).at(-2)).toMatchObject({ event: 'end', reason: 'stalled', stalled: [{ id: '1' }] });
    expect(events(r.stdout).at(-1)).toMatchObject({ verdict: 'stalled', exit: 7, agent: { endedBy: 'SIGTERM' } });
    expect(runningInGroup(run.agentPid() as number)).toEqual([]);
  });

  it('a Bash command that runs 20 s, silent, with --fail-if-stalled 8s: the agent inside its tool call is at work, not ended; it completes its task (exit 0)', async () => {
    const config = tempConfig();
    // A test suite that takes 20 s and prints nothing until it ends (Claude Code refuses a plain long `sleep`).
    const suite = `${quote(process.execPath)} -e "setTimeout(() => console.log('suite passed'), 20000)"`;
    const t0 = Date.now();
    const run = await start({
      config,
      args: ['--until', 'all-completed', '--fail-if-stalled', '8s'],
      moreTools: ['Bash'],
      turns: [
        [create('Run the suite')],
        [set('1', 'in_progress')],
        [{ name: 'Bash', input: { command: suite, description: 'run the suite', timeout: 120_000 } }],
        [set('1', 'completed')],
      ],
    });
    const r = await run.done;
    const took = r.endedAt - t0;
    console.log(`a 20 s tool call under --fail-if-stalled 8s: tasks run exited ${r.code} after ${took} ms`);
    expect(r.code, r.stderr).toBe(0);
    expect(took).toBeGreaterThanOrEqual(20_000);
    expect(events(r.stdout).at(-1)).toMatchObject({ verdict: 'passed', agent: { endedBy: 'itself' } });
    expect(run.model.received.some((x) => x.text.includes('suite passed'))).toBe(true);
  });

  it('--timeout 10s on a long run: exit 124 within 15 s, nothing left', async () => {
    const config = tempConfig();
    const turns: Turn[] = [
      [create('Long')],
      [set('1', 'in_progress')],
      ...Array.from({ length: 20 }, () => [{ name: 'TaskList', input: {} }] as Turn),
    ];
    const t0 = Date.now();
    const run = await start({
      config,
      args: ['--until', 'all-completed', '--timeout', '10s'],
      turns,
      beforeTurn: (i) => (i > 0 ? sleep(2000) : undefined),
    });
    const r = await run.done;
    expect(r.code, r.stderr).toBe(124);
    const took = r.endedAt - t0;
    console.log(`--timeout 10s: tasks run exited ${took} ms after it started`);
    expect(took).toBeLessThan(15_000);
    expect(events(r.stdout).at(-1)).toMatchObject({ verdict: 'timeout', exit: 124 });
    expect(runningInGroup(run.agentPid() as number)).toEqual([]);
  });

  it('SIGINT to tasks run: exit 130, the agent ended, nothing left', async () => {
    const config = tempConfig();
    const slow = hold(60_000);
    const run = await start({
      config,
      args: ['--until', 'all-completed'],
      turns: [[create('Reproduce')], [set('1', 'in_progress')], [set('1', 'completed')]],
      beforeTurn: (i) => (i === 2 ? slow.wait() : undefined),
    });
    await slow.started;
    const sent = Date.now();
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    console.log(`SIGINT: tasks run exited ${r.endedAt - sent} ms after the signal`);
    expect(events(r.stdout).at(-1)).toMatchObject({ verdict: 'interrupted', exit: 130 });
    expect(runningInGroup(run.agentPid() as number)).toEqual([]);
  });

  it('--max-turns runs out with every task it made completed: the agent says it failed (error_max_turns, exit 1), so does tasks run', async () => {
    const config = tempConfig();
    const run = await start({
      config,
      args: ['--until', 'all-completed', '--record', 'run.jsonl'],
      claudeArgs: ['--max-turns', '2'],
      turns: [[create('Step one')], [set('1', 'completed')], [create('Step two')], [set('2', 'completed')]],
    });
    const r = await run.done;
    expect(r.code, r.stderr).toBe(1);
    const all = events(r.stdout);
    expect(all.at(-2)).toMatchObject({ event: 'end', met: true, run: { result: 'error_max_turns', isError: true } });
    expect(all.at(-1)).toMatchObject({
      verdict: 'agent-failed',
      exit: 1,
      agent: { exitCode: 1, endedBy: 'itself' },
      result: { subtype: 'error_max_turns', isError: true },
    });
    expect(r.stderr).toMatch(
      /^error: claude says its run failed: its run's result is an error \(error_max_turns\) and it exited with status 1, though all-completed held; tasks run exits with status 1$/m,
    );
    // The record, replayed into the gate that keeps its own pipeline: the same failure.
    const gate = spawnSync(process.execPath, [BIN, 'watch', '--stream', 'run.jsonl', '--until', 'all-completed'], {
      cwd: run.work,
      env: { ...process.env, CLAUDE_CONFIG_DIR: config },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(gate.status, gate.stderr).toBe(1);
    expect(gate.stderr).toMatch(/^error: the run's result is an error \(error_max_turns\)/m);
  });

  it('the agent ends its run with work open: exit 6; killed by someone else before its result: exit 6 too', async () => {
    const config = tempConfig();
    const ended = await start({
      config,
      args: ['--until', 'all-completed'],
      turns: [[create('Reproduce'), create('Fix')], [set('1', 'completed')]],
    });
    const r = await ended.done;
    expect(r.code, r.stderr).toBe(6);
    expect(events(r.stdout).at(-2)).toMatchObject({ reason: 'run-ended', met: false, counts: { total: 2, completed: 1 } });
    expect(events(r.stdout).at(-1)).toMatchObject({ verdict: 'run-ended', exit: 6, agent: { exitCode: 0 } });
    // It ended with its result: its work is open, but no agent died holding it.
    expect(events(r.stdout).at(-2)).not.toHaveProperty('died');
    expect(r.stderr).not.toContain('crashed');

    const slow = hold(60_000);
    const killed = await start({
      config: tempConfig(),
      args: [],
      turns: [[create('Reproduce')], [set('1', 'in_progress')], [set('1', 'completed')]],
      beforeTurn: (i) => (i === 2 ? slow.wait() : undefined),
    });
    await slow.started;
    process.kill(killed.agentPid() as number, 'SIGKILL');
    const k = await killed.done;
    expect(k.code, k.stderr).toBe(6);
    expect(events(k.stdout).at(-2)).toMatchObject({ reason: 'input-ended', run: { result: null } });
    expect(events(k.stdout).at(-1)).toMatchObject({ verdict: 'run-ended', agent: { signal: 'SIGKILL', endedBy: 'itself' } });
    // The killed agent held #1: named as a dead agent's, with the command that gives it back.
    const session = events(k.stdout).at(-1)?.session as string;
    const pid = killed.agentPid() as number;
    expect(events(k.stdout).at(-2)).toMatchObject({
      died: [{ sessionId: session, state: 'crashed', pid, exit: { code: null, signal: 'SIGKILL' }, tasks: ['1'] }],
    });
    expect(k.stderr).toContain(
      `note: session ${session.slice(0, 8)} (pid ${pid}) was killed by SIGKILL holding #1 "Reproduce" in progress: its run ended without its result; tasks -l ${session.slice(0, 8)} release 1 gives it back`,
    );
    expect(runningInGroup(killed.agentPid() as number)).toEqual([]);
  });

  it('on a list another agent keeps changing, an agent silent from its start is ended on its own silence: exit 7 within the stall + 4 s', async () => {
    const config = tempConfig();
    const sibling = path.join(config, 'sibling');
    fs.mkdirSync(sibling);
    // Another agent on the shared list: creates #1, then rewrites its description 12 times, a turn every 1.5 s.
    const edits = Array.from(
      { length: 12 },
      (_, i): Turn => [{ name: 'TaskUpdate', input: { taskId: '1', description: `step ${i + 1}` } }],
    );
    const other = runAgent({
      configDir: config,
      listId: 'shared',
      cwd: sibling,
      turns: [[create('Elsewhere')], ...edits],
      beforeTurn: (i) => (i >= 2 ? sleep(1500) : undefined),
    });
    const list = path.join(config, 'tasks', 'shared');
    for (let i = 0; i < 300 && !fs.existsSync(path.join(list, '1.json')); i++) await sleep(100);
    const silent = hold(60_000);
    const started = Date.now();
    const run = await start({
      config,
      args: ['--fail-if-stalled', '4s', '--until', 'all-completed'],
      env: { CLAUDE_CODE_TASK_LIST_ID: 'shared' },
      turns: [[create('Mine')]],
      beforeTurn: (i) => (i === 0 ? silent.wait() : undefined),
    });
    const r = await run.done;
    const otherStillAtWork = fs.readFileSync(path.join(list, '1.json'), 'utf8');
    await other;
    expect(r.code, r.stderr).toBe(7);
    expect(r.endedAt - started).toBeLessThan(8000);
    expect(r.stderr).toMatch(/error: the agent has been silent for 4(\.\d)?s \(--fail-if-stalled 4s\)/);
    // The other agent was still changing #1 when the run ended: its changes did not keep the silent one alive.
    expect(JSON.parse(otherStillAtWork).description).not.toBe('step 12');
  });

  it('killed by someone else with SIGTERM: Claude Code writes its end and exits 143; the run says ended (on SIGTERM), as get and release --gone do', async () => {
    const config = tempConfig();
    const slow = hold(60_000);
    const run = await start({
      config,
      args: ['--json'],
      turns: [[create('Reproduce')], [set('1', 'in_progress')], [set('1', 'completed')]],
      beforeTurn: (i) => (i === 2 ? slow.wait() : undefined),
    });
    await slow.started;
    const pid = run.agentPid() as number;
    process.kill(pid, 'SIGTERM');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(6);
    const session = events(r.stdout).at(-1)?.session as string;
    expect(events(r.stdout).at(-2)).toMatchObject({
      died: [{ sessionId: session, state: 'ended', pid, exit: { code: 143, signal: null }, tasks: ['1'] }],
    });
    expect(r.stderr).toContain(`session ${session.slice(0, 8)} (pid ${pid}) exited with status 143 (on SIGTERM) holding #1`);
    const got = spawnSync(process.execPath, [BIN, '-l', session, 'get', '1', '--json'], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: config },
      encoding: 'utf8',
    });
    expect(JSON.parse(got.stdout).gone).toMatchObject({ session, state: 'ended' });
  });

  it("a script that runs the agent twice (plan, then implement), 4 s apart: judged at the second run's end, never at the first's result", async () => {
    // The first run completes all it planned (#1) and ends (its result); the second plans
    // #2 and stops with it in progress. At the first result all-completed held.
    const config = tempConfig();
    const run = await start({
      config,
      args: ['--json', '--until', 'all-completed', '--timeout', '90s'],
      env: { CLAUDE_CODE_TASK_LIST_ID: 'plan-then-do' },
      twiceApartMs: 4000,
      turns: [[create('Plan')], [set('1', 'completed')], [], [create('Implement')], [set('2', 'in_progress')]],
    });
    const r = await run.done;
    expect(r.code, r.stderr).toBe(6);
    const all = events(r.stdout);
    expect(r.stderr.split('\n').filter((l) => l.includes('"code":"run_went_on"'))).toHaveLength(1);
    expect(all.at(-2)).toMatchObject({ event: 'end', met: false, counts: { total: 2, completed: 1, inProgress: 1 } });
    expect(all.at(-1)).toMatchObject({ event: 'run', verdict: 'run-ended', exit: 6 });
  });

  it("run through a wrapper script that exits 0 whatever befell the agent: the session is told by its own pid and state, not the wrapper's", async () => {
    const config = tempConfig();
    const slow = hold(60_000);
    const run = await start({
      config,
      args: ['--json'],
      wrapped: true,
      turns: [[create('Reproduce')], [set('1', 'in_progress')], [set('1', 'completed')]],
      beforeTurn: (i) => (i === 2 ? slow.wait() : undefined),
    });
    await slow.started;
    const claude = run.claudePid() as number;
    expect(claude).not.toBe(run.agentPid());
    process.kill(claude, 'SIGKILL');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(6);
    const session = events(r.stdout).at(-1)?.session as string;
    const died = (events(r.stdout).at(-2) as { died?: Array<Record<string, unknown>> }).died;
    expect(died).toEqual([expect.objectContaining({ sessionId: session, state: 'crashed', pid: claude, tasks: ['1'] })]);
    expect(died?.[0]).not.toHaveProperty('exit');
    expect(r.stderr).toContain(`session ${session.slice(0, 8)} (pid ${claude}) crashed holding #1`);
  });
});
