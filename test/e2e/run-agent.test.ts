/**
 * `tasks run` through the built binary, with a scripted agent (test/helpers/fake-agent.mjs)
 * for the process mechanics: the verdicts and their statuses, the agent's group ended
 * (an agent that ignores SIGTERM, children it leaves behind), signals to tasks run (and
 * SIGKILL of it), the record, stdin, stderr, and the errors before anything starts.
 * The real agent is run in test/interop/run-agent.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, ROOT, stderrLines, tempConfig } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { parseNdjson } from '../helpers/replay.js';
import { StreamScript } from '../helpers/stream-lines.js';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';

const FAKE = path.join(ROOT, 'test', 'helpers', 'fake-agent.mjs');

interface Plan {
  ignoreTerm?: boolean;
  children?: number;
  steps: Array<Record<string, unknown>>;
}

interface Finished {
  code: number;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From start to exit (ms). */
  ms: number;
}

const started: string[] = [];

/** `tasks run <args> -- node fake-agent.mjs <plan>`; the agent's pids are kept for `leftovers`. */
function startRun(
  config: string,
  args: string[],
  plan: Plan,
  opts: { input?: string; env?: Record<string, string>; globals?: string[] } = {},
) {
  const planFile = path.join(config, `plan-${started.length}.json`);
  const pids = path.join(config, `pids-${started.length}`);
  fs.writeFileSync(planFile, JSON.stringify({ ...plan, pids }));
  started.push(pids);
  const t0 = Date.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, ...(opts.globals ?? []), 'run', ...args, '--', process.execPath, FAKE, planFile],
    {
      env: baseEnv(config, opts.env),
      cwd: config,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  else child.stdin?.end();
  const done = new Promise<Finished>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr, ms: Date.now() - t0 })),
  );
  return { child, done, pids, out: () => stdout };
}

/** The agent's processes (its own and its children) still running: none must be. */
function leftovers(pidsFile: string): number[] {
  if (!fs.existsSync(pidsFile)) return [];
  return fs
    .readFileSync(pidsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
        const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
        return state !== 'Z' && state !== 'X';
      } catch {
        return false;
      }
    });
}

/** Wait until `pred` holds (polled), or fail after `ms`. */
async function until(pred: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterEach(() => {
  // Nothing a test started may outlive it, whatever it asserted.
  for (const file of started.splice(0)) for (const pid of leftovers(file)) process.kill(pid, 'SIGKILL');
});

const outs = (lines: readonly string[]) => lines.map((l) => ({ out: JSON.parse(l) as unknown }));

/** The agent creates #1 and #2, starts #1 (the run's own list, no files: the stream alone). */
function started2(): StreamScript {
  return new StreamScript().init().create('1', 'Reproduce').create('2', 'Fix').update('1', { status: 'in_progress' });
}

const lastEvent = (stdout: string) => parseNdjson(stdout).at(-1);

describe('tasks run: the verdict ends the run', () => {
  it('success: the run completes its plan; exit 0 once the agent exits, the record holds its output byte for byte', async () => {
    const config = tempConfig();
    const s = started2().update('1', { status: 'completed' }).update('2', { status: 'completed' }).end();
    const r = startRun(config, ['--until', 'all-completed', '--record', 'run.jsonl'], {
      steps: [...outs(s.lines).flatMap((o) => [o, { wait: 30 }]), { err: 'agent says hi' }],
    });
    const done = await r.done;
    expect(done.code, done.stderr).toBe(0);
    const events = parseNdjson(done.stdout);
    expect(events.at(-2)).toMatchObject({ event: 'end', reason: 'run-ended', met: true, counts: { total: 2, completed: 2 } });
    expect(events.at(-1)).toMatchObject({
      event: 'run',
      verdict: 'passed',
      exit: 0,
      agent: { command: process.execPath, exitCode: 0, signal: null, endedBy: 'itself' },
      record: 'run.jsonl',
    });
    expect(contractProblems('run', done.stdout)).toEqual([]);
    expect(fs.readFileSync(path.join(config, 'run.jsonl'), 'utf8')).toBe(`${s.lines.join('\n')}\n`);
    // The agent's stderr is passed through as it is.
    expect(done.stderr).toContain('agent says hi\n');
    expect(leftovers(r.pids)).toEqual([]);
  });

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

  it('the agent exits before its result with work open: exit 6, with --until and without', async () => {
    const config = tempConfig();
    for (const until of [[], ['--until', 'all-completed']]) {
      const r = startRun(config, until, { steps: outs(started2().lines) });
      const done = await r.done;
      expect(done.code, done.stderr).toBe(6);
      const events = parseNdjson(done.stdout);
      expect(events.at(-2)).toMatchObject({ event: 'end', reason: 'input-ended', run: { result: null } });
      expect(events.at(-1)).toMatchObject({ verdict: 'run-ended', exit: 6, agent: { exitCode: 0, endedBy: 'itself' } });
    }
  });

  it('without --until, a run that ends with its result exits with the agent status', async () => {
    const config = tempConfig();
    const s = started2().end('error_max_turns');
    const ok = await startRun(config, [], { steps: outs(s.lines) }).done;
    expect(ok.code, ok.stderr).toBe(0);
    const failed = await startRun(config, [], { steps: [...outs(s.lines), { exit: 1 }] }).done;
    expect(failed.code).toBe(1);
    expect(lastEvent(failed.stdout)).toMatchObject({ verdict: 'agent-failed', exit: 1, agent: { exitCode: 1 } });
    expect(failed.stderr).toMatch(/^error: .*node exited with status 1; tasks run exits with its status$/m);
  });

  it("the agent's own failure with nothing to judge: its status, said so", async () => {
    const config = tempConfig();
    const s = new StreamScript().init();
    const r = await startRun(config, ['--until', 'all-completed', '--json'], {
      steps: [...outs(s.lines), { err: 'Error: no API key' }, { exit: 3 }],
    }).done;
    expect(r.code).toBe(3);
    expect(lastEvent(r.stdout)).toMatchObject({ verdict: 'agent-failed', exit: 3, agent: { exitCode: 3 } });
    const lines = stderrLines(r.stderr);
    expect(lines).toContainEqual({ note: { code: 'agent_stderr', message: 'Error: no API key' } });
    expect(lines.find((l) => l.error)).toMatchObject({ error: { code: 'agent_failed', status: 3 } });
    expect(contractProblems('stderr', r.stderr)).toEqual([]);
    expect(contractProblems('run', r.stdout)).toEqual([]);
  });

  it('an output that is not stream-json is said at its first line; with nothing to judge, a usage error', async () => {
    const config = tempConfig();
    const r = await startRun(config, ['--until', 'all-completed'], { steps: [{ out: 'Here is my answer.' }, { out: 'More text' }] }).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^warning: the agent's output is not stream-json \(its first line: "Here is my answer\."\)/m);
    expect(r.stderr.match(/not stream-json/g)).toHaveLength(2);
    expect(lastEvent(r.stdout)).toMatchObject({ verdict: 'not-stream-json', exit: 2 });
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
    expect(done.code).toBe(130);
    // Not the 60 s grace: at once.
    expect(Date.now() - second).toBeLessThan(10_000);
    await until(() => leftovers(r.pids).length === 0, 5_000, 'the group to be gone');
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

  it("what the agent leaves running when it exits is ended; the verdict is the run's", async () => {
    const config = tempConfig();
    const s = started2().update('1', { status: 'completed' }).update('2', { status: 'completed' }).end();
    const r = startRun(config, ['--until', 'all-completed', '--kill-after', '500ms'], { children: 2, steps: outs(s.lines) });
    const done = await r.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain('note: ended what the agent left running in its process group');
    expect(leftovers(r.pids)).toEqual([]);
  });
});

describe('tasks run in a terminal', () => {
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
      expect(after).toMatch(/agent: working\nnote: the agent \(.*node, pid \d+\) exited with status 0/);
    } finally {
      pane.kill();
    }
  });
});

describe('tasks run: a reader of its events that goes away', () => {
  it('| head -1: the run goes on to its verdict, which is the status; the agent is not cut short', async () => {
    const config = tempConfig();
    const planFile = path.join(config, 'plan.json');
    const pids = path.join(config, 'pids');
    started.push(pids);
    const steps = [...outs(started2().lines), { wait: 1500 }, { err: 'agent: finished its turn' }];
    fs.writeFileSync(planFile, JSON.stringify({ steps, pids }));
    const quote = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;
    const line = [process.execPath, BIN, 'run', '--until', 'all-completed', '--', process.execPath, FAKE, planFile].map(quote).join(' ');
    const shell = spawn('bash', ['-c', `${line} | head -1; echo "status=\${PIPESTATUS[0]}" >&2`], { env: baseEnv(config), cwd: config });
    let stdout = '';
    let stderr = '';
    shell.stdout.on('data', (d) => (stdout += d));
    shell.stderr.on('data', (d) => (stderr += d));
    await new Promise((res) => shell.on('close', res));
    expect(parseNdjson(stdout)).toEqual([expect.objectContaining({ event: 'snapshot' })]);
    expect(stderr).toContain('agent: finished its turn');
    expect(stderr).toMatch(/^status=6$/m);
  });
});

describe('tasks run: what the agent gets', () => {
  it("stdin is the agent's (a prompt piped in); --list names its list as CLAUDE_CODE_TASK_LIST_ID", async () => {
    const config = tempConfig();
    const steps = [...outs(new StreamScript().init().lines), { stdin: true }, { env: 'CLAUDE_CODE_TASK_LIST_ID' }];
    const piped = await startRun(config, ['--record', 'a.jsonl'], { steps }, { input: 'the prompt\n' }).done;
    expect(piped.code, piped.stderr).toBe(0);
    const a = fs.readFileSync(path.join(config, 'a.jsonl'), 'utf8');
    expect(a).toContain('{"type":"stdin","text":"the prompt"}');
    expect(a).toContain('{"type":"env","name":"CLAUDE_CODE_TASK_LIST_ID","value":null}');
    const listed = await startRun(config, ['--record', 'b.jsonl'], { steps }, { env: { CLAUDE_CODE_TASK_LIST_ID: 'ci-7' } }).done;
    expect(listed.code, listed.stderr).toBe(0);
    expect(fs.readFileSync(path.join(config, 'b.jsonl'), 'utf8')).toContain('"value":"ci-7"');
    // The events are the run's list, named as the agent's.
    expect(parseNdjson(listed.stdout)[0]).toMatchObject({ event: 'snapshot', list: 'ci-7' });
    const flag = await startRun(config, ['--record', 'c.jsonl'], { steps }, { globals: ['-l', 'ci-8'] }).done;
    expect(flag.code, flag.stderr).toBe(0);
    expect(fs.readFileSync(path.join(config, 'c.jsonl'), 'utf8')).toContain('"value":"ci-8"');
  });
});

describe('tasks run: refused before anything starts', () => {
  const runBin = (config: string, args: string[]) =>
    new Promise<Finished>((resolve) => {
      const t0 = Date.now();
      const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(config), cwd: config });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr, ms: Date.now() - t0 }));
    });

  it('a command not found: 127; not executable: 126; a folder: 126; as a shell says', async () => {
    const config = tempConfig();
    fs.writeFileSync(path.join(config, 'script.sh'), '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const missing = await runBin(config, ['run', '--', 'no-such-agent-here']);
    expect(missing).toMatchObject({ code: 127, stdout: '' });
    expect(missing.stderr).toBe('error: no-such-agent-here: command not found (not in PATH)\n');
    const plain = await runBin(config, ['run', '--', './script.sh']);
    expect(plain.code).toBe(126);
    expect(plain.stderr).toMatch(/script\.sh is not executable \(permission denied\)/);
    expect((await runBin(config, ['run', '--', config])).code).toBe(126);
    const json = await runBin(config, ['--json', 'run', '--', 'no-such-agent-here']);
    expect(stderrLines(json.stderr)).toEqual([
      { error: expect.objectContaining({ code: 'command_not_found', command: 'no-such-agent-here' }) },
    ]);
  });

  it('usage: no --, a bad duration, --record in a folder that does not exist (and the agent never started)', async () => {
    const config = tempConfig();
    const noDash = await runBin(config, ['run', 'claude']);
    expect(noDash.code).toBe(2);
    expect(noDash.stderr).toMatch(/^error: put the agent's command after --/);
    expect((await runBin(config, ['run', '--fail-if-stalled', 'soon', '--', 'true'])).code).toBe(2);
    expect((await runBin(config, ['run', '--kill-after', 'x', '--', 'true'])).code).toBe(2);
    const marker = path.join(config, 'started');
    const record = await runBin(config, ['run', '--record', path.join(config, 'nope', 'run.jsonl'), '--', 'touch', marker]);
    expect(record.code).toBe(2);
    expect(record.stderr).toMatch(/^error: --record .*nope\/run\.jsonl: cannot write it/);
    expect(fs.existsSync(marker)).toBe(false);
    expect((await runBin(config, ['--session', 'abcd', 'run', '--', 'true'])).code).toBe(2);
  });
});
