import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { FAKE, outs } from '../helpers/run-agent.js';
import { StreamScript } from '../helpers/stream-lines.js';
import { type Pane, startInTmux, tmuxAvailable } from '../helpers/tmux.js';

/**
 * `tasks run` in a terminal before its list is known: a line says what it waits for (and
 * for how long) at once, instead of a blank screen; a list named that does not exist is
 * said, with the near name meant. Piped, with --json, or with stderr not a terminal,
 * nothing of it is written.
 */

const panes: Pane[] = [];
afterEach(() => {
  for (const p of panes.splice(0)) p.kill();
});

/** An agent that prints nothing until the file `go` exists in the config folder. */
function silentUntilGo(config: string): string[] {
  return ['sh', '-c', `until [ -e '${path.join(config, 'go')}' ]; do sleep 0.1; done`];
}

function start(config: string, args: string[], pipeTo = ''): Pane {
  const pane = startInTmux(config, args, { width: 120, height: 16 }, {}, pipeTo);
  panes.push(pane);
  return pane;
}

const SAY_SESSION = /waiting for sh \(pid \d+\) to say its session… (\d+)s/;

describe.skipIf(!tmuxAvailable())('tasks run in a terminal, before its list is known', () => {
  it('says at once that it waits for the agent to say its session, counts the time, and leaves no trace of it', async () => {
    const config = tempConfig();
    const pane = start(config, ['run', '--', ...silentUntilGo(config)]);
    const first = await pane.waitFor((s) => SAY_SESSION.test(s), 'the waiting line');
    const seconds = Number(SAY_SESSION.exec(first)?.[1]);
    await pane.waitFor((s) => Number(SAY_SESSION.exec(s)?.[1]) > seconds, 'the time to count up');
    fs.writeFileSync(path.join(config, 'go'), '');
    const end = await pane.waitFor((s) => s.includes('EXIT='), 'the end');
    expect(end).toContain('EXIT=2');
    expect(end).toContain('No list: none was named, and the agent never said its session.');
    expect(end).not.toMatch(/waiting for sh/);
  });

  it('a list named that does not exist: the line says so after a while, with the near name, and waits on', async () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'build-99'), { id: '1', subject: 'Old', status: 'completed', blocks: [], blockedBy: [] });
    const pane = start(config, ['-l', 'build-9', 'run', '--', ...silentUntilGo(config)]);
    await pane.waitFor((s) => /waiting for sh \(pid \d+\) to begin its run… \d+s/.test(s), 'the waiting line');
    await pane.waitFor(
      (s) => /list "build-9" does not exist yet \(did you mean build-99\?\); waiting for sh \(pid \d+\) to begin its run… \d+s/.test(s),
      'the missing list to be said',
    );
    fs.writeFileSync(path.join(config, 'go'), '');
    const end = await pane.waitFor((s) => s.includes('EXIT='), 'the end');
    expect(end).not.toMatch(/waiting for sh/);
  });

  it('in the live view, a list named that never appears is said after a while, with the near name, still waiting', async () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'build-99'), { id: '1', subject: 'Old', status: 'completed', blocks: [], blockedBy: [] });
    const plan = path.join(config, 'plan.json');
    fs.writeFileSync(plan, JSON.stringify({ steps: [...outs(new StreamScript().init().lines), { until: path.join(config, 'go') }] }));
    const pane = start(config, ['-l', 'build-9', 'run', '--', process.execPath, FAKE, plan]);
    const waiting = await pane.waitFor((s) => s.includes('Waiting for the list to appear'), 'the live view');
    expect(waiting).not.toContain('does not exist yet');
    const said = await pane.waitFor(
      (s) => s.includes('list "build-9" does not exist yet (did you mean build-99?); waiting for it'),
      'the missing list to be said',
    );
    expect(said).toMatch(/tasks\/build-9\b/);
    fs.writeFileSync(path.join(config, 'go'), '');
    await pane.waitFor((s) => s.includes('EXIT='), 'the end');
  });

  for (const [how, args, pipeTo] of [
    ['stdout piped', ['run'], ' | cat'],
    ['stderr not a terminal', ['run'], ' 2>/dev/null'],
    ['--json', ['--json', 'run'], ''],
  ] as const) {
    it(`${how}: no waiting line is written`, async () => {
      const config = tempConfig();
      const pane = start(config, [...args, '--', ...silentUntilGo(config)], pipeTo);
      await new Promise((r) => setTimeout(r, 2500));
      expect(pane.screen()).not.toMatch(/waiting for sh|does not exist yet/);
      fs.writeFileSync(path.join(config, 'go'), '');
      const end = await pane.waitFor((s) => s.includes('EXIT='), 'the end');
      expect(end).not.toMatch(/waiting for sh|does not exist yet/);
      expect(end).not.toContain('\r');
    });
  }
});

describe.skipIf(!tmuxAvailable())('tasks watch in a terminal, a list named that does not exist', () => {
  it('the live view says the near name meant, where it would cover the note said before it', async () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'build-99'), { id: '1', subject: 'Old', status: 'completed', blocks: [], blockedBy: [] });
    const pane = start(config, ['-l', 'build-9', 'watch', '--until', 'all-completed', '--timeout', '4s']);
    // In the view itself: its spinner before the words (the note before it is on the main screen, which the view covers).
    const said = await pane.waitFor(
      (s) => /[\u2800-\u28ff] list "build-9" does not exist yet \(did you mean build-99\?\); waiting for it/.test(s),
      'the missing list to be said in the view',
    );
    expect(said).toMatch(/tasks\/build-9\b/);
    expect(said).not.toContain('Waiting for the list to appear');
    await pane.waitFor((s) => s.includes('EXIT='), 'the end');
  });

  it('with no near name, the view waits for the list to appear, as before', async () => {
    const config = tempConfig();
    const pane = start(config, ['-l', 'build-9', 'watch', '--until', 'all-completed', '--timeout', '3s']);
    const waiting = await pane.waitFor((s) => s.includes('Waiting for the list to appear'), 'the live view');
    expect(waiting).not.toContain('does not exist yet');
    await pane.waitFor((s) => s.includes('EXIT='), 'the end');
  });
});
