/**
 * A followed run's agent that dies holding work: `tasks run` and `watch --stream -` name
 * the tasks in progress it took up (`died` in the end event, a `session_died` note with the
 * command that gives them back), as a watched list's deaths are told. Through the built
 * binary, with the scripted agent of fake-agent.mjs, killed with SIGKILL once it has set
 * #1 in progress; one that completes its work and ends with its result gets no such mark.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, stderrLines, tempConfig } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { parseNdjson } from '../helpers/replay.js';
import { FAKE, type Finished, killLeftovers, outs, started2, startRun, trackPids, until } from '../helpers/run-agent.js';
import type { StreamScript } from '../helpers/stream-lines.js';

afterEach(killLeftovers);

const SESSION = '7c0ffee0-1111-4222-8333-944445555666';

/** The agent's own pid: the first its pid file names. */
const agentPid = (pids: string) => Number(fs.readFileSync(pids, 'utf8').split('\n')[0]);

/** Once #1 is in progress in the events, the agent is killed (SIGKILL): it never ends by itself. */
async function killOnceStarted(out: () => string, pids: string): Promise<number> {
  await until(() => out().includes('"in_progress"') && fs.existsSync(pids), 10_000, '#1 in progress');
  const pid = agentPid(pids);
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** `sh -c 'node fake-agent.mjs plan | tasks watch --stream - <args>'`: the watch reads the agent's stdout through a pipe. */
function startPipedWatch(config: string, args: string[], script: StreamScript, hang: boolean) {
  const planFile = path.join(config, 'plan.json');
  const pids = path.join(config, 'pids');
  fs.writeFileSync(planFile, JSON.stringify({ pids, steps: [...outs(script.lines), ...(hang ? [{ hang: true }] : [])] }));
  trackPids(pids);
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const line = `${q(process.execPath)} ${q(FAKE)} ${q(planFile)} | ${q(process.execPath)} ${q(BIN)} watch --stream - ${args.map(q).join(' ')}`;
  const child = spawn('/bin/sh', ['-c', line], { env: baseEnv(config), cwd: config, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<Finished>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr, ms: 0 })),
  );
  return { done, pids, out: () => stdout };
}

describe('tasks run: an agent killed holding work', () => {
  it('SIGKILL with #1 in progress: exit 6, the end event names the dead session and #1, the note says what to run', async () => {
    const config = tempConfig();
    const r = startRun(config, [], { steps: [...outs(started2().lines), { hang: true }] });
    const pid = await killOnceStarted(r.out, r.pids);
    const done = await r.done;
    expect(done.code, done.stderr).toBe(6);
    const events = parseNdjson(done.stdout);
    expect(events.at(-2)).toMatchObject({
      event: 'end',
      reason: 'input-ended',
      died: [{ sessionId: SESSION, state: 'crashed', pid, exit: { code: null, signal: 'SIGKILL' }, tasks: ['1'] }],
    });
    expect(events.at(-1)).toMatchObject({ event: 'run', verdict: 'run-ended', exit: 6, agent: { pid, signal: 'SIGKILL' } });
    expect(contractProblems('run', done.stdout)).toEqual([]);
    // #2 was never taken up: pending work is not held.
    expect(done.stderr).toContain(
      `note: session 7c0ffee0 (pid ${pid}) was killed by SIGKILL holding #1 "Reproduce" in progress: its run ended without its result; tasks -l 7c0ffee0 release 1 gives it back\n`,
    );
    // The CI log: the death comes before the error that fails the job.
    expect(done.stderr.indexOf('killed by SIGKILL holding')).toBeLessThan(done.stderr.indexOf('error:'));
  });

  it('with --json: the note is session_died, with the session, its pid and the ids it held', async () => {
    const config = tempConfig();
    const r = startRun(config, ['--json', '--until', 'all-completed'], { steps: [...outs(started2().lines), { hang: true }] });
    const pid = await killOnceStarted(r.out, r.pids);
    const done = await r.done;
    expect(done.code, done.stderr).toBe(6);
    const notes = stderrLines(done.stderr).filter((l) => l.note?.code === 'session_died');
    expect(notes).toEqual([
      {
        note: {
          code: 'session_died',
          message: expect.stringContaining('was killed by SIGKILL holding #1 "Reproduce" in progress') as unknown,
          sessionId: SESSION,
          state: 'crashed',
          pid,
          exit: { code: null, signal: 'SIGKILL' },
          tasks: ['1'],
        },
      },
    ]);
  });

  it('an agent that exits 3 by itself before its result, #1 in progress: crashed, its status said', async () => {
    const config = tempConfig();
    const r = startRun(config, ['--json'], { steps: [...outs(started2().lines), { exit: 3 }] });
    const done = await r.done;
    const pid = agentPid(r.pids);
    // Its work unfinished before its result: 6, as before.
    expect(done.code, done.stderr).toBe(6);
    expect(parseNdjson(done.stdout).at(-2)).toMatchObject({
      event: 'end',
      reason: 'input-ended',
      died: [{ sessionId: SESSION, state: 'crashed', pid, exit: { code: 3, signal: null }, tasks: ['1'] }],
    });
    expect(contractProblems('run', done.stdout)).toEqual([]);
    const notes = stderrLines(done.stderr).filter((l) => l.note?.code === 'session_died');
    expect(notes).toMatchObject([{ note: { state: 'crashed', exit: { code: 3, signal: null }, tasks: ['1'] } }]);
    expect(notes[0]?.note?.message).toBe(
      `session 7c0ffee0 (pid ${pid}) exited with status 3 holding #1 "Reproduce" in progress: its run ended without its result; tasks -l 7c0ffee0 release 1 gives it back`,
    );
  });

  it('an agent that exits 0 before its result, #1 in progress: ended, not crashed', async () => {
    const config = tempConfig();
    const r = startRun(config, [], { steps: [...outs(started2().lines), { exit: 0 }] });
    const done = await r.done;
    const pid = agentPid(r.pids);
    expect(done.code, done.stderr).toBe(6);
    expect(parseNdjson(done.stdout).at(-2)).toMatchObject({
      event: 'end',
      reason: 'input-ended',
      died: [{ sessionId: SESSION, state: 'ended', pid, exit: { code: 0, signal: null }, tasks: ['1'] }],
    });
    expect(contractProblems('run', done.stdout)).toEqual([]);
    expect(done.stderr).toContain(
      `note: session 7c0ffee0 (pid ${pid}) exited with status 0 holding #1 "Reproduce" in progress: its run ended without its result; tasks -l 7c0ffee0 release 1 gives it back\n`,
    );
    expect(done.stderr).not.toContain('crashed');
  });

  it('an agent that completes #1 and ends with its result: no death, no note', async () => {
    const config = tempConfig();
    const s = started2().update('1', { status: 'completed' }).end();
    const done = await startRun(config, [], { steps: outs(s.lines) }).done;
    expect(done.code, done.stderr).toBe(0);
    const end = parseNdjson(done.stdout).at(-2);
    expect(end).toMatchObject({ event: 'end', reason: 'run-ended' });
    expect(end).not.toHaveProperty('died');
    expect(done.stderr).not.toContain('crashed');
    expect(done.stderr).not.toContain('release');
  });

  it('an agent whose output ends before its result holding nothing in progress: no death', async () => {
    const config = tempConfig();
    const s = started2().update('1', { status: 'completed' });
    const done = await startRun(config, [], { steps: outs(s.lines) }).done;
    // #2 is left pending: the run ended first (6), but no task was held.
    expect(done.code, done.stderr).toBe(6);
    expect(parseNdjson(done.stdout).at(-2)).not.toHaveProperty('died');
    expect(done.stderr).not.toContain('crashed');
  });
});

describe('watch --stream -: the agent upstream killed holding work', () => {
  it('SIGKILL with #1 in progress: the end event and the session_died note name #1 (no pid: the watch did not start it)', async () => {
    const config = tempConfig();
    const r = startPipedWatch(config, ['--json'], started2(), true);
    await killOnceStarted(r.out, r.pids);
    const done = await r.done;
    // Without --until a followed run's end is a normal one: the status is unchanged (0).
    expect(done.code, done.stderr).toBe(0);
    expect(parseNdjson(done.stdout).at(-1)).toMatchObject({
      event: 'end',
      reason: 'input-ended',
      died: [{ sessionId: SESSION, state: 'crashed', pid: null, tasks: ['1'] }],
    });
    expect(contractProblems('watch', done.stdout)).toEqual([]);
    // The shell's own word on its killed child ("Killed") is no JSON line of the watch's.
    const ours = done.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .join('\n');
    const notes = stderrLines(ours).filter((l) => l.note?.code === 'session_died');
    expect(notes).toMatchObject([{ note: { sessionId: SESSION, state: 'crashed', pid: null, tasks: ['1'] } }]);
    // Nothing is known of how a pipe's writer ended: no exit, and crashed as before.
    expect(notes[0]?.note).not.toHaveProperty('exit');
    const died = parseNdjson(done.stdout).at(-1)?.died as ReadonlyArray<Record<string, unknown>> | undefined;
    expect(died?.[0]).not.toHaveProperty('exit');
    expect(notes[0]?.note?.message).toBe(
      'session 7c0ffee0 crashed holding #1 "Reproduce" in progress: its run ended without its result; tasks -l 7c0ffee0 release 1 gives it back',
    );
  });

  it('--until all-completed: exit 6, and the death is said before the error', async () => {
    const config = tempConfig();
    const done = await (async () => {
      const r = startPipedWatch(config, ['--until', 'all-completed'], started2(), true);
      await killOnceStarted(r.out, r.pids);
      return r.done;
    })();
    expect(done.code, done.stderr).toBe(6);
    // The shell's own word on its killed child ("Killed"), when it says one, is not the watch's.
    const ours = done.stderr
      .split('\n')
      .filter((l) => /^(note|error|warning): /.test(l) || !/\bKilled\b/.test(l))
      .join('\n');
    expect(ours).toMatch(/note: session 7c0ffee0 crashed holding #1 "Reproduce" in progress[^\n]*\nerror: the run's input ended/);
  });

  it('a run that completes #1 and ends with its result: no death', async () => {
    const config = tempConfig();
    const done = await startPipedWatch(config, ['--json'], started2().update('1', { status: 'completed' }).end(), false).done;
    expect(done.code, done.stderr).toBe(0);
    const end = parseNdjson(done.stdout).at(-1);
    expect(end).toMatchObject({ event: 'end', reason: 'run-ended' });
    expect(end).not.toHaveProperty('died');
    expect(done.stderr).not.toContain('session_died');
  });
});
