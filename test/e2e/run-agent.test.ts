/**
 * `tasks run` through the built binary, with a scripted agent (test/helpers/fake-agent.mjs):
 * the verdicts and their statuses, the record, stdin and stderr, what the agent leaves
 * running ended, a reader that goes away, and the errors before anything starts. The
 * built binary, since a process group, signals and pipes are what is under test.
 * Stalls, deadlines and signals, which wait out graces: test/slow/run-agent-signals.test.ts;
 * the real agent: test/interop/run-agent.test.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, run, stderrLines, tempConfig } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { parseNdjson } from '../helpers/replay.js';
import { FAKE, type Finished, killLeftovers, lastEvent, leftovers, outs, started2, startRun, trackPids } from '../helpers/run-agent.js';
import { StreamScript } from '../helpers/stream-lines.js';

afterEach(killLeftovers);

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

  it('a stall and a deadline are said with the limits given (700ms, not 1s), the time seen never rounded up past it', async () => {
    const config = tempConfig();
    const stalled = await startRun(config, ['--fail-if-stalled', '700ms'], { steps: [...outs(started2().lines), { hang: true }] }).done;
    expect(stalled.code, stalled.stderr).toBe(7);
    const idleMs = (parseNdjson(stalled.stdout).at(-2) as unknown as { idleMs: number }).idleMs;
    expect(idleMs).toBeGreaterThanOrEqual(700);
    const said = `${Math.floor(idleMs / 100) / 10}s`;
    expect(stalled.stderr).toContain(
      `error: the agent has been silent for ${said} (--fail-if-stalled 700ms) (task #1 "Reproduce" has been in progress without a change for `,
    );
    const late = await startRun(config, ['--timeout', '700ms'], { steps: [...outs(started2().lines), { hang: true }] }).done;
    expect(late.code, late.stderr).toBe(124);
    expect(late.stderr).toMatch(/^error: timed out after 700ms before the run ended/m);
    // What the ended agent took up is said, with what gives it back.
    for (const r of [stalled, late]) {
      const session = (lastEvent(r.stdout) as unknown as { session: string }).session;
      expect(r.stderr).toContain(
        `note: the agent was ended holding #1 "Reproduce" in progress; tasks -l ${session.slice(0, 8)} release 1 gives it back`,
      );
    }
  });

  it('an agent that prints nothing at all stalls as one that stopped: exit 7, ended, its end on an empty list', async () => {
    const config = tempConfig();
    const r = startRun(config, ['--until', 'all-completed', '--fail-if-stalled', '700ms'], { steps: [{ hang: true }] });
    const done = await r.done;
    expect(done.code, done.stderr).toBe(7);
    expect(done.ms).toBeLessThan(8000);
    const events = parseNdjson(done.stdout);
    expect(events.at(-2)).toMatchObject({ event: 'end', reason: 'stalled', met: false, stalled: [], list: null, counts: { total: 0 } });
    expect((events.at(-2) as unknown as { idleMs: number }).idleMs).toBeGreaterThanOrEqual(700);
    expect(events.at(-1)).toMatchObject({ event: 'run', verdict: 'stalled', exit: 7, agent: { endedBy: 'SIGTERM' } });
    expect(done.stderr).toMatch(/^error: the agent has been silent for 0\.\ds \(--fail-if-stalled 700ms\)/m);
    expect(contractProblems('run', done.stdout)).toEqual([]);
    expect(leftovers(r.pids)).toEqual([]);
  });

  it('a tool call in flight is work, however long it is silent: no stall until its result, then the clock runs again', async () => {
    const config = tempConfig();
    const sid = started2().session;
    const bash = { type: 'tool_use', id: 'toolu_suite', name: 'Bash', input: { command: 'npm test' } };
    const call = { type: 'assistant', message: { role: 'assistant', content: [bash] }, parent_tool_use_id: null, session_id: sid };
    const result = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_suite', content: 'passed' }] },
      parent_tool_use_id: null,
      session_id: sid,
    };
    // The suite runs 2 s, silent, with --fail-if-stalled 700ms; then the agent ends its run.
    const suite = [...outs(started2().lines), { out: call }, { wait: 2000 }, { out: result }];
    const ok = await startRun(config, ['--fail-if-stalled', '700ms'], { steps: [...suite, ...outs(new StreamScript(sid).end().lines)] })
      .done;
    expect(ok.code, ok.stderr).toBe(0);
    expect(lastEvent(ok.stdout)).toMatchObject({ verdict: 'passed' });
    // Silent after the result came (a model request that never returns): stalled, timed from the result.
    const hung = await startRun(config, ['--fail-if-stalled', '700ms'], { steps: [...suite, { hang: true }] }).done;
    expect(hung.code, hung.stderr).toBe(7);
    expect(hung.ms).toBeGreaterThanOrEqual(2700);
    expect(hung.stderr).toContain('error: the agent has been silent for ');
  });

  it('without --until, a run that ends with its result exits with the agent status', async () => {
    const config = tempConfig();
    const s = started2().end();
    const ok = await startRun(config, [], { steps: outs(s.lines) }).done;
    expect(ok.code, ok.stderr).toBe(0);
    expect(lastEvent(ok.stdout)).toMatchObject({ verdict: 'passed', result: { subtype: 'success', isError: false } });
    const failed = await startRun(config, [], { steps: [...outs(s.lines), { exit: 1 }] }).done;
    expect(failed.code).toBe(1);
    expect(lastEvent(failed.stdout)).toMatchObject({ verdict: 'agent-failed', exit: 1, agent: { exitCode: 1 } });
    expect(failed.stderr).toMatch(/^error: .*node exited with status 1; tasks run exits with its status$/m);
    // An error result fails the run even when the agent exits 0.
    const erred = await startRun(config, [], { steps: outs(started2().end('error_max_turns').lines) }).done;
    expect(erred.code, erred.stderr).toBe(1);
    expect(lastEvent(erred.stdout)).toMatchObject({
      verdict: 'agent-failed',
      exit: 1,
      result: { subtype: 'error_max_turns', isError: true },
    });
  });

  it('--until held, but the agent says its run failed (an error result, its own non-zero exit): never passed', async () => {
    const config = tempConfig();
    const done = () => started2().update('1', { status: 'completed' }).update('2', { status: 'completed' });
    // error_max_turns and exit 1, as claude -p --max-turns ends.
    const maxTurns = await startRun(config, ['--until', 'all-completed', '--json'], {
      steps: [...outs(done().end('error_max_turns').lines), { exit: 1 }],
    }).done;
    expect(maxTurns.code, maxTurns.stderr).toBe(1);
    const events = parseNdjson(maxTurns.stdout);
    expect(events.at(-2)).toMatchObject({ event: 'end', met: true, run: { result: 'error_max_turns', isError: true } });
    expect(events.at(-1)).toMatchObject({
      verdict: 'agent-failed',
      exit: 1,
      agent: { exitCode: 1, endedBy: 'itself' },
      result: { subtype: 'error_max_turns', isError: true },
    });
    const errors = stderrLines(maxTurns.stderr).filter((l) => l.error);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ error: { code: 'agent_failed', status: 1, result: 'error_max_turns', isError: true } });
    expect(contractProblems('stderr', maxTurns.stderr)).toEqual([]);
    expect(contractProblems('run', maxTurns.stdout)).toEqual([]);
    // A clean result, then a non-zero exit of its own: the agent's status.
    const exit3 = await startRun(config, ['--until', 'all-completed'], { steps: [...outs(done().end().lines), { exit: 3 }] }).done;
    expect(exit3.code, exit3.stderr).toBe(3);
    expect(lastEvent(exit3.stdout)).toMatchObject({ verdict: 'agent-failed', exit: 3, result: { isError: false } });
    expect(exit3.stderr).toMatch(
      /^error: .*node says its run failed: it exited with status 3, though all-completed held; tasks run exits with status 3$/m,
    );
    // An error result with exit 0: 1.
    const exit0 = await startRun(config, ['--until', 'all-completed'], { steps: outs(done().end('error_during_execution').lines) }).done;
    expect(exit0.code, exit0.stderr).toBe(1);
    expect(exit0.stderr).toMatch(/^error: .*its run's result is an error \(error_during_execution\), though all-completed held/m);
    // Unchanged: a clean result and exit 0 passes.
    const clean = await startRun(config, ['--until', 'all-completed'], { steps: outs(done().end().lines) }).done;
    expect(clean.code, clean.stderr).toBe(0);
    expect(lastEvent(clean.stdout)).toMatchObject({ verdict: 'passed', exit: 0 });
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

  it("--json: a stderr line of the agent's longer than 1 MB is said to be skipped, not lost in silence; the next line is kept", async () => {
    const config = tempConfig();
    const s = new StreamScript().init().end();
    const r = await startRun(config, ['--json'], { steps: [{ err: 'x'.repeat(1024 * 1024 + 10) }, { err: 'after it' }, ...outs(s.lines)] })
      .done;
    expect(r.code, r.stderr.slice(0, 500)).toBe(0);
    const notes = stderrLines(r.stderr).flatMap((l) => (l.note ? [l.note] : []));
    expect(notes).toContainEqual(
      expect.objectContaining({ code: 'agent_stderr_skipped', message: expect.stringMatching(/longer than 1 MB/) }),
    );
    expect(notes).toContainEqual({ code: 'agent_stderr', message: 'after it' });
    expect(r.stderr.length).toBeLessThan(100_000);
  });

  it('an output that is not stream-json is said at its first line; with nothing to judge, a usage error', async () => {
    const config = tempConfig();
    const r = await startRun(config, ['--until', 'all-completed'], { steps: [{ out: 'Here is my answer.' }, { out: 'More text' }] }).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^warning: the agent's output is not stream-json \(its first line: "Here is my answer\."\)/m);
    expect(r.stderr.match(/not stream-json/g)).toHaveLength(2);
    expect(lastEvent(r.stdout)).toMatchObject({ verdict: 'not-stream-json', exit: 2 });
  });

  it('a list named that does not exist, in which the run makes nothing: its events say it does not exist', async () => {
    const config = tempConfig();
    const r = await startRun(
      config,
      ['--until', 'all-completed', '--json'],
      { steps: [{ out: 'Here is my answer.' }] },
      { globals: ['-l', 'ci-9'] },
    ).done;
    expect(r.code).toBe(2);
    const events = parseNdjson(r.stdout);
    expect(events.find((e) => e.event === 'snapshot')).toMatchObject({ list: 'ci-9', exists: false, tasks: [] });
    expect(fs.existsSync(path.join(config, 'tasks', 'ci-9'))).toBe(false);
  });

  it('no list named and none seen (the agent printed nothing): its events name no list, and say none exists', async () => {
    const config = tempConfig();
    const r = await startRun(config, ['--json'], { steps: [] }).done;
    expect(r.code).toBe(2);
    const events = parseNdjson(r.stdout);
    expect(events.find((e) => e.event === 'snapshot')).toMatchObject({ list: null, exists: false, tasks: [] });
    expect(events.find((e) => e.event === 'end')).toMatchObject({ list: null, exists: false, tasks: [] });
    expect(lastEvent(r.stdout)).toMatchObject({ event: 'run', list: null, session: null });
    expect(contractProblems('run', r.stdout)).toEqual([]);
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

describe("tasks run: what holds the agent's output outside its group", () => {
  it('a `timeout` the agent ran (a process group of its own) holding its output is ended too, and said so; nothing outlives the step', async () => {
    const config = tempConfig();
    const s = started2().update('1', { status: 'completed' }).update('2', { status: 'completed' }).end();
    const r = startRun(config, ['--until', 'all-completed', '--kill-after', '500ms'], { outside: 1, steps: outs(s.lines) });
    const done = await r.done;
    expect(done.code, done.stderr).toBe(0);
    // `timeout` and its `sleep`: one or both signalled (SIGTERM to `timeout` may end its `sleep` first).
    expect(done.stderr).toMatch(
      /note: ended (a process|2 processes) outside the agent's process group that kept its output open \(pid \d+(, \d+)?\)/,
    );
    expect(done.stderr).not.toContain('no longer read');
    expect(leftovers(r.pids)).toEqual([]);
  });
});

describe('tasks run: a reader of its events that goes away', () => {
  it('| head -1: the run goes on to its verdict, which is the status; the agent is not cut short', async () => {
    const config = tempConfig();
    const planFile = path.join(config, 'plan.json');
    const pids = path.join(config, 'pids');
    trackPids(pids);
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

  it('2>&1 | head -1: the agent writing to stderr after the reader went is not cut short (no SIGPIPE); its run passes', async () => {
    const config = tempConfig();
    const run = new StreamScript().init().create('1', 'Reproduce').update('1', { status: 'completed' }).end();
    fs.writeFileSync(path.join(config, 'run.jsonl'), `${run.lines.join('\n')}\n`);
    const marker = path.join(config, 'finished');
    // A shell agent: the default SIGPIPE ends it at its first write to a pipe nobody reads.
    fs.writeFileSync(
      path.join(config, 'agent.sh'),
      `#!/bin/sh\ncat run.jsonl\nsleep 1\necho "agent: a warning" >&2\nsleep 0.2\necho "agent: done" >&2\ntouch '${marker}'\n`,
      { mode: 0o755 },
    );
    const line = `'${process.execPath}' '${BIN}' run --until all-completed -- ./agent.sh`;
    const shell = spawn('bash', ['-c', `{ ${line}; echo "status=$?" > status; } 2>&1 | head -1`], { env: baseEnv(config), cwd: config });
    let stdout = '';
    shell.stdout.on('data', (d) => (stdout += d));
    await new Promise((res) => shell.on('close', res));
    // head took one line (stdout and stderr share the pipe), then went away.
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(fs.readFileSync(path.join(config, 'status'), 'utf8')).toBe('status=0\n');
    expect(fs.existsSync(marker)).toBe(true);
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

  it('-l with a short id names the session list as every command takes it: the agent gets its whole id; an ambiguous one starts nothing', async () => {
    const config = tempConfig();
    const whole = '7c0ffee0-1111-4222-8333-444455556666';
    expect(run(config, ['-l', whole, 'create', 'Reproduce']).code).toBe(0);
    const steps = [...outs(new StreamScript().init().lines), { env: 'CLAUDE_CODE_TASK_LIST_ID' }];
    const short = await startRun(config, ['--record', 'a.jsonl'], { steps }, { globals: ['-l', '7c0ffee0'] }).done;
    // Judged on that list: its task is left open.
    expect(short.code, short.stderr).toBe(6);
    // The agent writes where `tasks -l 7c0ffee0 list` reads, not in a new list named 7c0ffee0.
    expect(fs.readFileSync(path.join(config, 'a.jsonl'), 'utf8')).toContain(`"value":"${whole}"`);
    expect(parseNdjson(short.stdout)[0]).toMatchObject({ event: 'snapshot', list: whole, tasks: [expect.objectContaining({ id: '1' })] });
    expect(lastEvent(short.stdout)).toMatchObject({ list: whole });
    // The same short id on two session lists: refused as every command refuses it, the agent never started.
    expect(run(config, ['-l', '7c0ffee0-9999-4222-8333-444455556666', 'create', 'Other']).code).toBe(0);
    const refused = startRun(config, [], { steps: [{ out: 'x' }] }, { globals: ['-l', '7c0ffee0'] });
    const ambiguous = await refused.done;
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^error: list prefix "7c0ffee0" is ambiguous/m);
    expect(ambiguous.stdout).toBe('');
    expect(fs.existsSync(refused.pids)).toBe(false);
    expect(fs.existsSync(path.join(config, 'tasks', '7c0ffee0'))).toBe(false);
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
    // A deadline of nothing would end the agent as it starts.
    const zero = await runBin(config, ['run', '--timeout', '0s', '--', 'touch', path.join(config, 'zero')]);
    expect(zero).toMatchObject({ code: 2, stdout: '', stderr: 'error: --timeout must be longer than 0\n' });
    expect(fs.existsSync(path.join(config, 'zero'))).toBe(false);
    const marker = path.join(config, 'started');
    const record = await runBin(config, ['run', '--record', path.join(config, 'nope', 'run.jsonl'), '--', 'touch', marker]);
    expect(record.code).toBe(2);
    expect(record.stderr).toMatch(/^error: --record .*nope\/run\.jsonl: cannot write it/);
    expect(fs.existsSync(marker)).toBe(false);
    expect((await runBin(config, ['--session', 'abcd', 'run', '--', 'true'])).code).toBe(2);
  });

  it("the -- must come before the agent's command: an option that took it as its value, or a command before it, starts nothing", async () => {
    const config = tempConfig();
    const marker = path.join(config, 'started');
    // --record with no file took the -- as its file: no record named "--", no agent run without its record.
    const record = await runBin(config, ['run', '--until', 'all-completed', '--record', '--', 'touch', marker]);
    expect(record).toMatchObject({ code: 2, stdout: '' });
    expect(record.stderr).toMatch(/^error: --record needs a file/);
    expect(fs.existsSync(path.join(config, '--'))).toBe(false);
    const owner = await runBin(config, ['run', '--owner', '--', 'touch', marker]);
    expect(owner.code).toBe(2);
    // The command before the --: the options around it (--until) would be tasks run's, the -- the agent's.
    const before = await runBin(config, ['run', 'touch', marker, '--until', 'all-completed', '--', 'x']);
    expect(before).toMatchObject({ code: 2, stdout: '' });
    expect(before.stderr).toMatch(/^error: put the agent's command after --/);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('-l or --config-dir that took the -- as its value starts nothing: no agent writing to a list named "--" or a config folder named "--"', async () => {
    const config = tempConfig();
    const marker = path.join(config, 'started');
    const list = await runBin(config, ['run', '--until', 'all-completed', '-l', '--', 'touch', marker]);
    expect(list).toMatchObject({ code: 2, stdout: '' });
    expect(list.stderr).toMatch(/^error: -l needs a list: it took the -- before the agent's command/);
    const global = await runBin(config, ['--list', '--', 'run', 'touch', marker]);
    expect(global.code).toBe(2);
    const dir = await runBin(config, ['run', '--config-dir', '--', 'touch', marker]);
    expect(dir).toMatchObject({ code: 2, stdout: '' });
    expect(dir.stderr).toMatch(/^error: --config-dir needs a folder: it took the -- before the agent's command/);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(path.join(config, 'tasks', '--'))).toBe(false);
  });

  it('a command before the -- that is also the first word after it is refused too (tasks run touch -- touch ...)', async () => {
    const config = tempConfig();
    const marker = path.join(config, 'started');
    const twice = await runBin(config, ['run', 'touch', '--', 'touch', marker]);
    expect(twice).toMatchObject({ code: 2, stdout: '' });
    expect(twice.stderr).toMatch(/^error: put the agent's command after --/);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(path.join(config, 'touch'))).toBe(false);
  });

  it('an option tasks run does not know, before the --, is named as unknown (not "put the command after --"), and a second -- is refused: nothing starts', async () => {
    const config = tempConfig();
    const marker = path.join(config, 'started');
    const unknown = await runBin(config, ['run', '--untill', 'all-completed', '--', 'touch', marker]);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^error: unknown option '--untill' \(tasks run's own options go before the --, the agent's after it\)/);
    const twice = await runBin(config, ['run', '--', '--', 'touch', marker]);
    expect(twice).toMatchObject({ code: 2, stdout: '' });
    expect(twice.stderr).toMatch(/^error: -- given twice: put the agent's command after one --/);
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe("tasks run: a process that left the agent's group and holds its stderr", () => {
  it("does not keep tasks run from exiting once the run is over (a server started with setsid, its stderr the agent's)", async () => {
    const config = tempConfig();
    const pidFile = path.join(config, 'daemon.pid');
    // stdout closed by the daemon, so only the agent's stderr is held; tasks run's stderr a pipe (relayed).
    const agent = `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 30' >/dev/null & echo x`;
    const t0 = Date.now();
    const child = spawn(process.execPath, [BIN, 'run', '--', 'sh', '-c', agent], { env: baseEnv(config), cwd: config });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    const ms = Date.now() - t0;
    try {
      process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGKILL');
    } catch {
      // already gone
    }
    expect(code, stderr).toBe(2);
    expect(ms).toBeLessThan(10_000);
  }, 40_000);
});
