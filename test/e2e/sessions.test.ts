import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJson, run, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { projectFolder, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { runInTmux, startInTmux, tmuxAvailable } from '../helpers/tmux.js';

/** Lists named by sessions, as Claude Code leaves them, in projects under a home folder. */
const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7c1e2f30-1111-4a4a-8b8b-000000000002';
const C = '7c1e2f30-2222-4a4a-8b8b-000000000003';

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

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
  return runInProcessSync(w.config, args, { cwd, env });
}

describe('list choice by project', () => {
  it("in each project, a read takes that project's session list and says why on stderr", () => {
    const w = world();
    const myproj = w.dir('work/myproj');
    const other = w.dir('work/other');
    w.list(A, 2);
    w.list(B, 3);
    writeTranscript(w.config, {
      sessionId: A,
      cwd: myproj,
      prompt: 'fix the login bug',
      start: Date.now() - 30 * MIN,
      end: Date.now() - 20 * MIN,
    });
    writeTranscript(w.config, {
      sessionId: B,
      cwd: other,
      prompt: 'write the docs',
      start: Date.now() - 5 * MIN,
      end: Date.now() - 1 * MIN,
    });
    const inMine = inDir(w, myproj, ['list', '--json']);
    expect(inMine.code).toBe(0);
    expect(JSON.parse(inMine.stdout)).toHaveLength(2);
    expect(stderrText(inMine.stderr)).toBe('using list 2d483082 (ended session "fix the login bug", ~/work/myproj, active 20 min ago)\n');
    const inOther = inDir(w, other, ['list', '--json']);
    expect(JSON.parse(inOther.stdout)).toHaveLength(3);
    expect(stderrText(inOther.stderr)).toMatch(
      /^using list 7c1e2f30 \(ended session "write the docs", ~\/work\/other, active 1 min ago\)\n$/,
    );
    // A subdirectory uses the nearest ancestor with sessions.
    const deep = w.dir('work/myproj/src/auth');
    expect(JSON.parse(inDir(w, deep, ['list', '--json']).stdout)).toHaveLength(2);
    // A change in the project needs no --list: one candidate is certain.
    const created = inDir(w, myproj, ['create', 'From the shell']);
    expect(created).toMatchObject({ code: 0, stdout: '3\n' });
    expect(fs.existsSync(path.join(w.config, 'tasks', A, '3.json'))).toBe(true);
  });

  it('a change refused between sessions of one prompt tells them apart by state and age', () => {
    const w = world();
    const proj = w.dir('proj');
    w.list(A, 1);
    w.list(B, 1);
    // The same prompt run twice in one folder (a retried CI job, say): the prompts alone cannot tell the lists apart.
    writeTranscript(w.config, {
      sessionId: A,
      cwd: proj,
      prompt: 'fix the flaky test',
      start: Date.now() - 60 * MIN,
      end: Date.now() - 50 * MIN,
    });
    writeTranscript(w.config, {
      sessionId: B,
      cwd: proj,
      prompt: 'fix the flaky test',
      start: Date.now() - 5 * MIN,
      end: Date.now() - 2 * MIN,
    });
    const refused = inDir(w, proj, ['done', '1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: 2 lists belong to sessions in ~/proj, so a change needs its list named: tasks -l 7c1e2f30 done 1 ("fix the flaky test", ended 2 min ago) or tasks -l 2d483082 done 1 ("fix the flaky test", ended 50 min ago); tasks use <id> makes the choice stick\n`,
    );
    const json = inDir(w, proj, ['done', '1', '--json']);
    expect(JSON.parse(json.stderr).error.candidates.map((c: { lastActivity: string }) => c.lastActivity)).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    ]);
  });

  it('a live session wins over a more recent ended one; without one, the most recently active', () => {
    const w = world();
    const proj = w.dir('proj');
    w.list(A, 1);
    w.list(B, 2);
    writeTranscript(w.config, {
      sessionId: A,
      cwd: proj,
      prompt: 'long running',
      start: Date.now() - 60 * MIN,
      end: Date.now() - 50 * MIN,
    });
    writeTranscript(w.config, { sessionId: B, cwd: proj, prompt: 'quick fix', start: Date.now() - 5 * MIN, end: Date.now() - 2 * MIN });
    // No live session: the most recently active one, and a read says another is here.
    const before = inDir(w, proj, ['list', '--json']);
    expect(JSON.parse(before.stdout)).toHaveLength(2);
    expect(stderrText(before.stderr)).toMatch(
      /^using list 7c1e2f30 \(ended session "quick fix", ~\/proj, active 2 min ago\); 1 other list of sessions in ~\/proj: tasks lists\n$/,
    );
    // ... and a change refuses, naming both with their prompts and the command to paste.
    const refused = inDir(w, proj, ['create', 'x']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: 2 lists belong to sessions in ~/proj, so a change needs its list named: tasks -l 7c1e2f30 create x ("quick fix") or tasks -l 2d483082 create x ("long running"); tasks use <id> makes the choice stick\n`,
    );
    expect(fs.readdirSync(path.join(w.config, 'tasks', B)).filter((f) => f.endsWith('.json'))).toHaveLength(2);
    // Session A goes live: it is the list, for reads and changes alike.
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: A, cwd: proj, status: 'idle' });
    const live = inDir(w, proj, ['list', '--json']);
    expect(JSON.parse(live.stdout)).toHaveLength(1);
    expect(stderrText(live.stderr)).toBe(
      'using list 2d483082 (live session "long running", ~/proj); 1 other list of sessions in ~/proj: tasks lists\n',
    );
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
    expect(stderrText(r.stderr)).toMatch(/the most recently changed/);
    // In ~ itself, the home session's list is the project's.
    expect(stderrText(inDir(w, w.home, ['list', '--json']).stderr)).toMatch(/^using list 2d483082 \(ended session "in home", ~,/);
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
    // Named: used without a word.
    const bySession = inDir(w, proj, ['--session', '7c1e', 'list', '--json']);
    expect(JSON.parse(bySession.stdout)).toHaveLength(2);
    expect(bySession.stderr).toBe('');
    expect(JSON.parse(inDir(w, proj, ['list', '--json'], { CLAUDE_CODE_TASK_LIST_ID: 'named' }).stdout)).toHaveLength(3);
  });
});

describe('prefixes and refusals', () => {
  it('--list takes a unique prefix; an ambiguous one is exit 2 naming the candidates', () => {
    const w = world();
    w.list(A, 1);
    w.list(B, 2);
    w.list(C, 3);
    const unique = runInProcessSync(w.config, ['-l', '2d48', 'list', '--json']);
    expect(unique.code).toBe(0);
    expect(JSON.parse(unique.stdout)).toHaveLength(1);
    expect(unique.stderr).toBe('');
    const ambiguous = runInProcessSync(w.config, ['-l', '7c1e2f30', 'update', '1', '--status', 'completed']);
    expect(ambiguous).toMatchObject({ code: 2, stdout: '' });
    expect(ambiguous.stderr).toBe(`error: list prefix "7c1e2f30" is ambiguous: ${B}, ${C}\n`);
    expect(readJson(path.join(w.config, 'tasks', B, '1.json'))).toMatchObject({ status: 'pending' });
    const json = runInProcessSync(w.config, ['-l', '7c1e', 'get', '1', '--json']);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'usage',
        message: `list prefix "7c1e" is ambiguous: ${B}, ${C}`,
        hint: 'type more of the list id',
        candidates: [B, C],
      },
    });
  });

  it('a missing list is exit 3 with "did you mean"; create makes the list named and says what is near', () => {
    const w = world();
    w.list('web-v2', 1);
    const read = runInProcessSync(w.config, ['-l', 'web-v3', 'get', '1']);
    expect(read).toMatchObject({ code: 3, stdout: '' });
    expect(read.stderr).toBe(`error: list folder ${path.join(w.config, 'tasks', 'web-v3')} does not exist; did you mean web-v2?\n`);
    const update = runInProcessSync(w.config, ['-l', 'nope', 'update', '1', '--status', 'completed']);
    expect(update.code).toBe(3);
    expect(update.stderr).toMatch(/^error: list folder .*nope does not exist\n$/);
    const made = runInProcessSync(w.config, ['-l', 'web-v3', 'create', 'x']);
    expect(made).toMatchObject({ code: 0, stdout: '1\n', stderr: 'new list "web-v3" (note: "web-v2" exists)\n' });
    // --new-list is still taken, and changes nothing.
    expect(runInProcessSync(w.config, ['-l', 'web-v4', 'create', 'x', '--new-list'])).toMatchObject({
      code: 0,
      stdout: '1\n',
      stderr: 'new list "web-v4" (note: "web-v2", "web-v3" exist)\n',
    });
    const fresh = runInProcessSync(w.config, ['-l', 'deploys', 'create', 'x']);
    expect(fresh).toMatchObject({ code: 0, stdout: '1\n', stderr: 'new list "deploys"\n' });
  });

  it('--session: a prefix, an ambiguous one, an unknown one, one without a list', () => {
    const w = world();
    w.list(B, 2);
    writeTranscript(w.config, { sessionId: B, cwd: w.dir('b'), prompt: 'b' });
    writeTranscript(w.config, { sessionId: C, cwd: w.dir('c'), prompt: 'c', todos: false });
    expect(JSON.parse(runInProcessSync(w.config, ['--session', B.slice(0, 12), 'list', '--json']).stdout)).toHaveLength(2);
    const ambiguous = runInProcessSync(w.config, ['--session', '7c1e2f30', 'list']);
    expect(ambiguous).toMatchObject({ code: 2, stderr: `error: session prefix "7c1e2f30" is ambiguous: ${B}, ${C}\n` });
    expect(runInProcessSync(w.config, ['--session', 'ffff', 'list'])).toMatchObject({
      code: 3,
      stderr: `error: no session "ffff" under ${w.config}\n`,
    });
    expect(runInProcessSync(w.config, ['--session', C, 'list'])).toMatchObject({
      code: 3,
      stderr: `error: session ${C} has no task list\n`,
    });
    // A change in a session without a list starts the list its agent would use.
    const created = runInProcessSync(w.config, ['--session', C, 'create', 'first']);
    expect(created).toMatchObject({ code: 0, stdout: '1\n' });
    // The short id is the shortest unique prefix: B and C share their first 8 characters.
    expect(created.stderr).toBe('new list: the list of session 7c1e2f30-2\n');
  });
});

describe('tasks lists', () => {
  it('shows project, branch, state, prompt and counts; --json carries every field; --here and --live filter', () => {
    const w = world();
    const myproj = w.dir('work/myproj');
    const api = w.dir('work/myproj/packages/api');
    const other = w.dir('work/other');
    w.list(A, 2);
    w.list(B, 1);
    w.list(C, 3);
    w.list('by-hand', 1);
    const now = Date.now();
    writeTranscript(w.config, {
      sessionId: A,
      cwd: myproj,
      branch: 'feat/login',
      prompt: 'fix the login bug\nand its tests',
      lastPrompt: 'now the tests',
      start: now - 60 * MIN,
      end: now - 10 * MIN,
    });
    writeTranscript(w.config, { sessionId: B, cwd: api, prompt: 'speed up the api', start: now - 30 * MIN, end: now - 5 * MIN });
    writeTranscript(w.config, { sessionId: C, cwd: other, prompt: 'crashed run', start: now - 20 * MIN, end: now - 15 * MIN });
    const pid = liveProcess();
    writeLiveSession(w.config, { pid, sessionId: B, cwd: api, status: 'busy', name: 'api-b2' });
    // C's process is gone; its live file stayed: a crash.
    const dead = spawn('true');
    children.push(dead);
    writeLiveSession(w.config, { pid: 999_999_9, sessionId: C, cwd: other, procStartTicks: '12345' });
    const json = JSON.parse(runInProcessSync(w.config, ['lists', '--json']).stdout) as Array<Record<string, unknown>>;
    const byId = Object.fromEntries(json.map((l) => [l.id, l]));
    expect(byId[A]).toMatchObject({
      shortId: '2d483082',
      sessionId: A,
      state: 'ended',
      activity: null,
      pid: null,
      cwd: myproj,
      branch: 'feat/login',
      prompt: 'fix the login bug\nand its tests',
      lastPrompt: 'now the tests',
      counts: { total: 2, pending: 2 },
      transcript: path.join(w.config, 'projects', projectFolder(myproj), `${A}.jsonl`),
    });
    expect(byId[B]).toMatchObject({ shortId: '7c1e2f30-1', state: 'live', activity: 'busy', pid, sessionName: 'api-b2', cwd: api });
    expect(byId[C]).toMatchObject({ shortId: '7c1e2f30-2', state: 'crashed', pid: 9999999 });
    expect(byId['by-hand']).toMatchObject({ shortId: 'by-hand', sessionId: null, state: null, sessions: [] });
    // --here: sessions in this directory or below it.
    const here = JSON.parse(runInProcessSync(w.config, ['lists', '--here', '--json'], { cwd: myproj }).stdout) as Array<{ id: string }>;
    expect(here.map((l) => l.id).sort()).toEqual([A, B].sort());
    const live = JSON.parse(runInProcessSync(w.config, ['lists', '--live', '--json']).stdout) as Array<{ id: string }>;
    expect(live.map((l) => l.id)).toEqual([B]);
    // Piped: the old columns first, then state, cwd, branch, session id, prompt.
    const lines = runInProcessSync(w.config, ['lists']).stdout.trim().split('\n');
    const lineA = lines.find((l) => l.startsWith(A))!.split('\t');
    expect(lineA.slice(8)).toEqual(['ended', myproj, 'feat/login', A, 'fix the login bug and its tests', 'tasks', '-', '-']);
    expect(
      lines
        .find((l) => l.startsWith('by-hand'))!
        .split('\t')
        .slice(8),
    ).toEqual(['-', '-', '-', '-', '-', 'tasks', '-', '-']);
  });

  it.runIf(tmuxAvailable())('in a terminal: one row per list, newest first, prompts cut to fit, no row wider than the screen', async () => {
    const w = world();
    const now = Date.now();
    for (const [i, id] of [A, B, C].entries()) {
      const d = w.list(id, i + 1);
      fs.utimesSync(d, (now - i * MIN) / 1000, (now - i * MIN) / 1000);
      for (const f of fs.readdirSync(d)) fs.utimesSync(path.join(d, f), (now - i * MIN) / 1000, (now - i * MIN) / 1000);
      writeTranscript(w.config, {
        sessionId: id,
        cwd: w.dir(`work/project-${i}`),
        prompt: `${'a very long opening prompt '.repeat(5)}${i}`,
      });
    }
    for (const width of [80, 140]) {
      // The binary in a terminal (tmux): the table as a person sees it.
      const screen = await runInTmux(w.config, ['lists'], { width, height: 12 });
      const plain = screen
        .trimEnd()
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.startsWith('EXIT='));
      // At 80 columns the branch gives way to the prompt; at 140 there is room for all.
      expect(plain[0]).toMatch(
        width === 80
          ? /^LIST\s+PROJECT\s+SESSION\s+PROMPT\s+TASKS\s+CHANGED$/
          : /^LIST\s+PROJECT\s+BRANCH\s+SESSION\s+PROMPT\s+TASKS\s+CHANGED$/,
      );
      expect(plain.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(['2d483082', '7c1e2f30-1', '7c1e2f30-2']);
      expect(plain[1]).toMatch(/~\/work\/project-0\s+(main\s+)?ended\s+a very long opening pr.*…\s+0\/1\s+\d+s ago$/);
      expect(plain[3]).toMatch(/\s0\/3\s/);
      for (const line of plain) expect([...line].length).toBeLessThanOrEqual(width);
    }
  });
});

describe('damaged or foreign session files', () => {
  it('never crash or hang a command: the list just has less context', () => {
    const w = world();
    const proj = w.dir('proj');
    w.list(A, 2);
    const folder = path.join(w.config, 'projects', projectFolder(proj));
    fs.mkdirSync(folder, { recursive: true });
    const sessions = path.join(w.config, 'sessions');
    fs.mkdirSync(sessions, { recursive: true });
    // A's transcript: truncated mid-line after a huge first line and binary noise.
    const huge = JSON.stringify({ type: 'attachment', cwd: proj, content: 'x'.repeat(3_000_000) });
    fs.writeFileSync(path.join(folder, `${A}.jsonl`), `${huge}\n\u0000\u0001\u00ff garbage\n{"type":"user","message":{"content":"tru`);
    // Foreign things where transcripts and session files go.
    spawnSync('mkfifo', [path.join(folder, `${B}.jsonl`)]);
    fs.symlinkSync(path.join(folder, 'loop-b.jsonl'), path.join(folder, `${C}.jsonl`));
    fs.symlinkSync(path.join(folder, `${C}.jsonl`), path.join(folder, 'loop-b.jsonl'));
    fs.writeFileSync(path.join(sessions, '1.json'), JSON.stringify({ pid: 1, sessionId: A, cwd: proj, procStart: '1', status: 'busy' }));
    fs.writeFileSync(path.join(sessions, '2.json'), '{"pid": 2, "sessionId"');
    fs.writeFileSync(path.join(sessions, '3.json'), Buffer.from([0, 1, 2, 255]));
    spawnSync('mkfifo', [path.join(sessions, '4.json')]);
    fs.writeFileSync(path.join(sessions, '5.json'), JSON.stringify({ pid: -5, sessionId: 7 }));
    fs.mkdirSync(path.join(sessions, '6.json'));
    const started = Date.now();
    for (const args of [['list', '--json'], ['lists', '--json'], ['lists'], ['get', '1'], ['--session', '2d48', 'list', '--json']]) {
      const r = runInProcessSync(w.config, args, { cwd: proj });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+|TypeError|RangeError/);
    }
    expect(Date.now() - started).toBeLessThan(30_000);
    const [overview] = JSON.parse(runInProcessSync(w.config, ['lists', '--json'], { cwd: proj }).stdout) as Array<Record<string, unknown>>;
    // pid 1 runs, but not with the start time the file names: a crash, not a live session.
    expect(overview).toMatchObject({ id: A, state: 'crashed', prompt: null, cwd: proj });
    // The list was still found through the project (the session file names its cwd).
    expect(stderrText(runInProcessSync(w.config, ['list', '--json'], { cwd: proj }).stderr)).toMatch(
      /^using list 2d483082 \(crashed session, ~\/proj/,
    );
  });
});

describe('team lists', () => {
  it('a team list belongs to its lead session: lists shows it, --session and the project find it', () => {
    const w = world();
    const proj = w.dir('team-proj');
    w.list('my-team', 2);
    fs.mkdirSync(path.join(w.config, 'teams', 'my-team'), { recursive: true });
    fs.writeFileSync(
      path.join(w.config, 'teams', 'my-team', 'config.json'),
      JSON.stringify({
        name: 'my-team',
        leadAgentId: 'team-lead@my-team',
        leadSessionId: A,
        members: [{ name: 'team-lead', agentId: 'team-lead@my-team' }],
      }),
    );
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'lead the team' });
    const [row] = JSON.parse(runInProcessSync(w.config, ['lists', '--json']).stdout) as Array<Record<string, unknown>>;
    expect(row).toMatchObject({ id: 'my-team', team: 'my-team', sessionId: A, cwd: proj, prompt: 'lead the team' });
    expect(JSON.parse(runInProcessSync(w.config, ['--session', '2d48', 'list', '--json']).stdout)).toHaveLength(2);
    w.list('unrelated', 1);
    const r = runInProcessSync(w.config, ['list', '--json'], { cwd: proj });
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    expect(stderrText(r.stderr)).toMatch(/^using list my-team \(ended session "lead the team", ~\/team-proj/);
  });
});

describe('owners whose session is over', () => {
  function staleWorld() {
    const w = world();
    const proj = w.dir('proj');
    const dir = w.list(A, 0);
    writeTask(dir, task('1', { status: 'in_progress', owner: 'worker-1', subject: 'Migrate db' }));
    writeTask(dir, task('2', { status: 'completed', owner: 'worker-2' }));
    writeTask(dir, task('3', { owner: 'alice' }));
    writeTask(dir, task('4', { owner: 'worker-1' }));
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'migrate', start: Date.now() - 90 * MIN, end: Date.now() - 60 * MIN });
    return { w, proj, dir, env: { USER: 'alice' } };
  }

  it.runIf(tmuxAvailable())('list and get mark them; check reports them; release --gone gives their work back', async () => {
    const { w, dir, env } = staleWorld();
    const pane = startInTmux(w.config, ['-l', A, 'list'], { width: 140, height: 12 }, env);
    const plain = await pane.waitFor((s) => /EXIT=\d+/.test(s), 'list').finally(() => pane.kill());
    expect(plain).toMatch(/#1 .*worker-1 \(gone\)/);
    expect(plain).toMatch(/#4 .*worker-1 \(gone\)/);
    expect(plain).not.toMatch(/worker-2 \(gone\)|alice \(gone\)/);
    expect(plain).toContain(
      '2 unfinished tasks are owned by agents whose session 2d483082 ended: tasks -l 2d483082 release --gone gives them back',
    );
    const piped = runInProcessSync(w.config, ['-l', A, 'list'], { env });
    expect(piped.stdout.split('\n')[0]).toBe('1\tin_progress\tworker-1\t-\tMigrate db');
    expect(piped.stderr).toContain('warning: 2 unfinished tasks are owned by agents whose session 2d483082 ended');
    expect(runInProcessSync(w.config, ['-l', A, 'get', '1'], { env }).stdout).toMatch(/Owner: +worker-1 \(gone: session 2d483082 ended\)/);
    expect(runInProcessSync(w.config, ['-l', A, 'get', '2'], { env }).stdout).not.toMatch(/gone/);
    const check = runInProcessSync(w.config, ['-l', A, 'check', '--json'], { env });
    const findings = (JSON.parse(check.stdout) as { findings: Array<{ code: string; id: string }> }).findings.filter(
      (f) => f.code === 'owner_gone',
    );
    expect(findings.map((f) => f.id)).toEqual(['1', '4']);
    const dry = runInProcessSync(w.config, ['-l', A, 'release', '--gone', '--dry-run'], { env });
    expect(dry).toMatchObject({
      code: 0,
      stdout:
        'Would release task #1 from worker-1 (in_progress -> pending; session 2d483082 ended): Migrate db\nWould release task #4 from worker-1 (session 2d483082 ended): Task 4\n',
    });
    expect(readJson(path.join(dir, '1.json'))).toMatchObject({ owner: 'worker-1', status: 'in_progress' });
    const released = runInProcessSync(w.config, ['-l', A, 'release', '--gone', '--json'], { env });
    expect(released.code).toBe(0);
    expect((JSON.parse(released.stdout) as Array<{ id: string; released: boolean }>).map((r) => [r.id, r.released])).toEqual([
      ['1', true],
      ['4', true],
    ]);
    expect(readJson(path.join(dir, '1.json'))).not.toHaveProperty('owner');
    expect(readJson(path.join(dir, '1.json'))).toMatchObject({ status: 'pending' });
    expect(readJson(path.join(dir, '2.json'))).toMatchObject({ owner: 'worker-2' });
    expect(readJson(path.join(dir, '3.json'))).toMatchObject({ owner: 'alice' });
    expect(runInProcessSync(w.config, ['-l', A, 'release', '--gone'], { env })).toMatchObject({
      code: 0,
      stderr: 'no unfinished task is held by a gone owner; nothing released\n',
    });
  });

  it('nobody is gone while the session runs, or when no session is known', () => {
    const { w, proj, env } = staleWorld();
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: A, cwd: proj });
    expect(runInProcessSync(w.config, ['-l', A, 'list'], { env }).stderr).not.toMatch(/gone/);
    expect(runInProcessSync(w.config, ['-l', A, 'release', '--gone'], { env })).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'no owner here is gone: session 2d483082 is live; nothing released\n',
    });
    // With --json: the empty array, and the note that says why, as a JSON line.
    const json = runInProcessSync(w.config, ['-l', A, 'release', '--gone', '--json'], { env });
    expect(json).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(JSON.parse(json.stderr)).toEqual({
      note: {
        code: 'none_gone',
        message: 'no owner here is gone: session 2d483082 is live; nothing released',
        alive: 'session 2d483082 is live',
      },
    });
    const byHand = w.list('by-hand', 0);
    writeTask(byHand, task('1', { owner: 'someone', status: 'in_progress' }));
    expect(runInProcessSync(w.config, ['-l', 'by-hand', 'list']).stderr).not.toMatch(/gone/);
    expect(runInProcessSync(w.config, ['-l', 'by-hand', 'release', '--gone'])).toMatchObject({
      code: 0,
      stderr: 'no owner here is known to be gone: no session of this list is known to have ended or crashed\n',
    });
    expect(runInProcessSync(w.config, ['-l', A, 'release', '--dry-run'], { env })).toMatchObject({
      code: 2,
      stderr: 'error: --dry-run goes with --gone\n',
    });
  });
});

describe('a live-session file whose sessionId is not a UUID (damage: Claude Code names sessions by UUIDs)', () => {
  it('is ignored: a list named like it is owned by no session, in lists as in lists --json, fresh and from the cache', () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'solo'), task('1'));
    // A running process (this one), so only the id tells the file for damage.
    writeLiveSession(config, { pid: process.pid, sessionId: 'solo', cwd: path.join(config, 'proj') });
    for (const round of ['fresh', 'cached']) {
      const json = run(config, ['lists', '--json']);
      expect(json.code, json.stderr).toBe(0);
      const solo = (JSON.parse(json.stdout) as Array<{ id: string; sessionId: unknown; state: unknown; sessions: unknown[] }>).find(
        (l) => l.id === 'solo',
      );
      expect(solo, round).toMatchObject({ sessionId: null, state: null, sessions: [] });
      const text = run(config, ['lists']);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout, round).not.toMatch(/\blive\b/);
    }
  });
});
