/**
 * Stalled work across lists (`tasks lists --stalled`: a table, lines, --json, Markdown for
 * $GITHUB_STEP_SUMMARY), TodoWrite sessions included, and `--session <id> list --stalled`
 * on a TodoWrite session, judged by its TodoWrite calls' times in its transcript.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, stderrLines, tempConfig, writeTask } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

const TODO_SESSION = '5e5e5e5e-1111-4222-8333-944445555666';

function age(file: string, ms: number): void {
  const t = (Date.now() - ms) / 1000;
  fs.utimesSync(file, t, t);
}

/**
 * List "old": #1 in progress, unchanged for 2h (owner amy); list "fresh": #1 in progress now;
 * a TodoWrite session whose last call (1h ago) started "Refactor auth" (#2).
 */
function world(): string {
  const config = tempConfig();
  const old = path.join(config, 'tasks', 'old');
  writeTask(old, {
    id: '1',
    subject: 'Migrate | the *db*',
    description: '',
    status: 'in_progress',
    owner: 'amy',
    blocks: [],
    blockedBy: [],
  });
  writeTask(old, { id: '2', subject: 'Done', description: '', status: 'completed', blocks: [], blockedBy: [] });
  age(path.join(old, '1.json'), 2 * 3600_000);
  writeTask(path.join(config, 'tasks', 'fresh'), {
    id: '1',
    subject: 'Now',
    description: '',
    status: 'in_progress',
    blocks: [],
    blockedBy: [],
  });
  writeTranscript(config, {
    sessionId: TODO_SESSION,
    cwd: '/home/user/proj',
    start: Date.now() - 2 * 3600_000,
    end: Date.now() - 3600_000,
  });
  return config;
}

describe('tasks lists --stalled', () => {
  it('--json: every list with stalled work, TodoWrite sessions included; valid against its schema', () => {
    const config = world();
    const r = run(config, ['lists', '--stalled', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(contractProblems('lists-stalled', r.stdout)).toEqual([]);
    const found = JSON.parse(r.stdout) as Array<{
      list: string;
      kind: string;
      stalled: Array<{ task: { id: string; subject: string }; idleMs: number }>;
    }>;
    expect(found.map((l) => [l.list, l.kind, l.stalled.map((s) => `${s.task.id} ${s.task.subject}`)])).toEqual(
      expect.arrayContaining([
        ['old', 'tasks', ['1 Migrate | the *db*']],
        [TODO_SESSION, 'todowrite', ['2 Refactor auth']],
      ]),
    );
    expect(found).toHaveLength(2);
    expect(found.find((l) => l.list === 'old')?.stalled[0]?.idleMs).toBeGreaterThanOrEqual(2 * 3600_000 - 5000);
    // A longer duration: only the list unchanged for 2h.
    const longer = JSON.parse(run(config, ['lists', '--stalled', '90m', '--json']).stdout) as Array<{ list: string }>;
    expect(longer.map((l) => l.list)).toEqual(['old']);
  });

  it('--format markdown: a section for $GITHUB_STEP_SUMMARY, text escaped, ids and owners as code', () => {
    const config = world();
    const r = run(config, ['lists', '--stalled', '--format', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('### Stalled work (in progress, unchanged for 30m or more)');
    expect(lines).toContain('| list | task | owner | unchanged for | session |');
    expect(lines.find((l) => l.startsWith('| `old`'))).toMatch(
      /^\| `old` \| `#1` Migrate \\\| the \\\*db\\\* \| `amy` \| 2h 00m \| {2}\|$/,
    );
    expect(lines.find((l) => l.includes('(TodoWrite)'))).toMatch(/`#2` Refactor auth \| {2}\| 1h \d\dm \| `5e5e5e5e` ended \|$/);
    const none = run(config, ['lists', '--stalled', '5h', '--format', 'markdown']);
    expect(none.stdout).toBe('### Stalled work (in progress, unchanged for 5h or more)\n\n_No stalled work._\n');
  });

  it('piped: one line a task, tab-separated; nothing stalled: a note on stderr and nothing on stdout', () => {
    const config = world();
    const r = run(config, ['lists', '--stalled']);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t').filter((_, i) => i !== 2)),
    ).toEqual(
      expect.arrayContaining([
        ['old', '1', 'amy', '-', '-', 'Migrate | the *db*'],
        [TODO_SESSION, '2', '-', TODO_SESSION, 'ended', 'Refactor auth'],
      ]),
    );
    const none = run(config, ['lists', '--stalled', '5h']);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toBe('no stalled work: no task has been in progress, unchanged, for 5h\n');
  });

  it('a busy session at work on its list: not stalled', () => {
    const config = world();
    const session = '7d2c1e0f-aaaa-4bbb-8ccc-123456789abc';
    const dir = path.join(config, 'tasks', session);
    writeTask(dir, { id: '1', subject: 'Long build', description: '', status: 'in_progress', blocks: [], blockedBy: [] });
    age(path.join(dir, '1.json'), 2 * 3600_000);
    const cwd = path.join(config, 'home', 'p');
    writeTranscript(config, { sessionId: session, cwd, todos: false, start: Date.now() - 60_000, end: Date.now() });
    writeLiveSession(config, { pid: process.pid, sessionId: session, cwd, status: 'busy' });
    const lists = (JSON.parse(run(config, ['lists', '--stalled', '--json']).stdout) as Array<{ list: string }>).map((l) => l.list);
    expect(lists).not.toContain(session);
    expect(lists).toContain('old');
  });

  it('usage: --format without --stalled, --json with markdown', () => {
    const config = world();
    expect(run(config, ['lists', '--format', 'markdown']).code).toBe(2);
    expect(run(config, ['lists', '--stalled', '--format', 'markdown', '--json']).code).toBe(2);
    expect(run(config, ['lists', '--stalled', 'soon']).code).toBe(2);
  });
});

describe('--session <TodoWrite session> list --stalled', () => {
  it("answers from the transcript's TodoWrite times", () => {
    const config = world();
    const r = run(config, ['--session', TODO_SESSION.slice(0, 8), 'list', '--stalled', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ id: string; subject: string }>).map((t) => `${t.id} ${t.subject}`)).toEqual([
      '2 Refactor auth',
    ]);
    expect(JSON.parse(run(config, ['--session', TODO_SESSION.slice(0, 8), 'list', '--stalled', '2h', '--json']).stdout)).toEqual([]);
  });

  it('an item whose TodoWrite call has no time: said, not guessed', () => {
    const config = world();
    const file = path.join(config, 'projects', '-home-user-proj', `${TODO_SESSION}.jsonl`);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => {
        const e = JSON.parse(l) as Record<string, unknown>;
        if (l.includes('"TodoWrite"') || l.includes('newTodos')) delete e.timestamp;
        return JSON.stringify(e);
      });
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const r = run(config, ['--session', TODO_SESSION.slice(0, 8), 'list', '--stalled', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[]\n');
    expect(stderrLines(r.stderr)).toContainEqual({
      warning: expect.objectContaining({ code: 'stalled_unknown', ids: ['2'], message: expect.stringMatching(/cannot be told/) }),
    });
  });
});
