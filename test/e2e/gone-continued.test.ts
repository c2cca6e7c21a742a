/**
 * `claude --continue` (`-c`) goes on with the latest session of its folder, under the same
 * session id, as `--resume <id>` does; for about half a second after it starts, it has no
 * live-session file yet. A session it may be going on with is not over meanwhile: its
 * unfinished work is not released, whether the session ended cleanly or crashed before.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshotDir, tempConfig } from '../helpers/cli.js';
import { deadPid } from '../helpers/gone-fixtures.js';
import { writeLiveSession } from '../helpers/session-files.mjs';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

const S = '6b7c8d9e-3333-4a4a-8b8b-000000000003';

/** Session S, in `work`, on its own list: #1 in progress with no owner (its agent's work), #2 pending. */
function world(fate: 'ended' | 'crashed') {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'work');
  fs.mkdirSync(cwd, { recursive: true });
  const at = Date.now() - 30 * 60_000;
  writeTaskTranscript(config, {
    sessionId: S,
    cwd,
    start: at - 1000,
    ended: fate === 'ended',
    calls: [
      { create: { id: '1', subject: 'Fix the login race' }, time: at },
      { create: { id: '2', subject: 'Write the changelog' }, time: at + 1000 },
      { update: { taskId: '1', status: 'in_progress' }, time: at + 2000 },
    ],
  });
  const dir = path.join(config, 'tasks', S);
  fs.mkdirSync(dir, { recursive: true });
  const task = (id: string, subject: string, status: string, t: number) => {
    const file = path.join(dir, `${id}.json`);
    fs.writeFileSync(file, JSON.stringify({ id, subject, description: '', status, blocks: [], blockedBy: [] }, null, 2));
    fs.utimesSync(file, t / 1000, t / 1000);
  };
  task('1', 'Fix the login race', 'in_progress', at + 2005);
  task('2', 'Write the changelog', 'pending', at + 1005);
  if (fate === 'crashed')
    writeLiveSession(config, { pid: deadPid(), sessionId: S, cwd, status: 'busy', start: at - 2000, procStartTicks: '1' });
  return { config, cwd, dir };
}

/** `claude --continue -p "go on"` in `cwd`, before it writes its live-session file. */
function continuing(config: string, cwd: string, flag: string) {
  return spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)', '--', flag, '-p', 'go on'], {
    argv0: 'claude',
    cwd,
    stdio: 'ignore',
    env: { ...process.env, CLAUDE_CONFIG_DIR: config },
  });
}

describe('a session `claude --continue` goes on with, before its live-session file is written', () => {
  for (const fate of ['ended', 'crashed'] as const)
    for (const flag of ['--continue', '-c'])
      it(`${fate}, then ${flag}: nothing released`, () => {
        const w = world(fate);
        const offered = run(w.config, ['-l', S, 'release', '--gone', '--dry-run'], { cwd: w.cwd });
        expect(offered.stdout).toMatch(/#1/);
        const child = continuing(w.config, w.cwd, flag);
        try {
          const before = snapshotDir(w.dir);
          const r = run(w.config, ['-l', S, 'release', '--gone'], { cwd: w.cwd });
          expect(r.code, r.stderr).toBe(0);
          expect(r.stdout).toBe('');
          expect(r.stderr).toMatch(/session 6b7c8d9e is live; nothing released/);
          expect(snapshotDir(w.dir)).toEqual(before);
        } finally {
          child.kill('SIGKILL');
        }
      });
});
