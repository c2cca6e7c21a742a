/**
 * The live `tasks watch` marks a task in progress whose agent is gone as `list` marks it
 * (history/list-owners.ts goneHeldInProgress), and stops its spinner: a death changes no
 * file of the list, so the view asks every two seconds. Against the files the real Claude
 * Code 2.1.328 wrote (test/fixtures/claude-code-2.1.328/gone: a solo agent that set #1 in
 * progress with no owner), the agent's process stood for by one of this test's, through
 * the built binary in a terminal (tmux). Its NDJSON says the death in the note `watch
 * --until` gives one (`session_died`), and goes on.
 */
import { describe, expect, it } from 'vitest';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { procStart } from '../helpers/session-files.mjs';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';
import { startWatch } from '../helpers/watch.js';

const ENDED_AGO = 15 * 60_000;
const agentProcess = agentProcesses();

const rowOf = (screen: string) => screen.split('\n').find((l) => / #1 {2}/.test(l)) ?? '';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(tmuxAvailable())('the live watch marks a task whose agent is gone', () => {
  it('an agent already crashed: #1 marked as list marks it, no spinner', async () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: ENDED_AGO });
    const pane = startInTmux(w.config, ['-l', 'solo', 'watch'], { width: 120, height: 16 });
    try {
      const screen = await pane.waitFor((s) => s.includes('agent gone'), 'the mark');
      expect(rowOf(screen)).toMatch(/agent gone: session 4aa21e64 crashed 15 min ago/);
      // Still: the row does not change from one spinner step to the next.
      const first = rowOf(screen);
      await sleep(350);
      expect(rowOf(pane.screen())).toBe(first);
      expect(first).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    } finally {
      pane.kill();
    }
  });

  it('killed while the view shows it: the spinner stops and the mark comes within seconds', async () => {
    const agent = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
    const pid = agent.pid as number;
    const w = goneFixture('crashed-unowned', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const pane = startInTmux(w.config, ['-l', 'solo', 'watch'], { width: 120, height: 16 });
    try {
      // Alive: it spins, unmarked (a look at the sessions has been made: the view asks at once and every 2 s).
      const alive = await pane.waitFor((s) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] +#1 {2}/.test(s), 'the spinning row');
      await sleep(2500);
      expect(rowOf(pane.screen())).not.toMatch(/gone/);
      expect(alive).not.toMatch(/agent gone/);
      agent.kill('SIGKILL');
      const killed = Date.now();
      const screen = await pane.waitFor((s) => s.includes('agent gone'), 'the mark after the kill');
      expect(Date.now() - killed).toBeLessThan(5_000);
      expect(rowOf(screen)).toMatch(/agent gone: session 4aa21e64 crashed/);
      expect(rowOf(screen)).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    } finally {
      pane.kill();
    }
  });
});

describe('watch --json with no condition: a death is said, and the watch goes on', () => {
  it('the agent holding #1 killed: a session_died note naming it and #1, within seconds; no end', async () => {
    const agent = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
    const pid = agent.pid as number;
    const w = goneFixture('crashed-unowned', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const watch = startWatch(w.config, ['-l', 'solo', 'watch', '--json']);
    try {
      await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      // Seen alive first (the sessions are looked at every second).
      await sleep(1500);
      expect(watch.stderr()).not.toContain('session_died');
      agent.kill('SIGKILL');
      const killed = Date.now();
      const end = Date.now() + 10_000;
      while (!watch.stderr().includes('session_died') && Date.now() < end) await sleep(50);
      expect(Date.now() - killed).toBeLessThan(5_000);
      const notes = watch
        .stderr()
        .split('\n')
        .filter((l) => l.includes('session_died'))
        .map((l) => JSON.parse(l) as { note: Record<string, unknown> });
      expect(notes).toEqual([
        {
          note: {
            code: 'session_died',
            message: `session 4aa21e64 (pid ${pid}) crashed holding #1 "Fix it" in progress`,
            sessionId: '4aa21e64-031c-4afc-99a4-d063429beef5',
            state: 'crashed',
            pid,
            tasks: ['1'],
          },
        },
      ]);
      // Told once, and the watch goes on.
      await sleep(2000);
      expect(watch.stderr().split('session_died').length).toBe(2);
      expect(watch.events().some((e) => e.event === 'end')).toBe(false);
      expect(watch.child.exitCode).toBe(null);
    } finally {
      await watch.stop();
    }
  });
});
