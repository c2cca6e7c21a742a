import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJson, run, tempConfig, writeTask } from '../helpers/cli.js';
import { projectFolder, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

/** Lists named by sessions, as Claude Code leaves them, in projects under a home folder. */
const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7c1e2f30-1111-4a4a-8b8b-000000000002';
const C = '7c1e2f30-2222-4a4a-8b8b-000000000003';

const task = (id: string, extra: Record<string, unknown> = {}) => ({ id, subject: `Task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...extra });

interface World {
  config: string;
  home: string;
  dir: (rel: string) => string;
  list: (id: string, tasks?: number) => string;
}

function world(): World {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const dir = (rel: string) => {
    const d = path.join(home, rel);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const list = (id: string, tasks = 1) => {
    const d = path.join(config, 'tasks', id);
    fs.mkdirSync(d, { recursive: true });
    for (let i = 1; i <= tasks; i++) writeTask(d, task(String(i)));
    return d;
  };
  return { config, home, dir, list };
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** A real process for a live session to belong to. */
function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

const MIN = 60_000;

function inDir(w: World, cwd: string, args: string[], env: Record<string, string | undefined> = {}) {
  return run(w.config, args, { cwd, env });
}

describe('list choice by project', () => {
  it('in each project, a read takes that project\'s session list and says why on stderr', () => {
    const w = world();
    const myproj = w.dir('work/myproj');
    const other = w.dir('work/other');
    w.list(A, 2);
    w.list(B, 3);
    writeTranscript(w.config, { sessionId: A, cwd: myproj, prompt: 'fix the login bug', start: Date.now() - 30 * MIN, end: Date.now() - 20 * MIN });
    writeTranscript(w.config, { sessionId: B, cwd: other, prompt: 'write the docs', start: Date.now() - 5 * MIN, end: Date.now() - 1 * MIN });
    const inMine = inDir(w, myproj, ['list', '--json']);
    expect(inMine.code).toBe(0);
    expect(JSON.parse(inMine.stdout)).toHaveLength(2);
    expect(inMine.stderr).toBe('using list 2d483082 (ended session "fix the login bug", ~/work/myproj, active 20 min ago)\n');
    const inOther = inDir(w, other, ['list', '--json']);
    expect(JSON.parse(inOther.stdout)).toHaveLength(3);
    expect(inOther.stderr).toMatch(/^using list 7c1e2f30 \(ended session "write the docs", ~\/work\/other, active 1 min ago\)\n$/);
    // A subdirectory uses the nearest ancestor with sessions.
    const deep = w.dir('work/myproj/src/auth');
    expect(JSON.parse(inDir(w, deep, ['list', '--json']).stdout)).toHaveLength(2);
    // A change in the project needs no --list: one candidate is certain.
    const created = inDir(w, myproj, ['create', 'From the shell']);
    expect(created).toMatchObject({ code: 0, stdout: '3\n' });
    expect(fs.existsSync(path.join(w.config, 'tasks', A, '3.json'))).toBe(true);
  });

  it('a live session wins over a more recent ended one; without one, the most recently active', () => {
    const w = world();
    const proj = w.dir('proj');
    w.list(A, 1);
    w.list(B, 2);
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'long running', start: Date.now() - 60 * MIN, end: Date.now() - 50 * MIN });
    writeTranscript(w.config, { sessionId: B, cwd: proj, prompt: 'quick fix', start: Date.now() - 5 * MIN, end: Date.now() - 2 * MIN });
    // No live session: the most recently active one, and a read says another is here.
    const before = inDir(w, proj, ['list', '--json']);
    expect(JSON.parse(before.stdout)).toHaveLength(2);
    expect(before.stderr).toMatch(/^using list 7c1e2f30 \(ended session "quick fix", ~\/proj, active 2 min ago\); 1 other list here: tasks lists --here\n$/);
    // ... and a change refuses, naming both with prompt and project.
    const refused = inDir(w, proj, ['create', 'x']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`error: 2 lists belong to sessions in ${proj}; choose one with --list: 7c1e2f30 ("quick fix", ${proj}), 2d483082 ("long running", ${proj})\n`);
    expect(fs.readdirSync(path.join(w.config, 'tasks', B)).filter((f) => f.endsWith('.json'))).toHaveLength(2);
    // Session A goes live: it is the list, for reads and changes alike.
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: A, cwd: proj, status: 'idle' });
    const live = inDir(w, proj, ['list', '--json']);
    expect(JSON.parse(live.stdout)).toHaveLength(1);
    expect(live.stderr).toBe('using list 2d483082 (live session "long running", ~/proj)\n');
    expect(inDir(w, proj, ['create', 'y'])).toMatchObject({ code: 0, stdout: '2\n' });
  });

  it('sessions run in the home folder do not capture its projects; the search stops below ~', () => {
    const w = world();
    const proj = w.dir('work/proj');
    w.list(A, 1);
    w.list(B, 2);
    writeTranscript(w.config, { sessionId: A, cwd: w.home, prompt: 'in home' });
    // In ~/work/proj, no session ran: the home session is not taken, and with two lists a read
    // falls back to the most recently changed.
    const r = inDir(w, proj, ['list', '--json']);
    expect(r.stderr).toMatch(/the most recently changed/);
    // In ~ itself, the home session's list is the project's.
    expect(inDir(w, w.home, ['list', '--json']).stderr).toMatch(/^using list 2d483082 \(ended session "in home", ~,/);
  });

  it('--list, --session and $CLAUDE_CODE_TASK_LIST_ID come before the project', () => {
    const w = world();
    const proj = w.dir('proj');
    w.list(A, 1);
    w.list(B, 2);
    w.list('named', 3);
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'here' });
    writeTranscript(w.config, { sessionId: B, cwd: w.dir('elsewhere'), prompt: 'there' });
    expect(JSON.parse(inDir(w, proj, ['-l', 'named', 'list', '--json']).stdout)).toHaveLength(3);
    const bySession = inDir(w, proj, ['--session', '7c1e', 'list', '--json']);
    expect(JSON.parse(bySession.stdout)).toHaveLength(2);
    expect(bySession.stderr).toMatch(/^using list 7c1e2f30 \(ended session "there", ~\/elsewhere,/);
    expect(JSON.parse(inDir(w, proj, ['list', '--json'], { CLAUDE_CODE_TASK_LIST_ID: 'named' }).stdout)).toHaveLength(3);
  });
});

describe('prefixes and refusals', () => {
  it('--list takes a unique prefix; an ambiguous one is exit 2 naming the candidates', () => {
    const w = world();
    w.list(A, 1);
    w.list(B, 2);
    w.list(C, 3);
    const unique = run(w.config, ['-l', '2d48', 'list', '--json']);
    expect(unique.code).toBe(0);
    expect(JSON.parse(unique.stdout)).toHaveLength(1);
    expect(unique.stderr).toBe(`using list ${A}, the only one whose id starts with "2d48"\n`);
    const ambiguous = run(w.config, ['-l', '7c1e2f30', 'update', '1', '--status', 'completed']);
    expect(ambiguous).toMatchObject({ code: 2, stdout: '' });
    expect(ambiguous.stderr).toBe(`error: list prefix "7c1e2f30" is ambiguous: ${B}, ${C}\n`);
    expect(readJson(path.join(w.config, 'tasks', B, '1.json'))).toMatchObject({ status: 'pending' });
    const json = run(w.config, ['-l', '7c1e', 'get', '1', '--json']);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'usage', message: `list prefix "7c1e" is ambiguous: ${B}, ${C}`, hint: 'type more of the list id', candidates: [B, C] } });
  });

  it('a missing list is exit 3 with "did you mean"; a change never creates a list one typo away', () => {
    const w = world();
    w.list('web-v2', 1);
    const read = run(w.config, ['-l', 'web-v3', 'get', '1']);
    expect(read).toMatchObject({ code: 3, stdout: '' });
    expect(read.stderr).toBe(`error: list folder ${path.join(w.config, 'tasks', 'web-v3')} does not exist; did you mean web-v2?\n`);
    const update = run(w.config, ['-l', 'nope', 'update', '1', '--status', 'completed']);
    expect(update.code).toBe(3);
    expect(update.stderr).toMatch(/^error: list folder .*nope does not exist\n$/);
    const typo = run(w.config, ['-l', 'web-v3', 'create', 'x']);
    expect(typo).toMatchObject({ code: 2, stdout: '', stderr: 'error: list "web-v3" does not exist; did you mean web-v2? add --new-list to create it\n' });
    expect(fs.existsSync(path.join(w.config, 'tasks', 'web-v3'))).toBe(false);
    const made = run(w.config, ['-l', 'web-v3', 'create', 'x', '--new-list']);
    expect(made).toMatchObject({ code: 0, stdout: '1\n', stderr: 'new list "web-v3"\n' });
    const fresh = run(w.config, ['-l', 'deploys', 'create', 'x']);
    expect(fresh).toMatchObject({ code: 0, stdout: '1\n', stderr: 'new list "deploys"\n' });
  });

  it('--session: a prefix, an ambiguous one, an unknown one, one without a list', () => {
    const w = world();
    w.list(B, 2);
    writeTranscript(w.config, { sessionId: B, cwd: w.dir('b'), prompt: 'b' });
    writeTranscript(w.config, { sessionId: C, cwd: w.dir('c'), prompt: 'c' });
    expect(JSON.parse(run(w.config, ['--session', B.slice(0, 12), 'list', '--json']).stdout)).toHaveLength(2);
    const ambiguous = run(w.config, ['--session', '7c1e2f30', 'list']);
    expect(ambiguous).toMatchObject({ code: 2, stderr: `error: session prefix "7c1e2f30" is ambiguous: ${B}, ${C}\n` });
    expect(run(w.config, ['--session', 'ffff', 'list'])).toMatchObject({ code: 3, stderr: `error: no session "ffff" under ${w.config}\n` });
    expect(run(w.config, ['--session', C, 'list'])).toMatchObject({ code: 3, stderr: `error: session ${C} has no task list\n` });
    // A change in a session without a list starts the list its agent would use.
    const created = run(w.config, ['--session', C, 'create', 'first']);
    expect(created).toMatchObject({ code: 0, stdout: '1\n' });
    // The short id is the shortest unique prefix: B and C share their first 8 characters.
    expect(created.stderr).toMatch(new RegExp(`^using list 7c1e2f30-2 \\(ended session "c", ~/c, active \\d+s ago\\)\nnew list "${C}"\n$`));
  });
});
