import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bindHere } from '../../src/core/binding/bind-here.js';
import { bindingTarget } from '../../src/core/binding/binding-target.js';
import { writeBinding } from '../../src/core/binding/binding-write.js';
import { gitRoots } from '../../src/core/binding/git-roots.js';
import { readBinding } from '../../src/core/binding/project-binding.js';
import { editEnv, serialize } from '../../src/core/binding/settings-edit.js';
import { type SettingsPlaces, settingsFilesFor } from '../../src/core/binding/settings-files.js';

const uid = process.getuid?.() ?? 0;

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-binding-')));
}

function mk(...parts: string[]): string {
  const dir = path.join(...parts);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

function settings(dir: string, name: 'settings.json' | 'settings.local.json', value: unknown): string {
  const file = path.join(mk(dir, '.claude'), name);
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

const bind = (list: unknown) => ({ env: { CLAUDE_CODE_TASK_LIST_ID: list } });

function world() {
  const root = tmp();
  const places: SettingsPlaces = { configDir: mk(root, 'config'), home: mk(root, 'home'), uid, managedDir: path.join(root, 'managed') };
  return { root, places };
}

describe('git roots', () => {
  it('a plain repository, a folder inside it, a linked worktree, a gitfile without a common dir, no repository', () => {
    const { root } = world();
    const repo = mk(root, 'repo');
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'init');
    const sub = mk(repo, 'a', 'b');
    expect(gitRoots(repo)).toEqual({ toplevel: repo, canonical: repo, linked: false });
    expect(gitRoots(sub)).toEqual({ toplevel: repo, canonical: repo, linked: false });
    const wt = path.join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', wt);
    expect(gitRoots(mk(wt, 'src'))).toEqual({ toplevel: wt, canonical: repo, linked: true });
    // A submodule's .git file points into the parent's .git/modules: no main working tree of its own.
    const mod = mk(root, 'mod');
    fs.writeFileSync(path.join(mod, '.git'), 'gitdir: ../repo/.git/modules/mod\n');
    expect(gitRoots(mod)).toEqual({ toplevel: mod, canonical: mod, linked: false });
    expect(gitRoots(mk(root, 'plain'))).toBeUndefined();
  });
});

describe('which settings files, in which order (as Claude Code 2.1.328 reads them)', () => {
  it("outside a repository: the folder's own local and project files, then the user's; never a parent's", () => {
    const { root, places } = world();
    const proj = mk(root, 'proj');
    const sub = mk(proj, 'sub');
    settings(proj, 'settings.local.json', bind('parent'));
    expect(readBinding(proj, places).binding).toMatchObject({ listId: 'parent', scope: 'local' });
    // A session started in a subfolder does not read the parent's file (checked: it used its own list).
    expect(readBinding(sub, places).binding).toBeUndefined();
    fs.writeFileSync(path.join(places.configDir, 'settings.json'), JSON.stringify(bind('from-user')));
    expect(readBinding(sub, places).binding).toMatchObject({ listId: 'from-user', scope: 'user' });
    settings(sub, 'settings.json', bind('from-project'));
    expect(readBinding(sub, places).binding).toMatchObject({ listId: 'from-project', scope: 'project' });
    settings(sub, 'settings.local.json', bind('from-local'));
    expect(readBinding(sub, places).binding).toMatchObject({ listId: 'from-local', scope: 'local' });
    fs.mkdirSync(places.managedDir!, { recursive: true });
    fs.writeFileSync(path.join(places.managedDir!, 'managed-settings.json'), JSON.stringify(bind('managed')));
    expect(readBinding(sub, places).binding).toMatchObject({ listId: 'managed', scope: 'managed' });
    fs.mkdirSync(path.join(places.managedDir!, 'managed-settings.d'));
    fs.writeFileSync(path.join(places.managedDir!, 'managed-settings.d', '10-x.json'), JSON.stringify(bind('drop-in')));
    expect(readBinding(sub, places).binding).toMatchObject({ listId: 'drop-in', scope: 'managed' });
  });

  it("in a repository: the root's local file for every folder in it, above the folder's own; project settings only from the folder", () => {
    const { root, places } = world();
    const repo = mk(root, 'repo');
    git(repo, 'init', '-q');
    const sub = mk(repo, 'sub');
    settings(repo, 'settings.json', bind('root-project'));
    expect(readBinding(sub, places).binding).toBeUndefined();
    settings(sub, 'settings.local.json', bind('sub-local'));
    expect(readBinding(sub, places).binding).toMatchObject({ listId: 'sub-local' });
    const rootLocal = settings(repo, 'settings.local.json', bind('root-local'));
    expect(readBinding(sub, places).binding).toMatchObject({ listId: 'root-local', file: rootLocal });
    // The root's file without the key: the folder's own one, key by key.
    settings(repo, 'settings.local.json', { env: { OTHER: '1' }, permissions: {} });
    expect(readBinding(sub, places).binding).toMatchObject({ listId: 'sub-local' });
    expect(settingsFilesFor(sub, places).map((f) => [f.scope, path.relative(root, f.file)])).toEqual([
      ['managed', 'managed/managed-settings.json'],
      ['local', 'repo/.claude/settings.local.json'],
      ['local', 'repo/sub/.claude/settings.local.json'],
      ['project', 'repo/sub/.claude/settings.json'],
      ['user', 'config/settings.json'],
    ]);
  });

  it("a linked worktree reads the main checkout's local file first, its own only where a session starts in it", () => {
    const { root, places } = world();
    const repo = mk(root, 'repo');
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'init');
    const wt = path.join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', wt);
    settings(wt, 'settings.local.json', bind('per-worktree'));
    expect(readBinding(wt, places).binding).toMatchObject({ listId: 'per-worktree' });
    expect(readBinding(mk(wt, 'src'), places).binding).toBeUndefined();
    settings(repo, 'settings.local.json', bind('main'));
    expect(readBinding(wt, places).binding).toMatchObject({ listId: 'main' });
  });

  it('a repository at the home folder, or of another user, keeps local settings per folder', () => {
    const { root, places } = world();
    git(places.home, 'init', '-q');
    settings(places.home, 'settings.local.json', bind('dotfiles'));
    expect(readBinding(mk(places.home, 'proj'), places).binding).toBeUndefined();
    expect(readBinding(places.home, places).binding).toMatchObject({ listId: 'dotfiles' });
    const repo = mk(root, 'repo');
    git(repo, 'init', '-q');
    settings(repo, 'settings.local.json', bind('root'));
    expect(readBinding(mk(repo, 'x'), places).binding).toMatchObject({ listId: 'root' });
    expect(readBinding(mk(repo, 'x'), { ...places, uid: uid + 1 }).binding).toBeUndefined();
    expect(readBinding(mk(repo, 'x'), { ...places, uid: undefined }).binding).toBeUndefined();
  });
});

describe('the value, as Claude Code takes it', () => {
  it('made a string and trimmed; empty means none and hides lower files; a broken file is passed over', () => {
    const { root, places } = world();
    const proj = mk(root, 'proj');
    settings(proj, 'settings.json', bind('lower'));
    const cases: Array<[unknown, string | undefined]> = [
      [123, '123'],
      [null, 'null'],
      [true, 'true'],
      ['  spaced ', 'spaced'],
      ['my.list/x', 'my-list-x'],
      [['x'], 'x'],
      ['', undefined],
      ['   ', undefined],
    ];
    for (const [value, list] of cases) {
      settings(proj, 'settings.local.json', bind(value));
      expect({ value, got: readBinding(proj, places).binding?.listId }).toEqual({ value, got: list });
    }
    settings(proj, 'settings.local.json', '{"env": {"CLAUDE_CODE_TASK_LIST_ID": "x",}');
    const broken = readBinding(proj, places);
    expect(broken.binding).toMatchObject({ listId: 'lower', scope: 'project' });
    expect(broken.problems).toEqual([expect.stringMatching(/settings\.local\.json is not valid JSON/)]);
    settings(proj, 'settings.local.json', { env: 'nope' });
    expect(readBinding(proj, places).binding).toMatchObject({ listId: 'lower' });
  });
});

describe('editing a settings file', () => {
  it('keeps other keys, their order and the indent style; removes an env it emptied', () => {
    const four = '{\n    "permissions": {\n        "allow": ["Bash(ls)"]\n    },\n    "env": {\n        "A": "1"\n    }\n}\n';
    const set = editEnv(four, 'f', 'CLAUDE_CODE_TASK_LIST_ID', 'refactor');
    expect(set.text).toBe(
      '{\n    "permissions": {\n        "allow": [\n            "Bash(ls)"\n        ]\n    },\n    "env": {\n        "A": "1",\n        "CLAUDE_CODE_TASK_LIST_ID": "refactor"\n    }\n}\n',
    );
    expect(editEnv(set.text, 'f', 'CLAUDE_CODE_TASK_LIST_ID', 'refactor')).toMatchObject({ changed: false, text: set.text });
    const tabs = editEnv('{\n\t"x": 1\n}', 'f', 'K', 'v');
    expect(tabs.text).toBe('{\n\t"x": 1,\n\t"env": {\n\t\t"K": "v"\n\t}\n}');
    expect(editEnv('{"x":1}\n', 'f', 'K', 'v').text).toBe('{"x":1,"env":{"K":"v"}}\n');
    expect(editEnv(undefined, 'f', 'K', 'v').text).toBe('{\n  "env": {\n    "K": "v"\n  }\n}\n');
    const cleared = editEnv('{\n  "x": 1,\n  "env": {\n    "K": "v"\n  }\n}\n', 'f', 'K', undefined);
    expect(cleared).toMatchObject({ changed: true, previous: 'v', text: '{\n  "x": 1\n}\n' });
    expect(editEnv('{"env": {"K": "v", "L": "w"}}', 'f', 'K', undefined).text).toBe('{"env":{"L":"w"}}');
    expect(serialize({}, '')).toBe('{}\n');
    // A byte order mark and CRLF line ends stay as they were.
    expect(editEnv('\uFEFF{\r\n  "x": 1\r\n}\r\n', 'f', 'K', 'v').text).toBe(
      '\uFEFF{\r\n  "x": 1,\r\n  "env": {\r\n    "K": "v"\r\n  }\r\n}\r\n',
    );
    expect(editEnv('\uFEFF{"x":1}', 'f', 'K', 'v').text).toBe('\uFEFF{"x":1,"env":{"K":"v"}}');
  });

  it('refuses a file that is not a JSON object, or whose env is not one', () => {
    expect(() => editEnv('{"env": {', 'f.json', 'K', 'v')).toThrow(/f\.json is not valid JSON .*tasks leaves it as it is/);
    expect(() => editEnv('[1]', 'f.json', 'K', 'v')).toThrow(/holds no JSON object/);
    expect(() => editEnv('{"env": []}', 'f.json', 'K', 'v')).toThrow(/"env" is not an object/);
  });
});

describe('writing the binding', () => {
  it('atomically, keeping the mode; a file already saying so is not touched; a symlink is refused', () => {
    const { root } = world();
    const dir = mk(root, 'p', '.claude');
    const file = path.join(dir, 'settings.local.json');
    expect(writeBinding(file, 'x')).toMatchObject({ changed: true, created: true });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ env: { CLAUDE_CODE_TASK_LIST_ID: 'x' } });
    fs.chmodSync(file, 0o600);
    fs.utimesSync(file, 1_000_000, 1_000_000);
    expect(writeBinding(file, 'x')).toMatchObject({ changed: false });
    expect(fs.statSync(file).mtimeMs).toBe(1_000_000_000);
    expect(writeBinding(file, 'y')).toMatchObject({ changed: true, previous: 'x' });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['settings.local.json']);
    const link = path.join(mk(root, 'q', '.claude'), 'settings.local.json');
    fs.symlinkSync(file, link);
    expect(() => writeBinding(link, 'z')).toThrow(/is a symbolic link/);
    fs.writeFileSync(file, '{ broken');
    expect(() => writeBinding(file, 'z')).toThrow(/not valid JSON/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ broken');
  });

  it('binds a repository at its root, a linked worktree in itself; refuses where a file read first says otherwise', () => {
    const { root, places } = world();
    const repo = mk(root, 'repo');
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'init');
    const wt = path.join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', wt);
    const sub = mk(repo, 'pkg');
    expect(bindingTarget(sub, places)).toEqual({
      file: path.join(repo, '.claude', 'settings.local.json'),
      reach: 'tree',
      dir: repo,
      worktrees: [wt],
    });
    expect(bindingTarget(wt, places)).toMatchObject({ file: path.join(wt, '.claude', 'settings.local.json'), reach: 'folder', dir: wt });
    expect(bindingTarget(mk(root, 'plain'), places)).toMatchObject({ reach: 'folder', worktrees: [] });

    const inWt = bindHere(wt, places, 'feature-x');
    expect(inWt.after.binding).toMatchObject({ listId: 'feature-x' });
    const inRepo = bindHere(sub, places, 'main-list');
    expect(inRepo.after.binding).toMatchObject({ listId: 'main-list', file: path.join(repo, '.claude', 'settings.local.json') });
    // Now the main checkout's file wins in the worktree too: binding the worktree is refused, nothing written.
    const before = fs.readFileSync(path.join(wt, '.claude', 'settings.local.json'), 'utf8');
    expect(() => bindHere(wt, places, 'feature-y')).toThrow(
      /sets CLAUDE_CODE_TASK_LIST_ID to "main-list", and Claude Code reads it before/,
    );
    expect(fs.readFileSync(path.join(wt, '.claude', 'settings.local.json'), 'utf8')).toBe(before);
    const cleared = bindHere(repo, places, undefined);
    expect(cleared.write).toMatchObject({ changed: true, previous: 'main-list' });
    expect(readBinding(wt, places).binding).toMatchObject({ listId: 'feature-x' });
  });
});
