/**
 * Interop: a session resumed under another list. A real Claude Code session works on
 * list `alpha` (CLAUDE_CODE_TASK_LIST_ID), then is resumed (`--resume`, the same session
 * and transcript) with CLAUDE_CODE_TASK_LIST_ID=beta and works there. Both lists have a
 * `#1`; resumed once more under `alpha`, it completes alpha's `#1`. `tasks log` and `tasks cost` of each list must hold what was done in that list
 * alone, each change and each message once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn, TurnUsage, UsageTurn } from './mock-model.js';

const create = (subject: string) => ({ name: 'TaskCreate' as const, input: { subject, description: `${subject} (agent)` } });
const update = (input: Record<string, unknown>) => ({ name: 'TaskUpdate' as const, input });
const list = { name: 'TaskList' as const, input: {} };
const turn = (calls: Turn, usage: TurnUsage): UsageTurn => ({ calls, usage });
type Event = { task: string; op: string; source: string; who: { session: string | null }; changes: Record<string, { new?: unknown }> };
interface Tokens {
  input: number;
  output: number;
}
interface Report {
  tasks: Array<{ id: string; tokens: Tokens; messages: number; activeMs: number }>;
  unattributed: { tokens: Tokens; messages: number };
  total: { tokens: Tokens; messages: number };
  lists: Array<{ list: string; tokens: Tokens }>;
}

describe('the real Claude Code resumed under another list', () => {
  it('log and cost of each list hold only what was done in it, once', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const env = { USER: 'carol', XDG_CONFIG_HOME: path.join(config, 'xdg') };
    const run = async (...args: string[]) => {
      const r = await runAsync(config, [...args, '--json'], { cwd: project, env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const first = await runAgent({
      configDir: config,
      listId: 'alpha',
      cwd: project,
      model: 'claude-opus-5-5',
      turns: [
        [create('Alpha one')],
        [create('Alpha two')],
        [update({ taskId: '1', status: 'in_progress', owner: 'a' })],
        turn([list], { input_tokens: 300, output_tokens: 30 }),
      ],
      closingUsage: { input_tokens: 1, output_tokens: 1 },
    });
    const s = first.stream.sessionId as string;
    // The same session, resumed with its task tools on another list.
    const second = await runAgent({
      configDir: config,
      listId: 'beta',
      cwd: project,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [
        turn([create('Beta one')], { input_tokens: 5000, output_tokens: 500 }),
        turn([update({ taskId: '1', status: 'in_progress', owner: 'b' })], { input_tokens: 6000, output_tokens: 600 }),
        turn([list], { input_tokens: 7000, output_tokens: 700 }),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 8000, output_tokens: 800 }),
      ],
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    expect(second.stream.sessionId).toBe(s);
    // And back on alpha, where #1 was left in progress: the run goes on with it, and completes it.
    const third = await runAgent({
      configDir: config,
      listId: 'alpha',
      cwd: project,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [
        turn([list], { input_tokens: 900, output_tokens: 90 }),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 1000, output_tokens: 100 }),
      ],
      closingUsage: { input_tokens: 3, output_tokens: 3 },
    });
    expect(third.stream.sessionId).toBe(s);
    const alpha = JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'alpha', '1.json'), 'utf8')) as { status: string };
    expect(alpha.status).toBe('completed');

    const alphaLog = (await run('-l', 'alpha', 'log')) as Event[];
    expect(alphaLog.map((e) => `${e.op} #${e.task} ${e.source}`)).toEqual([
      'create #1 transcript',
      'create #2 transcript',
      'update #1 transcript',
      'update #1 transcript',
    ]);
    expect(alphaLog.every((e) => e.who.session === s)).toBe(true);
    const betaLog = (await run('-l', 'beta', 'log')) as Event[];
    expect(betaLog.map((e) => `${e.op} #${e.task} ${e.source}`)).toEqual([
      'create #1 transcript',
      'update #1 transcript',
      'update #1 transcript',
    ]);
    expect(betaLog[0]?.changes.subject?.new).toBe('Beta one');

    const text = await runAsync(config, ['-l', 'alpha', 'log'], { cwd: project, env });
    expect(text.stdout).not.toContain('no record');
    const alphaCost = (await run('-l', 'alpha', 'cost')) as Report;
    const betaCost = (await run('-l', 'beta', 'cost')) as Report;
    const a1 = alphaCost.tasks.find((t) => t.id === '1');
    const b1 = betaCost.tasks.find((t) => t.id === '1');
    // alpha #1: the first run's messages after its start (300, the closing 1) and the third
    // run's up to its completion (900, 1000); the second run worked in beta, not on alpha's #1.
    expect(a1?.tokens).toEqual({ input: 2201, output: 221, cacheRead: 0, cacheCreation: 0 });
    expect(a1?.messages).toBe(4);
    // beta #1: from its start to its completion (7000 + 8000).
    expect(b1?.tokens).toEqual({ input: 15_000, output: 1500, cacheRead: 0, cacheCreation: 0 });
    expect(b1?.messages).toBe(2);
    // Every message once across the two lists.
    const all = (await run('cost', '--all')) as Report;
    expect(all.total.messages).toBe(first.stream.calls.length + second.stream.calls.length + third.stream.calls.length + 3);
    expect(all.total.tokens.input).toBe(10 + 10 + 10 + 300 + 1 + 5000 + 6000 + 7000 + 8000 + 2 + 900 + 1000 + 3);
    expect(all.tasks.filter((t) => t.id === '1').map((t) => t.tokens.input)).toEqual([2201, 15_000]);
    // Each message in the list its session was on when it began: the lists' own totals add up to the whole.
    expect(alphaCost.total.tokens.input).toBe(10 + 10 + 10 + 300 + 1 + 900 + 1000 + 3);
    expect(betaCost.total.tokens.input).toBe(5000 + 6000 + 7000 + 8000 + 2);
    expect(all.lists.map((l) => [l.list, l.tokens.input])).toEqual([
      ['alpha', alphaCost.total.tokens.input],
      ['beta', betaCost.total.tokens.input],
    ]);
  });

  it("a session of its own list resumed on a named list: each list's #1 its own changes and messages", async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const env = { USER: 'carol', XDG_CONFIG_HOME: path.join(config, 'xdg') };
    const run = async (...args: string[]) => {
      const r = await runAsync(config, [...args, '--json'], { cwd: project, env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const first = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: project,
      model: 'claude-opus-5-5',
      turns: [[create('Mine')], [update({ taskId: '1', status: 'in_progress' })], turn([list], { input_tokens: 300, output_tokens: 30 })],
      closingUsage: { input_tokens: 1, output_tokens: 1 },
    });
    const s = first.stream.sessionId as string;
    await runAgent({
      configDir: config,
      listId: 'team',
      cwd: project,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [
        turn([create('Shared')], { input_tokens: 5000, output_tokens: 500 }),
        turn([update({ taskId: '1', status: 'in_progress' })], { input_tokens: 6000, output_tokens: 600 }),
        turn([list], { input_tokens: 7000, output_tokens: 700 }),
      ],
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    const own = (await run('-l', s, 'log')) as Event[];
    expect(own.map((e) => `${e.op} #${e.task}`)).toEqual(['create #1', 'update #1']);
    const team = (await run('-l', 'team', 'log')) as Event[];
    expect(team.map((e) => `${e.op} #${e.task}`)).toEqual(['create #1', 'update #1']);
    expect(team[0]?.changes.subject?.new).toBe('Shared');
    const ownCost = (await run('-l', s, 'cost')) as Report;
    const teamCost = (await run('-l', 'team', 'cost')) as Report;
    expect(ownCost.tasks.find((t) => t.id === '1')?.tokens.input).toBe(301);
    expect(teamCost.tasks.find((t) => t.id === '1')?.tokens.input).toBe(7002);
  });

  it('a fork resumed on another list: its copies of the parent entries count in neither, its own work in its list', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const env = { USER: 'carol', XDG_CONFIG_HOME: path.join(config, 'xdg') };
    const run = async (...args: string[]) => {
      const r = await runAsync(config, [...args, '--json'], { cwd: project, env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const parent = await runAgent({
      configDir: config,
      listId: 'alpha',
      cwd: project,
      model: 'claude-opus-5-5',
      turns: [
        [create('Alpha one')],
        [update({ taskId: '1', status: 'in_progress' })],
        turn([list], { input_tokens: 300, output_tokens: 30 }),
      ],
      closingUsage: { input_tokens: 1, output_tokens: 1 },
    });
    const p = parent.stream.sessionId as string;
    const forked = await runAgent({
      configDir: config,
      listId: 'beta',
      cwd: project,
      model: 'claude-opus-5-5',
      args: ['--resume', p, '--fork-session'],
      turns: [
        turn([create('Beta one')], { input_tokens: 5000, output_tokens: 500 }),
        turn([update({ taskId: '1', status: 'in_progress' })], { input_tokens: 6000, output_tokens: 600 }),
        turn([list], { input_tokens: 7000, output_tokens: 700 }),
      ],
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    const f = forked.stream.sessionId as string;
    const alphaLog = (await run('-l', 'alpha', 'log')) as Event[];
    expect(alphaLog.map((e) => `${e.op} #${e.task} ${e.who.session === p ? 'P' : e.who.session === f ? 'F' : e.who.session}`)).toEqual([
      'create #1 P',
      'update #1 P',
    ]);
    const betaLog = (await run('-l', 'beta', 'log')) as Event[];
    expect(betaLog.map((e) => `${e.op} #${e.task} ${e.who.session === p ? 'P' : e.who.session === f ? 'F' : e.who.session}`)).toEqual([
      'create #1 F',
      'update #1 F',
    ]);
    const alphaCost = (await run('-l', 'alpha', 'cost')) as Report;
    const betaCost = (await run('-l', 'beta', 'cost')) as Report;
    expect(alphaCost.tasks.find((t) => t.id === '1')?.tokens.input).toBe(301);
    expect(betaCost.tasks.find((t) => t.id === '1')?.tokens.input).toBe(7002);
    const all = (await run('cost', '--all')) as Report;
    expect(all.total.tokens.input).toBe(10 + 10 + 300 + 1 + 5000 + 6000 + 7000 + 2);
  });

  it("a run killed on one list, resumed on another: the killed run's task keeps its own messages only", async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const env = { USER: 'carol', XDG_CONFIG_HOME: path.join(config, 'xdg') };
    const run = async (...args: string[]) => {
      const r = await runAsync(config, [...args, '--json'], { cwd: project, env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const first = await runAgent({
      configDir: config,
      listId: 'alpha',
      cwd: project,
      model: 'claude-opus-5-5',
      turns: [
        [create('Alpha one')],
        [update({ taskId: '1', status: 'in_progress' })],
        turn([list], { input_tokens: 300, output_tokens: 30 }),
        [list],
      ],
      killAtTurn: 3,
    });
    const s = first.stream.sessionId as string;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await runAgent({
      configDir: config,
      listId: 'beta',
      cwd: project,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [
        turn([create('Beta one')], { input_tokens: 5000, output_tokens: 500 }),
        turn([update({ taskId: '1', status: 'in_progress' })], { input_tokens: 6000, output_tokens: 600 }),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 7000, output_tokens: 700 }),
      ],
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    const alphaLog = (await run('-l', 'alpha', 'log')) as Event[];
    expect(alphaLog.map((e) => `${e.op} #${e.task}`)).toEqual(['create #1', 'update #1']);
    const alphaCost = (await run('-l', 'alpha', 'cost')) as Report;
    const betaCost = (await run('-l', 'beta', 'cost')) as Report;
    const a1 = alphaCost.tasks.find((t) => t.id === '1');
    expect(a1?.tokens.input).toBe(300);
    // Its time: the killed run's part, not the 3 s until the resume, nor the run on beta.
    expect(a1?.activeMs).toBeLessThan(2500);
    expect(betaCost.tasks.find((t) => t.id === '1')?.tokens.input).toBe(7000);
  });
});
