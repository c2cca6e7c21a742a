/**
 * Interop: a running session that `tasks use` moves to another list between its turns.
 * Claude Code reads the changed settings about a second after they change (2.1.328): a
 * task call it makes sooner still goes to its old list, and only its calls after that go
 * to the newly bound one. `tasks use` records the move when it writes the settings, so
 * the move is read no earlier than those late writes to the old list: each list's `log`
 * holds every change made in it, `get`'s Work and last-change lines agree with it, each
 * list's `cost` counts the messages it was worked on in, and the lists add up to `cost
 * --all`, every message once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn, TurnUsage, UsageTurn } from './mock-model.js';
import { gate, liveFiles, waitFor } from './session-world.js';

const create = (subject: string) => ({ name: 'TaskCreate' as const, input: { subject, description: `${subject} (agent)` } });
const update = (input: Record<string, unknown>) => ({ name: 'TaskUpdate' as const, input });
const turn = (calls: Turn, usage: TurnUsage): UsageTurn => ({ calls, usage });
interface Tokens {
  input: number;
  output: number;
}
interface Report {
  tasks: Array<{ list: string; id: string; tokens: Tokens; messages: number }>;
  unattributed: { tokens: Tokens; messages: number };
  total: { tokens: Tokens; messages: number };
  lists?: Array<{ list: string; tokens: Tokens; messages: number }>;
}
type Event = { task: string; op: string; changes: Record<string, { old?: unknown; new?: unknown }> };

describe('the real Claude Code moved by tasks use while it runs', () => {
  it('a task call made before Claude Code reads the changed settings stays in the old list, and log, get and cost say so', async () => {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const project = path.join(home, 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const env = { HOME: home, USER: 'carol', XDG_CONFIG_HOME: path.join(config, 'xdg') };
    const tasks = (...args: string[]) => runAsync(config, args, { cwd: project, env });
    const json = async (...args: string[]) => {
      const r = await tasks(...args, '--json');
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const hold = gate();
    const agent = runAgent({
      configDir: config,
      listId: undefined,
      cwd: project,
      prompt: 'old then new',
      turns: [
        turn([create('Old one')], { input_tokens: 1 }),
        turn([update({ taskId: '1', status: 'in_progress' })], { input_tokens: 10 }),
        // Held while `tasks use` runs, then answered at once: Claude Code has not read the settings yet.
        turn([create('Still old')], { input_tokens: 100 }),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 1000 }),
        // A few seconds on: it has.
        turn([create('New one')], { output_tokens: 10 }),
        turn([update({ taskId: '1', status: 'in_progress' })], { output_tokens: 100 }),
        turn([update({ taskId: '1', status: 'completed' })], { output_tokens: 1000 }),
      ],
      beforeTurn: (i) => (i === 2 ? hold.wait() : i === 4 ? new Promise((r) => setTimeout(r, 4000)) : undefined),
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    await hold.arrived;
    const live = await waitFor('the live file', () => liveFiles(config)[0]);
    const s = live.sessionId;
    try {
      const used = await tasks('use', 'shared-x');
      expect(used.code, used.stderr).toBe(0);
      expect(used.stderr).toContain(`running session ${s.slice(0, 8)}`);
    } finally {
      hold.open();
    }
    await agent;
    // Where Claude Code wrote: the two calls right after the change in its own list, the later ones in shared-x.
    const read = (list: string, id: string) =>
      JSON.parse(fs.readFileSync(path.join(config, 'tasks', list, `${id}.json`), 'utf8')) as { subject: string; status: string };
    expect(read(s, '1')).toMatchObject({ subject: 'Old one', status: 'completed' });
    expect(read(s, '2')).toMatchObject({ subject: 'Still old', status: 'pending' });
    expect(read('shared-x', '1')).toMatchObject({ subject: 'New one', status: 'completed' });
    expect(fs.existsSync(path.join(config, 'tasks', 'shared-x', '2.json'))).toBe(false);
    // Task files settle (evidence is kept only of files not written in the last 3 s).
    await new Promise((r) => setTimeout(r, 3500));

    const changes = (events: Event[]) =>
      events.map((e) => `${e.op} #${e.task} ${String(e.changes.subject?.new ?? e.changes.status?.new ?? '')}`.trim());
    expect(changes((await json('-l', s, 'log')) as Event[])).toEqual([
      'create #1 Old one',
      'update #1 in_progress',
      'create #2 Still old',
      'update #1 completed',
    ]);
    expect(changes((await json('-l', 'shared-x', 'log')) as Event[])).toEqual([
      'create #1 New one',
      'update #1 in_progress',
      'update #1 completed',
    ]);
    const oldLog = await tasks('-l', s, 'log');
    expect(oldLog.stderr).not.toContain('no record');

    const oldCost = (await json('-l', s, 'cost')) as Report;
    const newCost = (await json('-l', 'shared-x', 'cost')) as Report;
    const all = (await json('cost', '--all')) as Report;
    // Old #1: the messages that began while it was in progress (100, 1000).
    expect(oldCost.tasks.find((t) => t.id === '1')).toMatchObject({ tokens: { input: 1100, output: 0 }, messages: 2 });
    expect(oldCost.total).toMatchObject({ tokens: { input: 1111, output: 0 }, messages: 4 });
    // shared-x #1: the message that began while it was in progress (1000); the rest unattributed.
    expect(newCost.tasks.find((t) => t.id === '1')).toMatchObject({ tokens: { input: 0, output: 1000 }, messages: 1 });
    expect(newCost.total).toMatchObject({ tokens: { input: 2, output: 1112 }, messages: 4 });
    // Every message once, and the lists add up to the whole.
    expect(all.total).toMatchObject({ tokens: { input: 1113, output: 1112 }, messages: 8 });
    expect(all.tasks.map((t) => [t.list, t.id, t.tokens.input + t.tokens.output])).toEqual(
      expect.arrayContaining([
        [s, '1', 1100],
        ['shared-x', '1', 1000],
      ]),
    );

    // get: its Work line and its last change, as cost and log have them.
    const got = await tasks('-l', s, 'get', '1');
    expect(got.stdout).toMatch(/Work: .*1\.1k tokens \(2 messages/);
    expect(got.stdout).toMatch(/last changed .* status in_progress → completed/);
    const gotNew = await tasks('-l', 'shared-x', 'get', '1');
    expect(gotNew.stdout).toMatch(/Work: .*1k tokens \(1 message,/);
    expect(gotNew.stdout).toMatch(/last changed .* status in_progress → completed/);
    const got2 = await tasks('-l', s, 'get', '2');
    expect(got2.stdout).toMatch(/last changed .* created/);
  });

  it('resumed after the binding is cleared, the session works in its own list again: log and cost place that run there', async () => {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const project = path.join(home, 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const env = { HOME: home, USER: 'carol', XDG_CONFIG_HOME: path.join(config, 'xdg') };
    const tasks = (...args: string[]) => runAsync(config, args, { cwd: project, env });
    const json = async (...args: string[]) => {
      const r = await tasks(...args, '--json');
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const hold = gate();
    const agent = runAgent({
      configDir: config,
      listId: undefined,
      cwd: project,
      prompt: 'old then new',
      turns: [
        turn([create('Old one')], { input_tokens: 1 }),
        turn([create('New one')], { input_tokens: 10 }),
        turn([update({ taskId: '1', status: 'in_progress' })], { input_tokens: 100 }),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 1000 }),
      ],
      beforeTurn: (i) => (i === 1 ? hold.wait() : undefined),
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    await hold.arrived;
    const s = (await waitFor('the live file', () => liveFiles(config)[0])).sessionId;
    try {
      expect((await tasks('use', 'shared-x')).code).toBe(0);
      // Long enough for Claude Code to read the change.
      await new Promise((r) => setTimeout(r, 4000));
    } finally {
      hold.open();
    }
    await agent;
    expect((await tasks('use', '--clear')).code).toBe(0);
    // No session runs: nothing moved. Resumed, it works in its own list again.
    await runAgent({
      configDir: config,
      listId: undefined,
      cwd: project,
      args: ['--resume', s],
      turns: [
        turn([create('Back home')], { output_tokens: 10 }),
        turn([update({ taskId: '2', status: 'in_progress' })], { output_tokens: 100 }),
        turn([update({ taskId: '2', status: 'completed' })], { output_tokens: 1000 }),
      ],
      closingUsage: { input_tokens: 3, output_tokens: 3 },
    });
    const read = (list: string, id: string) =>
      JSON.parse(fs.readFileSync(path.join(config, 'tasks', list, `${id}.json`), 'utf8')) as { subject: string; status: string };
    expect(read(s, '2')).toMatchObject({ subject: 'Back home', status: 'completed' });
    expect(read('shared-x', '1')).toMatchObject({ subject: 'New one', status: 'completed' });
    await new Promise((r) => setTimeout(r, 3500));

    const changes = (events: Event[]) =>
      events.map((e) => `${e.op} #${e.task} ${String(e.changes.subject?.new ?? e.changes.status?.new ?? '')}`.trim());
    expect(changes((await json('-l', s, 'log')) as Event[])).toEqual([
      'create #1 Old one',
      'create #2 Back home',
      'update #2 in_progress',
      'update #2 completed',
    ]);
    expect(changes((await json('-l', 'shared-x', 'log')) as Event[])).toEqual([
      'create #1 New one',
      'update #1 in_progress',
      'update #1 completed',
    ]);
    const oldCost = (await json('-l', s, 'cost')) as Report;
    const newCost = (await json('-l', 'shared-x', 'cost')) as Report;
    const all = (await json('cost', '--all')) as Report;
    // Own #2: the resumed run's message that began while it was in progress (1000 out).
    expect(oldCost.tasks.find((t) => t.id === '2')).toMatchObject({ tokens: { input: 0, output: 1000 }, messages: 1 });
    // Own list: the first turn (1), and the resumed run's four messages.
    expect(oldCost.total).toMatchObject({ tokens: { input: 4, output: 1113 }, messages: 5 });
    // shared-x: from the held turn on, to the first run's end.
    expect(newCost.total).toMatchObject({ tokens: { input: 1112, output: 2 }, messages: 4 });
    expect(all.total).toMatchObject({ tokens: { input: 1116, output: 1115 }, messages: 9 });
  });
});
