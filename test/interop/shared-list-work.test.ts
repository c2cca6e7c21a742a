/**
 * Interop: a list shared through CLAUDE_CODE_TASK_LIST_ID, as a team uses one. Two real
 * Claude Code sessions take turns on it (one completes the other's task), a fork of one
 * goes on on the same list, and a session killed mid-run is resumed there. `tasks log`
 * names the session of each change, once; `tasks cost` gives each task the messages of
 * the sessions that had it in progress, once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn, TurnUsage, UsageTurn } from './mock-model.js';
import { deferred } from './sync.js';

const create = (subject: string) => ({ name: 'TaskCreate' as const, input: { subject, description: `${subject} (agent)` } });
const update = (input: Record<string, unknown>) => ({ name: 'TaskUpdate' as const, input });
const list = { name: 'TaskList' as const, input: {} };
const turn = (calls: Turn, usage: TurnUsage): UsageTurn => ({ calls, usage });
type Event = {
  task: string;
  op: string;
  source: string;
  who: { kind: string; session: string | null };
  changes: Record<string, { new?: unknown }>;
};
interface Tokens {
  input: number;
  output: number;
}
interface Report {
  tasks: Array<{ id: string; tokens: Tokens; messages: number }>;
  sessions: Array<{ session: string; tokens: Tokens; messages: number }>;
  unattributed: { tokens: Tokens; messages: number };
  total: { tokens: Tokens; messages: number };
}

function world() {
  const config = tempConfig();
  const project = path.join(config, 'home', 'work', 'app');
  fs.mkdirSync(project, { recursive: true });
  const env = { USER: 'carol', XDG_CONFIG_HOME: path.join(config, 'xdg') };
  const json = async <T>(...args: string[]) => {
    const r = await runAsync(config, [...args, '--json'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as T;
  };
  return { config, project, env, json };
}
const input = (r: Report, id: string) => r.tasks.find((t) => t.id === id)?.tokens.input;

describe('the real Claude Code: two sessions, a fork and a crash on one shared list', () => {
  it('interleaved turns, one completing the other task: each change named with its session, each message once', async () => {
    const { config, json } = world();
    const aAt = [deferred(), deferred(), deferred()];
    const bAt = [deferred(), deferred(), deferred()];
    const [a, b] = await Promise.all([
      runAgent({
        configDir: config,
        listId: 'team',
        model: 'claude-opus-5-5',
        turns: [
          [create('Backend')],
          [update({ taskId: '1', status: 'in_progress', owner: 'a' })],
          turn([list], { input_tokens: 100, output_tokens: 10 }),
          turn([list], { input_tokens: 200, output_tokens: 20 }),
        ],
        closingUsage: { input_tokens: 1, output_tokens: 1 },
        beforeTurn: async (i) => {
          if (i === 2) aAt[0]?.resolve();
          if (i === 3) {
            aAt[1]?.resolve();
            // B completes #1 before A's last turn: that message is no longer #1's.
            await bAt[2]?.promise;
          }
        },
      }),
      runAgent({
        configDir: config,
        listId: 'team',
        model: 'claude-opus-5-5',
        turns: [
          [create('Frontend')],
          [update({ taskId: '2', status: 'in_progress', owner: 'b' })],
          turn([list], { input_tokens: 3000, output_tokens: 300 }),
          turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 4000, output_tokens: 400 }),
          turn([update({ taskId: '2', status: 'completed' })], { input_tokens: 5000, output_tokens: 500 }),
        ],
        closingUsage: { input_tokens: 2, output_tokens: 2 },
        beforeTurn: async (i) => {
          if (i === 0) await aAt[0]?.promise;
          if (i === 3) await aAt[1]?.promise;
          if (i === 4) bAt[2]?.resolve();
        },
      }),
    ]);
    const [sa, sb] = [a.stream.sessionId, b.stream.sessionId] as string[];
    const log = await json<Event[]>('-l', 'team', 'log');
    const name = (s: string | null) => (s === sa ? 'A' : s === sb ? 'B' : s);
    expect(log.map((e) => `${e.op} #${e.task} ${name(e.who.session)}`)).toEqual([
      'create #1 A',
      'update #1 A',
      'create #2 B',
      'update #2 B',
      'update #1 B',
      'update #2 B',
    ]);
    const r = await json<Report>('-l', 'team', 'cost');
    // #1: A's messages from its start until B completed it: 100 (A's 200 came after, its
    // request held until then); B's message that completed it is B's, on #2.
    expect(input(r, '1')).toBe(100);
    expect(input(r, '2')).toBe(3000 + 4000 + 5000);
    const sum = (x: Report['sessions']) => x.reduce((n, s) => n + s.tokens.input, 0);
    expect(r.total.tokens.input).toBe(sum(r.sessions));
    expect(r.sessions.find((s) => s.session === sa)?.tokens.input).toBe(10 + 10 + 100 + 200 + 1);
    expect(r.sessions.find((s) => s.session === sb)?.tokens.input).toBe(10 + 10 + 3000 + 4000 + 5000 + 2);
  });

  it('a fork on the shared list and a session killed and resumed there: each change and message once', async () => {
    const { config, project, env, json } = world();
    const parent = await runAgent({
      configDir: config,
      listId: 'team',
      model: 'claude-opus-5-5',
      turns: [
        [create('Plan')],
        [update({ taskId: '1', status: 'in_progress', owner: 'p' })],
        turn([list], { input_tokens: 300, output_tokens: 30 }),
      ],
      closingUsage: { input_tokens: 1, output_tokens: 1 },
    });
    const p = parent.stream.sessionId as string;
    const fork = await runAgent({
      configDir: config,
      listId: 'team',
      model: 'claude-opus-5-5',
      args: ['--resume', p, '--fork-session'],
      turns: [
        turn([create('Fork work')], { input_tokens: 5000, output_tokens: 500 }),
        turn([update({ taskId: '2', status: 'in_progress', owner: 'f' })], { input_tokens: 6000, output_tokens: 600 }),
        turn([list], { input_tokens: 7000, output_tokens: 700 }),
      ],
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    const f = fork.stream.sessionId as string;
    // A third session starts #3 and is killed while its next request waits; then resumed, it completes #3.
    const crashed = await runAgent({
      configDir: config,
      listId: 'team',
      model: 'claude-opus-5-5',
      turns: [
        [create('Risky')],
        [update({ taskId: '3', status: 'in_progress', owner: 'k' })],
        turn([list], { input_tokens: 40, output_tokens: 4 }),
        [list],
      ],
      killAtTurn: 3,
    });
    const k = crashed.stream.sessionId as string;
    await runAgent({
      configDir: config,
      listId: 'team',
      model: 'claude-opus-5-5',
      args: ['--resume', k],
      turns: [turn([update({ taskId: '3', status: 'completed' })], { input_tokens: 800, output_tokens: 80 })],
      closingUsage: { input_tokens: 3, output_tokens: 3 },
    });
    const name = (s: string | null) => (s === p ? 'P' : s === f ? 'F' : s === k ? 'K' : s);
    const log = await json<Event[]>('-l', 'team', 'log');
    expect(log.map((e) => `${e.op} #${e.task} ${name(e.who.session)}`)).toEqual([
      'create #1 P',
      'update #1 P',
      'create #2 F',
      'update #2 F',
      'create #3 K',
      'update #3 K',
      'update #3 K',
    ]);
    const text = await runAsync(config, ['-l', 'team', 'log'], { cwd: project, env });
    expect(text.stdout).not.toContain('no record');
    const r = await json<Report>('-l', 'team', 'cost');
    // #1: the parent's 300 and closing 1, not the fork's copies of them; the fork never started #1.
    expect(input(r, '1')).toBe(301);
    expect(input(r, '2')).toBe(7000 + 2);
    // #3: the killed run's 40 (its last request never answered) and the resumed run's completing 800.
    expect(input(r, '3')).toBe(40 + 800);
    const bySession = new Map(r.sessions.map((s) => [s.session, s.tokens.input]));
    expect(bySession.get(p)).toBe(10 + 10 + 300 + 1);
    expect(bySession.get(f)).toBe(5000 + 6000 + 7000 + 2);
    expect(r.total.tokens.input).toBe([...bySession.values()].reduce((a, b) => a + b, 0));
  });
});
