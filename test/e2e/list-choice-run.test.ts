/**
 * What `tasks` shows, it can act on: refusals name each candidate with a command to
 * paste (and the pasted command succeeds), dry runs are never refused, a named list is
 * used without a word, a chosen one in one line, errors name the variable and what was
 * meant, a write goes to the list named or nowhere.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeClearedTranscript, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7baec0ff-1111-4a4a-8b8b-000000000002';
const V1 = '9c0ffee0-2222-4a4a-8b8b-000000000003';
const MIN = 60_000;

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

function world() {
  const config = tempConfig();
  const home = path.join(config, 'home');
  fs.mkdirSync(home);
  const dir = (rel: string) => {
    const d = path.join(home, rel);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const list = (id: string, age = 0) => {
    const d = path.join(config, 'tasks', id);
    writeTask(d, task('1', { status: 'in_progress', owner: 'worker-1', blocks: ['2'] }));
    writeTask(d, task('2', { blockedBy: ['1'] }));
    writeTask(d, task('3'));
    const at = (Date.now() - age) / 1000;
    for (const f of fs.readdirSync(d)) fs.utimesSync(path.join(d, f), at, at);
    return d;
  };
  const tasks = (cwd: string, args: string[], env: Record<string, string | undefined> = {}, input?: string) =>
    runInProcessSync(config, args, { cwd, env, input });
  return { config, home, dir, list, tasks };
}

/** Run a command line as printed (`tasks -l 2d483082 'create' x`), as a person pasting it would. */
function paste(config: string, cwd: string, line: string) {
  // The binary as a shell runs it: the pasted commands must work as typed.
  const r = spawnSync('bash', ['-c', `tasks() { "${process.execPath}" "${BIN}" "$@"; }\n${line}`], {
    cwd,
    env: baseEnv(config),
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The commands a refusal offers, in its order: each runs to its prompt, the next "or", the "; tasks use" or the line's end. */
function offered(stderr: string): string[] {
  return [...stderr.matchAll(/tasks -l .*?(?= \("| or tasks -l |; tasks use|$)/gm)].map((m) => m[0]);
}

const IMPORT = JSON.stringify([{ content: 'Imported', status: 'pending', activeForm: 'Importing' }]);

/** Every write, as typed in a project where it cannot choose; each must succeed once the list is named. */
const WRITES: Array<{ args: string[]; input?: string }> = [
  { args: ['create', 'From the shell'] },
  { args: ['update', '3', '--subject', 'Renamed'] },
  { args: ['start', '3'] },
  { args: ['done', '3'] },
  { args: ['claim', '3', '--as', 'me'] },
  { args: ['release', '1'] },
  { args: ['release', '--owner', 'worker-1'] },
  { args: ['release', '--gone'] },
  { args: ['block', '3', '--by', '2'] },
  { args: ['unblock', '2'] },
  { args: ['delete', '3', '-y'] },
  { args: ['undo'] },
  { args: ['check', '--fix'] },
  { args: ['import', '-'], input: IMPORT },
];

describe('a change that cannot choose: the candidates, each with a command to paste', () => {
  for (const { args, input } of WRITES) {
    it(`tasks ${args.join(' ')}`, () => {
      const w = world();
      const proj = w.dir('proj');
      w.list(A, 10 * MIN);
      w.list(B, 50 * MIN);
      writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'quick fix', start: Date.now() - 20 * MIN, end: Date.now() - 10 * MIN });
      writeTranscript(w.config, {
        sessionId: B,
        cwd: proj,
        prompt: 'long running',
        start: Date.now() - 60 * MIN,
        end: Date.now() - 50 * MIN,
      });
      // Something to undo in each list.
      for (const id of [A, B]) expect(w.tasks(proj, ['-l', id, 'update', '2', '--owner', 'bob']).code).toBe(0);
      const refused = w.tasks(proj, args, {}, input);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
      const commands = offered(refused.stderr);
      expect(commands).toHaveLength(2);
      expect(refused.stderr).toMatch(/\("quick fix"\) or tasks -l 7baec0ff .*\("long running"\); tasks use <id> makes the choice stick\n$/);
      const pasted =
        input === undefined
          ? paste(w.config, proj, commands[0] as string)
          : runInProcessSync(w.config, ['-l', '2d483082', ...args], { cwd: proj, input });
      // check --fix runs on the list named; what it finds left there (its agents are gone) is a warning: exit 0.
      expect(pasted.code, `${commands[0]}: ${pasted.stderr}`).toBe(0);
      if (args[0] === 'check') expect(pasted.stderr).toMatch(/^list "2d483082": /m);
      if (input === undefined)
        expect(commands[0]).toBe(['tasks', '-l', '2d483082', ...args].map((a) => (/\s/.test(a) ? `'${a}'` : a)).join(' '));
    });
  }
});

describe('a dry run is never refused', () => {
  for (const args of [
    ['release', '--gone', '-n'],
    ['delete', '3', '-n'],
    ['undo', '-n'],
    ['import', '-', '-n'],
  ]) {
    it(`tasks ${args.join(' ')}: what would happen in the list a read picks, and what a real run needs`, () => {
      const w = world();
      w.list(A, 10 * MIN);
      w.list(B, 50 * MIN);
      for (const id of [A, B]) w.tasks(w.home, ['-l', id, 'update', '2', '--owner', 'bob']);
      const r = w.tasks(w.dir('elsewhere'), args, {}, args[0] === 'import' ? IMPORT : undefined);
      expect(r.code, r.stderr).toBe(0);
      const chosen = /using list (\S+), the most recently changed/.exec(r.stderr)?.[1];
      expect(chosen).toBeDefined();
      const needs = r.stderr.split('\n').find((l) => l.startsWith('a dry run: nothing changes. A real run would be refused'));
      expect(needs).toBeDefined();
      const real = args.filter((a) => a !== '-n');
      expect(offered(needs as string)[0]).toBe(`tasks -l ${chosen} ${real.join(' ')}`);
    });
  }
});

describe("a change is never guessed onto another project's session list", () => {
  it('the only list, a session of another directory: refused (exit 2, nothing written), naming the command; above or below it, or named, it goes through', () => {
    const w = world();
    const api = w.dir('work/api');
    w.list(A);
    writeTranscript(w.config, { sessionId: A, cwd: api, prompt: 'fix the login bug' });
    const listDir = path.join(w.config, 'tasks', A);
    const before = fs.readdirSync(listDir).sort();
    const r = w.tasks(w.dir('elsewhere'), ['create', 'x']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `error: the only task list, 2d483082, is the list of session 2d483082 of ~/work/api, no session of this directory, so a change needs its list named: tasks -l 2d483082 create x ("fix the login bug"); tasks use <id> makes the choice stick\n`,
    );
    expect(fs.readdirSync(listDir).sort()).toEqual(before);
    // The command offered does what it says.
    expect(paste(w.config, w.dir('elsewhere'), offered(r.stderr)[0] as string).code).toBe(0);
    expect(fs.readdirSync(listDir)).toContain('4.json');
    // From the session's directory, a parent or a folder below it: its project.
    for (const cwd of [api, w.dir('work'), w.dir('work/api/src')]) expect(w.tasks(cwd, ['create', 'y']).code).toBe(0);
    // Reads still show it, saying which.
    expect(w.tasks(w.dir('elsewhere'), ['list', '--json']).code).toBe(0);
  });

  it('the only list made by hand (no session has it) still takes a change from anywhere', () => {
    const w = world();
    w.list('demo');
    expect(w.tasks(w.dir('anywhere'), ['create', 'x']).code).toBe(0);
    expect(fs.readdirSync(path.join(w.config, 'tasks', 'demo'))).toContain('4.json');
  });
});

describe('quiet when named, one line when chosen', () => {
  it('--list, --session, the variable and the binding say nothing; the project says which, in one line', () => {
    const w = world();
    const proj = w.dir('work/api');
    w.list(A);
    w.list('named');
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'fix the login bug' });
    expect(w.tasks(proj, ['-l', 'named', 'list', '--json']).stderr).toBe('');
    expect(w.tasks(proj, ['-l', '2d48', 'list', '--json']).stderr).toBe('');
    expect(w.tasks(proj, ['--session', '2d48', 'list', '--json']).stderr).toBe('');
    expect(w.tasks(proj, ['list', '--json'], { CLAUDE_CODE_TASK_LIST_ID: 'named' }).stderr).toBe('');
    const chosen = w.tasks(proj, ['list', '--json']);
    expect(stderrText(chosen.stderr)).toMatch(
      /^using list 2d483082 \(ended session "fix the login bug", ~\/work\/api, active \d+s ago\)\n$/,
    );
    fs.mkdirSync(path.join(proj, '.claude'));
    fs.writeFileSync(path.join(proj, '.claude', 'settings.local.json'), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'named' } }));
    const bound = w.tasks(proj, ['list', '--json']);
    expect(bound.stderr).toBe('');
    expect(JSON.parse(bound.stdout)).toHaveLength(3);
    // Hints name the list only where a pasted command would not find it again.
    expect(w.tasks(proj, ['-l', 'named', 'check']).stderr).not.toMatch(/tasks check/);
  });

  it.runIf(tmuxAvailable())('in a terminal, the note is one line no wider than the screen', async () => {
    const w = world();
    const proj = w.dir('work/a-project-with-a-rather-long-name');
    w.list(A);
    w.list(B);
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'a very long opening prompt that goes on and on about many things' });
    // The binary in a terminal (tmux): the note as a person sees it.
    const screen = await runInTmux(w.config, ['list', '-q'], { width: 60, height: 20 });
    // runInTmux runs in the config folder: the most recently changed list is chosen there.
    const note = screen.split('\n').find((l) => l.startsWith('using list'));
    expect(note).toBeDefined();
    expect([...(note as string)].length).toBeLessThanOrEqual(60);
  });
});

describe('errors say where the name came from, and what was meant', () => {
  it('the variable is named; a short id there gets its full id', () => {
    const w = world();
    w.list(B);
    const r = w.tasks(w.home, ['list'], { CLAUDE_CODE_TASK_LIST_ID: '7baec0ff' });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `error: list folder ${path.join(w.config, 'tasks', '7baec0ff')} does not exist (named by CLAUDE_CODE_TASK_LIST_ID="7baec0ff"); did you mean ${B}? Claude Code reads this variable exactly\n`,
    );
  });

  it('create and import make the list named, and name a near one; undo takes it back', () => {
    for (const [name, near] of [
      ['build-9', 'build-99'],
      ['pr-123', 'pr-124'],
    ] as const) {
      const w = world();
      w.list(near);
      const made = w.tasks(w.home, ['-l', name, 'create', 'x']);
      expect(made).toMatchObject({ code: 0, stdout: '1\n', stderr: `new list "${name}" (note: "${near}" exists)\n` });
      expect(w.tasks(w.home, ['-l', name, 'undo']).code).toBe(0);
      expect(fs.existsSync(path.join(w.config, 'tasks', name))).toBe(false);
      const imported = w.tasks(w.home, ['-l', name, 'import', '-'], {}, IMPORT);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stderr).toContain(`new list "${name}" (note: "${near}" exists)\n`);
      expect(fs.readdirSync(path.join(w.config, 'tasks', near)).filter((f) => f.endsWith('.json'))).toHaveLength(3);
    }
  });

  it('a new list named by the digits a session list begins with names that list: its agent would never see the task', () => {
    const w = world();
    const session = '12345678-1234-4a4a-8b8b-000000000009';
    w.list(session);
    const missing = w.tasks(w.home, ['-l', '12345678', 'list']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(`does not exist; did you mean ${session}?\n`);
    const made = w.tasks(w.home, ['-l', '12345678', 'create', 'x']);
    expect(made).toMatchObject({ code: 0, stdout: '1\n', stderr: `new list "12345678" (note: "${session}" exists)\n` });
    // A name that begins no session list is made without a word.
    expect(w.tasks(w.home, ['-l', '4821', 'create', 'y'])).toMatchObject({ code: 0, stderr: 'new list "4821"\n' });
    // A list named by a UUID that is no session's (a shared list, named by the variable) is not called a session's.
    const shared = w.tasks(w.home, ['create', 'z'], { CLAUDE_CODE_TASK_LIST_ID: '6d0a7d1e-0000-4000-8000-000000000001' });
    expect(shared).toMatchObject({ code: 0, stdout: '1\n', stderr: 'new list "6d0a7d1e"\n' });
  });

  it('a session with no list, named by its short id: the error names the folder its list would have, by its whole id', () => {
    const w = world();
    w.list('other');
    writeTranscript(w.config, { sessionId: A, cwd: w.dir('api'), prompt: 'look around' });
    const r = w.tasks(w.home, ['-l', A.slice(0, 8), 'list']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toBe(
      `error: list folder ${path.join(w.config, 'tasks', A)} does not exist: session ${A} keeps its todos with TodoWrite, not in a task list: tasks --session ${A.slice(0, 8)} list reads them\n`,
    );
  });

  it('watch on a missing list says "did you mean" at once, then waits', () => {
    const w = world();
    w.list('named-list');
    const r = w.tasks(w.home, ['-l', 'named-lst', 'watch', '--until', 'all-completed', '--timeout', '1s', '--json']);
    expect(r.code).toBe(124);
    expect(stderrText(r.stderr).split('\n')[0]).toBe('list "named-lst" does not exist yet (did you mean named-list?); waiting for it');
  });

  it('a gate --until empty on a mistyped list is refused (exit 3): no list holds empty, and the job would go on at once', () => {
    const w = world();
    w.list('build-9');
    const r = w.tasks(w.home, ['-l', 'bulid-9', 'watch', '--until', 'empty', '--timeout', '5s']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toBe('error: list "bulid-9" does not exist (did you mean build-9?), and --until empty would hold on it at once\n');
    // A list with no near name: no list is empty, as documented (an agent cleared its finished list).
    expect(w.tasks(w.home, ['-l', 'zzz-other', 'watch', '--until', 'empty', '--timeout', '5s']).code).toBe(0);
  });

  it('a gate --until empty on a mistyped short id of a session list (one keystroke off what tasks lists shows) is refused, exit 3, one JSON line', () => {
    const w = world();
    const session = '3f2a9c1e-1111-4222-8333-444455556666';
    w.list(session);
    const before = fs.readdirSync(path.join(w.config, 'tasks')).sort();
    const r = w.tasks(w.home, ['-l', '3f2a9c1f', 'watch', '--until', 'empty', '--timeout', '5s', '--json']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ error: { code: 'not_found', list: '3f2a9c1f', suggestions: [session] } });
    expect(fs.readdirSync(path.join(w.config, 'tasks')).sort()).toEqual(before);
    // The short id itself names the list.
    expect(w.tasks(w.home, ['-l', '3f2a9c1e', 'list']).code).toBe(0);
  });

  it('a config folder that does not exist is exit 3 for every command; ~ expands after =; the first run says how to start', () => {
    const w = world();
    const missing = path.join(w.config, 'nope');
    for (const args of [['lists'], ['list'], ['-l', 'x', 'create', 'y'], ['check', '--all'], ['use'], ['-l', 'x', 'get', '1']]) {
      const r = runInProcessSync(w.config, ['--config-dir', missing, ...args], { cwd: w.config });
      expect({ args, code: r.code }).toEqual({ args, code: 3 });
      expect(r.stderr).toMatch(/config folder .*nope does not exist/);
    }
    expect(fs.existsSync(missing)).toBe(false);
    fs.mkdirSync(path.join(w.home, 'cfg'), { recursive: true });
    const tilde = runInProcessSync(w.config, ['--config-dir=~/cfg', '-l', 'x', 'create', 'y']);
    expect(tilde.code, tilde.stderr).toBe(0);
    expect(fs.existsSync(path.join(w.home, 'cfg', 'tasks', 'x', '1.json'))).toBe(true);
    const first = runInProcessSync(w.config, ['--config-dir=~/cfg2', 'list']);
    expect(first.code).toBe(3);
    fs.mkdirSync(path.join(w.home, 'cfg2'));
    const empty = runInProcessSync(w.config, ['--config-dir=~/cfg2', 'create', 'y']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/no task lists under .*cfg2\/tasks yet; start one with tasks -l <name> create "<subject>"$/m);
    const lists = runInProcessSync(w.config, ['--config-dir=~/cfg2', 'lists']);
    expect(lists).toMatchObject({ code: 0, stdout: '' });
    expect(lists.stderr).toMatch(/start one with tasks -l <name> create "<subject>", or tasks use <name>/);
    // A file where the folder should be is named for what it is.
    fs.writeFileSync(path.join(w.home, 'cfg-file'), 'x');
    for (const args of [['list'], ['-l', 'x', 'create', 'y'], ['lists']]) {
      const file = runInProcessSync(w.config, ['--config-dir=~/cfg-file', ...args]);
      expect(file).toMatchObject({ code: 3, stderr: `error: config folder ${path.join(w.home, 'cfg-file')} is not a folder\n` });
    }
  });
});

describe('a TodoWrite session', () => {
  it('reads show its latest todos; a change says there is no list, and the import it names makes one', () => {
    const w = world();
    const proj = w.dir('docs');
    const transcript = writeTranscript(w.config, { sessionId: V1, cwd: proj, prompt: 'write the docs' });
    const listed = w.tasks(proj, ['--session', '9c0f', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as Array<{ id: string; subject: string; status: string }>).map((t) => [t.id, t.subject, t.status]),
    ).toEqual([
      ['1', 'Analyse code', 'completed'],
      ['2', 'Refactor auth', 'in_progress'],
      ['3', 'Run tests', 'pending'],
    ]);
    expect(JSON.parse(w.tasks(proj, ['--session', '9c0f', 'get', '2', '--json']).stdout)).toMatchObject({
      subject: 'Refactor auth',
      activeForm: 'Refactoring auth',
    });
    expect(JSON.parse(w.tasks(proj, ['--session', '9c0f', 'export', '--format', 'json']).stdout)).toHaveLength(3);
    const rows = JSON.parse(w.tasks(proj, ['lists', '--json']).stdout) as Array<{
      id: string;
      kind: string;
      total: number;
      todos: unknown[];
    }>;
    expect(rows.find((r) => r.id === V1)).toMatchObject({ kind: 'todowrite', counts: { total: 3 } });
    const write = w.tasks(proj, ['--session', '9c0f', 'done', '2']);
    expect(write.code).toBe(3);
    expect(write.stderr).toMatch(/keeps its todos with TodoWrite, not in a task list/);
    expect(write.stderr).toContain(`; tasks -l ${V1} import ${transcript} makes one of them\n`);
    const hint = w.tasks(proj, ['--session', '9c0f', 'create', 'x', '--json']);
    const { error } = JSON.parse(hint.stderr) as { error: { command: string } };
    expect(error.command).toBe(`tasks -l ${V1} import ${transcript}`);
    const made = paste(w.config, proj, error.command);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(w.tasks(proj, ['--session', '9c0f', 'list', '--json']).stdout)).toHaveLength(3);
  });
});

describe('many old TodoWrite sessions', () => {
  it('lists shows the 20 most recent and counts the others; --all and --json show every one', () => {
    const w = world();
    const proj = w.dir('old');
    const now = Date.now();
    for (let i = 0; i < 25; i++) {
      const id = `${(0xa0000000 + i).toString(16)}-2222-4a4a-8b8b-${String(i).padStart(12, '0')}`;
      writeTranscript(w.config, {
        sessionId: id,
        cwd: proj,
        prompt: `old ${i}`,
        start: now - (i + 2) * 3600_000,
        end: now - (i + 1) * 3600_000,
      });
    }
    w.list('mine', 1);
    const shown = w.tasks(proj, ['lists']);
    expect(shown.code, shown.stderr).toBe(0);
    const kinds = shown.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[13]);
    expect(kinds.filter((k) => k === 'todowrite')).toHaveLength(20);
    expect(kinds.filter((k) => k === 'tasks')).toHaveLength(1);
    expect(shown.stderr).toBe('5 older TodoWrite sessions not shown (25 in all): tasks lists --all shows them\n');
    // The most recent are the ones shown.
    expect(shown.stdout).toContain('old 0');
    expect(shown.stdout).not.toContain('old 24');
    const all = w.tasks(proj, ['lists', '--all']);
    expect(all.stdout.trim().split('\n')).toHaveLength(26);
    expect(all.stderr).toBe('');
    expect(JSON.parse(w.tasks(proj, ['lists', '--json']).stdout)).toHaveLength(26);
  });
});

describe("the live session's list before it exists", () => {
  it('reads say it has no tasks yet; a change makes it, not the list of the session it replaced', () => {
    const w = world();
    const proj = w.dir('work/web');
    const old = w.list(A);
    const started = Date.now() - 30 * MIN;
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'before the clear', start: started + 1000, end: started + 10 * MIN });
    // The session /clear began, its transcript opened with the command as the first one ended.
    writeClearedTranscript(w.config, { sessionId: B, cwd: proj, at: started + 10 * MIN, firstSession: A });
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: B, cwd: proj, status: 'idle', start: started });
    const read = w.tasks(proj, ['list', '--json']);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual([]);
    expect(stderrText(read.stderr)).toBe(
      'using list 7baec0ff (live session "go on", ~/work/web): no tasks yet; its list before: 2d483082\n',
    );
    expect(w.tasks(proj, ['get', '1'])).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/\nerror: task #1 not found \(this live session has no tasks yet\)\n$/),
    });
    const made = w.tasks(proj, ['create', 'From tasks']);
    expect(made.code, made.stderr).toBe(0);
    expect(fs.existsSync(path.join(w.config, 'tasks', B, '1.json'))).toBe(true);
    expect(fs.readdirSync(old).filter((f) => f.endsWith('.json'))).toHaveLength(3);
    const rows = JSON.parse(w.tasks(proj, ['lists', '--json']).stdout) as Array<{ id: string; state: string; replacedBy: string | null }>;
    expect(rows.find((r) => r.id === A)).toMatchObject({ state: 'ended', replacedBy: B });
    expect(rows.find((r) => r.id === B)).toMatchObject({ state: 'live' });
    // The replaced session's agents are gone; the live session that replaced it cannot see this list.
    const dry = w.tasks(proj, ['-l', A, 'release', '--gone', '-n']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^Would release task #1 from worker-1 \(in_progress -> pending; session 2d483082 was cleared\)/);
    expect(dry.stderr).toBe('');
    expect(w.tasks(proj, ['-l', A, 'list']).stderr).toContain('release --gone gives them back');
    const release = w.tasks(proj, ['-l', A, 'release', '--gone']);
    expect(release.code, release.stderr).toBe(0);
    expect(release.stdout).toMatch(/^Released task #1 from worker-1/);
  });
});

describe('a gate never runs on a list taken for being the latest changed', () => {
  for (const args of [
    ['watch', '--until', 'all-completed', '--timeout', '1s'],
    ['watch', '--fail-if-stalled', '10m', '--timeout', '1s'],
  ]) {
    it(`tasks ${args.join(' ')} with several lists and none of this directory's: exit 2, the list to name`, () => {
      const w = world();
      w.list(A, 10 * MIN);
      w.list(B, 50 * MIN);
      // The latest changed list is all done: a gate that guessed it would pass at once.
      for (const id of ['1', '2', '3']) w.tasks(w.home, ['-l', A, 'update', id, '--status', 'completed']);
      const r = w.tasks(w.dir('elsewhere'), [...args, '--json']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(
        '"code":"usage","message":"2 task lists exist and none belongs to this directory\'s sessions, so a gate needs its list named: tasks -l <list> watch --',
      );
      // The refusal alone: no note first of the list a guess would have taken.
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      // Named, it runs: the list is all done.
      if (args.includes('--until')) expect(w.tasks(w.dir('elsewhere'), ['-l', A, ...args, '--json']).code).toBe(0);
    });
  }
  it('the only list, of no session of this directory: a gate is refused too, naming the command that names it', () => {
    const w = world();
    w.list('old-job', 10 * MIN);
    for (const id of ['1', '2', '3']) w.tasks(w.home, ['-l', 'old-job', 'update', id, '--status', 'completed']);
    const r = w.tasks(w.dir('elsewhere'), ['watch', '--until', 'all-completed', '--timeout', '1s']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      'error: the only task list, old-job, belongs to no session of this directory, so a gate needs its list named: tasks -l old-job watch --until all-completed',
    );
  });

  it("the directory's ended sessions worked on a list their environment named: the refusals name that list", () => {
    const w = world();
    const proj = w.dir('proj');
    const fixtures = path.join(path.dirname(BIN), '..', 'test', 'fixtures', 'claude-code-2.1.328', 'sessions');
    // A real session run with CLAUDE_CODE_TASK_LIST_ID=shared-list in this directory, ended.
    const folder = path.join(w.config, 'projects', proj.replace(/[^a-zA-Z0-9]/g, '-'));
    fs.mkdirSync(folder, { recursive: true });
    const transcript = fs.readFileSync(path.join(fixtures, 'transcript-tasks-named.jsonl'), 'utf8');
    fs.writeFileSync(
      path.join(folder, 'f7f775d4-e1d7-4aa0-a93e-9debb709c646.jsonl'),
      transcript.replaceAll('"/tmp/exp/p1/sub"', JSON.stringify(proj)),
    );
    fs.cpSync(path.join(fixtures, 'shared-list'), path.join(w.config, 'tasks', 'shared-list'), { recursive: true });
    const said = `the sessions of ~/proj worked on list "shared-list" (named in their environment or settings) and have all ended`;
    // The only list there is: the sessions' own, not "no session's".
    const only = w.tasks(proj, ['watch', '--until', 'all-completed', '--timeout', '1s', '--json']);
    expect(only.code, only.stderr).toBe(2);
    const error = JSON.parse(only.stderr.trim()).error;
    expect(error).toMatchObject({
      code: 'usage',
      message: `${said}, so a gate needs its list named: tasks -l shared-list watch --until all-completed`,
      hint: "tasks use shared-list makes it this project's list, for tasks and the sessions started here",
      candidates: ['shared-list'],
    });
    // With a later list of another project beside it: still that list, for a gate and for a change.
    w.list(A, 0);
    const gate = w.tasks(proj, ['watch', '--fail-if-stalled', '10m', '--timeout', '1s']);
    expect(gate.code, gate.stderr).toBe(2);
    expect(gate.stderr).toContain(`error: ${said}, so a gate needs its list named: tasks -l shared-list watch --fail-if-stalled <time>`);
    const change = w.tasks(proj, ['create', 'x']);
    expect(change.code, change.stderr).toBe(2);
    expect(change.stderr).toMatch(
      new RegExp(`^error: ${said.replace(/[()]/g, '\\$&')}, so a change needs its list named: tasks -l shared-list create x`),
    );
    // The command offered does what it says.
    expect(paste(w.config, proj, offered(change.stderr)[0] as string).code).toBe(0);
    expect(fs.readdirSync(path.join(w.config, 'tasks', 'shared-list')).filter((f) => f.endsWith('.json'))).toHaveLength(4);
  });

  it('a refused gate keeps the warning that says why no bound list was taken', () => {
    const w = world();
    w.list(A, 10 * MIN);
    w.list(B, 50 * MIN);
    const proj = w.dir('proj');
    fs.mkdirSync(path.join(proj, '.claude'));
    fs.writeFileSync(path.join(proj, '.claude', 'settings.json'), '{"env": {"CLAUDE_CODE_TASK_LIST_ID": "alpha"');
    const r = w.tasks(proj, ['watch', '--until', 'all-completed', '--timeout', '1s']);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(2);
    expect(lines[0]).toMatch(/^warning: .*settings\.json is not valid JSON/);
    expect(lines[1]).toMatch(/^error: 2 task lists exist and none belongs to this directory's sessions/);
  });

  it('a plain watch (no gate) still shows the latest changed list, saying which', () => {
    const w = world();
    w.list(A, 10 * MIN);
    w.list(B, 50 * MIN);
    const r = w.tasks(w.dir('elsewhere'), ['watch', '--timeout', '1s', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/using list \S+, the most recently changed/);
  });
});

describe('a gate never runs on one of several live sessions taken for being the latest active', () => {
  /** Two live sessions in one directory: A, idle with its work done, the latest active; B, busy with its work under way. */
  function twoLive() {
    const w = world();
    const proj = w.dir('proj');
    const now = Date.now();
    w.list(A, 1 * MIN);
    for (const id of ['1', '2', '3']) w.tasks(w.home, ['-l', A, 'update', id, '--status', 'completed']);
    w.list(B, 20 * MIN);
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'quick fix', start: now - 5 * MIN, end: now - 2_000, todos: false });
    writeTranscript(w.config, {
      sessionId: B,
      cwd: proj,
      prompt: 'long refactor',
      start: now - 60 * MIN,
      end: now - 30 * MIN,
      todos: false,
    });
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: A, cwd: proj, status: 'idle', start: now - 5 * MIN });
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: B, cwd: proj, status: 'busy', start: now - 60 * MIN });
    return { w, proj };
  }

  for (const args of [
    ['watch', '--until', 'all-completed', '--timeout', '1s'],
    ['watch', '--fail-if-stalled', '10m', '--timeout', '1s'],
  ]) {
    it(`tasks ${args.join(' ')}: exit 2, each live session's list with the command that names it`, () => {
      const { w, proj } = twoLive();
      // Guessed, the gate would pass at once on A's finished list while B still works.
      const r = w.tasks(proj, args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`error: 2 lists belong to live sessions in ~/proj, so a gate needs its list named: `);
      const commands = offered(r.stderr);
      expect(commands).toEqual([`tasks -l 2d483082 ${args.join(' ')}`, `tasks -l 7baec0ff ${args.join(' ')}`]);
      // The refusal alone: no note first of the list a guess would have taken.
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      // Each pasted as printed runs on its list.
      if (args.includes('--until')) {
        expect(paste(w.config, proj, commands[0] as string).code).toBe(0);
        expect(paste(w.config, proj, commands[1] as string).code).toBe(124);
      }
    });
  }

  it('reads and a plain watch still show the latest active live session, saying which', () => {
    const { w, proj } = twoLive();
    const r = w.tasks(proj, ['watch', '--timeout', '1s', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('using list 2d483082 (live session');
    expect(w.tasks(proj, ['list']).code).toBe(0);
  });

  it('one live session among ended ones is no guess: the gate runs on its list', () => {
    const w = world();
    const proj = w.dir('proj');
    const now = Date.now();
    w.list(A, 1 * MIN);
    for (const id of ['1', '2', '3']) w.tasks(w.home, ['-l', A, 'update', id, '--status', 'completed']);
    w.list(B, 20 * MIN);
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'quick fix', start: now - 5 * MIN, end: now - 2_000, todos: false });
    writeTranscript(w.config, {
      sessionId: B,
      cwd: proj,
      prompt: 'long refactor',
      start: now - 60 * MIN,
      end: now - 30 * MIN,
      todos: false,
    });
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: A, cwd: proj, status: 'idle', start: now - 5 * MIN });
    const r = w.tasks(proj, ['watch', '--until', 'all-completed', '--timeout', '1s']);
    expect(r.code, r.stderr).toBe(0);
  });
});
