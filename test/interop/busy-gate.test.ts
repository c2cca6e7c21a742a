/**
 * Interop: `watch --until all-completed` as the CI gate on a list, with the real Claude
 * Code planning a step at a time (it completes #2 before it makes #3) and a first turn
 * that comes late. While the agent is at work (its live-session file says "busy": a
 * headless run is busy from its start to its exit, checked here), every task so far being
 * completed is no pass; its end with the work done is. And `--session` of a fresh session
 * with the Task tools follows its list, not its transcript.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig, writeTask } from '../helpers/cli.js';
import type { StreamEvent } from '../helpers/replay.js';
import { startWatch, type WatchProcess } from '../helpers/watch.js';
import { runAgent } from './agent.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const create = (subject: string): Turn[number] => ({ name: 'TaskCreate', input: { subject, description: `${subject}, carefully` } });
const set = (taskId: string, status: string): Turn[number] => ({ name: 'TaskUpdate', input: { taskId, status } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isWaiting = (e: StreamEvent) => e.event === 'waiting';

function seedCi(config: string): void {
  const dir = path.join(config, 'tasks', 'ci');
  writeTask(dir, { id: '1', subject: 'Done before', description: '', status: 'completed', blocks: [], blockedBy: [] });
  fs.writeFileSync(path.join(dir, '.highwatermark'), '1');
}

async function stillWaiting(w: WatchProcess, ms: number): Promise<void> {
  const ended = await Promise.race([w.exited.then(() => true), sleep(ms).then(() => false)]);
  expect(ended, `the watch ended early: ${w.stderr()}`).toBe(false);
}

describe('the real Claude Code at work on a list: the gate waits for it', () => {
  it('a step at a time, its first turn late: no pass while it is busy; a pass at its end, with every step', async () => {
    const config = tempConfig();
    seedCi(config);
    const first = gate();
    const agent = runAgent({
      configDir: config,
      listId: 'ci',
      turns: [[create('Step two')], [set('2', 'completed')], [create('Step three')], [set('3', 'completed')]],
      beforeTurn: async (i) => {
        if (i === 0) await first.wait();
        else await sleep(600);
      },
    });
    const live = await waitFor('the live-session file', () => liveFiles(config)[0]);
    await first.arrived;
    const watch = startWatch(config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--json', '--timeout', '150s']);
    try {
      const waiting = await watch.waitFor(isWaiting, 'the waiting event');
      expect(waiting).toMatchObject({ until: 'all-completed', sessions: [{ session: live.sessionId, pid: live.pid, state: 'busy' }] });
      // Headless, between its start and its first turn: busy.
      expect(JSON.parse(fs.readFileSync(live.file, 'utf8'))).toMatchObject({ status: 'busy' });
      await stillWaiting(watch, 2000);
      first.open();
      // Between its steps (#2 completed, #3 not yet made) it is busy too: checked on the file.
      await watch.waitFor((e) => e.event === 'updated' && e.task?.id === '2', 'step two completed');
      expect(JSON.parse(fs.readFileSync(live.file, 'utf8'))).toMatchObject({ status: 'busy' });
      await agent;
      const r = await watch.exited;
      expect(r.code, r.stderr).toBe(0);
      const events = watch.events();
      expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'condition-met', met: true, counts: { total: 3, completed: 3 } });
      expect(events.filter((e) => e.event === 'created').map((e) => e.task?.id)).toEqual(['2', '3']);
    } finally {
      first.open();
      await watch.stop();
    }
  });

  it('an interactive session: busy on its turn holds the gate; idle at its prompt it does not', async () => {
    const w = world();
    const proj = w.dir('work/app');
    seedCi(w.config);
    const held = gate();
    const byPrompt = async (prompt: string): Promise<Turn | undefined> => {
      if (/^plan step two$/m.test(prompt)) {
        await held.wait();
        return [create('Step two')];
      }
      if (/^finish step two$/m.test(prompt)) return [set('2', 'completed')];
      return undefined;
    };
    const session = await startInteractive({
      configDir: w.config,
      cwd: proj,
      home: w.home,
      byPrompt,
      env: { CLAUDE_CODE_TASK_LIST_ID: 'ci' },
    });
    let watch: WatchProcess | undefined;
    try {
      const live = await waitFor('the live-session file', () => liveFiles(w.config)[0]);
      await session.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      const status = () => (JSON.parse(fs.readFileSync(live.file, 'utf8')) as { status?: string }).status;
      await waitFor('idle at its prompt', () => status() === 'idle');
      // Idle at its prompt, every task completed: the gate passes at once.
      const idle = await runAsync(w.config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--json'], { env: { HOME: w.home } });
      expect(idle.code, idle.stderr).toBe(0);
      expect(idle.stdout).not.toContain('"event":"waiting"');

      // On a turn (its reply held): busy, and the gate waits for it.
      session.type('plan step two');
      await held.arrived;
      await waitFor('busy on its turn', () => status() === 'busy');
      watch = startWatch(w.config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--json', '--timeout', '150s'], { HOME: w.home });
      const waiting = await watch.waitFor(isWaiting, 'the waiting event');
      expect(waiting).toMatchObject({ sessions: [{ session: live.sessionId, pid: live.pid, state: 'busy' }] });
      await stillWaiting(watch, 1500);
      held.open();
      await watch.waitFor((e) => e.event === 'created' && e.task?.id === '2', 'step two planned', 60_000);
      session.type('finish step two');
      const r = await watch.exited;
      expect(r.code, r.stderr).toBe(0);
      expect(watch.events().at(-1)).toMatchObject({ reason: 'condition-met', counts: { total: 2, completed: 2 } });
      // It passed with the session still running, idle at its prompt.
      expect(fs.existsSync(live.file)).toBe(true);
      expect(status()).toBe('idle');
    } finally {
      held.open();
      await watch?.stop();
      await session.stop();
    }
  });

  it('--session of a fresh session with the Task tools, before its list exists: its list is followed, and a pending task there is no pass', async () => {
    const config = tempConfig();
    const first = gate();
    const agent = runAgent({
      configDir: config,
      listId: undefined,
      turns: [[create('Agent step')], [set('2', 'completed')]],
      beforeTurn: async (i) => {
        if (i === 0) await first.wait();
      },
    });
    const live = await waitFor('the live-session file', () => liveFiles(config)[0]);
    await first.arrived;
    expect(fs.existsSync(path.join(config, 'tasks', live.sessionId))).toBe(false);
    const watch = startWatch(config, ['--session', live.sessionId, 'watch', '--until', 'all-completed', '--json', '--timeout', '150s']);
    try {
      await watch.waitFor((e) => e.event === 'snapshot', 'the first state');
      expect(watch.events()[0]).toMatchObject({ list: live.sessionId, exists: false });
      expect(watch.stderr()).not.toContain('following the transcript');
      const made = await runAsync(config, ['--session', live.sessionId, 'create', 'Ours, still to do']);
      expect(made.code, made.stderr).toBe(0);
      await watch.waitFor((e) => e.event === 'created' && e.task?.id === '1', 'our task');
      first.open();
      await agent;
      const r = await watch.exited;
      expect(r.code, r.stderr).toBe(6);
      expect(watch.events().at(-1)).toMatchObject({ met: false, counts: { total: 2, completed: 1, pending: 1 } });
      // Its stderr comes down a pipe of its own: looked at again once it is all there.
      expect(r.stderr).not.toContain('following the transcript');
    } finally {
      first.open();
      await watch.stop();
    }
  });
});
