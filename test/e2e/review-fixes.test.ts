import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, readJson, runAsync, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeTranscript } from '../helpers/session-files.mjs';

/** Defects a hostile review found in sessions and history; each test failed before its fix. */
const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `T${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});
const journal = (config: string, list = 'L') => path.join(config, 'tasks', list, '.tasks-journal.jsonl');

describe('the journal, against damage', () => {
  it('a torn last line: the next change starts a line of its own, and undo refuses while the last line is damaged', () => {
    const config = tempConfig();
    const t = (...a: string[]) => runInProcessSync(config, ['-l', 'L', ...a]);
    t('create', 'a');
    t('create', 'b');
    t('update', '1', '--subject', 'A1');
    fs.appendFileSync(journal(config), '{"v":1,"at":"2026-11-30T1');
    t('update', '2', '--subject', 'B2');
    // The last change is #2's, and undo takes back that one.
    const undone = t('undo');
    expect(undone.code, undone.stderr).toBe(0);
    expect(readJson(path.join(config, 'tasks', 'L', '2.json'))).toMatchObject({ subject: 'b' });
    expect(readJson(path.join(config, 'tasks', 'L', '1.json'))).toMatchObject({ subject: 'A1' });
    // A damaged line after the last good one: undo cannot know the last change.
    fs.appendFileSync(journal(config), 'garbage\n');
    expect(t('undo')).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(/^error: cannot undo: the journal's last line is damaged \(line \d+: not JSON\)/),
    });
  });

  it('a FIFO where the journal goes: the change is made and the command ends, with a warning', () => {
    const config = tempConfig();
    runInProcessSync(config, ['-l', 'L', 'create', 'a']);
    fs.rmSync(journal(config));
    execFileSync('mkfifo', [journal(config)]);
    // The binary: a journal that is a FIFO could block a run; a process can be stopped.
    const r = spawnSync(process.execPath, [BIN, '-l', 'L', 'update', '1', '--subject', 'X'], {
      env: baseEnv(config),
      encoding: 'utf8',
      timeout: 15_000,
      killSignal: 'SIGKILL',
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^warning: could not record this change in .*: .*; the change itself is made\n$/);
    expect(readJson(path.join(config, 'tasks', 'L', '1.json'))).toMatchObject({ subject: 'X' });
  });

  it('two undos at once take turns: one takes back the block, the other the command before it; neither claims what it did not do', async () => {
    const config = tempConfig();
    runInProcessSync(config, ['-l', 'L', 'create', 'a']);
    runInProcessSync(config, ['-l', 'L', 'create', 'b']);
    runInProcessSync(config, ['-l', 'L', 'block', '2', '--by', '1']);
    // The binary: two undos at once, in two processes.
    const [x, y] = await Promise.all([runAsync(config, ['-l', 'L', 'undo']), runAsync(config, ['-l', 'L', 'undo'])]);
    expect([x!.code, y!.code]).toEqual([0, 0]);
    const said = [x!.stdout, y!.stdout].map((o) => o.split('\n')[0]!.replace(/ by .*/, '')).sort();
    expect(said).toEqual(['Undid block', 'Undid create']);
    const commands = [
      ...new Map(
        fs
          .readFileSync(journal(config), 'utf8')
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as { command: string; txn: string })
          .map((l) => [l.txn, l.command]),
      ).values(),
    ];
    expect(commands).toEqual(['create', 'create', 'block', 'undo', 'undo']);
    // Both taken back: the edge, then #2 itself.
    expect(fs.existsSync(path.join(config, 'tasks', 'L', '2.json'))).toBe(false);
    expect(readJson(path.join(config, 'tasks', 'L', '1.json'))).toMatchObject({ blocks: [] });
  });

  it('an undo that finds its command taken back meanwhile by another (the record not yet read) waits for that one, then takes back the one before', async () => {
    const config = tempConfig();
    const t = (...a: string[]) => runInProcessSync(config, ['-l', 'L', ...a]);
    t('create', 'a');
    t('create', 'b');
    t('block', '2', '--by', '1');
    const before = fs.readFileSync(journal(config), 'utf8');
    // Another undo, caught half-way: it holds the journal's lock and has written the files, but its record is not read yet.
    expect(t('undo').code).toBe(0);
    const after = fs.readFileSync(journal(config), 'utf8');
    fs.writeFileSync(journal(config), before);
    fs.mkdirSync(`${journal(config)}.lock`);
    // The binary: it waits on a lock this test releases while it runs.
    const second = runAsync(config, ['-l', 'L', 'undo']);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // The other one finishes: its record, then its lock released.
    fs.writeFileSync(journal(config), after);
    fs.rmdirSync(`${journal(config)}.lock`);
    const r = await second;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Undid create by /);
    expect(fs.existsSync(path.join(config, 'tasks', 'L', '2.json'))).toBe(false);
  });

  it('deleting a task with a value over 16,384 characters warns that undo cannot restore it', () => {
    const config = tempConfig();
    runInProcessSync(config, ['-l', 'L', 'create', 'big', '-d', 'y'.repeat(20_000)]);
    const r = runInProcessSync(config, ['-l', 'L', 'delete', '1']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: the journal keeps only part of #1 (a value over 16,384 characters): undo cannot restore it in full',
    );
  });
});

describe('list choice, against odd places', () => {
  it('a deleted working directory is no project: a change refuses instead of going to the home session', () => {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const gone = path.join(home, 'gone');
    fs.mkdirSync(gone, { recursive: true });
    const id = 'dddddddd-4444-4444-8444-444444444444';
    writeTranscript(config, { sessionId: id, cwd: home, prompt: 'home session' });
    fs.mkdirSync(path.join(config, 'tasks', id), { recursive: true });
    writeTask(path.join(config, 'tasks', id), task('1'));
    fs.mkdirSync(path.join(config, 'tasks', 'other'), { recursive: true });
    // The binary: only a process can stand in a deleted working directory.
    const r = spawnSync(
      'bash',
      ['-c', `cd "${gone}" && rmdir "${gone}" && exec "${process.execPath}" "${BIN}" create "meant for a project"`],
      { env: baseEnv(config), encoding: 'utf8' },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: 2 task lists exist and none belongs to this directory's sessions/);
    expect(fs.readdirSync(path.join(config, 'tasks', id)).filter((f) => f.endsWith('.json'))).toEqual(['1.json']);
  });

  it('a symlinked home: sessions are recorded by real paths, and ~ still bounds the project search', () => {
    const config = tempConfig();
    const real = path.join(config, 'realhome');
    const link = path.join(config, 'homelink');
    fs.mkdirSync(path.join(real, 'work', 'p'), { recursive: true });
    fs.symlinkSync(real, link);
    const inHome = '99999999-0000-4000-8000-000000000009';
    writeTranscript(config, { sessionId: inHome, cwd: real, prompt: 'in home' });
    for (const id of [inHome, 'other']) {
      fs.mkdirSync(path.join(config, 'tasks', id), { recursive: true });
      writeTask(path.join(config, 'tasks', id), task('1'));
    }
    const r = runInProcessSync(config, ['create', 'probe'], { cwd: path.join(link, 'work', 'p'), env: { HOME: link } });
    expect(r.code).toBe(2);
    const inItself = runInProcessSync(config, ['list', '--json'], { cwd: link, env: { HOME: link } });
    // An id that begins with eight digits is shown with one more character: `99999999` alone would name list 99999999.
    expect(stderrText(inItself.stderr)).toMatch(/^using list 99999999-0 \(ended session "in home", ~,/);
  });

  it('--new-list names exactly the new list, even when an existing list starts with that name', () => {
    const config = tempConfig();
    runInProcessSync(config, ['-l', 'web-v2', 'create', 'a']);
    const r = runInProcessSync(config, ['-l', 'web', 'create', 'new list please', '--new-list']);
    expect(r).toMatchObject({ code: 0, stdout: '1\n', stderr: 'new list "web"\n' });
    expect(
      fs
        .readdirSync(path.join(config, 'tasks'))
        .filter((f) => !f.startsWith('.'))
        .sort(),
    ).toEqual(['web', 'web-v2']);
  });
});

describe('owners that people gave with tasks are not gone with a session', () => {
  it("bob, assigned with tasks in an ended session's list, is not marked and not released", () => {
    const config = tempConfig();
    const proj = path.join(config, 'home', 'proj');
    fs.mkdirSync(proj, { recursive: true });
    const id = '32c74093-62c1-4786-af2a-9fc412ceedba';
    writeTranscript(config, { sessionId: id, cwd: proj, prompt: 'p' });
    const dir = path.join(config, 'tasks', id);
    fs.mkdirSync(dir, { recursive: true });
    writeTask(dir, task('1', { owner: 'agent-7', status: 'in_progress' }));
    writeTask(dir, task('2'));
    runInProcessSync(config, ['-l', id, 'update', '2', '--owner', 'bob']);
    const dry = runInProcessSync(config, ['-l', id, 'release', '--gone', '-n']);
    expect(dry.stdout).toContain('Would release task #1 from agent-7');
    expect(dry.stdout).not.toContain('bob');
    expect(runInProcessSync(config, ['-l', id, 'get', '2']).stdout).not.toMatch(/gone/);
  });
});
