/**
 * carry from a named list whose live session the transcripts cannot place: two builds ran
 * one plan at the same moments on build-201 and build-202, one of them ended, the other
 * still live, and nothing (no process naming its list) tells which list the live one is on.
 * release --gone holds back (the live session may be on either list); carry must too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeLiveSession } from '../helpers/session-files.mjs';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

const ENDED = '44444444-dddd-4d4d-8e8e-000000000004';
const LIVE = '55555555-eeee-4e4e-8f8f-000000000005';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function world() {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'work', 'pipeline');
  fs.mkdirSync(cwd, { recursive: true });
  const b = Date.now() - 20 * 60_000;
  for (const [list, session, at] of [
    ['build-201', ENDED, b],
    ['build-202', LIVE, b + 5],
  ] as const) {
    const dir = path.join(config, 'tasks', list);
    writeTask(dir, { id: '1', subject: 'Run tests', description: '', status: 'in_progress', blocks: [], blockedBy: [], owner: 'runner' });
    writeTask(dir, { id: '2', subject: 'Deploy', description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(dir, '1.json'), (at + 2005) / 1000, (at + 2005) / 1000);
    fs.utimesSync(path.join(dir, '2.json'), (at + 1005) / 1000, (at + 1005) / 1000);
    writeTaskTranscript(config, {
      sessionId: session,
      cwd,
      prompt: 'nightly pipeline',
      start: at - 1000,
      ended: session === ENDED,
      calls: [
        { create: { id: '1', subject: 'Run tests' }, time: at },
        { create: { id: '2', subject: 'Deploy' }, time: at + 1000 },
        { update: { taskId: '1', status: 'in_progress', owner: 'runner' }, time: at + 2000 },
      ],
    });
  }
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  writeLiveSession(config, { pid: child.pid as number, sessionId: LIVE, cwd, status: 'busy', start: b - 2000 });
  return { config, cwd };
}

describe('carry from a list a live session may be on (the transcripts cannot tell)', () => {
  it('release --gone holds back, and carry refuses without --force, as for any live agent', () => {
    const w = world();
    const gone = runInProcessSync(w.config, ['-l', 'build-201', 'release', '--gone', '-n']);
    expect(gone.stdout).toBe('');
    const before = snapshotDir(path.join(w.config, 'tasks', 'build-201'));
    const carry = runInProcessSync(w.config, ['-l', 'follow-up', 'carry', '--from', 'build-201']);
    expect(carry.stderr).toContain('list "build-201" is in use by a live agent (session 55555555 is live)');
    expect(carry.code).toBe(4);
    expect(snapshotDir(path.join(w.config, 'tasks', 'build-201'))).toEqual(before);
    expect(fs.existsSync(path.join(w.config, 'tasks', 'follow-up'))).toBe(false);
  });
});
