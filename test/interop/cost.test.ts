/**
 * Interop: what each task cost, from the transcripts the real Claude Code writes. The
 * stand-in model states each message's usage and model; `tasks cost --json` (the built
 * binary, with its persistent cache) must count every message toward the tasks its
 * session had in progress when it began, exactly: one task, two at once (split evenly),
 * two sessions on one list, a fork (its copies of its parent's entries count once, in the
 * parent), a task a person completes with `tasks done`, a subagent's messages, a
 * model with no known price (costUsd null), and each model's price against Claude Code's
 * own figure for the same run (`total_cost_usd`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { type AgentOptions, runAgent } from './agent.js';
import type { MockModel, Turn, TurnUsage, UsageTurn } from './mock-model.js';
import { deferred } from './sync.js';

const create = (subject: string) => ({ name: 'TaskCreate' as const, input: { subject, description: `${subject} (agent)` } });
const update = (input: Record<string, unknown>) => ({ name: 'TaskUpdate' as const, input });
const list = { name: 'TaskList' as const, input: {} };
const turn = (calls: Turn, usage: TurnUsage): UsageTurn => ({ calls, usage });

interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}
interface Usage {
  tokens: Tokens;
  activeMs: number;
  unsureMs: number;
  messages: number;
  models: string[];
  costUsd: number | null;
}
interface Report {
  tasks: Array<Usage & { id: string; list: string; deleted: boolean }>;
  sessions: Array<Usage & { session: string }>;
  unattributed: Omit<Usage, 'activeMs' | 'unsureMs'>;
  total: Usage;
  unpricedModels: string[];
}

function world() {
  const config = tempConfig();
  const project = path.join(config, 'home', 'work', 'app');
  fs.mkdirSync(project, { recursive: true });
  const env = { USER: 'carol', XDG_CONFIG_HOME: path.join(config, 'xdg') };
  const cost = async (...args: string[]) => {
    const r = await runAsync(config, [...args, '--json'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    expect(contractProblems('cost', r.stdout)).toEqual([]);
    return JSON.parse(r.stdout) as Report;
  };
  /** A real Claude Code run in this world's project. */
  const agent = (o: Omit<AgentOptions, 'configDir' | 'cwd'>) => runAgent({ configDir: config, cwd: project, ...o });
  return { config, project, env, cost, agent };
}

const tokens = (input: number, output: number, cacheRead = 0, cacheCreation = 0): Tokens => ({ input, output, cacheRead, cacheCreation });
const task = (r: Report, id: string) => {
  const t = r.tasks.find((x) => x.id === id);
  if (t === undefined) throw new Error(`no #${id} in ${JSON.stringify(r.tasks)}`);
  return t;
};

describe('the real Claude Code: what each task cost', () => {
  it('one task worked by one session: its messages exactly, a message of several blocks once, priced', async () => {
    const { cost, agent } = world();
    const run = await agent({
      listId: 'release',
      model: 'claude-opus-5-5',
      turns: [
        // Two calls in one message: two transcript entries, one message.
        turn([create('Plan'), create('Notes')], {
          input_tokens: 100,
          output_tokens: 50,
          cache_read_input_tokens: 1000,
          cache_creation_input_tokens: 200,
        }),
        turn([update({ taskId: '1', status: 'in_progress' })], { input_tokens: 7, output_tokens: 3 }),
        turn([list], {
          input_tokens: 11,
          output_tokens: 13,
          cache_read_input_tokens: 17,
          cache_creation_input_tokens: 19,
          cache_creation_1h: 5,
        }),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 23, output_tokens: 29 }),
      ],
      closingUsage: { input_tokens: 31, output_tokens: 37 },
    });
    const r = await cost('-l', 'release', 'cost');
    const one = task(r, '1');
    expect(one.tokens).toEqual(tokens(34, 42, 17, 19));
    expect(one.messages).toBe(2);
    expect(one.models).toEqual(['claude-opus-5-5']);
    // Opus 5.5 per million: $4 in, $20 out, $0.20 cache reads, $5 5-minute writes, $8 1-hour writes.
    expect(one.costUsd).toBeCloseTo((34 * 4 + 42 * 20 + 17 * 0.2 + 14 * 5 + 5 * 8) / 1e6, 9);
    expect(one.activeMs).toBeGreaterThan(0);
    expect(task(r, '2').messages).toBe(0);
    expect(r.unattributed.tokens).toEqual(tokens(138, 90, 1000, 200));
    expect(r.unattributed.messages).toBe(3);
    expect(r.total.messages).toBe(5);
    expect(r.sessions.map((s) => s.session)).toEqual([run.stream.sessionId]);
  });

  it('two tasks in progress at once in one session: each message between split evenly', async () => {
    const { cost, agent } = world();
    await agent({
      listId: 'pair',
      model: 'claude-opus-5-5',
      turns: [
        [create('Left')],
        [create('Right')],
        [update({ taskId: '1', status: 'in_progress' })],
        // Its result starts #2: the message itself is #1's alone.
        turn([update({ taskId: '2', status: 'in_progress' })], { input_tokens: 40, output_tokens: 4 }),
        turn([list], { input_tokens: 1000, output_tokens: 300, cache_read_input_tokens: 60 }),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 2, output_tokens: 2 }),
        turn([update({ taskId: '2', status: 'completed' })], { input_tokens: 8, output_tokens: 8 }),
      ],
    });
    const r = await cost('-l', 'pair', 'cost');
    expect(task(r, '1').tokens).toEqual(tokens(40 + 500 + 1, 4 + 150 + 1, 30));
    expect(task(r, '2').tokens).toEqual(tokens(500 + 1 + 8, 150 + 1 + 8, 30));
    expect(task(r, '1').messages).toBe(3);
    expect(task(r, '2').messages).toBe(3);
    expect(r.total.tokens.input).toBe(r.unattributed.tokens.input + 40 + 1000 + 2 + 8);
  });

  it('two sessions sharing a list, each on its own task at the same time', async () => {
    const { cost, agent } = world();
    const bStarted = deferred();
    const aStarted = deferred();
    const [a, b] = await Promise.all([
      agent({
        listId: 'shared',
        model: 'claude-opus-5-5',
        turns: [
          [create('Part one')],
          [create('Part two')],
          [update({ taskId: '1', status: 'in_progress', owner: 'a' })],
          turn([list], { input_tokens: 300, output_tokens: 30 }),
          turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 5, output_tokens: 5 }),
        ],
        beforeTurn: async (i) => {
          if (i === 3) {
            aStarted.resolve();
            await bStarted.promise;
          }
        },
      }),
      agent({
        listId: 'shared',
        model: 'claude-opus-5-5',
        turns: [
          [list],
          [update({ taskId: '2', status: 'in_progress', owner: 'b' })],
          turn([list], { input_tokens: 7000, output_tokens: 700 }),
          turn([update({ taskId: '2', status: 'completed' })], { input_tokens: 9, output_tokens: 9 }),
        ],
        beforeTurn: async (i) => {
          if (i === 0) await aStarted.promise;
          if (i === 2) bStarted.resolve();
        },
      }),
    ]);
    const r = await cost('-l', 'shared', 'cost');
    expect(task(r, '1').tokens).toEqual(tokens(305, 35));
    expect(task(r, '2').tokens).toEqual(tokens(7009, 709));
    expect(r.sessions.map((s) => s.session).sort()).toEqual([a.stream.sessionId, b.stream.sessionId].sort());
    expect(r.total.messages).toBe(r.unattributed.messages + 4);
  });

  it('a fork: its copies of its parent entries count once, in the parent', async () => {
    const { cost, agent } = world();
    const parent = await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      turns: [[create('Plan')], [update({ taskId: '1', status: 'in_progress' })], turn([list], { input_tokens: 300, output_tokens: 30 })],
      closingUsage: { input_tokens: 1, output_tokens: 1 },
    });
    const p = parent.stream.sessionId as string;
    const fork = await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      args: ['--resume', p, '--fork-session'],
      turns: [
        turn([create('Fork work')], { input_tokens: 5000, output_tokens: 500 }),
        turn([update({ taskId: '1', status: 'in_progress' })], { input_tokens: 6000, output_tokens: 600 }),
        turn([list], { input_tokens: 7000, output_tokens: 700 }),
      ],
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    const f = fork.stream.sessionId as string;
    expect(f).not.toBe(p);
    const ofParent = await cost('-l', p, 'cost');
    expect(task(ofParent, '1').tokens).toEqual(tokens(301, 31));
    const ofFork = await cost('-l', f, 'cost');
    expect(task(ofFork, '1').tokens).toEqual(tokens(7002, 702));
    expect(ofFork.total.tokens).toEqual(tokens(18_002, 1802));
    const all = await cost('cost', '--all');
    expect(all.total.tokens.input).toBe(ofParent.total.tokens.input + ofFork.total.tokens.input);
    expect(all.total.messages).toBe(ofParent.total.messages + ofFork.total.messages);
  });

  it('a resumed session goes on with the task it left in progress; the time between its runs is no task', async () => {
    const { config, project, env, cost, agent } = world();
    const first = await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      turns: [[create('Plan')], [update({ taskId: '1', status: 'in_progress' })], turn([list], { input_tokens: 300, output_tokens: 30 })],
      closingUsage: { input_tokens: 1, output_tokens: 1 },
    });
    const s = first.stream.sessionId as string;
    // The session has ended, #1 still in progress; no process of it runs for 4 s.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const resumed = await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [
        turn([list], { input_tokens: 40_000, output_tokens: 400 }),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 50_000, output_tokens: 500 }),
      ],
      closingUsage: { input_tokens: 2, output_tokens: 2 },
    });
    expect(resumed.stream.sessionId).toBe(s);
    const r = await cost('-l', s, 'cost');
    // The first run's messages after the start (its closing one included), and the resumed run's
    // up to the one that completed #1: the run went on with it.
    expect(task(r, '1').tokens).toEqual(tokens(300 + 1 + 40_000 + 50_000, 30 + 1 + 400 + 500));
    expect(task(r, '1').messages).toBe(4);
    // Its time: the two runs' parts, not the 4 s between them.
    expect(task(r, '1').activeMs).toBeGreaterThan(0);
    expect(task(r, '1').activeMs).toBeLessThan(3000);
    const get = await runAsync(config, ['-l', s, 'get', '1'], { cwd: project, env });
    expect(get.stdout).toMatch(/Work: +[0-2]s in progress · 91k tokens \(4 messages/);
  });

  it('a resumed run killed with SIGKILL: the time until the next --resume is no task, and none of it is unsure', async () => {
    const { config, project, env, cost, agent } = world();
    // A run that ends as it should (a `cost-state`), #1 in progress.
    const first = await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      turns: [[create('Plan')], [update({ taskId: '1', status: 'in_progress' })]],
    });
    const s = first.stream.sessionId as string;
    // Resumed, it works on #1, then dies while its next request waits: no `cost-state`.
    await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [turn([list], { input_tokens: 700, output_tokens: 70 }), [list]],
      killAtTurn: 1,
    });
    const transcript = fs.readFileSync(
      path.join(config, 'projects', fs.readdirSync(path.join(config, 'projects'))[0] as string, `${s}.jsonl`),
      'utf8',
    );
    expect(transcript.trimEnd().split('\n').at(-1)).not.toContain('"type":"cost-state"');
    // Nothing runs for 5 s; then it is resumed again and completes #1.
    const killedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 9000, output_tokens: 900 })],
    });
    const resumedAt = Date.now();
    const r = await cost('-l', s, 'cost');
    // Its messages: the killed run's first (700) and the last run's (9000) among them.
    expect(task(r, '1').tokens.input).toBeGreaterThanOrEqual(9700);
    // Its time: the runs' parts, not the 5 s between the kill and the last run.
    expect(task(r, '1').activeMs).toBeGreaterThan(0);
    expect(task(r, '1').activeMs).toBeLessThan(resumedAt - killedAt - 4000);
    expect(task(r, '1').unsureMs).toBe(0);
    expect(r.total.unsureMs).toBe(0);
    const table = await runAsync(config, ['-l', s, 'cost'], { cwd: project, env });
    expect(table.stderr).not.toContain('no record places');
  });

  it('a run killed, resumed and killed again, then resumed: each end placed where a record says, the rest unsure', async () => {
    const { cost, agent } = world();
    const first = await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      turns: [[create('Plan')], [update({ taskId: '1', status: 'in_progress' })], [list]],
      killAtTurn: 2,
    });
    const s = first.stream.sessionId as string;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    let looked: Report | undefined;
    await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [[list], [list], [list]],
      // While it works (its second turn held): its process, running, says when it started.
      beforeTurn: async (i) => {
        if (i !== 1) return;
        // Its first request is on disk (Claude Code writes its transcript a moment after the fact).
        await new Promise((resolve) => setTimeout(resolve, 2000));
        looked = await cost('-l', s, 'cost');
      },
      killAtTurn: 2,
    });
    const during = task(looked as Report, '1');
    expect(during.unsureMs).toBe(0);
    expect(during.activeMs).toBeLessThan(4000);
    // Killed too: nothing says any more where the first run ended. Counted, and unsure.
    const killedTwice = task(await cost('-l', s, 'cost'), '1');
    expect(killedTwice.unsureMs).toBeGreaterThan(4000);
    expect(killedTwice.activeMs).toBeGreaterThan(killedTwice.unsureMs);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await agent({
      listId: undefined,
      model: 'claude-opus-5-5',
      args: ['--resume', s],
      turns: [[update({ taskId: '1', status: 'completed' })]],
    });
    // The last run's cost-state places the second run's end (its own start: no cost-state to
    // restore); the first run's end stays unsure, the same silence as before.
    const after = task(await cost('-l', s, 'cost'), '1');
    expect(after.unsureMs).toBe(killedTwice.unsureMs);
    expect(after.activeMs - after.unsureMs).toBeLessThan(4500);
  });

  it('a task completed by a person with tasks done: messages after it are unattributed', async () => {
    const { config, project, env, cost, agent } = world();
    await agent({
      listId: 'fix',
      model: 'claude-opus-5-5',
      turns: [
        [create('Fix the bug')],
        [update({ taskId: '1', status: 'in_progress' })],
        turn([list], { input_tokens: 444, output_tokens: 44 }),
        turn([list], { input_tokens: 9000, output_tokens: 900 }),
      ],
      closingUsage: { input_tokens: 3, output_tokens: 3 },
      beforeTurn: async (i) => {
        if (i !== 3) return;
        const done = await runAsync(config, ['-l', 'fix', 'done', '1'], { cwd: project, env });
        expect(done.code, done.stderr).toBe(0);
      },
    });
    const r = await cost('-l', 'fix', 'cost');
    expect(task(r, '1').tokens).toEqual(tokens(444, 44));
    expect(task(r, '1').messages).toBe(1);
    expect(r.unattributed.tokens.input).toBe(10 + 10 + 9000 + 3);
  });

  it("a subagent's messages count toward the task its session had in progress", async () => {
    const { config, cost, agent } = world();
    let model: MockModel | undefined;
    await agent({
      listId: 'sub',
      model: 'claude-opus-5-5',
      allowedTools: 'TaskCreate TaskUpdate TaskList TaskGet TodoWrite Agent',
      onModel: (m) => (model = m),
      subagent: { marker: 'SUBAGENT-7f3e', usage: { input_tokens: 4444, output_tokens: 44 } },
      turns: [
        [create('Research')],
        [update({ taskId: '1', status: 'in_progress' })],
        turn(
          [
            {
              name: 'Agent',
              input: { description: 'look around', prompt: 'SUBAGENT-7f3e: look around', subagent_type: 'general-purpose' },
            },
          ],
          {
            input_tokens: 20,
            output_tokens: 2,
          },
        ),
        turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 30, output_tokens: 3 }),
      ],
      // The completion waits for the subagent's answer: its message began while #1 was in progress.
      beforeTurn: async (i) => {
        if (i === 3) await model?.subagentAnswered();
      },
    });
    const files = fs.readdirSync(path.join(config, 'projects'), { recursive: true }).map(String);
    expect(files.some((f) => /subagents[\\/]agent-[^/]+\.jsonl$/.test(f))).toBe(true);
    const r = await cost('-l', 'sub', 'cost');
    expect(task(r, '1').tokens).toEqual(tokens(20 + 4444 + 30, 2 + 44 + 3));
    expect(task(r, '1').messages).toBe(3);
  });

  // Claude Code prices a run itself (`total_cost_usd`), by the price table it carries: the
  // source of some of these models' prices, and a check of the others'. The same messages
  // must cost the same here, for every model of the table that Claude Code knows. (Asked
  // for Opus 4.1 or 4, Claude Code 2.1.328 asks the API for Opus 5.5 instead and prices that.)
  const pricedByClaudeCode = [
    'claude-sonnet-4-5-20250929',
    'claude-haiku-4-5-20251001',
    'claude-sonnet-4-6',
    'claude-sonnet-5-5',
    'claude-fable-5-2',
    'claude-mythos-5-2',
    'claude-3-5-sonnet-20241022',
    'claude-opus-5-5',
    'claude-opus-5',
    'claude-opus-4-8',
    'claude-opus-4-7',
    'claude-opus-4-6',
    'claude-opus-4-5-20251101',
    'claude-sonnet-5',
    'claude-sonnet-4-20250514',
    'claude-3-7-sonnet-20250219',
    'claude-3-5-haiku-20241022',
    'claude-fable-5',
    'claude-fable-5-1',
    'claude-mythos-5',
    'claude-mythos-5-1',
  ];
  for (const model of pricedByClaudeCode) {
    it(`${model}: priced as Claude Code prices the same run (its total_cost_usd)`, async () => {
      const { cost, agent } = world();
      const run = await agent({
        listId: 'priced',
        model,
        // Claude Code prices by the model it asked for: ask for the one the messages name.
        args: ['--model', model],
        turns: [
          turn([create('Build')], {
            input_tokens: 1200,
            output_tokens: 340,
            cache_read_input_tokens: 41_000,
            cache_creation_input_tokens: 9000,
          }),
          turn([update({ taskId: '1', status: 'in_progress' })], {
            input_tokens: 70,
            output_tokens: 2900,
            cache_read_input_tokens: 50_000,
            cache_creation_input_tokens: 3000,
            cache_creation_1h: 2000,
          }),
          turn([update({ taskId: '1', status: 'completed' })], { input_tokens: 5, output_tokens: 800, cache_read_input_tokens: 53_000 }),
        ],
        closingUsage: { input_tokens: 3, output_tokens: 60, cache_read_input_tokens: 53_800 },
      });
      const own = run.stream.resultCostUsd;
      expect(own).toBeGreaterThan(0);
      const r = await cost('-l', 'priced', 'cost');
      expect(r.unpricedModels).toEqual([]);
      expect(r.total.models).toEqual([model]);
      expect(r.total.costUsd).not.toBeNull();
      // Within rounding: Claude Code sums floats message by message.
      expect(Math.abs((r.total.costUsd as number) - (own as number))).toBeLessThan(1e-9);
      expect(task(r, '1').costUsd).toBeGreaterThan(0);
    });
  }

  it('a model with no known price: tokens counted, costUsd null', async () => {
    const { cost, agent } = world();
    await agent({
      listId: 'mock',
      model: 'claude-mock',
      turns: [[create('One')], [update({ taskId: '1', status: 'in_progress' })], turn([list], { input_tokens: 50, output_tokens: 5 })],
    });
    const r = await cost('-l', 'mock', 'cost');
    expect(task(r, '1').tokens).toEqual(tokens(60, 15));
    expect(task(r, '1').costUsd).toBeNull();
    expect(r.total.costUsd).toBeNull();
    expect(r.unpricedModels).toEqual(['claude-mock']);
  });
});
