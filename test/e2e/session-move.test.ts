/**
 * `tasks use` moving a running session: Claude Code reads the changed settings and the
 * session's next task call goes to the newly bound list (docs/task-store.md section 11).
 * `tasks use` records the move, and each list's history takes the session's changes from
 * its side of the move only: the new list's log never shows the old list's creates, the
 * old list's log invents no change "with no record", and doctor reports no task missing.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, tempConfig, writeTask } from '../helpers/cli.js';
import { writeLiveSession } from '../helpers/session-files.mjs';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

const S = '5e551011-aaaa-4bbb-8ccc-000000000001';
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

const task = (id: string, subject: string) => ({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });

function stamp(file: string, ms: number) {
  fs.utimesSync(file, ms / 1000, ms / 1000);
}

describe('tasks use moves a running session', () => {
  it("splits the session's changes at the move: each list's log and doctor see their own side", () => {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const proj = path.join(home, 'work', 'web');
    fs.mkdirSync(proj, { recursive: true });
    const now = Date.now();
    // Before the move, in its own list: #1 and #2. After it (its next call), #1 of web-sprint.
    writeTaskTranscript(config, {
      sessionId: S,
      cwd: proj,
      start: now - 70_000,
      ended: false,
      calls: [
        { create: { id: '1', subject: 'Old A' }, time: now - 60_000 },
        { create: { id: '2', subject: 'Old B' }, time: now - 50_000 },
        { create: { id: '1', subject: 'Sprint A' }, time: now + 30_000 },
      ],
    });
    const own = path.join(config, 'tasks', S);
    writeTask(own, task('1', 'Old A'));
    writeTask(own, task('2', 'Old B'));
    stamp(path.join(own, '1.json'), now - 60_000 + 500);
    stamp(path.join(own, '2.json'), now - 50_000 + 500);
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(child);
    writeLiveSession(config, { pid: child.pid as number, sessionId: S, cwd: proj, status: 'idle', start: now - 70_000 });
    const env = { HOME: home };

    const used = run(config, ['use', 'web-sprint'], { cwd: proj, env });
    expect(used.code, used.stderr).toBe(0);
    expect(used.stderr).toContain('5e551011');
    const sprint = path.join(config, 'tasks', 'web-sprint');
    writeTask(sprint, task('1', 'Sprint A'));
    stamp(path.join(sprint, '1.json'), now + 30_000 + 500);

    const log = (list: string) => {
      const r = run(config, ['-l', list, 'log', '--json'], { cwd: proj, env });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as Array<{ op: string; task: string; changes: { subject?: { new?: string } } }>).map((e) =>
        `${e.op} #${e.task} ${e.changes.subject?.new ?? ''}`.trim(),
      );
    };
    expect(log('web-sprint')).toEqual(['create #1 Sprint A']);
    expect(log(S)).toEqual(['create #1 Old A', 'create #2 Old B']);
    const doctor = run(config, ['-l', 'web-sprint', 'doctor', '--json'], { cwd: proj, env });
    expect((JSON.parse(doctor.stdout) as { findings: Array<{ code: string }> }).findings.map((f) => f.code)).not.toContain('tasks_missing');
    const doctorOld = run(config, ['-l', S, 'doctor', '--json'], { cwd: proj, env });
    expect((JSON.parse(doctorOld.stdout) as { findings: Array<{ code: string }> }).findings.map((f) => f.code)).not.toContain(
      'tasks_missing',
    );
  });

  it('the record of moves a symlink or a FIFO: tasks use neither writes through the link nor hangs', () => {
    for (const kind of ['symlink', 'fifo'] as const) {
      const config = tempConfig();
      const home = path.join(config, 'home');
      const proj = path.join(home, 'work', 'web');
      fs.mkdirSync(proj, { recursive: true });
      const now = Date.now();
      writeTaskTranscript(config, {
        sessionId: S,
        cwd: proj,
        start: now - 70_000,
        ended: false,
        calls: [{ create: { id: '1', subject: 'Old A' }, time: now - 60_000 }],
      });
      writeTask(path.join(config, 'tasks', S), task('1', 'Old A'));
      const child = spawn('sleep', ['600'], { stdio: 'ignore' });
      children.push(child);
      writeLiveSession(config, { pid: child.pid as number, sessionId: S, cwd: proj, status: 'idle', start: now - 70_000 });
      const moves = path.join(config, 'tasks', '.tasks-session-moves.jsonl');
      const elsewhere = path.join(config, 'elsewhere.txt');
      fs.writeFileSync(elsewhere, 'not yours\n');
      if (kind === 'symlink') fs.symlinkSync(elsewhere, moves);
      else execFileSync('mkfifo', [moves]);
      const used = run(config, ['use', 'web-sprint'], { cwd: proj, env: { HOME: home }, timeoutMs: 15_000 });
      expect(used.code, `${kind}: ${used.stderr}`).not.toBe(-1);
      expect(used.code, used.stderr).toBe(0);
      expect(used.stderr).toMatch(
        /warning: could not record the sessions this moves: \.tasks-session-moves\.jsonl is a (symbolic link|FIFO)/,
      );
      expect(used.stderr).not.toContain('ELOOP');
      expect(fs.readFileSync(elsewhere, 'utf8')).toBe('not yours\n');
    }
  });
});
