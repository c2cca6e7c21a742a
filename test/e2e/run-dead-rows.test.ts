/**
 * The live view of `tasks run` and `tasks watch --stream` marks a task whose agent is gone
 * as `list` marks it ("agent gone: ..."), with no spinner: the run's own agent, killed
 * holding #1 (the frame it leaves says how its process ended, as its end event does), and,
 * on a shared list, another session's task whose agent crashed (history/list-owners.ts
 * goneHeldInProgress, against the files the real Claude Code 2.1.328 left in
 * test/fixtures/claude-code-2.1.328/gone). Through the built binary in a terminal (tmux),
 * with the scripted agent of fake-agent.mjs.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { FAKE, killLeftovers, outs, started2, trackPids, until } from '../helpers/run-agent.js';
import { StreamScript } from '../helpers/stream-lines.js';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';

afterEach(killLeftovers);

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const rowOf = (screen: string, id: string) => screen.split('\n').find((l) => new RegExp(` #${id} {2}`).test(l)) ?? '';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const agentPid = (pids: string) => Number(fs.readFileSync(pids, 'utf8').split('\n')[0]);

/** A plan for fake-agent.mjs in `config`; its pids are tracked (killed after each test). */
function plan(config: string, steps: Array<Record<string, unknown>>): { file: string; pids: string } {
  const file = path.join(config, 'plan.json');
  const pids = path.join(config, 'pids');
  fs.writeFileSync(file, JSON.stringify({ pids, steps }));
  trackPids(pids);
  return { file, pids };
}

describe.runIf(tmuxAvailable())('the live view of a run marks the tasks of an agent gone', () => {
  it('tasks run: #1 spins while the agent lives; killed, the frame left marks it "agent gone: ... was killed by SIGKILL"', async () => {
    const config = tempConfig();
    const p = plan(config, [...outs(started2().lines), { hang: true }]);
    const pane = startInTmux(config, ['run', '--', process.execPath, FAKE, p.file], { width: 120, height: 16 });
    try {
      await pane.waitFor((s) => SPINNER.test(rowOf(s, '1')), '#1 spinning');
      await sleep(300);
      expect(rowOf(pane.screen(), '1')).not.toMatch(/gone/);
      await until(() => fs.existsSync(p.pids), 5_000, 'the pid file');
      process.kill(agentPid(p.pids), 'SIGKILL');
      const after = await pane.waitFor((s) => s.includes('EXIT='), 'the end');
      expect(after).toContain('EXIT=6');
      const row = rowOf(after, '1');
      expect(row).toMatch(/agent gone: session 7c0ffee0 was killed by SIGKILL/);
      expect(row).not.toMatch(SPINNER);
      // #2 was never taken up: pending, unmarked.
      expect(rowOf(after, '2')).not.toMatch(/gone/);
    } finally {
      pane.kill();
    }
  });

  it('tasks run: an agent that exits 0 before its result leaves #1 marked "exited with status 0"', async () => {
    const config = tempConfig();
    const p = plan(config, [...outs(started2().lines), { wait: 600 }, { exit: 0 }]);
    const pane = startInTmux(config, ['run', '--', process.execPath, FAKE, p.file], { width: 120, height: 16 });
    try {
      const after = await pane.waitFor((s) => s.includes('EXIT='), 'the end');
      expect(after).toContain('EXIT=6');
      expect(rowOf(after, '1')).toMatch(/agent gone: session 7c0ffee0 exited with status 0/);
    } finally {
      pane.kill();
    }
  });

  it('tasks run on a shared list: another session crashed holding #1, marked while the run goes on and after it', async () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 15 * 60_000 });
    const go = path.join(w.config, 'go');
    const p = plan(w.config, [
      ...outs(new StreamScript().init().say('looking').lines),
      { until: go },
      ...outs(new StreamScript().end().lines),
    ]);
    const pane = startInTmux(w.config, ['-l', 'solo', 'run', '--', process.execPath, FAKE, p.file], { width: 120, height: 16 });
    try {
      const live = await pane.waitFor((s) => rowOf(s, '1').includes('agent gone'), 'the mark while the run goes on');
      expect(live).toContain("following the agent's output");
      expect(rowOf(live, '1')).toMatch(/agent gone: session 4aa21e64 crashed 15 min ago/);
      expect(rowOf(live, '1')).not.toMatch(SPINNER);
      fs.writeFileSync(go, '');
      const after = await pane.waitFor((s) => s.includes('EXIT='), 'the end');
      expect(after).toContain('EXIT=0');
      expect(rowOf(after, '1')).toMatch(/agent gone: session 4aa21e64 crashed/);
    } finally {
      pane.kill();
    }
  });

  it('tasks watch --stream on a file: its writer killed holding #1, the frame left marks it "agent gone: ... crashed"', async () => {
    const config = tempConfig();
    const p = plan(config, [...outs(started2().lines), { hang: true }]);
    const file = path.join(config, 'run.jsonl');
    const fd = fs.openSync(file, 'w');
    // The agent alone holds the file open: the watch knows its writer is gone when it is.
    const agent = spawn(process.execPath, [FAKE, p.file], { stdio: ['ignore', fd, 'ignore'], detached: true });
    fs.closeSync(fd);
    const pane = startInTmux(config, ['watch', '--stream', file], { width: 120, height: 16 });
    try {
      await pane.waitFor((s) => SPINNER.test(rowOf(s, '1')), '#1 spinning');
      agent.kill('SIGKILL');
      const after = await pane.waitFor((s) => s.includes('EXIT='), 'the end');
      expect(after).toContain('EXIT=0');
      const row = rowOf(after, '1');
      // A stream's writer is not the watch's child: how it ended is not known.
      expect(row).toMatch(/agent gone: session 7c0ffee0 crashed/);
      expect(row).not.toMatch(SPINNER);
    } finally {
      pane.kill();
      agent.kill('SIGKILL');
    }
  });
});
