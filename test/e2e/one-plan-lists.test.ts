/**
 * Named lists made from one plan (CI builds, one list each): each list's sessions are the
 * ones whose writes made its files. Transcripts as Claude Code writes them, task files
 * stamped at the moment of their writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeTaskTranscript } from '../helpers/session-files.mjs';

const S1 = '11111111-aaaa-4a4a-8b8b-000000000001';
const S2 = '22222222-bbbb-4a4a-8b8b-000000000002';

/** One build's agent: creates "Run tests" and "Deploy" at `t`, takes #1 a second later; the files stamped by those writes. */
function build(config: string, cwd: string, list: string, sessionId: string, t: number) {
  const dir = path.join(config, 'tasks', list);
  const file = (id: string, extra: Record<string, unknown>, at: number) => {
    writeTask(dir, { id, description: '', status: 'pending', blocks: [], blockedBy: [], ...extra });
    fs.utimesSync(path.join(dir, `${id}.json`), at / 1000, at / 1000);
  };
  file('1', { subject: 'Run tests', status: 'in_progress', owner: 'ci-agent' }, t + 1005);
  file('2', { subject: 'Deploy' }, t + 25);
  writeTaskTranscript(config, {
    sessionId,
    cwd,
    prompt: 'nightly pipeline',
    calls: [
      { name: 'TaskCreate', input: { subject: 'Run tests', description: '' }, result: { task: { id: '1', subject: 'Run tests' } }, at: t },
      { name: 'TaskCreate', input: { subject: 'Deploy', description: '' }, result: { task: { id: '2', subject: 'Deploy' } }, at: t + 20 },
      {
        name: 'TaskUpdate',
        input: { taskId: '1', status: 'in_progress', owner: 'ci-agent' },
        result: { success: true, taskId: '1', updatedFields: ['owner', 'status'] },
        at: t + 1000,
      },
    ],
  });
}

function world() {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'pipeline');
  fs.mkdirSync(cwd, { recursive: true });
  const lists = () =>
    JSON.parse(runInProcessSync(config, ['lists', '--json'], { cwd }).stdout) as Array<{
      id: string;
      sessions: Array<{ sessionId: string }>;
      unsureSessions?: string[];
    }>;
  return { config, cwd, lists };
}

describe('two named lists made from one plan', () => {
  it('one build after the other: each list has its own session, and its own history', () => {
    const w = world();
    const t = Date.now() - 3600_000;
    build(w.config, w.cwd, 'build-101', S1, t);
    build(w.config, w.cwd, 'build-102', S2, t + 1700);
    const rows = w.lists();
    expect(rows.find((r) => r.id === 'build-101')?.sessions.map((s) => s.sessionId)).toEqual([S1]);
    expect(rows.find((r) => r.id === 'build-102')?.sessions.map((s) => s.sessionId)).toEqual([S2]);
    const log = runInProcessSync(w.config, ['-l', 'build-101', 'log', '--json'], { cwd: w.cwd });
    expect(log.code, log.stderr).toBe(0);
    const who = (JSON.parse(log.stdout) as Array<{ who: { session?: string } }>).map((e) => e.who.session);
    expect(who).toEqual([S1, S1, S1]);
  });

  it('at the same moment, both over: lists says it cannot tell which session was on which, and attributes neither', () => {
    const w = world();
    const t = Date.now() - 3600_000;
    build(w.config, w.cwd, 'build-201', S1, t);
    build(w.config, w.cwd, 'build-202', S2, t + 5);
    const rows = w.lists();
    for (const id of ['build-201', 'build-202']) {
      const row = rows.find((r) => r.id === id);
      expect(row?.sessions).toEqual([]);
      expect(row?.unsureSessions?.sort()).toEqual([S1, S2]);
    }
    const shown = runInProcessSync(w.config, ['lists'], { cwd: w.cwd });
    expect(shown.stderr).toBe(
      'build-202, build-201: sessions 11111111, 22222222 may have worked on them (they hold the same tasks, written at the same moments); which on which, the transcripts cannot tell: not shown as their sessions\n',
    );
    // Nobody is known to be gone from a list whose sessions are not known.
    expect(runInProcessSync(w.config, ['-l', 'build-201', 'release', '--gone', '-n'], { cwd: w.cwd }).stderr).toMatch(
      /no owner here is known to be gone/,
    );
  });
});
