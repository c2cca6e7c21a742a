/**
 * Interop: the CI guide's `tasks run` gate (docs/guide/ci.md), as written, with the real
 * Claude Code, in bash as a CI runner runs a step. Unlike the pipe recipe, the step ends
 * when the verdict is known: a stalled agent is ended within the stall time plus a few
 * seconds, not when it finishes on its own. The record holds the run.
 */
import { describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { guideBlock, runGate } from './gate.js';
import type { Turn } from './mock-model.js';
import { deferred } from './sync.js';

const RECIPE = guideBlock('tasks run --until all-completed --timeout');

function recipe(limits: { timeout?: string; stall?: string } = {}): string {
  return RECIPE.replace('--timeout 30m', `--timeout ${limits.timeout ?? '120s'}`).replace(
    '--fail-if-stalled 10m',
    `--fail-if-stalled ${limits.stall ?? '60s'}`,
  );
}

const create = (subject: string): Turn[number] => ({ name: 'TaskCreate', input: { subject, description: `${subject}, carefully` } });
const set = (taskId: string, status: string): Turn[number] => ({ name: 'TaskUpdate', input: { taskId, status } });
const lastLine = (copy: string) => copy.trim().split('\n').at(-1) ?? '';

describe("the CI guide's tasks run gate, with the real Claude Code", () => {
  it('success: exit 0; the record ends with the result line; the last line says the verdict', async () => {
    const r = await runGate({
      config: tempConfig(),
      script: recipe(),
      turns: [[create('Reproduce'), create('Fix')], [set('1', 'in_progress')], [set('1', 'completed')], [set('2', 'completed')]],
      turnDelayMs: 300,
    });
    expect(r.code, r.stderr).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events.at(-2)).toMatchObject({ event: 'end', reason: 'run-ended', met: true, counts: { total: 2, completed: 2 } });
    expect(events.at(-1)).toMatchObject({ event: 'run', verdict: 'passed', exit: 0, record: 'run.jsonl' });
    expect(JSON.parse(lastLine(r.copy))).toMatchObject({ type: 'result', subtype: 'success' });
  });

  it('stopping half-way: exit 6', async () => {
    const r = await runGate({
      config: tempConfig(),
      script: recipe(),
      turns: [[create('Reproduce'), create('Fix'), create('Verify')], [set('1', 'completed')]],
      turnDelayMs: 300,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^error: the run ended and all-completed did not hold then; 3 tasks: 1 done/m);
  });

  it('a stall: the step ends (exit 7) within the stall + 5 s, not when the agent would have finished', async () => {
    const silent = deferred<number>();
    const r = await runGate({
      config: tempConfig(),
      script: recipe({ stall: '5s' }),
      turns: [[create('Reproduce')], [set('1', 'in_progress')], [set('1', 'completed')]],
      beforeTurn: async (i) => {
        if (i !== 2) return;
        silent.resolve(Date.now());
        await new Promise((res) => setTimeout(res, 60_000));
      },
    });
    expect(r.code, r.stderr).toBe(7);
    const took = r.startedAt + r.elapsedMs - (await silent.promise);
    console.log(`tasks run recipe, stall 5s: the step ended ${took} ms after the agent fell silent`);
    expect(took).toBeLessThan(5_000 + 5_000);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ verdict: 'stalled', exit: 7, agent: { endedBy: 'SIGTERM' } });
  });

  it('the agent killed by someone else: exit 6, its record without a result', async () => {
    const r = await runGate({
      config: tempConfig(),
      script: recipe(),
      turns: [[create('Reproduce'), create('Fix')], [set('1', 'completed')], [set('2', 'completed')]],
      turnDelayMs: 300,
      beforeTurn: (i, agent) => {
        if (i === 2) process.kill(agent.pid() as number, 'SIGKILL');
      },
    });
    expect(r.code).toBe(6);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ verdict: 'run-ended', agent: { signal: 'SIGKILL', endedBy: 'itself' } });
    expect(lastLine(r.copy)).not.toContain('"type":"result"');
  });
});
