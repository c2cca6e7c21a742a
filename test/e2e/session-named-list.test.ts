/**
 * `--session <id>` of a session that worked on a list its environment named
 * (`CLAUDE_CODE_TASK_LIST_ID`, a fan-out's shared list) and has ended: its work is in that
 * list, as `tasks lists` shows it; a read shows that list, and a change goes there, never
 * into a new list named after the session, which no agent of it ever read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig, writeTask } from '../helpers/cli.js';
import { writeTaskTranscript } from '../helpers/session-files.mjs';

const A = 'a9a9a9a9-1111-4111-8111-111111111111';
const B = 'b8b8b8b8-2222-4222-8222-222222222222';

const create = (id: string, subject: string, at: number) => ({
  name: 'TaskCreate',
  input: { subject, description: '' },
  result: { task: { id, subject } },
  at,
});

function world() {
  const config = tempConfig();
  const proj = path.join(config, 'home', 'proj');
  fs.mkdirSync(proj, { recursive: true });
  const now = Date.now();
  const task = (list: string, id: string, subject: string, at: number) => {
    const dir = path.join(config, 'tasks', list);
    writeTask(dir, { id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(dir, `${id}.json`), at / 1000, at / 1000);
  };
  return { config, proj, now, task };
}

describe('--session of an ended session whose work is in a named list', () => {
  it('a read shows that list; a change lands there; no list is made after the session', () => {
    const w = world();
    writeTaskTranscript(w.config, {
      sessionId: A,
      cwd: w.proj,
      prompt: 'worker on shared',
      calls: [create('1', 'Shared one', w.now - 60_000)],
    });
    w.task('shared', '1', 'Shared one', w.now - 60_000 + 5);
    const lists = JSON.parse(run(w.config, ['lists', '--json'], { cwd: w.proj }).stdout) as Array<{ id: string; sessionId: string }>;
    expect(lists.find((l) => l.id === 'shared')?.sessionId).toBe(A);

    const read = run(w.config, ['--session', 'a9a9', 'list'], { cwd: w.proj });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain('Shared one');

    const made = run(w.config, ['--session', A, 'create', 'Follow-up'], { cwd: w.proj });
    expect(made.code, made.stderr).toBe(0);
    expect(fs.existsSync(path.join(w.config, 'tasks', A))).toBe(false);
    expect(fs.readdirSync(path.join(w.config, 'tasks', 'shared')).filter((f) => f.endsWith('.json'))).toEqual(['1.json', '2.json']);
  });

  it('a session whose work is in two named lists: a change is refused naming both; nothing is made', () => {
    const w = world();
    writeTaskTranscript(w.config, {
      sessionId: B,
      cwd: w.proj,
      prompt: 'moved between lists',
      calls: [create('1', 'In alpha', w.now - 120_000), create('1', 'In beta', w.now - 60_000)],
    });
    w.task('alpha', '1', 'In alpha', w.now - 120_000 + 5);
    w.task('beta', '1', 'In beta', w.now - 60_000 + 5);
    const made = run(w.config, ['--session', B, 'create', 'Follow-up'], { cwd: w.proj });
    expect(made.code, made.stderr).toBe(2);
    expect(made.stderr).toContain(
      `error: session ${B} worked on 2 lists, so a change needs its list named: tasks -l beta create Follow-up or tasks -l alpha create Follow-up`,
    );
    expect(fs.existsSync(path.join(w.config, 'tasks', B))).toBe(false);
    // A read shows the list it worked on last.
    const read = run(w.config, ['--session', B, 'list'], { cwd: w.proj });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain('In beta');
  });

  it('a gate on a session whose work is in two named lists is refused (exit 2, one JSON line), not judged on the one changed last', () => {
    const w = world();
    writeTaskTranscript(w.config, {
      sessionId: B,
      cwd: w.proj,
      prompt: 'moved between lists',
      calls: [create('1', 'In alpha', w.now - 120_000), create('1', 'In beta', w.now - 60_000)],
    });
    w.task('alpha', '1', 'In alpha', w.now - 120_000 + 5);
    const beta = path.join(w.config, 'tasks', 'beta');
    writeTask(beta, { id: '1', subject: 'In beta', description: '', status: 'completed', blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(beta, '1.json'), (w.now - 60_000) / 1000, (w.now - 60_000) / 1000);
    const before = fs.readdirSync(path.join(w.config, 'tasks')).sort();
    const gate = run(w.config, ['--session', B, 'watch', '--until', 'all-completed', '--timeout', '3s', '--json'], { cwd: w.proj });
    expect(gate.code, gate.stderr).toBe(2);
    expect(gate.stdout).toBe('');
    const lines = gate.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ error: { code: 'usage' } });
    expect(fs.readdirSync(path.join(w.config, 'tasks')).sort()).toEqual(before);
    // A plain watch still shows the one changed last.
    expect(run(w.config, ['--session', B, 'list'], { cwd: w.proj }).stdout).toContain('In beta');
  });
});
