/**
 * `tasks notify`'s list-completed while an agent still works on the list: an agent that
 * plans a step at a time has every task so far completed between its steps, so "done"
 * told then is told too early (and told again at the real end). It waits as the gate of
 * `watch --until all-completed` does, for the same sessions. The agent is a real process
 * (test/helpers/step-agent.mjs) that writes its live-session file and its tasks as Claude
 * Code does, a step at a time, each step let go by the test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, run, tempConfig, writeTask } from '../helpers/cli.js';
import { notifyEnv, notifyHarness, until } from '../helpers/notify.js';
import { stepAgents, waitForFile, waitForProcess } from '../helpers/step-agents.js';

const task = (id: string, status: string) => ({ id, subject: `step ${id}`, description: '', status, blocks: [], blockedBy: [] });

const agents = stepAgents();
const h = notifyHarness();
afterEach(async () => {
  await h.cleanup();
  agents.killAll();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function seedCi(config: string): string {
  const dir = path.join(config, 'tasks', 'ci');
  writeTask(dir, task('1', 'completed'));
  fs.writeFileSync(path.join(dir, '.highwatermark'), '1');
  return dir;
}

/** An exec: target appending each event's JSON document to a file, and what it holds. */
function execTarget(config: string) {
  const out = path.join(config, 'sent.jsonl');
  return {
    to: `exec:cat >> '${out}'; echo >> '${out}'`,
    sent: (): Array<{ event: string; text: string; tasks: unknown[] }> =>
      fs.existsSync(out)
        ? fs
            .readFileSync(out, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l))
        : [],
  };
}

describe('notify: list-completed waits while an agent of the list is at work', () => {
  it('a step at a time on a named list: not told between steps; told once, with every step, when the agent is idle', async () => {
    const config = tempConfig();
    seedCi(config);
    const target = execTarget(config);
    const agent = agents.start(
      config,
      [
        { status: 'busy' },
        { until: 'plan' },
        { task: task('2', 'pending') },
        { until: 'do' },
        { task: task('2', 'completed') },
        { until: 'idle' },
        { status: 'idle' },
        { until: 'end' },
      ],
      { asClaude: true },
    );
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    const p = h.notify(config, ['-l', 'ci', '--on', 'list-completed', '--to', target.to], { TASKS_NOTIFY_TICK_MS: '300' });
    await p.waitForErr('notify: following list ci');
    await sleep(1500);
    expect(target.sent()).toEqual([]);

    agent.go('plan');
    await sleep(800);
    agent.go('do');
    // Every task is completed again, and the agent still busy: nothing.
    await sleep(2000);
    expect(target.sent()).toEqual([]);

    agent.go('idle');
    await until(() => target.sent().length === 1, 'list-completed once the agent is idle', 15_000);
    expect(target.sent()[0]).toMatchObject({
      event: 'list-completed',
      text: expect.stringMatching(/^every task of list ci .*is completed \(2\)$/),
    });
    // It ends (its live-session file goes): the same finished list, not told again.
    agent.go('end');
    await agent.exited;
    await sleep(1500);
    expect(target.sent()).toHaveLength(1);
    expect((await p.stop()).code).toBe(0);
  });

  it('an agent that starts after notify has looked, and finishes a step before its next round: not told', async () => {
    const config = tempConfig();
    seedCi(config);
    const target = execTarget(config);
    // Rounds far apart: what a change brings is looked at with the sessions as they are then, not as the last round found them.
    const p = h.notify(config, ['-l', 'ci', '--on', 'list-completed', '--to', target.to], { TASKS_NOTIFY_TICK_MS: '60000' });
    await p.waitForErr('notify: following list ci');
    // #1 completed and no agent: told at once.
    await until(() => target.sent().length === 1, 'list-completed of the list as it was', 10_000);
    const agent = agents.start(
      config,
      [{ status: 'busy' }, { until: 'plan' }, { task: task('2', 'pending') }, { task: task('2', 'completed') }, { until: 'end' }],
      { asClaude: true },
    );
    await waitForFile(path.join(config, 'sessions', `${agent.child.pid}.json`));
    agent.go('plan');
    const second = path.join(config, 'tasks', 'ci', '2.json');
    await until(() => fs.existsSync(second) && JSON.parse(fs.readFileSync(second, 'utf8')).status === 'completed', '#2 completed', 10_000);
    await sleep(2500);
    expect(target.sent()).toHaveLength(1);
    agent.go('end');
    await agent.exited;
    expect((await p.stop()).code).toBe(0);
  });

  it('an agent just started (its process names the list, no live-session file yet) holds --once too', async () => {
    const config = tempConfig();
    seedCi(config);
    const target = execTarget(config);
    const agent = agents.start(config, [{ until: 'start' }, { status: 'busy' }, { task: task('2', 'completed') }, { wait: 300 }], {
      asClaude: true,
    });
    await waitForProcess(agent.child.pid as number);
    const once = () =>
      run(config, ['-l', 'ci', 'notify', '--once', '--on', 'list-completed', '--to', target.to], { env: notifyEnv(config) });
    const starting = once();
    expect(starting.code, starting.stderr).toBe(0);
    expect(target.sent()).toEqual([]);
    agent.go('start');
    await agent.exited;
    const ended = once();
    expect(ended.code, ended.stderr).toBe(0);
    expect(target.sent().map((e) => e.text)).toEqual([expect.stringMatching(/is completed \(2\)$/)]);
  });

  it("notify --once run from the busy agent's own shell does not wait for that agent", async () => {
    const config = tempConfig();
    seedCi(config);
    const target = execTarget(config);
    const out = path.join(config, 'own-notify.json');
    const agent = agents.start(
      config,
      [{ status: 'busy' }, { exec: { args: [BIN, '-l', 'ci', 'notify', '--once', '--on', 'list-completed', '--to', target.to], out } }],
      { asClaude: true },
    );
    await agent.exited;
    const r = JSON.parse(fs.readFileSync(out, 'utf8')) as { code: number; stdout: string; stderr: string };
    expect(r.code, r.stderr).toBe(0);
    expect(target.sent().map((e) => e.event)).toEqual(['list-completed']);
  });
});

describe("notify: a following notify started from an agent's own shell", () => {
  it('left running in the background, waits for that agent at its later turns as for any other', async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'ci');
    writeTask(dir, task('1', 'pending'));
    fs.writeFileSync(path.join(dir, '.highwatermark'), '1');
    const target = execTarget(config);
    const log = path.join(config, 'notify.log');
    const agent = agents.start(
      config,
      [
        { status: 'busy' },
        // The agent's turn starts notify in the background (a shell command left running), and ends.
        {
          spawn: {
            args: [BIN, '-l', 'ci', 'notify', '--on', 'list-completed', '--to', target.to],
            env: notifyEnv(config, { TASKS_NOTIFY_TICK_MS: '300' }),
            log,
          },
        },
        { until: 'started' },
        // At its prompt with a command in the background (notify itself), as Claude Code says it.
        { status: 'shell' },
        // Its next turn works a step at a time.
        { until: 'work' },
        { status: 'busy' },
        { task: task('1', 'in_progress') },
        { task: task('1', 'completed') },
        { until: 'next' },
        { task: task('2', 'pending') },
        { task: task('2', 'completed') },
        { status: 'shell' },
        { until: 'end' },
      ],
      { asClaude: true },
    );
    h.later(() => {
      try {
        process.kill(Number(fs.readFileSync(`${log}.pid`, 'utf8')), 'SIGTERM');
      } catch {}
    });
    await until(() => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('following list ci'), 'notify started by the agent');
    agent.go('started');
    await sleep(2000);
    agent.go('work');
    const first = path.join(dir, '1.json');
    await until(() => JSON.parse(fs.readFileSync(first, 'utf8')).status === 'completed', '#1 completed');
    // Every task so far completed between the agent's steps, the agent busy: nothing.
    await sleep(2500);
    expect(target.sent()).toEqual([]);
    agent.go('next');
    await until(() => target.sent().length === 1, 'list-completed once the agent is idle', 15_000);
    expect(target.sent()[0]?.text).toMatch(/is completed \(2\)$/);
    agent.go('end');
    await agent.exited;
  });
});
