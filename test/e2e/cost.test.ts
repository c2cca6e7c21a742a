/**
 * `tasks cost`: what each task cost, from its sessions' transcripts (written here as
 * Claude Code writes them: test/helpers/cost-transcript.ts) and the list's journal
 * (changes made with `tasks`, run here for real). Every figure is worked out by hand from
 * the usage each message states.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { CostTranscript, writeTaskFile } from '../helpers/cost-transcript.js';
import { runInProcess } from '../helpers/in-process.js';
import { contractProblems } from '../helpers/json-contract.js';

const A = 'aaaaaaaa-1111-4222-8333-444444444444';
const B = 'bbbbbbbb-1111-4222-8333-444444444444';
const CWD = '/work/app';

interface Usage {
  tokens: { input: number; output: number; cacheRead: number; cacheCreation: number };
  activeMs: number;
  messages: number;
  models: string[];
  costUsd: number | null;
}
type Row = Usage & { id: string; subject: string | null; status: string | null; deleted: boolean; owner: string | null; list: string };
interface Report {
  tasks: Row[];
  owners: Array<Usage & { owner: string | null }>;
  lists: Array<Usage & { list: string }>;
  sessions: Array<Usage & { session: string; lists: string[]; unattributed: Omit<Usage, 'activeMs'> }>;
  unattributed: Omit<Usage, 'activeMs'> & { sessions: number };
  total: Usage;
  unpricedModels: string[];
  prices: { date: string; file: string | null };
}

function world() {
  const config = tempConfig();
  const env = { XDG_CONFIG_HOME: path.join(config, 'xdg'), USER: 'carol' };
  /** `tasks <globals> cost <args> --json`. */
  const cost = async (globals: string[], args: string[] = []) => {
    const r = await runInProcess(config, [...globals, 'cost', ...args, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(contractProblems('cost', r.stdout)).toEqual([]);
    return JSON.parse(r.stdout) as Report;
  };
  return { config, env, cost };
}

const task = (r: Report, id: string) => r.tasks.find((t) => t.id === id) as Row;
const T = Date.now() - 3_600_000;
const s = (n: number) => T + n * 1000;

describe('tasks cost', () => {
  it('counts the messages between the start of a task and its completion toward it, exactly, and the rest as unattributed', async () => {
    const { config, cost } = world();
    writeTaskFile(config, A, { id: '1', subject: 'Plan the release', status: 'completed', owner: 'agent-a' });
    writeTaskFile(config, A, { id: '2', subject: 'Write notes' });
    new CostTranscript(A, CWD)
      .prompt(s(0), 'plan the release')
      .create(s(1), { id: '1', subject: 'Plan the release' }, s(2), { input: 100, output: 10 })
      .create(s(3), { id: '2', subject: 'Write notes' }, s(4), { input: 200, output: 20 })
      .update(s(5), { taskId: '1', status: 'in_progress', owner: 'agent-a' }, s(6), { input: 300, output: 30 })
      // One message written as three entries (three content blocks): counted once.
      .message(
        s(10),
        { input: 1000, output: 500, cacheRead: 20_000, cacheWrite: 3000, cacheWrite1h: 1000 },
        { blocks: [{}, {}, {}].map(() => ({ type: 'text', text: 'x' })) },
      )
      .update(s(20), { taskId: '1', status: 'completed' }, s(21), { input: 400, output: 40 })
      .message(s(30), { input: 5, output: 5 })
      .write(config);
    const r = await cost(['-l', A]);
    const one = task(r, '1');
    expect(one.tokens).toEqual({ input: 1400, output: 540, cacheRead: 20_000, cacheCreation: 3000 });
    expect(one.messages).toBe(2);
    expect(one.activeMs).toBe(15_000);
    expect(one.models).toEqual(['claude-opus-5-5']);
    // Opus 5.5: $4 in, $20 out, $0.20 cache reads, $5 a 5-minute write, $8 a 1-hour write (per million).
    const usd = (1400 * 4 + 540 * 20 + 20_000 * 0.2 + 2000 * 5 + 1000 * 8) / 1e6;
    expect(one.costUsd).toBeCloseTo(usd, 9);
    expect(one.owner).toBe('agent-a');
    expect(task(r, '2').messages).toBe(0);
    expect(task(r, '2').costUsd).toBe(0);
    expect(r.unattributed.tokens).toEqual({ input: 605, output: 65, cacheRead: 0, cacheCreation: 0 });
    expect(r.unattributed.messages).toBe(4);
    expect(r.total.messages).toBe(6);
    expect(r.total.tokens.input).toBe(2005);
    expect(r.sessions.map((x) => [x.session, x.messages, x.unattributed.messages])).toEqual([[A, 6, 4]]);
    expect(r.owners.map((o) => [o.owner, o.messages])).toEqual([['agent-a', 2]]);
  });

  it('splits a message evenly between two tasks in progress at once', async () => {
    const { config, cost } = world();
    for (const id of ['1', '2']) writeTaskFile(config, A, { id, subject: `Task ${id}`, status: 'in_progress' });
    new CostTranscript(A, CWD)
      .update(s(1), { taskId: '1', status: 'in_progress' }, s(2))
      .update(s(3), { taskId: '2', status: 'in_progress' }, s(4), { input: 10 })
      .message(s(5), { input: 1001, output: 300, cacheRead: 7 })
      .write(config);
    const r = await cost(['-l', A]);
    // The call that started #2 came before its result: #1's alone.
    expect(task(r, '1').tokens).toEqual({ input: 510, output: 150, cacheRead: 3, cacheCreation: 0 });
    expect(task(r, '2').tokens).toEqual({ input: 501, output: 150, cacheRead: 4, cacheCreation: 0 });
    expect(task(r, '1').messages).toBe(2);
    expect(task(r, '2').messages).toBe(1);
    expect(r.total.tokens.input).toBe(1011);
    expect(r.owners[0]?.messages).toBe(2);
  });

  it('a person completing the task with tasks done ends the spell; a message after it is unattributed', async () => {
    const { config, env, cost } = world();
    writeTaskFile(config, A, { id: '1', subject: 'Fix the bug' });
    const now = Date.now();
    const transcript = new CostTranscript(A, CWD)
      .update(now - 60_000, { taskId: '1', status: 'in_progress' }, now - 59_000)
      .message(now - 30_000, { input: 70 });
    transcript.write(config);
    fs.writeFileSync(
      path.join(config, 'tasks', A, '1.json'),
      fs.readFileSync(path.join(config, 'tasks', A, '1.json'), 'utf8').replace('"pending"', '"in_progress"'),
    );
    const done = await runInProcess(config, ['-l', A, 'done', '1'], { env });
    expect(done.code, done.stderr).toBe(0);
    transcript.message(Date.now() + 1000, { input: 9 }).write(config);
    const r = await cost(['-l', A]);
    expect(task(r, '1').tokens.input).toBe(70);
    expect(task(r, '1').activeMs).toBeGreaterThanOrEqual(58_000);
    expect(task(r, '1').activeMs).toBeLessThan(70_000);
    expect(r.unattributed.tokens.input).toBe(9);
  });

  it('tasks start --as from a session sets the task in progress for that session', async () => {
    const { config, env, cost } = world();
    writeTaskFile(config, A, { id: '1', subject: 'Port the parser' });
    const now = Date.now();
    const t = new CostTranscript(B, CWD).message(now - 10_000, { input: 1 });
    t.write(config);
    const start = await runInProcess(config, ['-l', A, 'start', '1', '--as', 'bot'], { env: { ...env, CLAUDE_CODE_SESSION_ID: B } });
    expect(start.code, start.stderr).toBe(0);
    // A message after the start, before this cost (its end is now: a message cannot be later).
    t.message(Date.now() + 2, { input: 33 }).write(config);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const r = await cost(['-l', A]);
    expect(task(r, '1').tokens.input).toBe(33);
    expect(r.sessions.map((x) => x.session)).toContain(B);
  });

  it('a session tied to a named list only by its tasks --as: its own Task calls, on its own list, are not taken for that list', async () => {
    const { config, env, cost } = world();
    writeTaskFile(config, 'shared', { id: '1', subject: 'Shared thing' });
    writeTaskFile(config, B, { id: '1', subject: 'Own work', status: 'completed' });
    // B works its own list's #1; its agent later takes the shared list's #1 from its shell.
    new CostTranscript(B, CWD)
      .prompt(s(0), 'work')
      .create(s(1), { id: '1', subject: 'Own work' }, s(2))
      .update(s(3), { taskId: '1', status: 'in_progress' }, s(4))
      .message(s(5), { input: 500 })
      .update(s(6), { taskId: '1', status: 'completed' }, s(7), { input: 10 })
      .write(config);
    const start = await runInProcess(config, ['-l', 'shared', 'start', '1', '--as', 'helper'], {
      env: { ...env, CLAUDE_CODE_SESSION_ID: B },
    });
    expect(start.code, start.stderr).toBe(0);
    const shared = await cost(['-l', 'shared']);
    expect(task(shared, '1').messages).toBe(0);
    expect(task(shared, '1').tokens.input).toBe(0);
    // Not its own #1's 3 s in progress: only what the journal's start gives it (it began as the session's records end).
    expect(task(shared, '1').activeMs).toBeLessThan(1000);
    // Its own list has it, as before.
    const own = await cost(['-l', B]);
    expect(task(own, '1').tokens.input).toBe(510);
    expect(task(own, '1').messages).toBe(2);
  });

  it("counts subagents' messages toward what their session had in progress, and a fork's copies once, in the parent", async () => {
    const { config, cost } = world();
    const parent = new CostTranscript(A, CWD)
      .create(s(1), { id: '1', subject: 'Refactor' }, s(2), { input: 1 })
      .update(s(3), { taskId: '1', status: 'in_progress' }, s(4), { input: 2 })
      .message(s(5), { input: 40 });
    parent.write(config);
    writeTaskFile(config, A, { id: '1', subject: 'Refactor', status: 'in_progress' });
    new CostTranscript(A, CWD, { sidechain: true, agentId: 'a1b2c3' }).message(s(6), { input: 500, output: 7 }).write(config);
    // The fork: the parent's entries copied, then its own work on its own list.
    new CostTranscript(B, CWD).copiedFrom(parent).create(s(100), { id: '1', subject: 'Fork work' }, s(101), { input: 1000 }).write(config);
    writeTaskFile(config, B, { id: '1', subject: 'Fork work' });
    const r = await cost(['-l', A]);
    expect(task(r, '1').tokens).toEqual({ input: 540, output: 7, cacheRead: 0, cacheCreation: 0 });
    expect(task(r, '1').messages).toBe(2);
    const fork = await cost(['-l', B]);
    expect(fork.total.tokens.input).toBe(1000);
    expect(fork.tasks.map((x) => x.messages)).toEqual([0]);
    const all = await cost([], ['--all']);
    expect(all.total.tokens.input).toBe(1543);
    expect(all.total.messages).toBe(5);
  });

  it('reports a deleted task whose cost is known, by id, marked deleted', async () => {
    const { config, cost } = world();
    writeTaskFile(config, A, { id: '1', subject: 'Kept' });
    new CostTranscript(A, CWD)
      .create(s(1), { id: '2', subject: 'Dropped idea' }, s(2))
      .update(s(3), { taskId: '2', status: 'in_progress' }, s(4))
      .message(s(5), { input: 64 })
      .update(s(6), { taskId: '2', status: 'deleted' }, s(7))
      .write(config);
    const r = await cost(['-l', A]);
    expect(r.tasks.map((x) => [x.id, x.subject, x.deleted, x.status, x.tokens.input])).toEqual([
      ['1', 'Kept', false, 'pending', 0],
      ['2', 'Dropped idea', true, null, 64],
    ]);
    const text = await runInProcess(config, ['-l', A, 'cost'], { env: { USER: 'carol' } });
    expect(text.stdout.split('\n')[0]).toMatch(/^#2\t\(deleted\) Dropped idea\t3000\t2\t64\t/);
  });

  it('says what has no price where the model has one: a long prompt, 1-hour cache writes (not "no price known" for the model)', async () => {
    const { config, env } = world();
    writeTaskFile(config, A, { id: '1', subject: 'One' });
    new CostTranscript(A, CWD, { model: 'claude-sonnet-4-5' })
      .update(s(1), { taskId: '1', status: 'in_progress' }, s(2))
      .message(s(3), { input: 250_000, output: 10 })
      .message(s(4), { input: 10, cacheWrite: 100, cacheWrite1h: 100 }, { model: 'claude-mock' })
      .write(config);
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME, 'tasks'), { recursive: true });
    fs.writeFileSync(
      path.join(env.XDG_CONFIG_HOME, 'tasks', 'prices.json'),
      JSON.stringify({ models: { 'claude-mock': { input: 1, output: 2, cacheWrite: 3, cacheRead: 4 } } }),
    );
    const text = await runInProcess(config, ['-l', A, 'cost'], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('no price known for claude-mock (1-hour cache writes), claude-sonnet-4-5 (over 200,000 prompt tokens)');
    const json = await runInProcess(config, ['-l', A, 'cost', '--json'], { env });
    // The JSON keeps naming the models alone.
    expect(JSON.parse(json.stdout).unpricedModels).toEqual(['claude-mock', 'claude-sonnet-4-5']);
  });

  it('costs a model it knows, gives null for one it does not, and takes a price file over the table', async () => {
    const { config, env, cost } = world();
    writeTaskFile(config, A, { id: '1', subject: 'One' });
    new CostTranscript(A, CWD, { model: 'claude-mock' })
      .update(s(1), { taskId: '1', status: 'in_progress' }, s(2))
      .message(s(3), { input: 1_000_000, output: 1_000_000 })
      .message(s(4), { input: 1_000_000 }, { model: 'claude-opus-4-5-20251101' })
      .write(config);
    const r = await cost(['-l', A]);
    expect(task(r, '1').costUsd).toBeNull();
    expect(task(r, '1').models).toEqual(['claude-mock', 'claude-opus-4-5-20251101']);
    expect(r.unpricedModels).toEqual(['claude-mock']);
    expect(r.total.costUsd).toBeNull();
    const text = await runInProcess(config, ['-l', A, 'cost'], { env });
    expect(text.stderr).toMatch(/no price known for claude-mock/);
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME, 'tasks'), { recursive: true });
    const file = path.join(env.XDG_CONFIG_HOME, 'tasks', 'prices.json');
    fs.writeFileSync(file, JSON.stringify({ models: { 'claude-mock': { input: 1, output: 2, cacheWrite: 0, cacheRead: 0 } } }));
    const priced = await cost(['-l', A]);
    // claude-mock: $1 + $2; Opus 4.5's 1M input: $5.
    expect(task(priced, '1').costUsd).toBe(8);
    expect(priced.prices.file).toBe(file);
    fs.writeFileSync(file, JSON.stringify({ models: { 'claude-mock': { input: -1, output: 2, cacheWrite: 0, cacheRead: 0 } } }));
    const bad = await runInProcess(config, ['-l', A, 'cost'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^error: price file .*prices\.json: models\.claude-mock\.input: /m);
  });

  it('--since keeps the work since then; --by groups the rows; bad values are usage errors', async () => {
    const { config, env, cost } = world();
    writeTaskFile(config, A, { id: '1', subject: 'One', owner: 'ann' });
    const now = Date.now();
    new CostTranscript(A, CWD)
      .update(now - 7_200_000, { taskId: '1', status: 'in_progress' }, now - 7_199_000)
      .message(now - 7_000_000, { input: 10 })
      .message(now - 1_000_000, { input: 20 })
      .write(config);
    const r = await cost(['-l', A], ['--since', '1h']);
    expect(task(r, '1').tokens.input).toBe(20);
    expect(task(r, '1').activeMs).toBeGreaterThanOrEqual(3_599_000);
    const owners = await runInProcess(config, ['-l', A, 'cost', '--by', 'owner'], { env });
    expect(owners.stdout.split('\n')[0]).toMatch(/^ann\t\t/);
    const sessions = await runInProcess(config, ['-l', A, 'cost', '--by', 'session'], { env });
    expect(sessions.stdout.split('\n')[0]).toMatch(/^aaaaaaaa\taaaaaaaa\t/);
    for (const args of [
      ['--by', 'day'],
      ['--since', 'yesterday-ish'],
      ['--since', '1h', '--until', '2h'],
    ]) {
      const bad = await runInProcess(config, ['-l', A, 'cost', ...args], { env });
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    }
  });

  it('two sessions sharing a named list, each on its own task', async () => {
    const { config, cost } = world();
    for (const id of ['1', '2']) writeTaskFile(config, 'team', { id, subject: `Part ${id}`, status: 'completed' });
    new CostTranscript(A, CWD)
      .create(s(1), { id: '1', subject: 'Part 1' }, s(2), { input: 1 })
      .update(s(3), { taskId: '1', status: 'in_progress' }, s(4), { input: 2 })
      .message(s(5), { input: 100 })
      .update(s(6), { taskId: '1', status: 'completed' }, s(7), { input: 3 })
      .write(config);
    new CostTranscript(B, '/work/other')
      .create(s(1), { id: '2', subject: 'Part 2' }, s(2), { input: 10 })
      .update(s(3), { taskId: '2', status: 'in_progress' }, s(4), { input: 20 })
      .message(s(5), { input: 1000 })
      .update(s(8), { taskId: '2', status: 'completed' }, s(9), { input: 30 })
      .write(config);
    const r = await cost(['-l', 'team']);
    expect(task(r, '1').tokens.input).toBe(103);
    expect(task(r, '2').tokens.input).toBe(1030);
    expect(task(r, '1').activeMs).toBe(3000);
    expect(task(r, '2').activeMs).toBe(5000);
    expect(r.sessions.map((x) => x.session).sort()).toEqual([A, B]);
    expect(r.unattributed.tokens.input).toBe(33);
  });
});

describe('what a task cost, wherever it is shown', () => {
  function shown() {
    const w = world();
    writeTaskFile(w.config, A, { id: '1', subject: 'Port the parser', status: 'completed', owner: 'ann' });
    writeTaskFile(w.config, A, { id: '2', subject: 'Nobody worked on this' });
    new CostTranscript(A, CWD)
      .update(s(1), { taskId: '1', status: 'in_progress' }, s(2))
      .message(s(62), { input: 1_000_000, output: 50_000 })
      .update(s(300), { taskId: '1', status: 'completed' }, s(302))
      .write(w.config);
    return w;
  }

  it("get shows a task's time, tokens and estimated cost, and nothing for a task with none", async () => {
    const { config, env } = shown();
    const one = await runInProcess(config, ['-l', A, 'get', '1'], { env });
    expect(one.code, one.stderr).toBe(0);
    // Opus 5.5: 1M input at $4, 50k output at $20 = $5.00.
    expect(one.stdout).toContain('Work:        5m 00s in progress · 1.1M tokens (2 messages, claude-opus-5-5) · $5.00 estimated\n');
    const two = await runInProcess(config, ['-l', A, 'get', '2'], { env });
    expect(two.stdout).not.toContain('Work:');
  });

  it('get stays quick: past its read budget it shows no cost rather than read a large transcript', async () => {
    const { config, env } = shown();
    const file = path.join(config, 'projects', '-work-app', `${A}.jsonl`);
    fs.appendFileSync(file, `${'x'.repeat(5 * 1024 * 1024)}\n`);
    const one = await runInProcess(config, ['-l', A, 'get', '1'], { env });
    expect(one.code).toBe(0);
    expect(one.stdout).not.toContain('Work:');
    // tasks cost reads it all the same.
    const r = await runInProcess(config, ['-l', A, 'cost', '--json'], { env });
    expect((JSON.parse(r.stdout) as Report).tasks[0]?.tokens.input).toBe(1_000_000);
  });

  it('a price file that cannot be read: get still shows the task, without its Work line, and says why; cost and list --cost stop', async () => {
    const { config, env } = shown();
    const file = path.join(env.XDG_CONFIG_HOME, 'tasks', 'prices.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"models": {"claude-opus-5-5": {"input": "four"}}}');
    const one = await runInProcess(config, ['-l', A, 'get', '1'], { env });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('#1 Port the parser\n');
    expect(one.stdout).not.toContain('Work:');
    expect(one.stderr).toBe(
      `warning: price file ${file}: models.claude-opus-5-5.input: Expected number, received string; the Work line is left out\n`,
    );
    for (const argv of [['cost'], ['list', '--cost']]) {
      const r = await runInProcess(config, ['-l', A, ...argv], { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe(`error: price file ${file}: models.claude-opus-5-5.input: Expected number, received string`);
    }
  });

  it('list --cost adds the columns (piped: active ms, tokens, cost before the subject) and --json a cost per task', async () => {
    const { config, env } = shown();
    const piped = await runInProcess(config, ['-l', A, 'list', '--cost'], { env });
    expect(piped.stdout.split('\n').slice(0, 2)).toEqual([
      '1\tcompleted\tann\t-\t300000\t1050000\t5\tPort the parser',
      '2\tpending\t-\t-\t0\t0\t0\tNobody worked on this',
    ]);
    const json = await runInProcess(config, ['-l', A, 'list', '--cost', '--json'], { env });
    expect(contractProblems('list', json.stdout)).toEqual([]);
    const tasks = JSON.parse(json.stdout) as Array<{ id: string; cost: Usage }>;
    expect(tasks.map((t) => [t.id, t.cost.tokens.input, t.cost.activeMs, t.cost.costUsd])).toEqual([
      ['1', 1_000_000, 300_000, 5],
      ['2', 0, 0, 0],
    ]);
    const plain = await runInProcess(config, ['-l', A, 'list', '--json'], { env });
    expect(plain.stdout).not.toContain('"cost"');
  });

  it('export --format markdown --cost adds the work of each task and of the agents in all', async () => {
    const { config, env } = shown();
    const r = await runInProcess(config, ['-l', A, 'export', '--format', 'markdown', '--cost'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Agents' work: 5m 00s, 1.1M tokens, $5.00 est.\n");
    expect(r.stdout).toContain('- [x] `#1` Port the parser — done · owner `ann` · 5m 00s, 1.1M tokens, $5.00 est.\n');
    expect(r.stdout).toMatch(/- \[ \] `#2` Nobody worked on this — pending\n?$/);
    const bad = await runInProcess(config, ['-l', A, 'export', '--cost'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --cost goes with --format markdown/);
  });
});
