/**
 * `tasks watch` on a session's own list when that session is cleared (`/clear`): the same
 * process goes on as a new session with a new list. Built as Claude Code 2.1.328 leaves
 * it (docs/task-store.md section 15): the old transcript ends, a new one opens with the
 * `/clear` command, and the process's live-session file names the new session. Another
 * live session works in the same project all along, so that only that evidence (not "the
 * only live session in the folder") can say where the session went.
 *
 * Through the binary: the watch is a long-lived process, its NDJSON read as it comes and
 * its exit status checked; the live view in a real terminal (tmux).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, stderrLines, tempConfig, writeTask } from '../helpers/cli.js';
import { writeClearedTranscript, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';
import { startWatch } from '../helpers/watch.js';

const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7baec0ff-1111-4a4a-8b8b-000000000002';
const OTHER = '11111111-1111-4111-8111-111111111111';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill();
});

/** Poll until `get` answers (stderr comes on its own pipe, not in step with stdout). */
async function until<T>(get: () => T | undefined, what: string): Promise<T> {
  const end = Date.now() + 20_000;
  for (;;) {
    const found = get();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function task(id: string, subject: string, status: string, extra: Record<string, unknown> = {}) {
  return { id, subject, description: '', status, blocks: [], blockedBy: [], ...extra };
}

/** A transcript without its closing `cost-state`: the session still runs. */
function stillRunning(file: string): void {
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\n\{"type":"cost-state"[^\n]*\n?$/, '\n'));
}

/**
 * Session A (process `a`) has a list: #1 completed, #2 in progress. Session OTHER
 * (process `c`), started first, works in the same project on its own list.
 * `clear()` does what /clear does: A's transcript ends, B's opens with the command, and
 * `a`'s live-session file names B.
 */
function world() {
  const config = tempConfig();
  const proj = path.join(config, 'home', 'work', 'web');
  fs.mkdirSync(proj, { recursive: true });
  const started = Date.now() - 30 * 60_000;
  const [a, c] = [spawn('sleep', ['600'], { stdio: 'ignore' }), spawn('sleep', ['600'], { stdio: 'ignore' })];
  children.push(a, c);
  const transcriptA = writeTranscript(config, {
    sessionId: A,
    cwd: proj,
    prompt: 'fix the login',
    start: started + 60_000,
    end: Date.now() - 2000,
    todos: false,
  });
  stillRunning(transcriptA);
  stillRunning(
    writeTranscript(config, {
      sessionId: OTHER,
      cwd: proj,
      prompt: 'other work',
      start: started + 70_000,
      end: Date.now() - 1000,
      todos: false,
    }),
  );
  const listA = path.join(config, 'tasks', A);
  writeTask(listA, task('1', 'Reproduce', 'completed'));
  writeTask(listA, task('2', 'Fix the race', 'in_progress', { owner: 'coder' }));
  writeTask(path.join(config, 'tasks', OTHER), task('1', 'Other', 'pending'));
  writeLiveSession(config, { pid: a.pid as number, sessionId: A, cwd: proj, status: 'busy', start: started });
  writeLiveSession(config, { pid: c.pid as number, sessionId: OTHER, cwd: proj, status: 'idle', start: started - 5_000, name: 'web-c' });
  return {
    config,
    proj,
    listA,
    listB: path.join(config, 'tasks', B),
    /** `firstSession`: B has had its first turn, whose entries name the session its process began with. */
    clear(firstSession?: string) {
      const at = Date.now();
      fs.appendFileSync(transcriptA, `${JSON.stringify({ type: 'cost-state', sessionId: A, timestamp: new Date(at).toISOString() })}\n`);
      writeClearedTranscript(config, { sessionId: B, cwd: proj, at, firstSession });
      writeLiveSession(config, { pid: a.pid as number, sessionId: B, cwd: proj, status: 'idle', start: started });
    },
  };
}

describe('tasks watch across /clear', () => {
  it('follows the session to its new list and says so; --until all-completed waits for the work left behind too', async () => {
    const w = world();
    const watch = startWatch(w.config, ['-l', A, 'watch', '--json', '--until', 'all-completed', '--timeout', '60s']);
    try {
      await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      w.clear();
      const switched = await watch.waitFor((e) => e.event === 'session-cleared', 'the switch');
      // The watch saw process a on A, then on B: sure, though B has had no turn to name its process.
      expect(switched).toMatchObject({
        session: A,
        newSession: B,
        sure: true,
        from: A,
        to: B,
        followed: true,
        before: false,
        exists: false,
        tasks: [],
      });
      const note = await until(() => stderrLines(watch.stderr()).find((l) => l.note?.code === 'session_cleared')?.note, 'the note');
      expect(note).toMatchObject({ sessionId: A, newSessionId: B, from: A, to: B, followed: true });
      expect(note.message).toContain('session 2d483082 cleared: now following list 7baec0ff (1 unfinished left behind');
      // The new list's work, all completed: not enough while #2 is unfinished on the list left behind.
      writeTask(w.listB, task('1', 'New work', 'completed'));
      await watch.waitFor((e) => e.event === 'created' && e.task?.subject === 'New work', "the new list's task");
      expect(watch.events().some((e) => e.event === 'end')).toBe(false);
      // The work left behind finished (by a person here): now the gate holds.
      const done = run(w.config, ['-l', A, 'done', '2'], { cwd: w.proj });
      expect(done.code, done.stderr).toBe(0);
      const end = await watch.exited;
      expect(end.code, end.stderr).toBe(0);
      const last = watch.events().at(-1) as Record<string, unknown>;
      expect(last).toMatchObject({ event: 'end', list: B, reason: 'condition-met', met: true, left: [{ list: A, unfinished: [] }] });
    } finally {
      await watch.stop();
    }
  });

  it('--until empty does not pass because the new list is empty', async () => {
    const w = world();
    const watch = startWatch(w.config, ['-l', A, 'watch', '--json', '--until', 'empty', '--timeout', '60s']);
    try {
      await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      w.clear();
      await watch.waitFor((e) => e.event === 'session-cleared', 'the switch');
      writeTask(w.listB, task('1', 'New work', 'pending'));
      // Events come in order: had the switch ended the watch, this would never come.
      await watch.waitFor((e) => e.event === 'created', "the new list's task");
      expect(watch.events().some((e) => e.event === 'end')).toBe(false);
    } finally {
      await watch.stop();
    }
  });

  it('--no-follow stays on the old list; with --until it ends with exit 6 (session-cleared) instead of waiting forever', async () => {
    const w = world();
    const watch = startWatch(w.config, ['-l', A, 'watch', '--json', '--no-follow', '--until', 'all-completed', '--timeout', '60s']);
    await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    w.clear();
    const end = await watch.exited;
    expect(end.code).toBe(6);
    const events = watch.events();
    expect(events.find((e) => e.event === 'session-cleared')).toMatchObject({ from: A, to: B, followed: false });
    expect(events.at(-1)).toMatchObject({
      event: 'end',
      list: A,
      reason: 'session-cleared',
      met: false,
      cleared: { session: A, newSession: B, to: B },
    });
    expect(end.stderr).toContain('session 2d483082 was cleared (/clear) and left this list');
    expect(end.stderr).toContain(`tasks --session ${B} carry --from ${A}`);
  });

  it('a list already left behind when the watch begins is watched as asked, with a note naming the new list', async () => {
    const w = world();
    w.clear();
    const watch = startWatch(w.config, ['-l', A, 'watch', '--json']);
    try {
      // Cleared before the watch saw the process, and B has had no turn yet: only times tie
      // A to B (another session of the project might have ended then too): said as probable.
      const note = await watch.waitFor((e) => e.event === 'session-cleared', 'the note');
      expect(note).toMatchObject({ from: A, to: B, sure: false, followed: false, before: true });
      writeTask(w.listA, task('3', 'Still here', 'pending'));
      await watch.waitFor((e) => e.event === 'created', 'a change on the list watched');
      await until(
        () => watch.stderr().includes('session 2d483082 probably cleared (by times alone) before this watch began') || undefined,
        'the note',
      );
    } finally {
      await watch.stop();
    }
  });

  it('cleared before the watch began, the new session has had a turn: its entries name the process, and it is sure', async () => {
    const w = world();
    w.clear(A);
    const watch = startWatch(w.config, ['-l', A, 'watch', '--json']);
    try {
      const note = await watch.waitFor((e) => e.event === 'session-cleared', 'the note');
      expect(note).toMatchObject({ from: A, to: B, sure: true, followed: false, before: true });
      await until(() => watch.stderr().includes('session 2d483082 cleared before this watch began') || undefined, 'the note');
    } finally {
      await watch.stop();
    }
  });

  it.skipIf(!tmuxAvailable())('the live view says the session was cleared and shows the new list', async () => {
    const w = world();
    const pane = startInTmux(w.config, ['-l', A, 'watch'], { width: 100, height: 20 });
    try {
      await pane.waitFor((s) => s.includes('Fix the race'), 'the old list');
      w.clear();
      const screen = await pane.waitFor((s) => s.includes('session 2d483082 cleared: now following list 7baec0ff'), 'the switch');
      expect(screen).toContain('1 unfinished left behind');
      expect(screen).not.toContain('Fix the race');
      // The new list has no folder yet: the one waited for is its, not the old list's.
      expect(screen).toMatch(new RegExp(`Waiting for the list to appear: .*tasks/${B.slice(0, 8)}`));
      expect(screen).not.toContain(`tasks/${A.slice(0, 8)}`);
      writeTask(w.listB, task('1', 'After the clear', 'in_progress'));
      await pane.waitFor((s) => s.includes('After the clear') && s.includes('7baec0ff'), "the new list's task");
    } finally {
      pane.kill();
    }
  });
});
