/**
 * `watch --until`: each condition, the deadline, and what ends a watch. The watches run as
 * the built binary (a watch lasts, and ends with an exit status); the changes made while
 * they run, and output-only checks, run in process.
 */

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, ROOT, run, runAsync, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { parseNdjson } from '../helpers/replay.js';
import { startWatch } from '../helpers/watch.js';

type Seed = Array<Record<string, unknown>>;
const t = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

function listWith(tasks: Seed): { config: string; dir: string } {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'ci');
  fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
  for (const task of tasks) writeTask(dir, task);
  return { config, dir };
}

interface Case {
  until: string;
  /** The condition does not hold on this list... */
  pending: Seed;
  /** ...until this is done to it. */
  change: (config: string, dir: string) => Promise<void>;
  /** A list on which it holds at once (undefined: no list at all). */
  holding: Seed | undefined;
}

const cli = async (config: string, args: string[]) => {
  const r = await runAsync(config, ['-l', 'ci', ...args]);
  expect(r.code, r.stderr).toBe(0);
};

const CASES: Case[] = [
  {
    until: 'all-completed',
    pending: [t('1'), t('2', { status: 'completed' })],
    change: (config) => cli(config, ['update', '1', '--status', 'completed']),
    holding: [t('1', { status: 'completed' })],
  },
  {
    until: 'ready',
    pending: [t('1', { status: 'in_progress', owner: 'a', blocks: ['2'] }), t('2', { blockedBy: ['1'] })],
    change: (config) => cli(config, ['update', '1', '--status', 'completed']),
    holding: [t('1', { status: 'completed' }), t('2')],
  },
  {
    until: 'task:2:completed',
    pending: [t('1', { status: 'completed' }), t('2', { status: 'in_progress' })],
    change: (config) => cli(config, ['update', '2', '--status', 'completed']),
    holding: [t('2', { status: 'completed' }), t('3')],
  },
  {
    until: 'empty',
    pending: [t('1', { status: 'completed' }), t('2', { status: 'completed' })],
    // An agent's reset: every task file deleted at once.
    change: async (_config, dir) => {
      for (const n of fs.readdirSync(dir)) if (n.endsWith('.json')) fs.unlinkSync(path.join(dir, n));
    },
    holding: undefined,
  },
];

describe.concurrent.each(CASES)('watch --until $until', (c) => {
  it('ends at once, exit 0, when it holds on the first snapshot', async () => {
    const { config } = listWith(c.holding ?? []);
    const r = await runAsync(config, ['-l', 'ci', 'watch', '--until', c.until, '--timeout', '60s', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events.map((e) => e.event)).toEqual(['snapshot', 'end']);
    expect(events[0]).toMatchObject({ list: 'ci', exists: c.holding !== undefined });
    expect(events[1]).toMatchObject({ reason: 'condition-met', until: c.until, met: true });
  });

  it('ends with exit 0 when a change makes it hold', async () => {
    const { config, dir } = listWith(c.pending);
    const watch = startWatch(config, ['-l', 'ci', 'watch', '--until', c.until, '--timeout', '120s', '--json']);
    await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    await c.change(config, dir);
    const r = await watch.exited;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'condition-met', met: true });
    expect(events.slice(1, -1).every((e) => ['updated', 'list-cleared'].includes(e.event))).toBe(true);
  });

  it('ends with exit 124 when --timeout passes first, saying where the list stands', async () => {
    const { config } = listWith(c.pending);
    const started = Date.now();
    const r = await runAsync(config, ['-l', 'ci', 'watch', '--until', c.until, '--timeout', '1s', '--json']);
    expect(r.code).toBe(124);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const events = parseNdjson(r.stdout);
    expect(events.map((e) => e.event)).toEqual(['snapshot', 'end']);
    expect(events[1]).toMatchObject({ reason: 'timeout', until: c.until, met: false, exists: true, counts: { total: c.pending.length } });
    expect(events[1]?.tasks).toEqual(c.pending.map((t) => ({ ...t, updatedAt: expect.any(String) })));
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      error: { code: 'timeout', message: expect.stringContaining(`timed out after 1s before ${c.until} held`) },
    });
  });
});

describe('watch --until and --timeout', () => {
  it('| head -1: a gate whose reader goes away goes on to its verdict, never exit 0 while its work is open', async () => {
    const { config, dir } = listWith([t('1')]);
    const bin = path.join(ROOT, 'bin', 'tasks.js');
    const gate = (until: string) =>
      spawnSync(
        'bash',
        [
          '-c',
          `'${process.execPath}' '${bin}' -l ci watch --until ${until} --timeout 2s --json | head -1; echo "status=\${PIPESTATUS[0]}" >&2`,
        ],
        {
          env: baseEnv(config),
          cwd: config,
          encoding: 'utf8',
        },
      );
    const open = gate('all-completed');
    expect(parseNdjson(open.stdout)).toEqual([expect.objectContaining({ event: 'snapshot' })]);
    expect(open.stderr).toMatch(/^status=124$/m);
    // A gate whose condition holds: 0, the pipe closed or not.
    writeTask(dir, t('1', { status: 'completed' }));
    expect(gate('all-completed').stderr).toMatch(/^status=0$/m);
  });

  it('waits for a list that does not exist yet, then for its work to be done', async () => {
    const config = tempConfig();
    const watch = startWatch(config, ['-l', 'later', 'watch', '--until', 'all-completed', '--timeout', '120s']);
    const snapshot = await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    expect(snapshot).toMatchObject({ exists: false, tasks: [] });
    expect((await runAsync(config, ['-l', 'later', 'create', 'first'])).code).toBe(0);
    await watch.waitFor((e) => e.event === 'created', 'the created event');
    expect((await runAsync(config, ['-l', 'later', 'update', '1', '--status', 'completed'])).code).toBe(0);
    const r = await watch.exited;
    expect(r.code).toBe(0);
    expect(parseNdjson(r.stdout).map((e) => e.event)).toEqual(['snapshot', 'created', 'updated', 'end']);
  });

  it('speaks of the filtered tasks: --owner amy --until all-completed', async () => {
    const { config } = listWith([t('1', { owner: 'amy', status: 'completed' }), t('2', { owner: 'amy' }), t('3', { owner: 'bob' })]);
    const watch = startWatch(config, ['-l', 'ci', 'watch', '--owner', 'amy', '--until', 'all-completed', '--json']);
    const snapshot = await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    expect(snapshot.tasks?.map((x) => x.id)).toEqual(['1', '2']);
    await cli(config, ['update', '3', '--status', 'completed']); // bob's: not reported, does not end it
    await cli(config, ['update', '2', '--status', 'completed']);
    const r = await watch.exited;
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events.filter((e) => e.event === 'updated').map((e) => e.task?.id)).toEqual(['2']);
    expect(events.at(-1)).toMatchObject({ reason: 'condition-met', counts: { total: 2, completed: 2 } });
  });

  it('--blocked --until empty: waits until nothing waits on a blocker; a task leaving the filter is an update', async () => {
    const { config } = listWith([t('1', { status: 'in_progress', owner: 'a', blocks: ['2'] }), t('2', { blockedBy: ['1'] }), t('3')]);
    const watch = startWatch(config, ['-l', 'ci', 'watch', '--blocked', '--until', 'empty', '--json']);
    const snapshot = await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    expect(snapshot.tasks?.map((x) => x.id)).toEqual(['2']);
    await cli(config, ['update', '1', '--status', 'completed']);
    const r = await watch.exited;
    expect(r.code).toBe(0);
    // #1 was never blocked: its update is not reported; #2 did not change, and simply left the filter.
    expect(parseNdjson(r.stdout).map((e) => e.event)).toEqual(['snapshot', 'end']);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ reason: 'condition-met', tasks: [] });
  });

  it('piped without --json: NDJSON on stdout, a one-line text error on stderr at the deadline', () => {
    const { config } = listWith([t('1'), t('2', { status: 'in_progress' })]);
    const r = runInProcessSync(config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--timeout', '1s']);
    expect(r.code).toBe(124);
    expect(parseNdjson(r.stdout).map((e) => e.event)).toEqual(['snapshot', 'end']);
    expect(r.stderr).toBe('error: timed out after 1s before all-completed held; 2 tasks: 0 done, 1 in progress, 1 pending\n');
  });

  it('--timeout alone watches for that long: a normal end, exit 0, nothing on stderr', () => {
    const { config } = listWith([t('1')]);
    const r = runInProcessSync(config, ['-l', 'ci', 'watch', '--timeout', '500ms', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'timeout' });
    expect(r.stdout).not.toContain('"until"');
  });

  it('stopped by a signal: exit 0, or 130 when an --until condition had not held yet', async () => {
    const { config } = listWith([t('1')]);
    const plain = startWatch(config, ['-l', 'ci', 'watch', '--json']);
    await plain.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    const a = await plain.stop('SIGINT');
    expect(a.code).toBe(0);
    expect(a.stderr).toBe('');
    expect(parseNdjson(a.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'stopped' });

    const waiting = startWatch(config, ['-l', 'ci', 'watch', '--until', 'all-completed']);
    await waiting.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    const b = await waiting.stop('SIGTERM');
    expect(b.code).toBe(130);
    expect(b.stderr).toBe('error: stopped before all-completed held; 1 task: 0 done, 0 in progress, 1 pending\n');
    expect(parseNdjson(b.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'stopped', met: false });
  });
});

describe('watch: durations', () => {
  it('--timeout and --fail-if-stalled read the grammar every duration flag shares (2min, 1h30m)', () => {
    const { config } = listWith([t('1', { status: 'completed' })]);
    const r = runInProcessSync(config, [
      '-l',
      'ci',
      'watch',
      '--until',
      'all-completed',
      '--timeout',
      '2min',
      '--fail-if-stalled',
      '1h30m',
      '--json',
    ]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'condition-met', met: true });
  });
});

describe('watch: bad input', () => {
  const { config, dir } = listWith([t('1')]);
  it.each([
    [['--until', 'done'], /^error: invalid --until "done": expected one of all-completed, ready, empty, task:<id>:completed$/],
    [['--until', 'task:x:completed'], /^error: invalid --until "task:x:completed": "x" is not a task id$/],
    [['--timeout', 'soon'], /^error: invalid --timeout "soon": expected a duration like 90s, 15m, 1h30m or 2d$/],
    [['--owner', 'a', '--unowned'], /^error: --owner and --unowned cannot be used together$/],
    [['--ready', '--blocked'], /^error: --ready and --blocked cannot be used together$/],
    [['--status', 'nope'], /^error: invalid status "nope"/],
  ])('%j: exit 2, one line on stderr, nothing on stdout or disk', (args, message) => {
    const before = fs.readdirSync(dir);
    const r = runInProcessSync(config, ['-l', 'ci', 'watch', ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
    expect(fs.readdirSync(dir)).toEqual(before);
  });
  it('with --json the error is JSON on stderr', () => {
    const r = runInProcessSync(config, ['-l', 'ci', 'watch', '--until', 'nope', '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'usage', message: expect.stringContaining('--until') } });
  });
});

describe('watch --timeout 0, and a watch that has ended', () => {
  it.each([
    ['0', []],
    ['0s', []],
    ['0', ['--until', 'all-completed']],
    ['0ms', ['--until', 'all-completed', '--json']],
  ])('--timeout %s %j: exit 2 at once, one line (the built binary, with a deadline)', (timeout, more) => {
    const { config, dir } = listWith([t('1')]);
    const before = fs.readdirSync(dir);
    const r = run(config, ['-l', 'ci', 'watch', '--timeout', timeout, ...more], { timeoutMs: 10_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--timeout must be longer than 0');
    expect(fs.readdirSync(dir)).toEqual(before);
  });

  it('the shortest deadline: the end is printed on the list as it is, and the process exits', () => {
    const { config } = listWith([t('1')]);
    for (const more of [[], ['--until', 'all-completed']]) {
      const r = run(config, ['-l', 'ci', 'watch', '--timeout', '1ms', '--json', ...more], { timeoutMs: 10_000 });
      expect(r.code, r.stderr).toBe(more.length === 0 ? 0 : 124);
      expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'timeout', exists: true, counts: { total: 1 } });
    }
  });
});

describe('--until a task that does not exist', () => {
  it('warns on stderr at once, and still waits (the task may yet be created)', async () => {
    const config = tempConfig();
    runInProcessSync(config, ['-l', 'w', 'create', 'one']);
    const w = startWatch(config, ['-l', 'w', 'watch', '--json', '--until', 'task:99:completed']);
    try {
      await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      const until = Date.now() + 20_000;
      while (!w.stderr().includes('warning') && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      expect(stderrText(w.stderr())).toBe('warning: task #99 does not exist (yet); waiting for it to be created and done\n');
      expect(JSON.parse(w.stderr())).toMatchObject({ warning: { code: 'task_not_yet', id: '99' } });
      fs.writeFileSync(path.join(config, 'tasks', 'w', '.highwatermark'), '98');
      runInProcessSync(config, ['-l', 'w', 'create', 'ninety-nine']);
      runInProcessSync(config, ['-l', 'w', 'update', '99', '--status', 'completed']);
      const end = await w.exited;
      expect(end.code).toBe(0);
    } finally {
      await w.stop();
    }
  });
});

describe('a task file that does not read holds all-completed and empty', () => {
  // An agent's plain writeFile caught half-way, or one cut short (a full disk leaves the file
  // empty): the task is there, and may be pending. A gate passing on the rest would pass early.
  for (const [until, seed] of [
    ['all-completed', [t('1', { status: 'completed' })]],
    ['empty', []],
  ] as Array<[string, Seed]>) {
    it(`--until ${until}: waits while #2.json is empty; passes once it reads completed, or is moved aside by check --fix`, async () => {
      const { config, dir } = listWith(seed);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, '2.json'), '');
      const held = run(config, ['-l', 'ci', 'watch', '--until', until, '--timeout', '2s', '--json']);
      expect(held.code, held.stderr).toBe(124);
      expect(held.stderr).toContain('2.json');
      const w = startWatch(config, ['-l', 'ci', 'watch', '--until', until, '--timeout', '30s', '--json']);
      await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      await new Promise((r) => setTimeout(r, 300));
      if (until === 'all-completed') writeTask(dir, t('2', { status: 'completed' }));
      else expect(run(config, ['-l', 'ci', 'check', '--fix']).code).toBe(0);
      const r = await w.exited;
      expect(r.code, r.stderr).toBe(0);
    });
  }

  it('a file caught half-written at the start is no pass: the task it becomes is judged', async () => {
    const { config, dir } = listWith([t('1', { status: 'completed' })]);
    fs.writeFileSync(path.join(dir, '2.json'), '{"id": "2", "subj');
    const w = startWatch(config, ['-l', 'ci', 'watch', '--until', 'all-completed', '--timeout', '30s', '--json']);
    await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    await new Promise((r) => setTimeout(r, 300));
    writeTask(dir, t('2'));
    await w.waitFor((e) => e.event === 'created', 'the created task');
    expect((await w.stop()).code).toBe(130);
  });
});
