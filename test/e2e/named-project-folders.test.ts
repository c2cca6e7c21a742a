/**
 * `$CLAUDE_CODE_PROJECT_DIR_NAME`: with `$CLAUDE_CONFIG_DIR` set, Claude Code (2.1.328)
 * keeps a session's transcript in `<config>/projects/<that name>/`, not in the folder named
 * after its directory; its live-session file and its list stay where they always are.
 * Such a session is still its directory's: `tasks list` there reads its list, a change
 * there goes to it, and `lists` says whose list it is, whether `tasks` runs with the same
 * variable or without it. Through the built binary, each run twice: the second takes the
 * project's sessions from what the first kept (kept-choice.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { namedAfterDirectory, namedProjectFolder, projectFolderName } from '../../src/core/sessions/project-folders.js';
import { run, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { writeClearedTranscript, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

const MINE = '53791fc0-22f8-4fd4-9460-31b2c254b56a';
const OTHER = '0d1e2f30-4a5b-4c6d-8e7f-a0b1c2d3e4f5';
const NEIGHBOUR = '9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d';

function task(config: string, list: string, subject: string, at: number): void {
  const dir = path.join(config, 'tasks', list);
  writeTask(dir, { id: '1', subject, description: '', status: 'pending', blocks: [], blockedBy: [] });
  fs.utimesSync(path.join(dir, '1.json'), new Date(at), new Date(at));
}

/**
 * A config folder as the agent lays it out: a session in `my.proj` run with
 * CLAUDE_CODE_PROJECT_DIR_NAME=myproj (its transcript in projects/myproj/), a session of
 * another directory in the same named folder, and another project's list changed since.
 */
function world(name = 'myproj') {
  const config = tempConfig();
  const proj = path.join(config, 'home', 'work', 'my.proj');
  const neighbour = path.join(config, 'home', 'work', 'neighbour');
  const elsewhere = path.join(config, 'home', 'elsewhere');
  for (const d of [proj, neighbour, elsewhere]) fs.mkdirSync(d, { recursive: true });
  const now = Date.now();
  writeTranscript(config, {
    sessionId: MINE,
    cwd: proj,
    prompt: 'my work',
    projectFolder: name,
    start: now - 3_600_000,
    end: now - 3_000_000,
  });
  task(config, MINE, 'My task', now - 3_000_000);
  // Another directory's session in the same named folder, more recent: never this directory's.
  writeTranscript(config, {
    sessionId: NEIGHBOUR,
    cwd: neighbour,
    prompt: 'neighbour work',
    projectFolder: name,
    start: now - 600_000,
    end: now - 500_000,
  });
  task(config, NEIGHBOUR, 'Neighbour task', now - 500_000);
  // Another project's list (its folder named after its directory), changed last.
  writeTranscript(config, { sessionId: OTHER, cwd: elsewhere, prompt: 'other work', start: now - 120_000, end: now - 60_000 });
  task(config, OTHER, 'Other task', now - 60_000);
  return { config, proj, neighbour, now };
}

describe('a session whose project folder CLAUDE_CODE_PROJECT_DIR_NAME names', () => {
  it('applies as Claude Code applies it: with CLAUDE_CONFIG_DIR set, a name of 1-64 of [A-Za-z0-9_-], no device name', () => {
    expect(namedProjectFolder({ CLAUDE_CONFIG_DIR: '/c', CLAUDE_CODE_PROJECT_DIR_NAME: 'a_b-C9' })).toBe('a_b-C9');
    expect(namedProjectFolder({ CLAUDE_CONFIG_DIR: '/c', CLAUDE_CODE_PROJECT_DIR_NAME: 'x'.repeat(64) })).toBe('x'.repeat(64));
    // Each of these, the agent ignores: the folder is named after the directory.
    expect(namedProjectFolder({ CLAUDE_CODE_PROJECT_DIR_NAME: 'myproj' })).toBeUndefined();
    expect(namedProjectFolder({ CLAUDE_CONFIG_DIR: '', CLAUDE_CODE_PROJECT_DIR_NAME: 'myproj' })).toBeUndefined();
    for (const bad of ['', 'my.proj', 'x'.repeat(65), 'con', 'COM1', ' myproj', 'a/b'])
      expect(namedProjectFolder({ CLAUDE_CONFIG_DIR: '/c', CLAUDE_CODE_PROJECT_DIR_NAME: bad })).toBeUndefined();
    // Folders a directory names, and those only the variable does.
    expect(namedAfterDirectory(projectFolderName('/tmp/sess/work/my.proj'))).toBe(true);
    expect(namedAfterDirectory('C--Users-me-proj')).toBe(true);
    for (const named of ['myproj', 'api_v2', '-with_underscore']) expect(namedAfterDirectory(named)).toBe(false);
  });

  for (const variable of ['set', 'not set'] as const) {
    it(`is its directory's with the variable ${variable} for tasks: list, create, lists`, () => {
      const { config, proj, now } = world();
      const env = {
        TASKS_NOW: String(now + 5_000),
        CLAUDE_CODE_PROJECT_DIR_NAME: variable === 'set' ? 'myproj' : undefined,
      };
      for (const pass of ['worked out', 'kept']) {
        const list = run(config, ['list', '--json'], { cwd: proj, env });
        expect({ pass, code: list.code, stderr: stderrText(list.stderr) }).toMatchObject({ pass, code: 0 });
        expect(JSON.parse(list.stdout).map((t: { subject: string }) => t.subject)).toEqual(['My task']);
        expect(stderrText(list.stderr)).toContain('53791fc0');
        expect(stderrText(list.stderr)).toContain('my work');
      }
      const create = run(config, ['create', 'Next task'], { cwd: proj, env });
      expect(create.code, create.stderr).toBe(0);
      expect(fs.readdirSync(path.join(config, 'tasks', MINE))).toContain('2.json');
      expect(fs.readdirSync(path.join(config, 'tasks', NEIGHBOUR)).filter((f) => f.endsWith('.json'))).toEqual(['1.json']);
      // lists --here: the directory's own session, not the neighbour in the same folder.
      const here = run(config, ['lists', '--here', '--json'], { cwd: proj, env });
      expect(here.code, here.stderr).toBe(0);
      const rows = JSON.parse(here.stdout) as Array<{ id: string; sessionId: string | null; cwd?: string | null }>;
      expect(rows.map((r) => r.id)).toEqual([MINE]);
    });
  }

  it('what was found is kept, and a new session in the named folder is seen at once all the same', () => {
    const { config, proj, now } = world();
    const env = { TASKS_NOW: String(now + 5_000), XDG_CACHE_HOME: path.join(config, 'cache') };
    expect(JSON.parse(run(config, ['list', '--json'], { cwd: proj, env }).stdout)[0].subject).toBe('My task');
    // Kept with the folder its transcript is in; marked, the next run shows it used what was kept.
    const root = path.join(config, 'cache', 'tasks');
    const shard = fs
      .readdirSync(root)
      .map((owner) => path.join(root, owner, '_choice.json'))
      .find((f) => fs.existsSync(f)) as string;
    const body = JSON.parse(fs.readFileSync(shard, 'utf8')) as { entries: Record<string, { ended: string[][] }> };
    expect(body.entries[proj]?.ended).toEqual([[MINE, MINE, 'myproj']]);
    (body.entries[proj]?.ended[0] as string[])[1] = 'KEPT';
    fs.writeFileSync(shard, JSON.stringify(body));
    expect(run(config, ['list'], { cwd: proj, env }).stderr).toContain('using list KEPT');
    const NEWER = 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b';
    writeTranscript(config, {
      sessionId: NEWER,
      cwd: proj,
      prompt: 'newer work',
      projectFolder: 'myproj',
      start: now - 30_000,
      end: now - 20_000,
    });
    task(config, NEWER, 'Newer task', now - 20_000);
    const list = run(config, ['list', '--json'], { cwd: proj, env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).map((t: { subject: string }) => t.subject)).toEqual(['Newer task']);
  });

  it('a named folder that looks like a directory\'s ("-myproj") is found only where tasks runs with the same variable', () => {
    const { config, proj, now } = world('-myproj');
    const env = { TASKS_NOW: String(now + 5_000) };
    // Without it: no session of the directory is known, and the most recently changed list is read.
    const without = run(config, ['list', '--json'], { cwd: proj, env });
    expect(JSON.parse(without.stdout).map((t: { subject: string }) => t.subject)).toEqual(['Other task']);
    const withIt = run(config, ['list', '--json'], { cwd: proj, env: { ...env, CLAUDE_CODE_PROJECT_DIR_NAME: '-myproj' } });
    expect(withIt.code, withIt.stderr).toBe(0);
    expect(JSON.parse(withIt.stdout).map((t: { subject: string }) => t.subject)).toEqual(['My task']);
  });

  it('a live session /clear-ed there: its list before is found in the named folder too', () => {
    const { config, proj } = world();
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(child);
    const CLEARED = '7baec0ff-1111-4a4a-8b8b-000000000002';
    const started = Date.now() - 30 * 60_000;
    // The process's first session (MINE's transcript, rewritten to end as /clear began the next).
    writeTranscript(config, {
      sessionId: MINE,
      cwd: proj,
      prompt: 'my work',
      projectFolder: 'myproj',
      start: started + 1000,
      end: started + 600_000,
    });
    writeClearedTranscript(config, { sessionId: CLEARED, cwd: proj, at: started + 600_000, folder: 'myproj' });
    writeLiveSession(config, { pid: child.pid as number, sessionId: CLEARED, cwd: proj, status: 'idle', start: started });
    const read = run(config, ['list', '--json'], { cwd: proj });
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual([]);
    expect(stderrText(read.stderr)).toContain(`using list 7baec0ff (live session`);
    expect(stderrText(read.stderr)).toContain(`its list before: ${MINE.slice(0, 8)}`);
    const rows = JSON.parse(run(config, ['lists', '--json'], { cwd: proj }).stdout) as Array<{ id: string; replacedBy: string | null }>;
    expect(rows.find((r) => r.id === MINE)).toMatchObject({ replacedBy: CLEARED });
  });
});

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});
