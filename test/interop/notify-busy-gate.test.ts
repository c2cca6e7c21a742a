/**
 * Interop: `tasks notify`'s list-completed with the real Claude Code planning a step at a
 * time (it completes #2 before it makes #3). A headless run is busy from its start to its
 * exit, so every task so far being completed between its steps is not "done": told once,
 * after the run ends, with every step; as the gate of `watch --until all-completed`.
 * A notify the agent itself left running in the background (a shell command of its turn,
 * run_in_background) waits for that agent's later turns too: the session it runs in is
 * left out only while the turn that started it goes on. An interactive session idle at its
 * prompt while a command it ran in the background goes on ("status":"shell") is at work
 * too: Claude Code starts a turn by itself when that command ends, and that turn may add
 * tasks (the tests it ran failed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, writeTask } from '../helpers/cli.js';
import { receiver, startNotify, until } from '../helpers/notify.js';
import { runAgent } from './agent.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const create = (subject: string): Turn[number] => ({ name: 'TaskCreate', input: { subject, description: `${subject}, carefully` } });
const set = (taskId: string, status: string): Turn[number] => ({ name: 'TaskUpdate', input: { taskId, status } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the real Claude Code at work on a list: notify waits for it', () => {
  it('a step at a time: list-completed not told between its steps; told once after its run, with every step', async () => {
    const w = world();
    const dir = path.join(w.config, 'tasks', 'ci');
    writeTask(dir, { id: '1', subject: 'Done before', description: '', status: 'completed', blocks: [], blockedBy: [] });
    fs.writeFileSync(path.join(dir, '.highwatermark'), '1');
    const hook = await receiver();
    cleanups.push(() => hook.close());
    const p = startNotify(w.config, ['-l', 'ci', '--to', `webhook:${hook.url}`, '--on', 'list-completed'], {
      HOME: w.home,
      XDG_STATE_HOME: path.join(w.config, 'state'),
      TASKS_NOTIFY_TICK_MS: '500',
    });
    cleanups.push(() => p.stop());
    await p.waitForErr('notify: following list ci');
    // #1 completed and no session: told at once, as before.
    await until(() => hook.got.length === 1, 'list-completed of the list as it was', 10_000);

    const first = gate();
    const between = gate();
    const agent = runAgent({
      configDir: w.config,
      listId: 'ci',
      cwd: w.dir('app'),
      turns: [[create('Step two')], [set('2', 'completed')], [create('Step three')], [set('3', 'completed')]],
      beforeTurn: async (i) => {
        if (i === 0) await first.wait();
        if (i === 2) await between.wait();
      },
    });
    try {
      await waitFor('the live-session file', () => liveFiles(w.config)[0]);
      await first.arrived;
      first.open();
      // #2 completed, #3 not made yet, the agent busy on its run: every task is completed, and nothing is told.
      await between.arrived;
      await waitFor('step two completed', () =>
        fs.existsSync(path.join(dir, '2.json')) && JSON.parse(fs.readFileSync(path.join(dir, '2.json'), 'utf8')).status === 'completed'
          ? true
          : undefined,
      );
      await sleep(2500);
      // A failure names what was told, and what notify said, so that a run elsewhere shows why.
      expect(hook.got, `told: ${JSON.stringify(hook.got.map((g) => g.body))}\nnotify: ${p.stderr()}`).toHaveLength(1);
      between.open();
      await agent;
      const endedAt = Date.now();
      await until(() => hook.got.length === 2, 'list-completed after the run', 10_000);
      expect((hook.got[1]?.at ?? 0) - endedAt).toBeLessThan(3_000);
      const told = JSON.parse(hook.got[1]?.body ?? '{}') as { event: string; tasks: Array<{ id: string }> };
      expect(told.event).toBe('list-completed');
      expect(told.tasks.map((t) => t.id)).toEqual(['1', '2', '3']);
      await sleep(1500);
      expect(hook.got).toHaveLength(2);
    } finally {
      first.open();
      between.open();
      // A failed attempt leaves the agent's run to end on its own: its outcome is this attempt's, never an unhandled rejection.
      await agent.catch(() => undefined);
    }
  });

  it('a notify the agent left running in the background: not told while its later turn goes on, told once it ends', async () => {
    const w = world();
    const proj = w.dir('web');
    // Its shell commands run without asking (a permission prompt would be a wait, which holds the list too).
    fs.writeFileSync(path.join(w.config, 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash'] } }));
    const out = path.join(w.config, 'sent.jsonl');
    const log = path.join(w.config, 'notify.log');
    const pidFile = path.join(w.config, 'notify.pid');
    let list = '';
    const byPrompt = (prompt: string): Turn | undefined => {
      if (/^create One$/m.test(prompt)) return [create('One')];
      if (/^tell me$/m.test(prompt)) {
        const notify = `XDG_STATE_HOME=${path.join(w.config, 'state')} TASKS_NOTIFY_TICK_MS=300 exec ${process.execPath} ${BIN} -l ${list} notify --on list-completed --to "exec:cat >> ${out}; echo >> ${out}"`;
        return [
          {
            name: 'Bash',
            input: { command: `sh -c 'echo $$ > ${pidFile}; ${notify}' > ${log} 2>&1`, description: 'Notify me', run_in_background: true },
          },
        ];
      }
      // #1 completed, then the tests run: the turn goes on, and may yet add tasks.
      if (/^finish$/m.test(prompt))
        return [set('1', 'completed'), { name: 'Bash', input: { command: 'sleep 5', description: 'Run the tests' } }];
      return undefined;
    };
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt, args: ['--permission-mode', 'default'] });
    cleanups.push(() => a.stop());
    cleanups.push(() => {
      try {
        process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGTERM');
      } catch {}
    });
    list = (await waitFor('the live file', () => liveFiles(w.config)[0])).sessionId;
    await a.waitFor((s) => /auto mode|for shortcuts|manual mode/.test(s), 'the prompt');
    const sent = () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '');
    a.type('create One');
    await waitFor('#1', () => fs.existsSync(path.join(w.config, 'tasks', list, '1.json')) || undefined);
    await sleep(1500);
    a.type('tell me');
    await waitFor(
      'notify following',
      () => (fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('following')) || undefined,
      30_000,
    );
    await sleep(1500);
    a.type('finish');
    const one = path.join(w.config, 'tasks', list, '1.json');
    await waitFor('#1 completed', () => JSON.parse(fs.readFileSync(one, 'utf8')).status === 'completed' || undefined);
    await sleep(2500);
    expect(sent(), `notify: ${fs.readFileSync(log, 'utf8')}`).toBe('');
    await until(() => sent() !== '', 'list-completed once the turn ended', 20_000);
    await sleep(1500);
    const told = sent()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { event: string; list: string });
    expect(told.map((t) => [t.event, t.list])).toEqual([['list-completed', list]]);
  });

  it('a command the agent ran in the background: not told while it runs; its end wakes the agent, which finds more to do', async () => {
    const w = world();
    const proj = w.dir('web');
    fs.writeFileSync(path.join(w.config, 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash'] } }));
    let woken = 0;
    const byPrompt = (prompt: string): Turn | undefined => {
      if (/^create One$/m.test(prompt)) return [create('One')];
      // #1 done, then its tests run in the background; the turn ends.
      if (/^go$/m.test(prompt)) {
        return [
          set('1', 'completed'),
          { name: 'Bash', input: { command: 'sleep 6; echo 1 failed', description: 'Run the tests', run_in_background: true } },
        ];
      }
      // The command's end, told to the model with no person's word: a failure to fix.
      if (/background-task event/i.test(prompt) && woken++ === 0) return [create('Fix the failing test')];
      if (/^finish$/m.test(prompt)) return [set('2', 'completed')];
      return undefined;
    };
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt, args: ['--permission-mode', 'default'] });
    cleanups.push(() => a.stop());
    const list = (await waitFor('the live file', () => liveFiles(w.config)[0])).sessionId;
    await a.waitFor((s) => /auto mode|for shortcuts|manual mode/.test(s), 'the prompt');
    const hook = await receiver();
    cleanups.push(() => hook.close());
    const p = startNotify(w.config, ['-l', list, '--to', `webhook:${hook.url}`, '--on', 'list-completed'], {
      HOME: w.home,
      XDG_STATE_HOME: path.join(w.config, 'state'),
      TASKS_NOTIFY_TICK_MS: '500',
    });
    cleanups.push(() => p.stop());
    await p.waitForErr('notify: following list');
    a.type('create One');
    await waitFor('#1', () => fs.existsSync(path.join(w.config, 'tasks', list, '1.json')) || undefined);
    await sleep(1000);
    a.type('go');
    // #1 completed, the agent at its prompt, its tests running: not done.
    await waitFor(
      'the background command',
      () => liveFiles(w.config).some((f) => (f as { status?: string }).status === 'shell') || undefined,
    );
    await sleep(2500);
    expect(
      hook.got.map((g) => g.body),
      `notify: ${p.stderr()}`,
    ).toEqual([]);
    // The tests end; the agent, woken, adds a task: still not done.
    await waitFor('#2', () => fs.existsSync(path.join(w.config, 'tasks', list, '2.json')) || undefined, 30_000);
    await sleep(2000);
    expect(hook.got.map((g) => g.body)).toEqual([]);
    a.type('finish');
    await until(() => hook.got.length === 1, 'list-completed once #2 is done', 20_000);
    expect(JSON.parse(hook.got[0]?.body ?? '{}')).toMatchObject({ event: 'list-completed', list });
    await sleep(7000);
    expect(hook.got).toHaveLength(1);
  });
});
