/**
 * `watch` as a CI gate over time, through the built binary: a stream's steps between two
 * rescans of the files, and stalls, which take seconds of silence to be seen. In the slow
 * tier for those seconds; the rest of the gate is test/e2e/stream-gate.test.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, runAsync, stderrError, tempConfig, writeTask } from '../helpers/cli.js';
import { runFed } from '../helpers/feed.js';
import { parseNdjson, replay } from '../helpers/replay.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { StreamScript } from '../helpers/stream-lines.js';

const gate = (config: string, lines: readonly string[], args: string[], opts = {}) =>
  runFed(config, ['watch', '--stream', '-', '--json', ...args], lines, { delayMs: 15, ...opts });

describe("following a stream, events are the run's own transitions; file diffs add what others changed", () => {
  it("a task started and completed between two rescans is two updates, in order, once each; a person's change is added", async () => {
    const config = tempConfig();
    const s = new StreamScript().init();
    const dir = path.join(config, 'tasks', s.session);
    fs.mkdirSync(dir, { recursive: true });
    const t1 = { id: '1', subject: 'Build', description: 'do Build', status: 'pending', blocks: [], blockedBy: [] };
    const child = spawn(process.execPath, [BIN, 'watch', '--stream', '-', '--json'], { env: baseEnv(config), cwd: config });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    child.stdin.write(`${s.lines[0]}\n`);
    for (let i = 0; i < 100 && !stdout.includes('"snapshot"'); i++) await new Promise((r) => setTimeout(r, 50));
    // As the agent does: the file first, then the result line; three steps within 20 ms.
    const steps = new StreamScript(s.session)
      .create('1', 'Build')
      .update('1', { status: 'in_progress' })
      .update('1', { status: 'completed' });
    const files = [t1, { ...t1, status: 'in_progress' }, { ...t1, status: 'completed' }];
    for (let i = 0; i < 3; i++) {
      writeTask(dir, files[i] as Record<string, unknown>);
      child.stdin.write(`${steps.lines.slice(i * 2, i * 2 + 2).join('\n')}\n`);
      await new Promise((r) => setTimeout(r, 8));
    }
    await new Promise((r) => setTimeout(r, 1500));
    // Someone else gives the task an owner: the files say so, once.
    writeTask(dir, { ...t1, status: 'completed', owner: 'bob' });
    await new Promise((r) => setTimeout(r, 2500));
    child.stdin.end(`${new StreamScript(s.session).end().lines.join('\n')}\n`);
    expect(await closed, stderr).toBe(0);
    const events = parseNdjson(stdout);
    expect(events.map((e) => `${e.event}:${e.task?.status ?? ''}:${Object.keys(e.changes ?? {}).join(',')}`)).toEqual([
      'snapshot::',
      'created:pending:',
      'updated:in_progress:status',
      'updated:completed:status',
      'updated:completed:owner',
      'end::',
    ]);
    expect([...replay(events).values()]).toEqual([{ ...t1, status: 'completed', owner: 'bob' }].map((t) => expect.objectContaining(t)));
  }, 30_000);
});

describe('stalls where they happen', () => {
  it('--stream: a run silent, with no task changing, for the duration is stalled (exit 7 once its input ends)', async () => {
    const config = tempConfig();
    const s = new StreamScript().init().create('1', 'Long step').update('1', { status: 'in_progress' });
    const child = spawn(
      process.execPath,
      [BIN, 'watch', '--stream', '-', '--json', '--fail-if-stalled', '1s', '--until', 'all-completed'],
      {
        env: baseEnv(config),
        cwd: config,
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    child.stdin.write(`${s.lines.join('\n')}\n`);
    for (let i = 0; i < 60 && !stdout.includes('"event":"end"'); i++) await new Promise((r) => setTimeout(r, 100));
    const end = parseNdjson(stdout).at(-1)!;
    expect(end).toMatchObject({ event: 'end', reason: 'stalled', stalled: [{ id: '1' }] });
    expect(end.idleMs as number).toBeGreaterThanOrEqual(1000);
    // The verdict is out, and the input is still read: the writer finishes, then exit 7.
    child.stdin.end(`${new StreamScript(s.session).say('back').end().lines.join('\n')}\n`);
    expect(await closed).toBe(7);
    expect(stderrError(stderr)).toMatchObject({ error: { code: 'stalled', idleMs: expect.any(Number), stalled: [{ id: '1' }] } });
  });

  it('--stream: a run that keeps talking is not stalled, though its task stays in progress', async () => {
    const config = tempConfig();
    const s = new StreamScript().init().create('1', 'Long step').update('1', { status: 'in_progress' });
    for (let i = 0; i < 8; i++) s.say(`working ${i}`);
    s.update('1', { status: 'completed' }).end();
    const r = await gate(config, s.lines, ['--until', 'all-completed', '--fail-if-stalled', '1s'], { delayMs: 300 });
    expect(r.code, r.stderr).toBe(0);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ reason: 'run-ended', met: true });
  });

  it('a list: a busy session whose transcript has not grown for the duration is stalled; one still writing is not', async () => {
    const session = '7d2c1e0f-aaaa-4bbb-8ccc-123456789abc';
    const config = tempConfig();
    const dir = path.join(config, 'tasks', session);
    writeTask(dir, { id: '1', subject: 'Build', description: '', status: 'in_progress', blocks: [], blockedBy: [] });
    const old = (Date.now() - 3600_000) / 1000;
    fs.utimesSync(path.join(dir, '1.json'), old, old);
    const cwd = path.join(config, 'home', 'p');
    const transcript = writeTranscript(config, { sessionId: session, cwd, start: Date.now() - 7200_000, end: Date.now() - 3600_000 });
    writeLiveSession(config, { pid: process.pid, sessionId: session, cwd, status: 'busy' });
    // Busy, but silent for an hour: stalled.
    const silent = await runAsync(config, ['-l', session, 'watch', '--json', '--fail-if-stalled', '2s', '--timeout', '20s']);
    expect(silent.code).toBe(7);
    // Busy and writing its transcript: working, not stalled, until the deadline (no --until: exit 0).
    fs.appendFileSync(transcript, '\n');
    const writer = setInterval(() => fs.appendFileSync(transcript, '\n'), 200);
    try {
      const working = await runAsync(config, ['-l', session, 'watch', '--json', '--fail-if-stalled', '1s', '--timeout', '3s']);
      expect(working.code, working.stderr).toBe(0);
      expect(parseNdjson(working.stdout).at(-1)).toMatchObject({ reason: 'timeout' });
    } finally {
      clearInterval(writer);
    }
  });
});
