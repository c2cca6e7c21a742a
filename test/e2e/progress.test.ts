/**
 * The verification nudge (update, watch, check) and stalled work (list --stalled, the
 * table mark, watch --fail-if-stalled): commands in process, watch as the binary (it runs until its condition).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, snapshotDir, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { parseNdjson } from '../helpers/replay.js';
import { writeLiveSession, writeTaskTranscript, writeTranscript } from '../helpers/session-files.mjs';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

const task = (id: string, subject: string, status = 'pending', extra: Record<string, unknown> = {}) => ({
  id,
  subject,
  description: '',
  status,
  blocks: [],
  blockedBy: [],
  ...extra,
});
const NUDGE =
  'note: all 3 tasks are completed and none is a verification step: verify the work (run the tests, check the result) before reporting done\n';

function list(tasks: Array<Record<string, unknown>>, id = 'l'): { config: string; dir: string } {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', id);
  fs.mkdirSync(dir, { recursive: true });
  for (const t of tasks) writeTask(dir, t);
  return { config, dir };
}

/** Move a file's modification time `ms` into the past. */
function age(file: string, ms: number): void {
  const at = (Date.now() - ms) / 1000;
  fs.utimesSync(file, at, at);
}

describe('the verification nudge', () => {
  it('update: completing the last open task of 3, none a verification step, notes it on stderr', () => {
    const { config } = list([
      task('1', 'Fix the bug', 'completed'),
      task('2', 'Refactor', 'completed'),
      task('3', 'Write docs', 'in_progress'),
    ]);
    const r = runInProcessSync(config, ['-l', 'l', 'update', '3', '--status', 'completed']);
    expect(r).toMatchObject({ code: 0, stdout: 'Updated task #3 status\n', stderr: NUDGE });
  });

  it('done: the same note as update --status completed', () => {
    const { config } = list([
      task('1', 'Fix the bug', 'completed'),
      task('2', 'Refactor', 'completed'),
      task('3', 'Write docs', 'in_progress'),
    ]);
    const r = runInProcessSync(config, ['-l', 'l', 'done', '3']);
    expect(r).toMatchObject({ code: 0, stdout: 'Updated task #3 status\n', stderr: NUDGE });
    const verified = list([task('1', 'Fix the bug', 'completed'), task('2', 'Verify the fix', 'completed'), task('3', 'Write docs')]);
    expect(runInProcessSync(verified.config, ['-l', 'l', 'done', '3'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('update: not with a verification step among them, not before the last, not for fewer than 3', () => {
    const verified = list([task('1', 'Fix the bug', 'completed'), task('2', 'Verify the fix', 'completed'), task('3', 'Write docs')]);
    expect(runInProcessSync(verified.config, ['-l', 'l', 'update', '3', '--status', 'completed'])).toMatchObject({ code: 0, stderr: '' });
    const open = list([task('1', 'A'), task('2', 'B'), task('3', 'C')]);
    expect(runInProcessSync(open.config, ['-l', 'l', 'update', '1', '--status', 'completed'])).toMatchObject({ code: 0, stderr: '' });
    const two = list([task('1', 'A', 'completed'), task('2', 'B')]);
    expect(runInProcessSync(two.config, ['-l', 'l', 'update', '2', '--status', 'completed'])).toMatchObject({ code: 0, stderr: '' });
    // Already completed: nothing was closed out now.
    const done = list([task('1', 'A', 'completed'), task('2', 'B', 'completed'), task('3', 'C', 'completed')]);
    expect(runInProcessSync(done.config, ['-l', 'l', 'update', '3', '--status', 'completed'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('check: a verification_missing warning (exit 0; 4 with --strict), and none with a verification step', () => {
    const { config } = list([task('1', 'A', 'completed'), task('2', 'B', 'completed'), task('3', 'C', 'completed')]);
    expect(runInProcessSync(config, ['-l', 'l', 'check', '--strict']).code).toBe(4);
    const r = runInProcessSync(config, ['-l', 'l', 'check', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as { findings: Array<Record<string, unknown>> };
    expect(report.findings).toEqual([
      expect.objectContaining({ code: 'verification_missing', severity: 'warning', fixable: false, completed: 3 }),
    ]);
    const ok = list([task('1', 'A', 'completed'), task('2', 'B', 'completed'), task('3', 'Verification: run the suite', 'completed')]);
    expect(runInProcessSync(ok.config, ['-l', 'l', 'check', '--json'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('watch: the end event carries it when every task is completed, and stderr says so', async () => {
    const { config } = list([task('1', 'A', 'completed'), task('2', 'B', 'completed'), task('3', 'C', 'completed')]);
    // The binary: watch runs until its condition holds; its exit status is the point.
    const r = await runAsync(config, ['-l', 'l', 'watch', '--until', 'all-completed', '--json']);
    expect(r.code).toBe(0);
    expect(`note: ${stderrText(r.stderr)}`).toBe(NUDGE);
    expect(JSON.parse(r.stderr)).toMatchObject({ note: { code: 'verification_missing' } });
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'condition-met', nudge: { code: 'verification_missing' } });
    const ok = list([task('1', 'A', 'completed'), task('2', 'B', 'completed'), task('3', 'Verify', 'completed')]);
    const quiet = await runAsync(ok.config, ['-l', 'l', 'watch', '--until', 'all-completed', '--json']);
    expect(quiet.stderr).toBe('');
    expect(parseNdjson(quiet.stdout).at(-1)).not.toHaveProperty('nudge');
  });
});

describe('stalled work', () => {
  it('list --stalled: a task in progress whose file time was moved back is listed; a fresh one is not', () => {
    const { config, dir } = list([task('1', 'Old work', 'in_progress'), task('2', 'New work', 'in_progress'), task('3', 'Waiting')]);
    age(path.join(dir, '1.json'), 2 * 3600_000);
    const r = runInProcessSync(config, ['-l', 'l', 'list', '--stalled']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tin_progress\t-\t-\tOld work\n');
    expect(r.stderr).toBe('1 task: 0 done, 1 in progress, 0 pending\nwarning: task #1 is stalled: in progress, unchanged for 2h 00m\n');
    expect(JSON.parse(runInProcessSync(config, ['-l', 'l', 'list', '--stalled', '3h', '--json']).stdout)).toEqual([]);
    expect(
      (JSON.parse(runInProcessSync(config, ['-l', 'l', 'list', '--stalled', '1h', '--json']).stdout) as Array<{ id: string }>).map(
        (t) => t.id,
      ),
    ).toEqual(['1']);
  });

  it.runIf(tmuxAvailable())('the table marks a stalled task, without --stalled too', async () => {
    const { config, dir } = list([task('1', 'Old work', 'in_progress'), task('2', 'New work', 'in_progress')]);
    age(path.join(dir, '1.json'), 45 * 60_000);
    // The table is for terminals: a real one.
    // The binary in a terminal (tmux): the table as a person sees it.
    const plain = await runInTmux(config, ['-l', 'l', 'list'], { width: 100, height: 12 });
    expect(plain).toContain('EXIT=0');
    expect(plain).toMatch(/#1 {2}▶ in progress {2}Old work stalled 45m/);
    expect(plain).not.toMatch(/New work stalled/);
    expect(plain).toContain('1 task is stalled: in progress, unchanged for 30m or more');
  });

  it('a busy session of the list: nothing is stalled (its agent is working)', () => {
    const session = '7d2c1e0f-aaaa-4bbb-8ccc-123456789abc';
    const { config, dir } = list([task('1', 'Long build', 'in_progress')], session);
    age(path.join(dir, '1.json'), 2 * 3600_000);
    const cwd = path.join(config, 'home', 'p');
    writeTranscript(config, { sessionId: session, cwd });
    writeLiveSession(config, { pid: process.pid, sessionId: session, cwd, status: 'busy' });
    expect(runInProcessSync(config, ['-l', session, 'list', '--stalled', '--json']).stdout).toBe('[]\n');
    writeLiveSession(config, { pid: process.pid, sessionId: session, cwd, status: 'idle' });
    expect((JSON.parse(runInProcessSync(config, ['-l', session, 'list', '--stalled', '--json']).stdout) as unknown[]).length).toBe(1);
  });

  it('watch --fail-if-stalled: a busy session inside a long tool call is at work, however long its transcript is silent; silent with no call in flight, it stalled', async () => {
    const session = '7d2c1e0f-bbbb-4bbb-8ccc-123456789abc';
    const { config, dir } = list([task('1', 'Run the suite', 'in_progress')], session);
    age(path.join(dir, '1.json'), 2 * 3600_000);
    const cwd = path.join(config, 'home', 'p');
    const at = Date.now() - 2 * 3600_000;
    const transcript = (pending: boolean) => {
      const file = writeTaskTranscript(config, {
        sessionId: session,
        cwd,
        running: true,
        calls: [{ name: 'Bash', input: { command: 'npm test' }, at, pending }],
      });
      age(file, 2 * 3600_000);
    };
    writeLiveSession(config, { pid: process.pid, sessionId: session, cwd, status: 'busy' });
    const args = ['-l', session, 'watch', '--until', 'all-completed', '--timeout', '2500ms', '--fail-if-stalled', '1h', '--json'];
    transcript(true);
    const inCall = await runAsync(config, args);
    expect(inCall.code, inCall.stderr).toBe(124);
    // Its result written, and silent since (a model request that never returns): stalled.
    transcript(false);
    const silent = await runAsync(config, args);
    expect(silent.code, silent.stderr).toBe(7);
    expect(parseNdjson(silent.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'stalled', stalled: [{ id: '1' }] });
  });

  it('watch --fail-if-stalled: ends early with exit 7 and the stalled tasks in the end event', async () => {
    const { config, dir } = list([task('1', 'Old work', 'in_progress'), task('2', 'Next')]);
    age(path.join(dir, '1.json'), 2 * 3600_000);
    const before = snapshotDir(dir);
    // The binary: watch runs until its condition holds; its exit status is the point.
    const r = await runAsync(config, [
      '-l',
      'l',
      'watch',
      '--until',
      'all-completed',
      '--timeout',
      '10m',
      '--fail-if-stalled',
      '1h',
      '--json',
    ]);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stderr)).toMatchObject({
      error: {
        code: 'stalled',
        message: expect.stringMatching(
          /^task #1 "Old work" has been in progress without a change for 2h 00m \(--fail-if-stalled 1h\); 2 tasks/,
        ),
        stalled: [{ id: '1' }],
      },
    });
    const end = parseNdjson(r.stdout).at(-1)!;
    expect(end).toMatchObject({ event: 'end', reason: 'stalled', met: false, stalled: [{ id: '1' }] });
    expect(end.stalled as Array<{ idleMs: number }>).toEqual([{ id: '1', idleMs: expect.any(Number) }]);
    expect(snapshotDir(dir)).toEqual(before);

    // A task that stops changing while watched: the watch ends once it has been still that long.
    const fresh = list([task('1', 'Work', 'in_progress')]);
    const piped = await runAsync(fresh.config, ['-l', 'l', 'watch', '--fail-if-stalled', '1s']);
    expect(piped.code).toBe(7);
    expect(piped.stderr).toMatch(
      /^error: task #1 "Work" has been in progress without a change for 1(\.\d)?s \(--fail-if-stalled 1s\); 1 task: 0 done, 1 in progress, 0 pending\n/,
    );
  });
});
