/**
 * Interop: the CI guide's gate (docs/guide/ci.md), as written, with the real Claude Code driven by the
 * loopback model pausing between turns, in bash with `set -o pipefail` and `tee`. Each
 * scenario is a way a real run goes: success, planning a step at a time, stopping
 * half-way, too slow, silent, killed, TodoWrite instead of the Task tools, a nightly list
 * reused. The step's exit status must say which; the tee copy must be whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { guideBlock, runGate } from './gate.js';
import type { Turn } from './mock-model.js';

const GATE = guideBlock('set -o pipefail');

/** The recipe with other limits, as a job would set them. */
function gate(limits: { timeout?: string; stall?: string } = {}): string {
  return GATE.replace('--timeout 30m', `--timeout ${limits.timeout ?? '120s'}`).replace(
    '--fail-if-stalled 10m',
    `--fail-if-stalled ${limits.stall ?? '60s'}`,
  );
}

const create = (subject: string): Turn[number] => ({ name: 'TaskCreate', input: { subject, description: `${subject}, carefully` } });
const set = (taskId: string, status: string): Turn[number] => ({ name: 'TaskUpdate', input: { taskId, status } });

const lastLine = (copy: string) => copy.trim().split('\n').at(-1) ?? '';
const events = (stdout: string) => parseNdjson(stdout);
const endOf = (stdout: string) => events(stdout).at(-1);

describe("the CI guide's gate, with the real Claude Code", () => {
  it('success: the run completes its plan; exit 0 at its result, the copy ends with the result line', async () => {
    const config = tempConfig();
    const r = await runGate({
      config,
      script: gate(),
      turns: [[create('Reproduce'), create('Fix')], [set('1', 'in_progress')], [set('1', 'completed')], [set('2', 'completed')]],
      turnDelayMs: 300,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(endOf(r.stdout)).toMatchObject({
      event: 'end',
      reason: 'run-ended',
      met: true,
      run: { result: 'success' },
      counts: { total: 2 },
    });
    expect(JSON.parse(lastLine(r.copy))).toMatchObject({ type: 'result', subtype: 'success' });
  });

  it('incremental planning: it completes #1, then plans #2 and #3; 1/1 is not a pass, the end is', async () => {
    const config = tempConfig();
    const r = await runGate({
      config,
      script: gate(),
      turns: [
        [create('Reproduce')],
        [set('1', 'completed')],
        [create('Fix')],
        [create('Verify')],
        [set('2', 'completed')],
        [set('3', 'completed')],
      ],
      turnDelayMs: 400,
    });
    expect(r.code, r.stderr).toBe(0);
    const all = events(r.stdout);
    // Every step of the run, in order: it was 1/1 done before #2 was planned.
    expect(all.slice(1, -1).map((e) => `${e.event}:${e.task?.id}:${e.task?.status}`)).toEqual([
      'created:1:pending',
      'updated:1:completed',
      'created:2:pending',
      'created:3:pending',
      'updated:2:completed',
      'updated:3:completed',
    ]);
    expect(all.at(-1)).toMatchObject({ reason: 'run-ended', met: true, counts: { total: 3, completed: 3 } });
    expect(JSON.parse(lastLine(r.copy))).toMatchObject({ type: 'result' });
  });

  it('stopping half-way: the run ends with work open; exit 6', async () => {
    const config = tempConfig();
    const r = await runGate({
      config,
      script: gate(),
      turns: [[create('Reproduce'), create('Fix'), create('Verify')], [set('1', 'completed')]],
      turnDelayMs: 300,
    });
    expect(r.code).toBe(6);
    expect(endOf(r.stdout)).toMatchObject({ reason: 'run-ended', met: false, counts: { total: 3, completed: 1 } });
    expect(r.stderr).toMatch(/^error: the run ended and all-completed did not hold then; 3 tasks: 1 done/m);
    expect(JSON.parse(lastLine(r.copy))).toMatchObject({ type: 'result' });
  });

  it('too slow: --timeout passes first; exit 124 at the deadline, and the run still finishes into the copy', async () => {
    const config = tempConfig();
    const r = await runGate({
      config,
      script: gate({ timeout: '2s' }),
      turns: [[create('Reproduce')], [set('1', 'in_progress')], [set('1', 'completed')], [create('Fix')], [set('2', 'completed')]],
      turnDelayMs: 1000,
    });
    expect(r.code).toBe(124);
    expect(endOf(r.stdout)).toMatchObject({ reason: 'timeout', met: false });
    expect(r.turnsServed).toBe(5);
    expect(JSON.parse(lastLine(r.copy))).toMatchObject({ type: 'result', subtype: 'success' });
  });

  it('a stall: the agent goes silent mid-run; exit 7, and the copy is whole once it finishes', async () => {
    const config = tempConfig();
    const r = await runGate({
      config,
      script: gate({ stall: '2s' }),
      turns: [[create('Reproduce')], [set('1', 'in_progress')], [set('1', 'completed')]],
      beforeTurn: async (i) => {
        if (i === 2) await new Promise((res) => setTimeout(res, 5000));
      },
    });
    expect(r.code).toBe(7);
    const end = endOf(r.stdout);
    expect(end).toMatchObject({ reason: 'stalled', stalled: [{ id: '1' }] });
    expect(end?.idleMs as number).toBeGreaterThanOrEqual(2000);
    expect(JSON.parse(lastLine(r.copy))).toMatchObject({ type: 'result' });
  });

  it('SIGKILL of the agent: its output ends without a result; exit 6 (input-ended), no hang', async () => {
    const config = tempConfig();
    const r = await runGate({
      config,
      script: gate(),
      turns: [[create('Reproduce'), create('Fix')], [set('1', 'completed')], [set('2', 'completed')]],
      turnDelayMs: 300,
      beforeTurn: (i, agent) => {
        if (i === 2) process.kill(agent.pid() as number, 'SIGKILL');
      },
    });
    expect(r.code).toBe(6);
    expect(endOf(r.stdout)).toMatchObject({ reason: 'input-ended', met: false, run: { result: null } });
    expect(lastLine(r.copy)).not.toContain('"type":"result"');
  });

  it('a TodoWrite run (CLAUDE_CODE_ENABLE_TASKS=0): the same gate', async () => {
    const config = tempConfig();
    const todos = (...statuses: string[]) => ({
      name: 'TodoWrite' as const,
      input: {
        todos: ['Reproduce', 'Fix'].map((content, i) => ({ content, status: statuses[i], activeForm: `${content}ing` })),
      },
    });
    const r = await runGate({
      config,
      script: gate(),
      turns: [[todos('in_progress', 'pending')], [todos('completed', 'in_progress')], [todos('completed', 'completed')]],
      turnDelayMs: 300,
      jobEnv: { CLAUDE_CODE_ENABLE_TASKS: '0' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(endOf(r.stdout)).toMatchObject({ reason: 'run-ended', met: true, counts: { total: 2, completed: 2 } });
  });

  it('a reused nightly list (CLAUDE_CODE_TASK_LIST_ID for the job): its old tasks do not pass the gate', async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'nightly');
    for (const id of ['1', '2', '3']) {
      writeTask(dir, { id, subject: `Last night ${id}`, description: '', status: 'completed', blocks: [], blockedBy: [] });
    }
    fs.writeFileSync(path.join(dir, '.highwatermark'), '3');
    const open = await runGate({
      config,
      script: gate(),
      turns: [[create('Tonight')], [set('4', 'in_progress')]],
      turnDelayMs: 300,
      jobEnv: { CLAUDE_CODE_TASK_LIST_ID: 'nightly' },
    });
    expect(open.code).toBe(6);
    const first = events(open.stdout)[0];
    expect(first).toMatchObject({ event: 'snapshot', list: 'nightly', tasks: [{ id: '1' }, { id: '2' }, { id: '3' }] });
    expect(endOf(open.stdout)).toMatchObject({ reason: 'run-ended', met: false, counts: { total: 4, inProgress: 1 } });

    const done = await runGate({
      config,
      script: gate(),
      turns: [[set('4', 'completed')]],
      jobEnv: { CLAUDE_CODE_TASK_LIST_ID: 'nightly' },
    });
    expect(done.code, done.stderr).toBe(0);
    expect(endOf(done.stdout)).toMatchObject({ reason: 'run-ended', met: true, counts: { total: 4, completed: 4 } });
  });

  it('CLAUDE_CODE_TASK_LIST_ID on the agent only: the gate finds the list the agent writes to and judges that', async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'ci');
    for (const id of ['1', '2'])
      writeTask(dir, { id, subject: `Seeded ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.writeFileSync(path.join(dir, '.highwatermark'), '2');
    const turns: Turn[] = [[set('1', 'in_progress')], [set('1', 'completed')], [set('2', 'completed')]];
    const r = await runGate({ config, script: gate(), turns, turnDelayMs: 300, agentOnlyEnv: { CLAUDE_CODE_TASK_LIST_ID: 'ci' } });
    expect(r.code, r.stderr).toBe(0);
    // Said at once, in words (piped, without --json): which list, and why.
    expect(r.stderr).toMatch(/note: the run's agent writes to list "ci"/);
    expect(endOf(r.stdout)).toMatchObject({ reason: 'run-ended', met: true, list: 'ci', counts: { total: 2, completed: 2 } });

    // Stopping half-way on the same seeded list is no pass either.
    const config2 = tempConfig();
    const dir2 = path.join(config2, 'tasks', 'ci');
    for (const id of ['1', '2'])
      writeTask(dir2, { id, subject: `Seeded ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });
    const half = await runGate({
      config: config2,
      script: gate(),
      turns: [[set('1', 'completed')]],
      agentOnlyEnv: { CLAUDE_CODE_TASK_LIST_ID: 'ci' },
    });
    expect(half.code).toBe(6);
    expect(endOf(half.stdout)).toMatchObject({ list: 'ci', met: false, counts: { total: 2, completed: 1 } });
  });
});
