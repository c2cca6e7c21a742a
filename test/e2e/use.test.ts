/**
 * `tasks use`: a project bound to a list, in the settings file Claude Code reads there
 * (docs/task-store.md section 11), merged and written atomically; `tasks` there follows it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

const B = '7baec0ff-1111-4a4a-8b8b-000000000002';

function world() {
  const config = tempConfig();
  const home = path.join(config, 'home');
  fs.mkdirSync(home);
  const dir = (rel: string) => {
    const d = path.join(home, rel);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const git = (cwd: string, ...args: string[]) =>
    spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
  const tasks = (cwd: string, args: string[], env: Record<string, string | undefined> = {}) => runInProcessSync(config, args, { cwd, env });
  return { config, home, dir, git, tasks };
}

const settings = (dir: string) => path.join(dir, '.claude', 'settings.local.json');

describe('tasks use', () => {
  it('binds a repository at its root, for every folder in it; show and clear; tasks there follows it without a word', () => {
    const w = world();
    const repo = w.dir('work/api');
    w.git(repo, 'init', '-q');
    const sub = w.dir('work/api/src/handlers');
    expect(w.tasks(sub, ['use'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: expect.stringMatching(
        /^no list is bound here; tasks use <list> binds one for Claude Code sessions started in ~\/work\/api \(~\/work\/api\/.claude\/settings.local.json\)\n$/,
      ),
    });
    const bound = w.tasks(sub, ['use', 'refactor']);
    expect(bound).toMatchObject({ code: 0, stdout: 'refactor\n' });
    expect(bound.stderr).toBe(
      'bound ~/work/api to list "refactor" (a new list): Claude Code sessions started in it or below use it, and so does tasks there (~/work/api/.claude/settings.local.json)\n',
    );
    expect(JSON.parse(fs.readFileSync(settings(repo), 'utf8'))).toEqual({ env: { CLAUDE_CODE_TASK_LIST_ID: 'refactor' } });
    expect(w.tasks(sub, ['use', 'refactor']).stderr).toMatch(/^~\/work\/api is already bound to list "refactor"/);
    expect(w.tasks(repo, ['use'])).toMatchObject({
      code: 0,
      stdout: 'refactor\n',
      stderr: expect.stringMatching(/^bound by ~\/work\/api\/.claude\/settings.local.json \(local settings\)/),
    });
    // tasks in the project: the bound list, created by the first change, used without a word after.
    const made = w.tasks(sub, ['create', 'First']);
    expect(made).toMatchObject({ code: 0, stdout: '1\n', stderr: 'new list "refactor"\n' });
    expect(w.tasks(sub, ['list', '--json']).stderr).toBe('');
    expect(JSON.parse(w.tasks(w.dir('work/api/docs'), ['list', '--json']).stdout)).toHaveLength(1);
    // The variable comes first, and is told that Claude Code sessions here follow the settings.
    writeTask(path.join(w.config, 'tasks', 'other'), {
      id: '1',
      subject: 'o',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    const env = w.tasks(sub, ['list', '--json'], { CLAUDE_CODE_TASK_LIST_ID: 'other' });
    expect((JSON.parse(env.stdout) as Array<{ subject: string }>)[0]?.subject).toBe('o');
    expect(stderrText(env.stderr)).toMatch(
      /^warning: CLAUDE_CODE_TASK_LIST_ID is "other" here, but Claude Code sessions started here use "refactor": .*settings\.local\.json overrides the environment\n$/,
    );
    const cleared = w.tasks(sub, ['use', '--clear']);
    expect(cleared).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'unbound ~/work/api: Claude Code sessions started in it or below use their own lists again\n',
    });
    expect(JSON.parse(fs.readFileSync(settings(repo), 'utf8'))).toEqual({});
    expect(w.tasks(sub, ['use', '--clear']).stderr).toBe('~/work/api/.claude/settings.local.json binds no list; nothing changed\n');
  });

  it('merges into what the file holds, keeps its style, refuses a file that is not JSON and leaves it as it is', () => {
    const w = world();
    const proj = w.dir('proj');
    fs.mkdirSync(path.join(proj, '.claude'));
    fs.writeFileSync(
      settings(proj),
      '{\n    "permissions": {\n        "allow": ["Bash(npm test)"]\n    },\n    "env": {\n        "DEBUG": "1"\n    }\n}\n',
    );
    expect(w.tasks(proj, ['use', 'docs']).code).toBe(0);
    expect(fs.readFileSync(settings(proj), 'utf8')).toBe(
      '{\n    "permissions": {\n        "allow": [\n            "Bash(npm test)"\n        ]\n    },\n    "env": {\n        "DEBUG": "1",\n        "CLAUDE_CODE_TASK_LIST_ID": "docs"\n    }\n}\n',
    );
    expect(fs.readdirSync(path.join(proj, '.claude'))).toEqual(['settings.local.json']);
    fs.writeFileSync(settings(proj), '{"env": {"CLAUDE_CODE_TASK_LIST_ID": "docs",}');
    const before = fs.statSync(settings(proj)).mtimeMs;
    const broken = w.tasks(proj, ['use', 'other']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^error: .*settings\.local\.json is not valid JSON \(.*\); tasks leaves it as it is\n$/);
    expect(fs.readFileSync(settings(proj), 'utf8')).toBe('{"env": {"CLAUDE_CODE_TASK_LIST_ID": "docs",}');
    expect(fs.statSync(settings(proj)).mtimeMs).toBe(before);
    expect(w.tasks(proj, ['use', '--clear']).code).toBe(2);
  });

  it("outside a repository the binding is the folder's own; a short id is written in full; a near name is noted", () => {
    const w = world();
    writeTask(path.join(w.config, 'tasks', B), { id: '1', subject: 'x', description: '', status: 'pending', blocks: [], blockedBy: [] });
    writeTask(path.join(w.config, 'tasks', 'build-99'), {
      id: '1',
      subject: 'x',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    const proj = w.dir('plain');
    const bound = w.tasks(proj, ['use', '7bae']);
    expect(bound).toMatchObject({ code: 0, stdout: `${B}\n` });
    expect(bound.stderr).toMatch(/^bound ~\/plain to list "7baec0ff": Claude Code sessions started in it \(not in its subfolders\) use it/);
    expect(JSON.parse(fs.readFileSync(settings(proj), 'utf8'))).toEqual({ env: { CLAUDE_CODE_TASK_LIST_ID: B } });
    expect(JSON.parse(w.tasks(proj, ['list', '--json']).stdout)).toHaveLength(1);
    // A subfolder outside a repository has settings of its own: not bound.
    expect(w.tasks(w.dir('plain/sub'), ['use']).stdout).toBe('');
    expect(w.tasks(w.dir('other'), ['use', 'build-9']).stderr).toMatch(
      /^bound ~\/other to list "build-9" \(a new list; note: "build-99" exists\)/,
    );
    expect(w.tasks(w.dir('other'), ['use', 'x', '--clear']).code).toBe(2);
  });

  it("a linked worktree gets its own binding; the main checkout's, read first there, is refused over it", () => {
    const w = world();
    const repo = w.dir('work/app');
    w.git(repo, 'init', '-q');
    w.git(repo, 'commit', '-q', '--allow-empty', '-m', 'init');
    const wt = path.join(w.home, 'work', 'app-feature');
    expect(w.git(repo, 'worktree', 'add', '-q', wt).status).toBe(0);
    const own = w.tasks(wt, ['use', 'feature']);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).toMatch(
      /^bound ~\/work\/app-feature to list "feature" \(a new list\): Claude Code sessions started in it \(not in its subfolders\) use it/,
    );
    expect(w.tasks(repo, ['use']).stdout).toBe('');
    const main = w.tasks(repo, ['use', 'main-list']);
    expect(main.stderr).toMatch(/its worktrees read this file first too \(~\/work\/app-feature\)/);
    expect(w.tasks(wt, ['use']).stdout).toBe('main-list\n');
    const refused = w.tasks(wt, ['use', 'feature-2']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(
      /sets CLAUDE_CODE_TASK_LIST_ID to "main-list", and Claude Code reads it before .*app-feature\/.claude\/settings.local.json; nothing was written/,
    );
    expect(JSON.parse(fs.readFileSync(settings(wt), 'utf8'))).toEqual({ env: { CLAUDE_CODE_TASK_LIST_ID: 'feature' } });
  });

  it('names each running session it moves: Claude Code reads the changed settings at its next task call', () => {
    const w = world();
    const here = w.dir('work/live');
    const other = w.dir('work/other');
    const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
    const C = '9c0ffee0-2222-4a4a-8b8b-000000000003';
    for (const [id, cwd] of [
      [A, here],
      [C, other],
    ] as const) {
      writeTranscript(w.config, {
        sessionId: id,
        cwd,
        prompt: 'working',
        start: Date.now() - 60_000,
        end: Date.now() - 1000,
        todos: false,
      });
      writeLiveSession(w.config, { pid: liveProcess(), sessionId: id, cwd, status: 'busy', start: Date.now() - 60_000 });
    }
    const bound = w.tasks(here, ['use', 'refactor']);
    expect(bound.code, bound.stderr).toBe(0);
    expect(bound.stderr.split('\n')[1]).toBe(
      'running session 2d483082 (~/work/live) from "2d483082" to "refactor": Claude Code reads the changed settings within about a second, so it moves at its first task call after that; its tasks so far stay where they are',
    );
    expect(bound.stderr).not.toContain('9c0ffee0');
    // Cleared: back to its own list; JSON says the same.
    const cleared = w.tasks(here, ['use', '--clear', '--json']);
    expect(JSON.parse(cleared.stdout).moved).toEqual([{ sessionId: A, cwd: here, from: 'refactor', to: A }]);
    // Nothing written, nothing moved.
    expect(w.tasks(here, ['use', '--clear']).stderr).not.toMatch(/running session/);
  });

  it('leaves alone, with one line and exit 2, a settings file over 2 MiB, a read-only one, and a .claude that is a file', () => {
    const w = world();
    // Over the 2 MiB Claude Code reads: it skips the file, so a binding there would never be read.
    const big = w.dir('big');
    fs.mkdirSync(path.join(big, '.claude'));
    const text = JSON.stringify({ permissions: { allow: Array.from({ length: 120_000 }, (_, i) => `Bash(tool-${i})`) } });
    fs.writeFileSync(settings(big), text);
    const tooBig = w.tasks(big, ['use', 'x']);
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toMatch(
      /^error: .*settings\.local\.json is over 2097152 bytes, the most Claude Code reads of a settings file .*tasks leaves it as it is\n$/,
    );
    expect(fs.readFileSync(settings(big), 'utf8')).toBe(text);
    // A binding in such a file is not followed, as Claude Code does not follow it.
    fs.writeFileSync(settings(big), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'big-list' }, ...JSON.parse(text) }));
    const shown = w.tasks(big, ['use']);
    expect(shown.stdout).toBe('');
    expect(shown.stderr).toMatch(
      /^warning: .*settings\.local\.json is over 2097152 bytes, the most Claude Code reads of a settings file; Claude Code skips it too\n/,
    );
    // Just under it, but the binding would take it over.
    const edge = w.dir('edge');
    fs.mkdirSync(path.join(edge, '.claude'));
    const under = `{"pad":"${'x'.repeat(2 * 1024 * 1024 - 20)}"}`;
    fs.writeFileSync(settings(edge), under);
    expect(w.tasks(edge, ['use', 'x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/would be \d+ bytes, over the 2097152/) });
    expect(fs.readFileSync(settings(edge), 'utf8')).toBe(under);
    // Read-only: the user said so.
    const ro = w.dir('ro');
    fs.mkdirSync(path.join(ro, '.claude'));
    fs.writeFileSync(settings(ro), '{}\n', { mode: 0o444 });
    expect(w.tasks(ro, ['use', 'x'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/settings\.local\.json is read-only; tasks leaves it as it is\n$/),
    });
    expect(fs.readFileSync(settings(ro), 'utf8')).toBe('{}\n');
    // .claude a file.
    const odd = w.dir('odd');
    fs.writeFileSync(path.join(odd, '.claude'), 'not a folder');
    expect(w.tasks(odd, ['use', 'x'])).toMatchObject({
      code: 2,
      stderr: `error: ${path.join(odd, '.claude')} is not a folder, so tasks cannot keep settings in it; tasks leaves it as it is\n`,
    });
    expect(fs.readFileSync(path.join(odd, '.claude'), 'utf8')).toBe('not a folder');
  });

  it('refuses a settings file nested thousands deep (exit 2, one line), writes nothing, and reads a binding nested so as none', () => {
    const w = world();
    const deep = w.dir('deep');
    fs.mkdirSync(path.join(deep, '.claude'));
    const text = `{"permissions":{"allow":[]},"x":${'['.repeat(6000)}${']'.repeat(6000)}}`;
    fs.writeFileSync(settings(deep), text);
    expect(w.tasks(deep, ['use', 'x'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${settings(deep)} nests deeper than 100 levels; tasks leaves it as it is\n`,
    });
    expect(fs.readFileSync(settings(deep), 'utf8')).toBe(text);
    // The binding itself nested so deep cannot be made text: passed over, said once, and every command still runs.
    // (Half a million levels: deeper than any stack String() could recurse on; a megabyte, under the 2 MiB read.)
    const bound = `{"env":{"CLAUDE_CODE_TASK_LIST_ID":${'['.repeat(500_000)}${']'.repeat(500_000)}}}`;
    fs.writeFileSync(settings(deep), bound);
    const warning = `warning: ${settings(deep)}: env.CLAUDE_CODE_TASK_LIST_ID nests too deep to be made text; Claude Code skips it too\n`;
    const shown = w.tasks(deep, ['use']);
    expect([shown.code, shown.stdout, shown.stderr.split('\n')[0]]).toEqual([0, '', warning.trim()]);
    expect(w.tasks(deep, ['use', 'x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/nests deeper than 100 levels/) });
    expect(w.tasks(deep, ['list']).code).not.toBe(1);
    expect(fs.readFileSync(settings(deep), 'utf8')).toBe(bound);
  });

  it('refuses a .claude that is a symbolic link out of the project or to nothing (exit 2, where it leads); one inside is followed', () => {
    const w = world();
    // Out of the project: another project's settings.
    const other = w.dir('other');
    fs.mkdirSync(path.join(other, '.claude'));
    fs.writeFileSync(settings(other), '{"env":{"KEEP":"1"}}\n');
    const proj = w.dir('proj');
    fs.symlinkSync(path.join(other, '.claude'), path.join(proj, '.claude'));
    expect(w.tasks(proj, ['use', 'x'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${path.join(proj, '.claude')} is a symbolic link to ${fs.realpathSync(path.join(other, '.claude'))}, outside ${fs.realpathSync(proj)}; tasks does not write through it\n`,
    });
    expect(fs.readFileSync(settings(other), 'utf8')).toBe('{"env":{"KEEP":"1"}}\n');
    expect(w.tasks(proj, ['use', '--clear']).code).toBe(0);
    // To nothing.
    const dangling = w.dir('dangling');
    fs.symlinkSync(path.join(w.home, 'no-such-folder'), path.join(dangling, '.claude'));
    expect(w.tasks(dangling, ['use', 'x'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${path.join(dangling, '.claude')} is a symbolic link to ${path.join(w.home, 'no-such-folder')}, which does not exist; tasks does not write through it\n`,
    });
    expect(fs.existsSync(path.join(w.home, 'no-such-folder'))).toBe(false);
    // Round in a loop.
    const loop = w.dir('loop');
    fs.symlinkSync('.claude', path.join(loop, '.claude'));
    expect(w.tasks(loop, ['use', 'x'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${path.join(loop, '.claude')} is a symbolic link to .claude, which cannot be followed (ELOOP); tasks does not write through it\n`,
    });
    // Inside the project: followed, as Claude Code follows it.
    const inside = w.dir('inside');
    fs.mkdirSync(path.join(inside, 'conf', 'claude'), { recursive: true });
    fs.symlinkSync(path.join('conf', 'claude'), path.join(inside, '.claude'));
    expect(w.tasks(inside, ['use', 'x']).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(inside, 'conf', 'claude', 'settings.local.json'), 'utf8'))).toEqual({
      env: { CLAUDE_CODE_TASK_LIST_ID: 'x' },
    });
  });

  it('a bound list before its first task reads as empty, as the list Claude Code sessions there will make', () => {
    const w = world();
    const proj = w.dir('fresh');
    expect(w.tasks(proj, ['use', 'new-list']).code).toBe(0);
    const listed = w.tasks(proj, ['list', '--json']);
    expect(listed).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(JSON.parse(listed.stderr)).toEqual({
      note: {
        code: 'list_not_made_yet',
        message:
          'list "new-list" has no tasks yet: bound by ~/fresh/.claude/settings.local.json, it is made by the first task a Claude Code session started here (or tasks) creates',
        list: 'new-list',
      },
    });
    expect(w.tasks(proj, ['list']).stderr.split('\n')[0]).toBe(
      'list "new-list" has no tasks yet: bound by ~/fresh/.claude/settings.local.json, it is made by the first task a Claude Code session started here (or tasks) creates',
    );
    expect(w.tasks(proj, ['get', '1'])).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/task #1 not found \(the bound list has no tasks yet\)/),
    });
    expect(fs.existsSync(path.join(w.config, 'tasks', 'new-list'))).toBe(false);
    expect(w.tasks(proj, ['create', 'First'])).toMatchObject({ code: 0, stderr: 'new list "new-list"\n' });
    expect(w.tasks(proj, ['list', '--json']).stderr).toBe('');
  });
});
