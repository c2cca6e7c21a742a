import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { homeOfUser } from '../../src/core/base/user-home.js';
import { type ChooseListOptions, chooseList } from '../../src/core/lists/list-choice.js';
import { listToBind, missingListError } from '../../src/core/lists/missing-list.js';
import { mayBeSessionPrefix, shortIdAmong, shortIds } from '../../src/core/lists/short-ids.js';
import { SessionIndex } from '../../src/core/sessions/session-index.js';
import { expandHome } from '../../src/core/store/paths.js';
import { writeClearedTranscript, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7baec0ff-1111-4a4a-8b8b-000000000002';
const C = '9c0ffee0-2222-4a4a-8b8b-000000000003';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function world() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-choice-')));
  const config = path.join(root, 'config');
  const home = path.join(root, 'home');
  fs.mkdirSync(config);
  const dir = (rel: string) => {
    const d = path.join(home, rel);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const list = (id: string) => {
    const d = path.join(config, 'tasks', id);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(
      path.join(d, '1.json'),
      JSON.stringify({ id: '1', subject: 'x', description: '', status: 'pending', blocks: [], blockedBy: [] }),
    );
  };
  const choose = (cwd: string, opts: Partial<ChooseListOptions> = {}) =>
    chooseList(config, {
      forWrite: false,
      cwd,
      home,
      settings: { home, uid: process.getuid?.() },
      index: new SessionIndex(config, { settings: { home, uid: process.getuid?.() } }),
      ...opts,
    });
  return { root, config, home, dir, list, choose };
}

function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

describe('the variable and the binding', () => {
  it('the variable as Claude Code takes it: trimmed, and blank is unset', () => {
    const w = world();
    w.list('shared');
    w.list('other');
    expect(w.choose(w.dir('p'), { env: '  shared ' })).toMatchObject({ id: 'shared', how: 'env', exists: true });
    expect(w.choose(w.dir('p'), { env: '   ' }).how).toBe('most-recent');
  });

  it('the binding comes after the variable and before the project; a variable that settings override is named', () => {
    const w = world();
    w.list('refactor');
    w.list(A);
    const proj = w.dir('work/api');
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'here' });
    expect(w.choose(proj)).toMatchObject({ id: A, how: 'project' });
    fs.mkdirSync(path.join(proj, '.claude'));
    fs.writeFileSync(path.join(proj, '.claude', 'settings.local.json'), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'refactor' } }));
    const bound = w.choose(proj);
    expect(bound).toMatchObject({ id: 'refactor', how: 'binding', exists: true, warnings: [] });
    expect(bound.binding?.file).toBe(path.join(proj, '.claude', 'settings.local.json'));
    const env = w.choose(proj, { env: A });
    expect(env).toMatchObject({ id: A, how: 'env' });
    expect(env.warnings).toEqual([
      expect.stringMatching(
        /^CLAUDE_CODE_TASK_LIST_ID is ".*" here, but Claude Code sessions started here use "refactor": .*settings\.local\.json overrides the environment$/,
      ),
    ]);
    // A broken settings file is skipped, as Claude Code skips it, and said.
    fs.writeFileSync(path.join(proj, '.claude', 'settings.local.json'), '{');
    const broken = w.choose(proj);
    expect(broken).toMatchObject({ id: A, how: 'project' });
    expect(broken.warnings).toEqual([expect.stringMatching(/settings\.local\.json is not valid JSON .*; Claude Code skips it too$/)]);
  });
});

describe('refusals, dry runs and the config folder', () => {
  it('a write that cannot choose is refused with its candidates; a dry run chooses as a read and carries the refusal', () => {
    const w = world();
    w.list(A);
    w.list(B);
    const proj = w.dir('p');
    expect(() => w.choose(proj, { forWrite: true })).toThrow(/2 task lists exist/);
    try {
      w.choose(proj, { forWrite: true });
    } catch (err) {
      expect((err as { details: { candidates: unknown } }).details.candidates).toEqual(
        expect.arrayContaining([{ list: A, shortId: '2d483082', prompt: null }]),
      );
    }
    const dry = w.choose(proj, { forWrite: true, dryRun: true });
    expect(dry.how).toBe('most-recent');
    expect(dry.writeRefusal?.message).toMatch(/2 task lists exist/);
  });

  it('a config folder that does not exist is not found, for reads and writes; no lists at all says how to start one', () => {
    const w = world();
    const missing = path.join(w.root, 'nope');
    for (const forWrite of [false, true]) {
      expect(() => chooseList(missing, { forWrite, cwd: w.root, home: w.home })).toThrow(/config folder .*nope does not exist/);
    }
    expect(() => w.choose(w.root)).toThrow(/no task lists under .* yet/);
    try {
      w.choose(w.root, { forWrite: true });
    } catch (err) {
      expect((err as { hint: string }).hint).toMatch(/tasks -l <name> create .*tasks use <name>/);
    }
  });
});

describe("the live session's list, even before it exists", () => {
  it("a live session with no list folder yet is the project's list: fresh, and the earlier list of its process is named", () => {
    const w = world();
    const proj = w.dir('work/web');
    w.list(A);
    const pid = liveProcess();
    const started = Date.now() - 10 * 60_000;
    // A ran first in this process, then /clear: its transcript ended, B's opened with the
    // command (no turn yet), the live file names B.
    writeTranscript(w.config, { sessionId: A, cwd: proj, prompt: 'before the clear', start: started + 1000, end: started + 60_000 });
    writeClearedTranscript(w.config, { sessionId: B, cwd: proj, at: started + 60_000 });
    writeLiveSession(w.config, { pid, sessionId: B, cwd: proj, status: 'idle', start: started });
    const read = w.choose(proj);
    expect(read).toMatchObject({ id: B, how: 'project', exists: false, fresh: true, replaced: [A] });
    expect(read.session).toMatchObject({ sessionId: B, state: 'live' });
    expect(w.choose(proj, { forWrite: true })).toMatchObject({ id: B, fresh: true });
    // The list its settings name, when there is a binding (read as Claude Code reads it).
    fs.mkdirSync(path.join(proj, '.claude'));
    fs.writeFileSync(path.join(proj, '.claude', 'settings.json'), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'team-web' } }));
    expect(w.choose(proj)).toMatchObject({ id: 'team-web', how: 'binding' });
  });
});

describe('what a missing list meant', () => {
  it('names the variable, and the full id a short one stands for', () => {
    const w = world();
    w.list(B);
    w.list('build-99');
    const env = w.choose(w.dir('p'), { env: '7baec0ff' });
    expect(env.exists).toBe(false);
    expect(missingListError(w.config, env).message).toBe(
      `list folder ${path.join(w.config, 'tasks', '7baec0ff')} does not exist (named by CLAUDE_CODE_TASK_LIST_ID="7baec0ff"); did you mean ${B}? Claude Code reads this variable exactly`,
    );
    const typo = w.choose(w.dir('p'), { flag: 'build-9' });
    expect(missingListError(w.config, typo).message).toMatch(/build-9 does not exist; did you mean build-99\?$/);
  });

  it('tasks use binds a name as it is, a short id in full, and says what is near', () => {
    const w = world();
    w.list(B);
    w.list(C);
    w.list('build-99');
    expect(listToBind(w.config, '7bae')).toEqual({ id: B, exists: true, near: [] });
    expect(listToBind(w.config, 'build-9')).toEqual({ id: 'build-9', exists: false, near: ['build-99'] });
    expect(listToBind(w.config, ' my.list ')).toEqual({ id: 'my-list', exists: false, near: [] });
    w.list('9c0fbeef-2222-4a4a-8b8b-000000000004');
    expect(() => listToBind(w.config, '9c0f')).toThrow(/ambiguous/);
  });
});

describe('names and short ids', () => {
  const NUMERIC = '4821c0de-5eaa-461a-bfdf-3e104fbfeff7';

  it('a number or a word is a name; a start of a session id holds a dash, or digits and hex letters', () => {
    for (const name of ['4821', '20240611', '12345678', 'cafe', 'decade', 'build-9', 'pr-123', 'abc', '7ba'])
      expect(mayBeSessionPrefix(name)).toBe(false);
    for (const prefix of ['7bae', '2d483082', ' 2D48 ', '4821c0de', '12345678-9', 'cafe-1', '4821-'])
      expect(mayBeSessionPrefix(prefix)).toBe(true);
  });

  it('short ids are always read back as session ids: one that begins with eight digits or letters goes on', () => {
    const all = shortIds([NUMERIC, '12345678-1111-4a4a-8b8b-000000000002', 'abcdefab-1111-4a4a-8b8b-000000000002', 'build-9']);
    expect(all.get(NUMERIC)).toBe('4821c0de');
    expect(all.get('12345678-1111-4a4a-8b8b-000000000002')).toBe('12345678-1');
    expect(all.get('abcdefab-1111-4a4a-8b8b-000000000002')).toBe('abcdefab-1');
    expect(all.get('build-9')).toBe('build-9');
    for (const short of all.values()) if (short !== 'build-9') expect(mayBeSessionPrefix(short)).toBe(true);
  });

  it('one id shortened among the others is what shortening them all gives it', () => {
    // Ids that share prefixes of every length with their neighbours, digits-only starts and names among them.
    const ids = [NUMERIC, A, B, C, 'build-9', '12345678-1111-4a4a-8b8b-000000000002', '12345678-1112-4a4a-8b8b-000000000002'];
    for (let i = 0; i < 40; i++) ids.push(`${A.slice(0, i % 30)}${B.slice(i % 30)}`.slice(0, 36));
    const unique = [...new Set(ids)];
    const all = shortIds(unique);
    for (const id of unique) expect(shortIdAmong(id, unique)).toBe(all.get(id));
  });

  it('-l, tasks use and the variable take a number exactly, even where a session id begins with it', () => {
    const w = world();
    w.list(NUMERIC);
    const p = w.dir('p');
    expect(w.choose(p, { flag: '4821' })).toMatchObject({ id: '4821', exists: false, how: 'flag' });
    expect(w.choose(p, { flag: '4821c0de' })).toMatchObject({ id: NUMERIC, exists: true, how: 'flag-prefix' });
    expect(listToBind(w.config, '4821')).toEqual({ id: '4821', exists: false, near: [] });
    expect(listToBind(w.config, '4821c0')).toEqual({ id: NUMERIC, exists: true, near: [] });
    // The variable: a number has no "did you mean" a session's list.
    const env = w.choose(p, { env: '4821' });
    expect(missingListError(w.config, env).message).not.toContain(NUMERIC);
    // -l is trimmed, as the variable is.
    w.list('build-9');
    expect(w.choose(p, { flag: ' build-9 ' })).toMatchObject({ id: 'build-9', exists: true });
  });

  it("a live session's short id names the list it will write, before its first task", () => {
    const w = world();
    const p = w.dir('fresh');
    writeTranscript(w.config, { sessionId: A, cwd: p, prompt: 'fresh', start: Date.now() - 60_000, end: Date.now() - 1000, todos: false });
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: A, cwd: p, status: 'idle', start: Date.now() - 60_000 });
    expect(w.choose(p, { flag: '2d483082', forWrite: true })).toMatchObject({ id: A, exists: false, fresh: true, how: 'flag-prefix' });
    const index = new SessionIndex(w.config, { settings: { home: w.home, uid: process.getuid?.() } });
    expect(listToBind(w.config, '2d483082', index)).toEqual({ id: A, exists: false, near: [] });
  });
});

describe('a home directory typed after =', () => {
  it('~ and ~/x are the home directory; ~user and ~user/x that user’s, from the password file; an unknown user stays as typed', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-passwd-')));
    const passwd = path.join(dir, 'passwd');
    fs.writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice,,,:/home/alice:/bin/zsh\n');
    const homeOf = (user: string) => homeOfUser(user, passwd);
    expect(expandHome('~', '/me', homeOf)).toBe('/me');
    expect(expandHome('~/cfg', '/me', homeOf)).toBe('/me/cfg');
    expect(expandHome('~alice', '/me', homeOf)).toBe('/home/alice');
    expect(expandHome('~alice/.claude', '/me', homeOf)).toBe('/home/alice/.claude');
    expect(expandHome('~bob/x', '/me', homeOf)).toBe('~bob/x');
    expect(expandHome('a/~alice', '/me', homeOf)).toBe('a/~alice');
    expect(homeOfUser('alice', path.join(dir, 'missing'))).toBeUndefined();
  });
});
