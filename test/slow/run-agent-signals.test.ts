/**
 * `tasks run` through the built binary, with a scripted agent (test/helpers/fake-agent.mjs),
 * when tasks ends the agent: a stall, the deadline, signals to tasks run (a second one, one
 * before the agent said anything), tasks run itself killed with SIGKILL (its guard ends
 * the group), an agent that ignores SIGTERM and children that do too; never a process of
 * the group left. And the live view in a real terminal. Each waits out a stall time or a
 * grace: the slow tier.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { FAKE, killLeftovers, lastEvent, leftovers, outs, started2, startRun, until } from '../helpers/run-agent.js';
import { StreamScript } from '../helpers/stream-lines.js';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';

afterEach(killLeftovers);

describe('tasks run ends the agent when the verdict comes first', () => {
  it('stalled: an agent that ignores SIGTERM, with children that do too, is killed after the grace; exit 7, nothing left', async () => {
    const config = tempConfig();
    const r = startRun(config, ['--until', 'all-completed', '--fail-if-stalled', '700ms', '--kill-after', '500ms'], {
      ignoreTerm: true,
      children: 2,
      steps: [...outs(started2().lines), { hang: true }],
    });
    const done = await r.done;
    expect(done.code, done.stderr).toBe(7);
    const events = parseNdjson(done.stdout);
    expect(events.at(-2)).toMatchObject({ event: 'end', reason: 'stalled', stalled: [{ id: '1' }] });
    expect(events.at(-1)).toMatchObject({ verdict: 'stalled', exit: 7, agent: { signal: 'SIGKILL', endedBy: 'SIGKILL' } });
    expect(done.stderr).toContain('fake agent: SIGTERM ignored');
    expect(leftovers(r.pids)).toEqual([]);
    // Stall 1 s + grace 1 s + start-up; the margin holds on a loaded machine.
    expect(done.ms).toBeLessThan(12_000);
  });

  it('an agent that gives way to SIGTERM is not killed: endedBy SIGTERM', async () => {
    const config = tempConfig();
    const r = startRun(config, ['--fail-if-stalled', '700ms'], { steps: [...outs(started2().lines), { hang: true }] });
    const done = await r.done;
    expect(done.code).toBe(7);
    expect(lastEvent(done.stdout)).toMatchObject({ verdict: 'stalled', agent: { signal: 'SIGTERM', endedBy: 'SIGTERM' } });
    expect(leftovers(r.pids)).toEqual([]);
  });

  it('--timeout: the deadline ends the agent; exit 124 with or without --until', async () => {
    const config = tempConfig();
    for (const until of [[], ['--until', 'all-completed']]) {
      const r = startRun(config, ['--timeout', '700ms', '--kill-after', '500ms', ...until], {
        ignoreTerm: true,
        children: 1,
        steps: [...outs(started2().lines), { hang: true }],
      });
      const done = await r.done;
      expect(done.code, done.stderr).toBe(124);
      expect(lastEvent(done.stdout)).toMatchObject({ verdict: 'timeout', exit: 124, agent: { endedBy: 'SIGKILL' } });
      expect(done.stderr).toMatch(/^error: timed out after \S+ before/m);
      expect(leftovers(r.pids)).toEqual([]);
    }
  });
});

describe('tasks run: signals, and never an agent left behind', () => {
  for (const [signal, status] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} to tasks run ends the agent's group; exit ${status}`, async () => {
      const config = tempConfig();
      const r = startRun(config, ['--until', 'all-completed', '--kill-after', '500ms'], {
        ignoreTerm: true,
        children: 1,
        steps: [...outs(started2().lines), { hang: true }],
      });
      await until(() => leftovers(r.pids).length === 2, 10_000, 'the agent and its child');
      // The watch is under way: the run's tasks are out.
      await until(() => r.out().includes('"event":"updated"'), 10_000, 'the watch');
      r.child.kill(signal);
      const done = await r.done;
      expect(done.code, done.stderr).toBe(status);
      expect(lastEvent(done.stdout)).toMatchObject({ verdict: 'interrupted', exit: status });
      expect(done.stderr).toMatch(new RegExp(`^error: stopped by ${signal}: the agent's process group was ended`, 'm'));
      expect(leftovers(r.pids)).toEqual([]);
    });
  }

  it('a second signal during the grace kills the group at once (an agent that ignores SIGTERM)', async () => {
    const config = tempConfig();
    const r = startRun(config, ['--kill-after', '60s'], {
      ignoreTerm: true,
      children: 1,
      steps: [...outs(started2().lines), { hang: true }],
    });
    await until(() => r.out().includes('"event":"updated"'), 10_000, 'the watch');
    r.child.kill('SIGTERM');
    await until(() => r.out().includes('"event":"end"'), 10_000, 'the end event');
    const second = Date.now();
    r.child.kill('SIGTERM');
    const done = await r.done;
    // The status of the signal that stopped the run (SIGTERM), as with one signal.
    expect(done.code).toBe(143);
    // Not the 60 s grace: at once.
    expect(Date.now() - second).toBeLessThan(10_000);
    await until(() => leftovers(r.pids).length === 0, 5_000, 'the group to be gone');
    // The output contract still holds: the verdict's last line, and one line on stderr.
    expect(lastEvent(done.stdout)).toMatchObject({ event: 'run', verdict: 'interrupted', exit: 143, agent: { endedBy: 'SIGKILL' } });
    expect(done.stderr.trimEnd().split('\n').at(-1)).toMatch(/^error: /);
    // Killed at the second signal, not for outlasting the 60 s grace: the log says which.
    expect(done.stderr).toMatch(/^note: the agent \(.*, pid \d+\) was killed with SIGKILL at a second signal$/m);
    expect(done.stderr).not.toContain('within the grace');
  });

  it('a signal before the agent has said anything: the same end', async () => {
    const config = tempConfig();
    const r = startRun(config, ['--kill-after', '500ms'], { steps: [{ wait: 30_000 }] });
    await until(() => leftovers(r.pids).length === 1, 10_000, 'the agent');
    r.child.kill('SIGINT');
    const done = await r.done;
    expect(done.code).toBe(130);
    expect(leftovers(r.pids)).toEqual([]);
  });

  it('tasks run killed with SIGKILL: the guard in the group ends the agent and its children', async () => {
    const config = tempConfig();
    const r = startRun(config, ['--kill-after', '500ms'], { ignoreTerm: true, children: 2, steps: [{ hang: true }] });
    await until(() => leftovers(r.pids).length === 3, 10_000, 'the agent and its children');
    r.child.kill('SIGKILL');
    await r.done;
    // SIGTERM at once, SIGKILL a second later (the grace).
    await until(() => leftovers(r.pids).length === 0, 10_000, 'the group to be ended');
  });
});

describe('tasks run in a terminal', () => {
  it.runIf(tmuxAvailable())(
    'with no list named and an agent that never said its session, the last frame says no list is known, naming no folder',
    async () => {
      const config = tempConfig();
      const pane = startInTmux(config, ['run', '--', 'sh', '-c', `until [ -e '${path.join(config, 'go')}' ]; do sleep 0.1; done`], {
        width: 100,
        height: 16,
      });
      try {
        await new Promise((r) => setTimeout(r, 1500));
        fs.writeFileSync(path.join(config, 'go'), '');
        const end = await pane.waitFor((screen) => screen.includes('EXIT='), 'the end');
        expect(end).toContain('No list: none was named, and the agent never said its session.');
        expect(end).not.toMatch(/Waiting for the list to appear|~\/\.claude|\/tasks\b/);
      } finally {
        pane.kill();
      }
    },
  );

  it.runIf(tmuxAvailable())("the live view while it runs; the agent's stderr once the view closes", async () => {
    const config = tempConfig();
    const s = new StreamScript().init().create('1', 'Reproduce');
    const planFile = path.join(config, 'plan.json');
    const steps = [
      ...outs(s.lines),
      { err: 'agent: working' },
      { until: path.join(config, 'go') },
      ...outs(new StreamScript().update('1', { status: 'completed' }).end().lines),
    ];
    fs.writeFileSync(planFile, JSON.stringify({ steps }));
    const pane = startInTmux(config, ['run', '--until', 'all-completed', '--', process.execPath, FAKE, planFile], {
      width: 100,
      height: 16,
    });
    try {
      const live = await pane.waitFor((screen) => screen.includes('0/1 done'), 'the live view');
      expect(live).toContain("following the agent's output");
      expect(live).not.toContain('agent: working');
      fs.writeFileSync(path.join(config, 'go'), '');
      const after = await pane.waitFor((screen) => screen.includes('EXIT='), 'the end');
      expect(after).toContain('EXIT=0');
      // The note names the agent's program by its full path, which the 100-column pane may
      // wrap anywhere (a long checkout folder, a longer pid), and a wrap at a space loses
      // that space in the captured screen: read it with every space and wrap taken out.
      expect(after).toContain('agent: working\nnote: the agent (');
      expect(after.replace(/\s/g, '')).toMatch(/note:theagent\(.*node,pid\d+\)exitedwithstatus0/);
    } finally {
      pane.kill();
    }
  });
});
