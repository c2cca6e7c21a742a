/**
 * `watch --stream` as a CI gate, through the built binary and a real shell: it passes
 * only at the run's end with the condition holding then (or, with --early, once the run
 * has acted), it reads its input to the end whatever happens (the writer upstream never
 * meets a closed pipe, a tee copy is whole, under `set -o pipefail`), its events are the
 * run's own transitions in order, and a silent run stalls. Pipes and exit statuses are
 * what a gate is made of: every test runs the binary. The gate's timings (events between
 * two rescans, stalls over seconds) are in test/slow/stream-gate-timing.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, runAsync, stderrError, stderrLines, tempConfig, writeTask } from '../helpers/cli.js';
import { runFed } from '../helpers/feed.js';
import { parseNdjson, replay } from '../helpers/replay.js';
import { until } from '../helpers/run-agent.js';
import { writeLiveSession } from '../helpers/session-files.mjs';
import { StreamScript } from '../helpers/stream-lines.js';

const gate = (config: string, lines: readonly string[], args: string[], opts = {}) =>
  runFed(config, ['watch', '--stream', '-', '--json', ...args], lines, { delayMs: 15, ...opts });

/** The agent completes #1, then plans #2 and #3 in later turns. */
function incremental(): StreamScript {
  return new StreamScript().init().create('1', 'Reproduce').update('1', { status: 'in_progress' }).update('1', { status: 'completed' });
}

describe('the gate needs the run to end with the condition holding', () => {
  it('incremental planning: 1/1 done early is not a pass; the run ends with #2 and #3 open: exit 6', async () => {
    const config = tempConfig();
    const s = incremental().create('2', 'Fix').create('3', 'Verify').update('2', { status: 'in_progress' }).end();
    const r = await gate(config, s.lines, ['--until', 'all-completed']);
    expect(r.code).toBe(6);
    const events = parseNdjson(r.stdout);
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: false, run: { result: 'success' } });
    expect(events.filter((e) => e.event === 'end')).toHaveLength(1);
    expect(stderrError(r.stderr)).toMatchObject({ error: { code: 'run_ended', reason: 'run-ended', until: 'all-completed' } });
    // Replayed here, the run's list folder is nowhere: said once, at its first task.
    expect(stderrLines(r.stderr).filter((l) => l.warning)).toEqual([
      { warning: expect.objectContaining({ code: 'list_not_visible', taskId: '1' }) },
    ]);
  });

  it('the same run finishing its plan: exit 0 at its result event, not before', async () => {
    const config = tempConfig();
    const s = incremental()
      .create('2', 'Fix')
      .create('3', 'Verify')
      .update('2', { status: 'completed' })
      .update('3', { status: 'completed' })
      .say('all done')
      .end();
    const r = await gate(config, s.lines, ['--until', 'all-completed']);
    expect(r.code, r.stderr).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: true, run: { result: 'success', isError: false } });
    // Every one of the run's transitions is an event, in order.
    expect(events.slice(1, -1).map((e) => `${e.event}:${e.task?.id}:${e.task?.status}`)).toEqual([
      'created:1:pending',
      'updated:1:in_progress',
      'updated:1:completed',
      'created:2:pending',
      'created:3:pending',
      'updated:2:completed',
      'updated:3:completed',
    ]);
  });

  it('--early opts in to ending when the condition holds once the run has acted (here at 1/1)', async () => {
    const config = tempConfig();
    const s = incremental().create('2', 'Fix').end();
    // Lines far enough apart that a loaded machine still reads #1's completion before #2's plan.
    const r = await gate(config, s.lines, ['--until', 'all-completed', '--early'], { delayMs: 250 });
    expect(r.code).toBe(0);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'condition-met', met: true, counts: { total: 1 } });
  });

  it('a run killed before its result event never passes, even with every task done', async () => {
    const config = tempConfig();
    const s = incremental();
    const r = await gate(config, s.lines, ['--until', 'all-completed']);
    expect(r.code).toBe(6);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'input-ended', met: false, counts: { completed: 1 } });
  });

  it('a stream cut while its agent still runs here is no death: no release is offered for the work it holds', async () => {
    const s = new StreamScript().init().create('1', 'Reproduce').update('1', { status: 'in_progress', owner: 'main' });
    // Nothing here says the session lives on: its run ended holding #1 (crashed, said with the way back).
    const alone = tempConfig();
    const dead = await gate(alone, s.lines, ['--until', 'all-completed']);
    expect(dead.code).toBe(6);
    expect(stderrLines(dead.stderr).find((l) => l.note?.code === 'session_died')?.note).toMatchObject({
      sessionId: s.session,
      state: 'crashed',
      tasks: ['1'],
      message: expect.stringContaining('tasks -l 7c0ffee0 release 1 gives it back'),
    });
    // Its live-session file names a process that runs (a reader between it and the watch went away).
    const config = tempConfig();
    writeLiveSession(config, { pid: process.pid, sessionId: s.session, cwd: path.join(config, 'proj') });
    const cut = await gate(config, s.lines, ['--until', 'all-completed']);
    expect(cut.code).toBe(6);
    expect(cut.stderr).not.toContain('session_died');
    expect(cut.stderr).not.toContain('release');
    const error = stderrError(cut.stderr)?.error as Record<string, unknown> | undefined;
    expect(error).toMatchObject({
      code: 'run_ended',
      reason: 'input-ended',
      message:
        "the run's input ended without a result event: the run did not finish, so all-completed is not met; 1 task: 0 done, 1 in progress, 0 pending",
    });
    expect(error?.died).toBeUndefined();
  });

  it('a run whose result is an error (error_max_turns) never passes, even with every task done: exit 1, said why', async () => {
    const config = tempConfig();
    const r = await gate(config, incremental().end('error_max_turns').lines, ['--until', 'all-completed']);
    expect(r.code, r.stderr).toBe(1);
    const events = parseNdjson(r.stdout);
    expect(events.at(-1)).toMatchObject({ event: 'end', met: true, run: { result: 'error_max_turns', isError: true } });
    expect(stderrError(r.stderr)).toMatchObject({
      error: { code: 'agent_failed', until: 'all-completed', result: 'error_max_turns', isError: true },
    });
    expect(stderrLines(r.stderr).filter((l) => l.error)).toHaveLength(1);
    // Without --until the end of a run is just the end of the watch.
    const plain = await gate(config, incremental().end('error_max_turns').lines, []);
    expect(plain.code, plain.stderr).toBe(0);
  });

  it('a whole run in one read: the first state is the run before its first step, every step an event after it', async () => {
    const config = tempConfig();
    const s = incremental().create('2', 'Fix').update('2', { status: 'completed' }).end();
    const r = await runAsync(config, ['watch', '--stream', '-', '--json', '--until', 'all-completed'], {
      input: `${s.lines.join('\n')}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events[0]).toMatchObject({ event: 'snapshot', tasks: [] });
    expect(events.filter((e) => e.event === 'created').map((e) => e.task?.id)).toEqual(['1', '2']);
    expect([...replay(events).values()].map((t) => t.status)).toEqual(['completed', 'completed']);
  });

  it("-l with a session list's short id follows that list, as every command reads it: its open task fails the gate", async () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', '7c0ffee0-1111-4222-8333-444455556666'), {
      id: '1',
      subject: 'Reproduce',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    const short = await runFed(
      config,
      ['-l', '7c0ffee0', 'watch', '--stream', '-', '--json', '--until', 'all-completed'],
      new StreamScript().init().end().lines,
    );
    expect(short.code, short.stderr).toBe(6);
    expect(parseNdjson(short.stdout).at(-1)).toMatchObject({
      event: 'end',
      list: '7c0ffee0-1111-4222-8333-444455556666',
      counts: { total: 1 },
    });
  });

  it('--early needs --stream and --until', async () => {
    const config = tempConfig();
    const r = await runAsync(config, ['-l', 'x', 'watch', '--until', 'all-completed', '--early']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --early goes with --stream and --until/);
  });
});

describe('a reused list: its old tasks cannot pass a gate the run has not reached', () => {
  const old = (id: string) => ({ id, subject: `old ${id}`, description: '', status: 'completed', blocks: [], blockedBy: [] });

  for (const early of [false, true]) {
    it(`${early ? 'with' : 'without'} --early: nothing ends the watch before the run has acted`, async () => {
      const config = tempConfig();
      const dir = path.join(config, 'tasks', 'nightly');
      for (const id of ['1', '2', '3']) writeTask(dir, old(id));
      fs.writeFileSync(path.join(dir, '.highwatermark'), '3');
      const s = new StreamScript().init();
      const child = spawn(
        process.execPath,
        [BIN, 'watch', '--stream', '-', '--json', '--until', 'all-completed', ...(early ? ['--early'] : [])],
        { env: baseEnv(config, { CLAUDE_CODE_TASK_LIST_ID: 'nightly' }), cwd: config },
      );
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', () => {});
      const closed = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
      const events = () => parseNdjson(stdout).map((e) => e.event);
      // Waited for by what the watch prints, not by a fixed time (a loaded machine starts
      // it late); then a moment more, for a wrong end to have the chance to show.
      const settle = () => new Promise((r) => setTimeout(r, 300));
      child.stdin.write(`${s.lines.join('\n')}\n`);
      await until(() => events().includes('snapshot'), 20_000, 'the snapshot');
      await settle();
      // The snapshot shows the old tasks; nothing has ended.
      expect(events()).toEqual(['snapshot']);
      // The agent adds #4 (its file, then its result), then completes it.
      const more = new StreamScript(s.session).create('4', 'Tonight').update('4', { status: 'completed' });
      writeTask(dir, { id: '4', subject: 'Tonight', description: 'do Tonight', status: 'pending', blocks: [], blockedBy: [] });
      child.stdin.write(`${more.lines.slice(0, 2).join('\n')}\n`);
      await until(() => events().includes('created'), 20_000, 'the created event');
      await settle();
      expect(events()).toEqual(['snapshot', 'created']);
      writeTask(dir, { id: '4', subject: 'Tonight', description: 'do Tonight', status: 'completed', blocks: [], blockedBy: [] });
      child.stdin.write(`${more.lines.slice(2).join('\n')}\n`);
      if (early) {
        await until(() => events().includes('end'), 20_000, 'the end event');
        expect(parseNdjson(stdout).at(-1)).toMatchObject({ event: 'end', reason: 'condition-met', met: true, counts: { total: 4 } });
      }
      child.stdin.end(`${new StreamScript(s.session).end().lines.join('\n')}\n`);
      expect(await closed).toBe(0);
      const end = parseNdjson(stdout).at(-1);
      expect(end).toMatchObject({ event: 'end', reason: early ? 'condition-met' : 'run-ended', met: true });
    });
  }
});

describe('the input is read to its end whatever happens (bash, set -o pipefail, tee)', () => {
  /**
   * The CI guide's gate as a CI job writes it, fed by a slow writer. With `holdLastLine`, the
   * writer keeps the run's last line back until the watch has printed its end event (for
   * 10 s or so at most): the run is still going when the watch ends, however slowly the machine
   * starts the watch.
   */
  function pipeline(
    config: string,
    lines: readonly string[],
    watchArgs: string,
    after = '',
    holdLastLine = false,
  ): { code: number; out: string; copy: string } {
    const input = path.join(config, 'run-input.jsonl');
    fs.writeFileSync(input, `${lines.join('\n')}\n`);
    const copy = path.join(config, 'run.jsonl');
    const events = path.join(config, 'events.jsonl');
    const hold = holdLastLine
      ? `[ $n -eq ${lines.length} ] && for i in $(seq 200); do grep -qs '"event":"end"' ${JSON.stringify(events)} && break; sleep 0.05; done; `
      : '';
    const writer = `n=0; while IFS= read -r l; do n=$((n + 1)); ${hold}printf '%s\\n' "$l"; sleep 0.05; done < ${JSON.stringify(input)}`;
    const watch = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} watch --stream - ${watchArgs}${after}`;
    const script = `set -o pipefail\n(${writer}) | tee ${JSON.stringify(copy)} | ${watch}${holdLastLine ? ` > ${JSON.stringify(events)}` : ''}\necho "EXIT=$?"`;
    const r = spawnSync('bash', ['-c', script], { env: baseEnv(config), cwd: config, encoding: 'utf8', timeout: 60_000 });
    const code = Number(/EXIT=(\d+)/.exec(r.stdout)?.[1] ?? -1);
    const out = holdLastLine ? `${fs.readFileSync(events, 'utf8')}${r.stdout}` : r.stdout;
    return { code, out, copy: fs.readFileSync(copy, 'utf8') };
  }
  const full = () => incremental().say('wrapping up').say('still wrapping up').say('nearly there').end().lines;

  it('--early: the watch ends at 1/1, the writer and tee still finish: exit 0, the copy ends with the result line', () => {
    const config = tempConfig();
    const lines = full();
    const r = pipeline(config, lines, '--until all-completed --early --json');
    expect(r.code, r.out).toBe(0);
    expect(r.copy).toBe(`${lines.join('\n')}\n`);
    expect(r.copy.trim().split('\n').at(-1)).toContain('"type":"result"');
    expect(parseNdjson(r.out.replace(/^EXIT=.*$/m, '')).at(-1)).toMatchObject({ reason: 'condition-met' });
  });

  it('--timeout before the run ends: exit 124, said at the deadline, and the copy is whole', () => {
    const config = tempConfig();
    const lines = full();
    const r = pipeline(config, lines, '--until all-completed --timeout 150ms --json', '', true);
    expect(r.code, r.out).toBe(124);
    expect(parseNdjson(r.out.replace(/^EXIT=.*$/m, '')).at(-1)).toMatchObject({ event: 'end', reason: 'timeout' });
    expect(r.copy).toBe(`${lines.join('\n')}\n`);
  });

  it('the reader of the events goes away (| head -1): the pipeline ends well, the copy is whole', () => {
    const config = tempConfig();
    const lines = full();
    const r = pipeline(config, lines, '--json', ' | head -1');
    expect(r.code).toBe(0);
    expect(r.copy).toBe(`${lines.join('\n')}\n`);
    expect(parseNdjson(r.out.replace(/^EXIT=.*$/m, ''))).toHaveLength(1);
  });
});

describe('bounded lines; a followed file read in steps, so the deadline and Ctrl-C act at once', () => {
  it('a 32 MB line on stdin is skipped with one warning; the run around it is followed', async () => {
    const config = tempConfig();
    const s = new StreamScript().init().create('1', 'A');
    const huge = `{"type":"assistant","pad":"${'x'.repeat(32 * 1024 * 1024)}"}`;
    const more = new StreamScript(s.session).update('1', { status: 'completed' }).end();
    const r = await runAsync(config, ['watch', '--stream', '-', '--json', '--until', 'all-completed'], {
      input: `${[...s.lines, huge, ...more.lines].join('\n')}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/line 4 is longer than 16 MB: skipped/);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ reason: 'run-ended', met: true });
  }, 60_000);

  /** A file that never ends its line: 8 GB of zeros (sparse), read as it would be followed. */
  function endless(config: string): string {
    const file = path.join(config, 'endless.jsonl');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 8 * 1024 ** 3);
    return file;
  }

  it('--timeout 1s on an endless line: the deadline ends the watch (exit 124)', async () => {
    const config = tempConfig();
    const file = endless(config);
    const started = Date.now();
    const r = await runAsync(config, ['watch', '--stream', file, '--json', '--until', 'all-completed', '--timeout', '1s']);
    const took = Date.now() - started;
    expect(r.code).toBe(124);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'timeout' });
    // A sanity bound, far above the deadline: reading 8 GB at once would take much longer.
    expect(took).toBeLessThan(6000);
  }, 60_000);

  it('Ctrl-C while an endless line is read: the watch stops at once (exit 130 with --until)', async () => {
    const config = tempConfig();
    const file = endless(config);
    const child = spawn(process.execPath, [BIN, 'watch', '--stream', file, '--json', '--until', 'all-completed'], {
      env: baseEnv(config),
      cwd: config,
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    await new Promise((r) => setTimeout(r, 1000));
    const sent = Date.now();
    child.kill('SIGINT');
    const code = await closed;
    const took = Date.now() - sent;
    expect(code).toBe(130);
    expect(stderr).toMatch(/stopped before the run began/);
    expect(took).toBeLessThan(3000);
  }, 60_000);
});

describe('--stream on a FIFO no writer ever opens', () => {
  for (const [how, args, signal, code] of [
    ['--timeout ends it', ['--timeout', '1s'], undefined, 0],
    ['SIGTERM ends it', [], 'SIGTERM', 130],
  ] as const) {
    it(`${how}: exit ${code}, not a wait for a writer`, async () => {
      const config = tempConfig();
      const fifo = path.join(config, 'run.fifo');
      spawnSync('mkfifo', [fifo]);
      const started = Date.now();
      const child = spawn(process.execPath, [BIN, 'watch', '--stream', fifo, '--json', ...args], { env: baseEnv(config), stdio: 'ignore' });
      const ended = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      if (signal !== undefined) {
        await new Promise((r) => setTimeout(r, 1000));
        child.kill(signal);
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const exit = await ended;
      clearTimeout(timer);
      expect(exit).toBe(code);
      // At the deadline or the signal (1 s), not a wait for a first event that cannot come
      // (it was 2 s more): what is left is the process's start and end.
      expect(Date.now() - started).toBeLessThan(1900);
    });
  }
});
